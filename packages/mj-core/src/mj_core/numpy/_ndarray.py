"""``EagerArray``: what mj.numpy's creation functions and ``.at`` updates return eagerly.

Eager mj evaluates with NumPy, so operation results are plain ``np.ndarray``s (that is what
keeps eager overhead near NumPy's). Arrays a user *creates* (``mnp.array``, ``mnp.zeros``,
``mnp.arange``, ...) and the results of ``x.at[idx].set(...)`` are this thin subclass, so
JAX code keeps working unchanged on them: ``x.at[idx].set(y)`` exists, ``x[idx] = y`` raises
``TypeError`` (arrays are immutable) and ``x += y`` rebinds ``x`` to a new array instead of
writing into memory that another array may share. NumPy operations on an ``EagerArray`` return
plain arrays (``__array_wrap__``), so only the first operation after creation pays the
subclass's small extra cost; use ``mnp.asarray(x)`` (a free view) to get ``.at`` on any array.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import wraps
from typing import Any, TypeVar

import numpy as np

from mj_core.avals import pytype_aval_mappings, register_array_type

__all__ = ["EagerArray", "as_eager_array", "eager_array_result"]

F = TypeVar("F", bound=Callable[..., Any])


class EagerArray(np.ndarray):
    """An immutable-by-convention NumPy array with JAX's ``.at`` update syntax."""

    __slots__ = ()

    def __array_wrap__(
        self,
        arr: np.ndarray,
        context: Any = None,
        return_scalar: bool = False,
    ) -> Any:
        return arr[()] if return_scalar else arr

    def block_until_ready(self) -> EagerArray:
        """Eager NumPy data is always ready (JAX code calls this before timing)."""
        return self

    @property
    def at(self) -> Any:
        """``x.at[idx].set(y)`` / ``.add`` / ``.multiply`` / ``.min`` / ``.max`` / ``.get``."""
        from mj_core.numpy._indexing import IndexUpdateHelper  # (imports this module)

        return IndexUpdateHelper(self)

    def __repr__(self) -> str:
        prefix = "Array("
        body = np.array2string(self.view(np.ndarray), separator=", ", prefix=prefix)
        return f"{prefix}{body}, dtype={self.dtype.name})"

    def __getitem__(self, key: Any) -> Any:
        """JAX indexing semantics (e.g. out-of-bounds integer indices clamp)."""
        from mj_core.numpy._indexing import getitem

        return getitem(self.view(np.ndarray), key)

    def __iter__(self) -> Iterator[Any]:
        # NumPy's default iterator indexes until IndexError, which clamped indexing never raises.
        return iter(self.view(np.ndarray))

    def __setitem__(self, key: Any, value: Any) -> None:
        raise TypeError(
            "mj arrays are immutable: they do not support item assignment. Instead of "
            "x[idx] = y, use x = x.at[idx].set(y)."
        )


def _out_of_place(ufunc: np.ufunc) -> Callable[[Any, Any], Any]:
    def method(self: Any, other: Any) -> Any:
        return ufunc(self, other)

    method.__name__ = f"__i{ufunc.__name__}__"
    return method


# ``x += y`` makes a new array, as in JAX (``x`` may be a view of a user's NumPy array).
for _name, _ufunc in {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "truediv": np.true_divide,
    "floordiv": np.floor_divide,
    "mod": np.remainder,
    "pow": np.power,
    "matmul": np.matmul,
    "and": np.bitwise_and,
    "or": np.bitwise_or,
    "xor": np.bitwise_xor,
    "lshift": np.left_shift,
    "rshift": np.right_shift,
}.items():
    setattr(EagerArray, f"__i{_name}__", _out_of_place(_ufunc))

register_array_type(EagerArray, pytype_aval_mappings[np.ndarray])


def as_eager_array(x: Any) -> Any:
    """``x`` viewed as an :class:`EagerArray` if it is a plain NumPy array (eager result)."""
    return x.view(EagerArray) if type(x) is np.ndarray else x


def eager_array_result(fun: F) -> F:
    """Decorate an array-creating function so its eager result is an :class:`EagerArray`."""

    @wraps(fun)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        out = fun(*args, **kwargs)
        if type(out) is tuple:
            return tuple(as_eager_array(o) for o in out)
        return as_eager_array(out)

    return wrapper  # type: ignore[return-value]
