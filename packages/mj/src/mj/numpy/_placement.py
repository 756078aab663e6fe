"""JAX's ``device=`` keyword of the array-creating functions: the result placed on a device
(committed to it) or laid out by a sharding, as ``mj.device_put(result, device)``. Inside
``jit`` the placement is the compiled function's (the value is returned as traced)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import mj_core.numpy as cnp
from mj_core import EagerArray
from mj_core.extend import Array, ArrayLike, DTypeLike
from mj_xla import device_put

__all__ = [
    "arange",
    "array",
    "asarray",
    "empty",
    "empty_like",
    "eye",
    "full",
    "full_like",
    "linspace",
    "ones",
    "ones_like",
    "zeros",
    "zeros_like",
]

Shape = int | Sequence[int]


def _placed(out: Any, device: Any) -> Any:
    return out if device is None else device_put(out, device)


def _address(x: EagerArray) -> int:
    return x.unsafe_buffer_pointer()


def array(
    object: Any,
    dtype: DTypeLike | None = None,
    copy: bool | None = True,
    ndmin: int = 0,
    *,
    device: Any = None,
) -> Array:
    """An array from array-likes or (nested) sequences (see ``mj_core.numpy.array``); with
    ``copy`` (the default) an mj array's data is copied, as JAX's buffers are (mj-core shares
    immutable data; ``unsafe_buffer_pointer`` and ``delete`` tell the difference)."""
    out: Any = cnp.array(object, dtype, copy, ndmin)
    if copy and isinstance(object, EagerArray) and isinstance(out, EagerArray):
        out = out.copy() if _address(out) == _address(object) else out
    return _placed(out, device)  # type: ignore[no-any-return]


def asarray(
    a: object, dtype: DTypeLike | None = None, copy: bool | None = None, *, device: Any = None
) -> Array:
    """Like :func:`array` but without copying NumPy input."""
    return _placed(cnp.asarray(a, dtype, copy), device)  # type: ignore[no-any-return]


def _with_shape_hint(name: str, make: Any, shape: Shape, dtype: Any) -> Any:
    """``make(shape, dtype)``; JAX's hint when ``zeros(2, 3)`` meant ``zeros((2, 3))``."""
    try:
        return make(shape, dtype)
    except TypeError as e:
        if not (isinstance(shape, int) and isinstance(dtype, int)):
            raise
        raise TypeError(
            f"{str(e).rstrip('.')}.\n\nDid you accidentally write `jax.numpy.{name}({shape}, "
            f"{dtype})` when you meant `jax.numpy.{name}(({shape}, {dtype}))`, i.e. with a "
            "single tuple argument for the shape?"
        ) from None


def zeros(shape: Shape, dtype: DTypeLike | None = None, *, device: Any = None) -> Array:
    """An array of zeros."""
    return _placed(_with_shape_hint("zeros", cnp.zeros, shape, dtype), device)  # type: ignore[no-any-return]


def ones(shape: Shape, dtype: DTypeLike | None = None, *, device: Any = None) -> Array:
    """An array of ones."""
    return _placed(_with_shape_hint("ones", cnp.ones, shape, dtype), device)  # type: ignore[no-any-return]


def empty(shape: Shape, dtype: DTypeLike | None = None, *, device: Any = None) -> Array:
    """An array of ``shape`` (zeros, as in JAX: arrays are never uninitialized)."""
    return _placed(_with_shape_hint("empty", cnp.empty, shape, dtype), device)  # type: ignore[no-any-return]


def full(
    shape: Shape, fill_value: ArrayLike, dtype: DTypeLike | None = None, *, device: Any = None
) -> Array:
    """An array of ``shape`` filled with ``fill_value``."""
    return _placed(cnp.full(shape, fill_value, dtype), device)  # type: ignore[no-any-return]


def zeros_like(
    a: ArrayLike, dtype: DTypeLike | None = None, shape: Shape | None = None, *, device: Any = None
) -> Array:
    """Zeros with ``a``'s shape and dtype (and placement, unless ``device`` is given)."""
    return _placed(cnp.zeros_like(a, dtype, shape), device)  # type: ignore[no-any-return]


def ones_like(
    a: ArrayLike, dtype: DTypeLike | None = None, shape: Shape | None = None, *, device: Any = None
) -> Array:
    """Ones with ``a``'s shape and dtype (and placement, unless ``device`` is given)."""
    return _placed(cnp.ones_like(a, dtype, shape), device)  # type: ignore[no-any-return]


def empty_like(
    prototype: ArrayLike,
    dtype: DTypeLike | None = None,
    shape: Shape | None = None,
    *,
    device: Any = None,
) -> Array:
    """An array like ``prototype`` (zeros, as in JAX)."""
    return _placed(cnp.empty_like(prototype, dtype, shape), device)  # type: ignore[no-any-return]


def full_like(
    a: ArrayLike,
    fill_value: ArrayLike,
    dtype: DTypeLike | None = None,
    shape: Shape | None = None,
    *,
    device: Any = None,
) -> Array:
    """``fill_value`` with ``a``'s shape and dtype (and placement, unless ``device``)."""
    out = cnp.full_like(a, fill_value, dtype, shape)
    return _placed(out, device)  # type: ignore[no-any-return]


def arange(
    start: Any,
    stop: Any = None,
    step: Any = None,
    dtype: DTypeLike | None = None,
    *,
    device: Any = None,
) -> Array:
    """Evenly spaced values in ``[start, stop)``; bounds must be concrete numbers."""
    return _placed(cnp.arange(start, stop, step, dtype), device)  # type: ignore[no-any-return]


def linspace(
    start: ArrayLike,
    stop: ArrayLike,
    num: int = 50,
    endpoint: bool = True,
    retstep: bool = False,
    dtype: DTypeLike | None = None,
    axis: int = 0,
    *,
    device: Any = None,
) -> Any:
    """``num`` evenly spaced samples from ``start`` to ``stop`` (and the step if
    ``retstep``)."""
    return _placed(cnp.linspace(start, stop, num, endpoint, retstep, dtype, axis), device)


def eye(
    N: int,  # noqa: N803
    M: int | None = None,  # noqa: N803
    k: int | ArrayLike = 0,
    dtype: DTypeLike | None = None,
    *,
    device: Any = None,
) -> Array:
    """A 2-d array with ones on the ``k``-th diagonal."""
    return _placed(cnp.eye(N, M, k, dtype), device)  # type: ignore[no-any-return]
