"""``jax.Array``'s NumPy-level methods (``x.sort()``, ``x.argsort()``, ``x.searchsorted(v)``,
``x.nonzero(size=...)``, ``x.repeat(...)``, ...), installed on mj's three array types by
:func:`install_numpy_methods` when ``mj`` is imported.

They are implemented in :mod:`mj.numpy`, above ``mj_core``, so they cannot sit in
``mj_core.array_methods`` with the operators. Tracers and device arrays get them outright.
Eager arrays are NumPy arrays, and NumPy's own code calls some of these methods expecting
NumPy's behaviour: ``np.sort``, ``np.unique`` and ``np.median`` sort or partition a copy *in
place* with ``a.sort()``/``a.partition()``, ``np.searchsorted`` expects int64 indices. So on
``EagerArray`` a call made from NumPy's modules keeps NumPy's method, and any other call gets
JAX's (``x.sort()`` returns the sorted copy and leaves ``x`` as it was).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from mj.numpy._extras import nonzero
from mj.numpy._manipulation import repeat
from mj.numpy._matrices import diagonal, trace
from mj.numpy._searching import searchsorted
from mj.numpy._selection import choose, compress
from mj.numpy._sorting import argpartition, argsort, sort
from mj_core import array_methods
from mj_core.eager_array import EagerArray
from mj_core.trace import Tracer
from mj_xla import Array

__all__ = ["install_numpy_methods", "numpy_methods"]


def _trace(
    self: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None, out: None = None
) -> Any:
    if out is not None:
        raise NotImplementedError(
            "trace: the 'out' argument is not supported (arrays are immutable)"
        )
    return trace(self, offset, axis1, axis2, dtype)


def _compress(
    self: Any,
    condition: Any,
    axis: int | None = None,
    *,
    out: None = None,
    size: int | None = None,
    fill_value: Any = 0,
) -> Any:
    return compress(condition, self, axis, size=size, fill_value=fill_value, out=out)


def _partition_in_place(self: Any, *args: Any, **kwargs: Any) -> None:
    raise TypeError(
        "mj arrays are immutable: x.partition(kth) would partition x in place. Use "
        "mnp.partition(x, kth), which returns the partitioned copy."
    )


#: name -> implementation, with ``jax.Array``'s method signatures.
numpy_methods: dict[str, Callable[..., Any]] = {
    "sort": sort,
    "argsort": argsort,
    "argpartition": argpartition,
    "searchsorted": searchsorted,
    "nonzero": nonzero,
    "diagonal": diagonal,
    "trace": _trace,
    "repeat": repeat,
    "choose": choose,
    "compress": _compress,
}

#: The ``EagerArray`` methods whose JAX behaviour differs from NumPy's (NumPy's own code gets
#: NumPy's); ``partition`` exists only for NumPy's code, as JAX arrays have none.
_EAGER_OVERRIDES: dict[str, Callable[..., Any]] = {
    "sort": sort,
    "argsort": argsort,
    "argpartition": argpartition,
    "searchsorted": searchsorted,
    "nonzero": nonzero,
    "repeat": repeat,
    "choose": choose,
    "compress": _compress,
    "partition": _partition_in_place,
}


def _unless_called_by_numpy(
    name: str, numpy_impl: Callable[..., Any], mj_impl: Callable[..., Any]
) -> Callable[..., Any]:
    """A method running ``numpy_impl`` when NumPy's own modules call it, else ``mj_impl``."""

    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if caller.partition(".")[0] == "numpy":
            return numpy_impl(self, *args, **kwargs)
        return mj_impl(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = mj_impl.__doc__
    method.__wrapped_numpy__ = numpy_impl  # type: ignore[attr-defined]
    return method


def install_numpy_methods() -> None:
    """Give tracers, device arrays and eager arrays ``jax.Array``'s NumPy-level methods."""
    for cls in (Tracer, Array):
        for name, impl in numpy_methods.items():
            setattr(cls, name, impl)
    for name, impl in _EAGER_OVERRIDES.items():
        current = getattr(EagerArray, name)
        numpy_impl = getattr(current, "__wrapped_numpy__", current)  # installing twice is fine
        setattr(EagerArray, name, _unless_called_by_numpy(name, numpy_impl, impl))
    EagerArray.ptp = array_methods["ptp"]  # type: ignore[attr-defined]  # (gone from NumPy 2)
