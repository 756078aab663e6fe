"""Array construction beyond ``mj_core.numpy``: ``diagflat``, ``fromfunction`` (a ``vmap``
over index ranges, as in JAX) and the readers of existing data (``frombuffer``,
``fromstring``, ``from_dlpack``), which build concrete arrays eagerly through NumPy.
``fromiter`` is refused, as in JAX: consuming an iterator is a side effect that tracing
would repeat or skip."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

import numpy as np

import mj_core.numpy as cnp
from mj_batch import vmap
from mj_core import Tracer
from mj_core.extend import (
    Array,
    ArrayLike,
    DTypeLike,
    check_arraylike,
    concrete_or_error,
    static_int,
)
from mj_core.numpy import diag
from mj_xla import device_put

__all__ = [
    "diagflat",
    "from_dlpack",
    "frombuffer",
    "fromfile",
    "fromfunction",
    "fromiter",
    "fromstring",
]


def diagflat(v: ArrayLike, k: int = 0) -> Array:
    """A square matrix with the flattened ``v`` on its ``k``-th diagonal."""
    check_arraylike("diagflat", [v])
    return diag(cnp.ravel(cnp.asarray(v)), k)


def fromfunction(
    function: Callable[..., Any],
    shape: int | Sequence[int],
    *,
    dtype: DTypeLike | None = float,
    **kwargs: object,
) -> Any:
    """``function(i, j, ...)`` evaluated at every index of ``shape``: one ``vmap`` per axis,
    so ``function`` is written for scalar indices (of ``dtype``); ``kwargs`` are passed
    through unmapped."""
    dims_in = (shape,) if np.ndim(shape) == 0 else tuple(shape)  # type: ignore[arg-type]
    dims = tuple(static_int("fromfunction", d, "shape") for d in dims_in)
    mapped = functools.partial(function, **kwargs) if kwargs else function
    n = len(dims)
    for i in range(n):
        in_axes = tuple(0 if i == j else None for j in range(n))
        mapped = vmap(mapped, in_axes=in_axes[::-1])
    return mapped(*(cnp.arange(d, dtype=dtype) for d in dims))


def frombuffer(
    buffer: bytes | Any, dtype: DTypeLike | None = float, count: int = -1, offset: int = 0
) -> Array:
    """The bytes of ``buffer`` interpreted as a 1-D array of ``dtype`` (NumPy's reading)."""
    return cnp.asarray(np.frombuffer(buffer, dtype=dtype, count=count, offset=offset))


def fromstring(string: str, dtype: DTypeLike | None = float, count: int = -1, *, sep: str) -> Array:
    """The numbers in the text ``string``, separated by ``sep`` (NumPy's parsing)."""
    return cnp.asarray(np.fromstring(string, dtype=dtype, count=count, sep=sep))


def fromiter(*args: object, **kwargs: object) -> NoReturn:
    """Not supported, as in JAX: use ``mnp.asarray(np.fromiter(...))`` outside
    transformations."""
    raise NotImplementedError(
        "fromiter is not implemented because consuming an iterator is not pure, so it is "
        "unsafe under jit and the other transformations. Use mnp.asarray(np.fromiter(...)) "
        "instead, outside transformed functions."
    )


def fromfile(*args: object, **kwargs: object) -> NoReturn:
    """Not supported, as in JAX: use ``mnp.asarray(np.fromfile(...))`` outside
    transformations."""
    raise NotImplementedError(
        "jnp.fromfile() is not implemented because it may be non-pure and thus unsafe for use "
        "with JIT and other JAX transformations. Consider using jnp.asarray(np.fromfile(...)) "
        "instead, although care should be taken if np.fromfile is used within a jax "
        "transformations because of its potential side-effect of consuming the file object."
    )


def from_dlpack(x: Any, /, *, device: Any = None, copy: bool | None = None) -> Array:
    """An mj array holding the data of ``x``, any object with ``__dlpack__`` (a NumPy array,
    a PyTorch CPU tensor, ...) or an mj array; placed on ``device`` if given."""
    if isinstance(x, Tracer):
        concrete_or_error("from_dlpack", x, "x", "Pass a concrete array.")
    if isinstance(x, Array):
        out = x  # already an mj array (mj arrays are immutable, so no copy is needed)
    elif hasattr(x, "__dlpack__"):
        out = cnp.asarray(np.from_dlpack(x, copy=copy))
    else:
        raise TypeError(
            "from_dlpack: expected an object implementing the DLPack protocol (__dlpack__), "
            f"got {type(x).__name__}"
        )
    return out if device is None else device_put(out, device)
