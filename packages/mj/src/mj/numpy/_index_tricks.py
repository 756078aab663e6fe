"""Index helpers: NumPy's index tricks (``r_``, ``c_``, ``mgrid``, ``ogrid``), conversion
between flat and multi-dimensional indices, and the ``*_indices_from`` helpers.

The slices given to ``r_``/``c_``/``mgrid``/``ogrid`` set the output's shape, so their bounds
must be concrete (as in JAX); the arrays ``r_``/``c_`` concatenate may be traced.
``ravel_multi_index(mode='raise')`` reads its indices to check them, so under ``jit`` it needs
``mode='clip'`` or ``'wrap'``; every other function here traces.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import mj_core.numpy as cnp
from mj_core import Tracer, config
from mj_core.extend import (
    AnyArray,
    Array,
    ArrayLike,
    DTypeLike,
    check_arraylike,
    concrete_or_error,
    promote,
    static_int,
)
from mj_core.numpy import diag_indices, meshgrid, nonzero, tril_indices, triu_indices

__all__ = [
    "c_",
    "diag_indices_from",
    "mask_indices",
    "mgrid",
    "ogrid",
    "r_",
    "ravel_multi_index",
    "tril_indices_from",
    "triu_indices_from",
    "unravel_index",
]


def _slice_bound(name: str, value: object, what: str) -> Any:
    """A slice bound as a Python scalar (``None`` stays ``None``)."""
    if not isinstance(value, Tracer):
        return value
    hint = "The slice bounds set the output's shape, so they must be static."
    return concrete_or_error(name, value, f"the slice {what}", hint).item()


def _range_from_slice(s: object, name: str) -> AnyArray:
    """``start:stop:step`` as ``arange``, or as ``linspace`` with ``abs(step)`` points when the
    step is imaginary (NumPy's ``0:1:5j``)."""
    if not isinstance(s, slice):
        raise TypeError(
            f"{name}: expected slices such as {name}[0:3] or {name}[0:1:5j], got "
            f"{type(s).__name__} {s!r}"
        )
    start = _slice_bound(name, s.start, "start") or 0
    stop = _slice_bound(name, s.stop, "stop")
    step = _slice_bound(name, s.step, "step") or 1
    if np.iscomplex(step):
        return cnp.linspace(start, stop, int(abs(step)))
    if stop is None:  # NumPy's arange(n, None, step) counts to n, as JAX's mgrid[n:] does
        start, stop = 0, start
    return cnp.arange(start, stop, step)


def _promote_ranges(key: tuple[object, ...], name: str) -> list[Any]:
    """The ranges of the slices of ``key`` in one dtype, promoted as JAX's grids promote them
    (standard promotion even under ``numpy_dtype_promotion="strict"``: ``0:1:3j, 0:2``)."""
    ranges = [_range_from_slice(k, name) for k in key]
    with config.override("numpy_dtype_promotion", "standard"):
        return list(promote(*ranges))


class _Mgrid:
    """``mnp.mgrid[0:2, 0:1:3j]``: a dense grid (``meshgrid(..., indexing='ij')`` stacked),
    one range per slice; a single slice gives the 1-D range itself."""

    def __getitem__(self, key: slice | tuple[slice, ...]) -> AnyArray:
        if isinstance(key, slice):
            return _range_from_slice(key, "mgrid")
        if not key:
            return cnp.arange(0)
        ranges = _promote_ranges(key, "mgrid")
        return cnp.stack(meshgrid(*ranges, indexing="ij"), 0)


class _Ogrid:
    """``mnp.ogrid[0:2, 0:3]``: an open grid (``meshgrid(..., sparse=True)``), a list of
    arrays that broadcast against each other; a single slice gives the 1-D range."""

    def __getitem__(self, key: slice | tuple[slice, ...]) -> AnyArray | list[AnyArray]:
        if isinstance(key, slice):
            return _range_from_slice(key, "ogrid")
        if not key:
            return []
        ranges = _promote_ranges(key, "ogrid")
        return meshgrid(*ranges, indexing="ij", sparse=True)


mgrid = _Mgrid()
ogrid = _Ogrid()


class _AxisConcat:
    """``r_``/``c_``: concatenate arrays, scalars and slice ranges along an axis. A leading
    string directive ``"axis,ndmin,trans1d"`` (or ``"r"``/``"c"``: make a 1-D result a row or
    a column matrix) overrides the defaults, as in NumPy."""

    axis: int
    ndmin: int
    trans1d: int
    name: str

    def __getitem__(self, key: object) -> Array:
        items = key if isinstance(key, tuple) else (key,)
        if not items:
            raise ValueError(f"{self.name}: nothing to concatenate, got {self.name}[()]")
        params = [self.axis, self.ndmin, self.trans1d, -1]
        directive = items[0]
        if isinstance(directive, str):
            items = items[1:]
            params = self._parse_directive(directive, params)
        axis, ndmin, trans1d, matrix = params
        pieces, dtype_sources = [], []
        for item in items:
            if isinstance(item, slice):
                piece, item_ndim = _range_from_slice(item, self.name), 0
            elif isinstance(item, str):
                raise ValueError(
                    f"{self.name}: a string directive must come first, got {item!r} later"
                )
            else:
                piece = cnp.array(item)
                item_ndim = cnp.ndim(piece)
            # a Python scalar joins with a weak type (r_[int32_array, 2] stays int32)
            dtype_sources.append(item if isinstance(item, int | float | complex) else piece)
            piece = cnp.array(piece, ndmin=ndmin)
            if trans1d != -1 and ndmin - item_ndim > 0:
                # the item's own axes go where trans1d says (NumPy's rule, modulo ndmin)
                shift = ndmin - abs(ndmin + trans1d + 1) % ndmin
                order = tuple(range(ndmin))
                piece = cnp.transpose(piece, order[shift:] + order[:shift])
            pieces.append(piece)
        if not pieces:
            raise ValueError(f"{self.name}: nothing to concatenate after the directive")
        dtype = cnp.result_type(*dtype_sources)
        out = cnp.concatenate([cnp.asarray(p, dtype) for p in pieces], axis=axis)
        if matrix != -1 and cnp.ndim(out) == 1:
            out = cnp.expand_dims(out, matrix)
        return out

    def _parse_directive(self, directive: str, params: list[int]) -> list[int]:
        """``[axis, ndmin, trans1d, matrix]`` after the directive overrides ``params``."""
        if directive == "r":
            return [*params[:3], 0]
        if directive == "c":
            return [*params[:3], 1]
        fields: list[Any] = directive.split(",")
        # missing fields keep the defaults; a fourth and later field is ignored
        fields = fields + params[len(fields) :] if len(fields) < 4 else [*fields[:3], params[3]]
        try:
            return [int(f) for f in fields]
        except ValueError:
            raise ValueError(
                f"could not understand directive {directive!r} ({self.name}: expected 'r', "
                "'c' or up to three comma-separated integers 'axis,ndmin,trans1d')"
            ) from None

    def __len__(self) -> int:
        """0, as NumPy's ``len(np.r_)``."""
        return 0


class _RClass(_AxisConcat):
    """``mnp.r_[...]``: concatenate along the first axis (items made at least 1-D)."""

    axis, ndmin, trans1d, name = 0, 1, -1, "r_"


class _CClass(_AxisConcat):
    """``mnp.c_[...]``: concatenate along the last axis (1-D items become columns)."""

    axis, ndmin, trans1d, name = -1, 2, 0, "c_"


r_ = _RClass()
c_ = _CClass()


def unravel_index(indices: ArrayLike, shape: int | Sequence[int]) -> tuple[Array, ...]:
    """The multi-dimensional indices of flat ``indices`` into an array of ``shape``.

    As in JAX, out-of-bounds indices are clamped (negative ones from ``-size`` count from the
    end, as NumPy's) instead of raising, so this traces."""
    check_arraylike("unravel_index", [indices])
    flat = cnp.asarray(indices)
    # (JAX's rule: a sequence is taken apart, not made an array, so its entries may be traced)
    try:
        dims: list[Any] = list(shape)  # type: ignore[arg-type]
    except TypeError:
        dims = [shape]
    if any(np.ndim(s) != 0 for s in dims):
        raise ValueError(f"unravel_index: shape should be a scalar or 1-D sequence, got {shape!r}")
    out: list[Any] = [0] * len(dims)
    for i in reversed(range(len(dims))):
        flat, out[i] = cnp.floor_divide(flat, dims[i]), cnp.remainder(flat, dims[i])
    too_big = cnp.greater(flat, 0)
    too_small = cnp.zeros_like(too_big) if cnp.result_type(flat).kind == "u" else cnp.less(flat, -1)
    return tuple(
        cnp.where(too_big, s - 1, cnp.where(too_small, 0, i))
        for s, i in zip(dims, out, strict=True)
    )


def ravel_multi_index(
    multi_index: Sequence[ArrayLike],
    dims: Sequence[int],
    mode: str = "raise",
    order: str = "C",
    *,
    dtype: DTypeLike | None = None,
) -> Array:
    """Flat indices of the coordinates ``multi_index`` in an array of shape ``dims``.

    ``mode='raise'`` (the default) checks the bounds, so it needs concrete indices; ``'clip'``
    and ``'wrap'`` clamp or wrap out-of-bounds coordinates and ``'ignore'`` trusts them."""
    name = "ravel_multi_index"
    if len(multi_index) != len(dims):
        raise ValueError(
            f"{name}: expected one index array per dimension, got {len(multi_index)} index "
            f"arrays for dims={tuple(dims)!r}"
        )
    dims_t = tuple(static_int(name, d, "each entry of dims") for d in dims)
    check_arraylike(name, list(multi_index))
    indices = [cnp.asarray(i) for i in multi_index]
    out_dtype: np.dtype[Any] = cnp.result_type(1, *indices) if dtype is None else np.dtype(dtype)
    if out_dtype.kind not in "iu":
        raise ValueError(f"{name}: dtype={out_dtype.name} is not an integer type")
    if math.prod(dims_t) - 1 > np.iinfo(out_dtype).max:
        raise ValueError(
            f"{name}: dtype={out_dtype.name} cannot hold the flat indices of dims={dims_t}; "
            "pass a wider dtype=..."
        )
    concrete = []
    for index in indices:
        if mode == "raise":
            what, hint = "the index arrays (with mode='raise')", "Use mode='wrap' or 'clip'."
            concrete.append(concrete_or_error(name, index, what, hint))
        if cnp.result_type(index).kind not in "iu":
            raise TypeError(
                f"{name}: only integer indices are permitted, got {cnp.result_type(index).name}"
            )
    if mode == "raise":
        if any(np.any((c < 0) | (c >= d)) for c, d in zip(concrete, dims_t, strict=True)):
            raise ValueError(f"invalid entry in coordinates array ({name}, dims={dims_t})")
    elif mode == "clip":
        indices = [cnp.clip(i, 0, d - 1) for i, d in zip(indices, dims_t, strict=True)]
    elif mode == "wrap":
        indices = [cnp.remainder(i, d) for i, d in zip(indices, dims_t, strict=True)]
    elif mode != "ignore":
        raise ValueError(
            f"{name}: invalid mode={mode!r}; expected 'raise', 'wrap', 'clip' or 'ignore'"
        )
    if order == "C":
        strides = np.cumprod((1, *dims_t[1:][::-1]))[::-1]
    elif order == "F":
        strides = np.cumprod((1, *dims_t[:-1]))
    else:
        raise ValueError(f"{name}: invalid order={order!r}; expected 'C' or 'F'")
    result = cnp.asarray(0, out_dtype)
    for index, stride in zip(indices, strides, strict=True):
        result = cnp.add(result, cnp.multiply(cnp.asarray(index, out_dtype), int(stride)))
    return result


def mask_indices(
    n: int, mask_func: Callable[[ArrayLike, int], ArrayLike], k: int = 0, *, size: int | None = None
) -> tuple[Array, Array]:
    """The ``(rows, cols)`` where ``mask_func(ones((n, n)), k)`` is non-zero (e.g. ``triu``);
    under ``jit`` give a static ``size``, as for ``nonzero``."""
    rows, cols = nonzero(mask_func(cnp.ones((n, n)), k), size=size)
    return rows, cols


def _square_shape(name: str, arr: ArrayLike) -> tuple[int, ...]:
    if not hasattr(arr, "shape"):
        check_arraylike(name, [arr])
        arr = cnp.asarray(arr)
    return tuple(arr.shape)


def tril_indices_from(arr: ArrayLike, k: int = 0) -> tuple[Array, Array]:
    """``tril_indices`` for the shape of the 2-D ``arr`` (only its shape is read)."""
    shape = _square_shape("tril_indices_from", arr)
    if len(shape) != 2:
        raise ValueError(f"tril_indices_from: only 2-D inputs are accepted, got shape {shape}")
    return tril_indices(shape[0], k=k, m=shape[1])


def triu_indices_from(arr: ArrayLike, k: int = 0) -> tuple[Array, Array]:
    """``triu_indices`` for the shape of the 2-D ``arr`` (only its shape is read)."""
    shape = _square_shape("triu_indices_from", arr)
    if len(shape) != 2:
        raise ValueError(f"triu_indices_from: only 2-D inputs are accepted, got shape {shape}")
    return triu_indices(shape[0], k=k, m=shape[1])


def diag_indices_from(arr: ArrayLike) -> tuple[Array, ...]:
    """``diag_indices`` for ``arr``, whose dimensions (at least two) must all be equal."""
    check_arraylike("diag_indices_from", [arr])
    shape = cnp.shape(cnp.asarray(arr))
    if len(shape) < 2:
        raise ValueError(f"diag_indices_from: input must be at least 2-d, got shape {shape}")
    if len(set(shape)) != 1:
        raise ValueError(
            f"diag_indices_from: all dimensions of the input must be equal, got shape {shape}"
        )
    return diag_indices(shape[0], ndim=len(shape))
