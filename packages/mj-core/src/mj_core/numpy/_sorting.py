"""Sorting and order statistics: ``sort``, ``argsort``, ``lexsort``, ``sort_complex``,
``partition``, ``argpartition``, ``median``, ``quantile``, ``percentile``, built on the
variadic ``sort`` primitive (stable, NaNs last like NumPy)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mj_core import lax
from mj_core._shapes import canonicalize_axis
from mj_core._typing import Array, ArrayLike, DTypeLike
from mj_core.numpy import _base as cnp
from mj_core.numpy._concrete import static_int
from mj_core.numpy._promotion import check_arraylike, promote_inexact
from mj_core.prims.elementwise import to_inexact_dtype

__all__ = [
    "argpartition",
    "argsort",
    "lexsort",
    "median",
    "partition",
    "percentile",
    "quantile",
    "sort",
    "sort_complex",
]


def _flatten_if_none(api: str, a: ArrayLike, axis: int | None) -> tuple[Array, int]:
    a = cnp.asarray(a)
    if axis is None:
        return cnp.ravel(a), 0
    return a, canonicalize_axis(api, axis, cnp.ndim(a))


def _reject_kind_order(api: str, kind: object, order: object) -> None:
    """JAX's sorts take ``kind``/``order`` for NumPy's signature only, and reject them."""
    if kind is not None:
        raise TypeError(
            f"{api}: the 'kind' argument is not supported (got kind={kind!r}); use stable=True "
            "or stable=False to choose the sort's stability."
        )
    if order is not None:
        raise TypeError(f"{api}: the 'order' argument is not supported (got order={order!r}).")


def sort(
    a: ArrayLike,
    axis: int | None = -1,
    *,
    kind: object = None,
    order: object = None,
    stable: bool = True,
    descending: bool = False,
) -> Array:
    """A sorted copy of ``a`` along ``axis`` (``None``: the flattened array)."""
    _reject_kind_order("sort", kind, order)
    a, axis = _flatten_if_none("sort", a, axis)
    out = lax.sort(a, dimension=axis, is_stable=stable)
    return lax.rev(out, (axis,)) if descending else out


def argsort(
    a: ArrayLike,
    axis: int | None = -1,
    *,
    kind: object = None,
    order: object = None,
    stable: bool = True,
    descending: bool = False,
    dtype: DTypeLike | None = None,
) -> Array:
    """The indices (int64 unless ``dtype``) that sort ``a`` along ``axis``. A stable
    descending sort keeps ties in their original order, as JAX's does."""
    _reject_kind_order("argsort", kind, order)
    a, axis = _flatten_if_none("argsort", a, axis)
    shape = cnp.shape(a)
    iota = lax.broadcasted_iota(np.int64 if dtype is None else dtype, shape, axis)
    if descending and stable:  # reversed ties stay in order once reversed back
        a, iota = lax.rev(a, (axis,)), lax.rev(iota, (axis,))
    idx = lax.sort((a, iota), dimension=axis, is_stable=stable, num_keys=1)[1]
    return lax.rev(idx, (axis,)) if descending else idx


def quantile(
    a: ArrayLike,
    q: ArrayLike,
    axis: int | None = None,
    keepdims: bool = False,
    method: str = "linear",
) -> Array:
    """The ``q``-th quantiles (``q`` in ``[0, 1]``) with linear interpolation between order
    statistics (NumPy's default method); ``q``'s dimensions come first in the result.

    As in JAX, integers and bools are ranked as JAX's float (float32 up to 32-bit integers),
    the interpolation ``lo * (1 - t) + hi * t`` runs in ``q``'s float dtype (so two ``-0.0``
    order statistics give ``-0.0``) and the result has the ranked array's dtype."""
    if method != "linear":
        raise NotImplementedError(f"quantile: method={method!r} (only 'linear' is supported)")
    a = cnp.asarray(a)
    if a.dtype.kind == "c":
        raise ValueError(
            f"quantile: complex input ({a.dtype.name}) is not supported: the order of complex "
            "numbers makes quantiles poorly defined"
        )
    orig_ndim = cnp.ndim(a)
    x, ax = _flatten_if_none("quantile", a, axis)
    # JAX's promote_dtypes_inexact keeps a weak value weak (the result is made strong at the
    # end): the gradient at a Python float is then strong, as JAX's
    (x,) = promote_inexact(x)
    x = sort(x, ax)
    n = cnp.shape(x)[ax]
    q = cnp.asarray(q)
    q = lax.convert_element_type(q, to_inexact_dtype(q.dtype))
    pos = lax.mul(q, float(n - 1))
    lo = lax.clamp(0.0, lax.floor(pos), float(n - 1))
    hi = lax.clamp(0.0, lax.ceil(pos), float(n - 1))
    frac = lax.sub(pos, lo)
    q_ndim = cnp.ndim(q)
    v_lo = cnp.take(x, lax.convert_element_type(lo, np.int64), axis=ax)
    v_hi = cnp.take(x, lax.convert_element_type(hi, np.int64), axis=ax)
    if q_ndim:  # q's dimensions replace the reduced axis; NumPy puts them first
        src, dst = tuple(range(ax, ax + q_ndim)), tuple(range(q_ndim))
        v_lo, v_hi = cnp.moveaxis(v_lo, src, dst), cnp.moveaxis(v_hi, src, dst)
    rest = cnp.ndim(v_lo) - q_ndim
    frac = cnp.reshape(frac, (*cnp.shape(frac), *(1,) * rest))
    v_lo, v_hi = (lax.convert_element_type(v, frac.dtype) for v in (v_lo, v_hi))
    weighted_lo = lax.mul(v_lo, lax.sub(lax.full_like(frac, 1), frac))
    out = lax.convert_element_type(lax.add(weighted_lo, lax.mul(v_hi, frac)), x.dtype)
    if n:  # a NaN sorts last and makes every quantile of its slice NaN, as in JAX and NumPy
        has_nan = cnp.isnan(cnp.take(x, n - 1, axis=ax))
        out = lax.select(has_nan, lax.full_like(out, np.nan), out)
    if keepdims:
        if axis is None:
            out = cnp.reshape(out, (*cnp.shape(q), *(1,) * orig_ndim))
        else:
            out = cnp.expand_dims(out, q_ndim + (axis % orig_ndim))
    return out


def percentile(
    a: ArrayLike,
    q: ArrayLike,
    axis: int | None = None,
    keepdims: bool = False,
    method: str = "linear",
) -> Array:
    """Like :func:`quantile` with ``q`` in percent."""
    q = cnp.asarray(q)
    q = lax.convert_element_type(q, to_inexact_dtype(q.dtype))
    return quantile(a, lax.div(q, lax.full_like(q, 100)), axis, keepdims, method)


def median(a: ArrayLike, axis: int | None = None, keepdims: bool = False) -> Array:
    """The median along ``axis`` (the mean of the two middle values for even lengths)."""
    return quantile(a, 0.5, axis, keepdims)


def _partition_operand(api: str, a: ArrayLike, kth: int, axis: int) -> tuple[Array, int, int]:
    """``a`` with the partition axis last, and ``kth`` in ``[0, n)`` (JAX's checks)."""
    check_arraylike(api, (a,))
    a = cnp.asarray(a)
    if a.dtype.kind == "c":
        raise NotImplementedError(f"{api}: complex input ({a.dtype.name}) is not supported.")
    if a.dtype.kind == "b":
        raise TypeError(f"{api}: bool input is not supported; convert it to an integer first.")
    axis = canonicalize_axis(api, axis, cnp.ndim(a))
    n = cnp.shape(a)[axis]
    kth = static_int(api, kth, "kth")
    if not -n <= kth < n:
        raise ValueError(f"{api}: kth={kth} is out of range for an axis of length {n}")
    return cnp.swapaxes(a, axis, -1), kth % n, axis


def partition(a: ArrayLike, kth: int, axis: int = -1) -> Array:
    """A copy of ``a`` with the ``kth`` smallest value at position ``kth``: the ``kth + 1``
    smallest values first, in ascending order, then the others in descending order (JAX's
    exact result, which it computes with two ``top_k``)."""
    arr, kth, axis = _partition_operand("partition", a, kth, axis)
    n = cnp.shape(arr)[-1]
    s = lax.sort(arr, dimension=-1)
    bottom = lax.slice_in_dim(s, 0, kth + 1, axis=-1)
    top = lax.rev(lax.slice_in_dim(s, kth + 1, n, axis=-1), (cnp.ndim(s) - 1,))
    return cnp.swapaxes(lax.concatenate([bottom, top], cnp.ndim(s) - 1), -1, axis)


def argpartition(a: ArrayLike, kth: int, axis: int = -1) -> Array:
    """int32 indices that partition ``a`` around its ``kth`` smallest value: those of the
    ``kth + 1`` smallest values in ascending order (ties by position), then the others by
    increasing position (JAX's exact result)."""
    arr, kth, axis = _partition_operand("argpartition", a, kth, axis)
    shape = cnp.shape(arr)
    last = len(shape) - 1
    iota = lax.broadcasted_iota(np.int32, shape, last)
    order = lax.sort((arr, iota), dimension=last, num_keys=1)[1]
    rank = lax.sort((order, iota), dimension=last, num_keys=1)[1]  # inverse permutation
    rest = lax.sort((lax.le(rank, np.int32(kth)), iota), dimension=last, num_keys=1)[1]
    bottom = lax.slice_in_dim(order, 0, kth + 1, axis=last)
    top = lax.slice_in_dim(rest, 0, shape[last] - kth - 1, axis=last)
    return cnp.swapaxes(lax.concatenate([bottom, top], last), -1, axis)


def lexsort(keys: Sequence[ArrayLike] | Array | np.ndarray[Any, Any], axis: int = -1) -> Array:
    """int64 indices sorting by several keys, the last key primary (NumPy's ``lexsort``)."""
    key_arrays = tuple(keys)
    check_arraylike("lexsort", key_arrays)
    key_arrays = tuple(cnp.asarray(k) for k in key_arrays)
    if not key_arrays:
        raise TypeError("lexsort: need a sequence of at least one key, got an empty one")
    shapes = {cnp.shape(k) for k in key_arrays}
    if len(shapes) > 1:
        raise ValueError(f"lexsort: all keys must have the same shape, got {sorted(shapes)}")
    shape = cnp.shape(key_arrays[0])
    if not shape:
        return cnp.zeros((), np.int64)
    axis = canonicalize_axis("lexsort", axis, len(shape))
    iota = lax.broadcasted_iota(np.int64, shape, axis)
    ordered = (*key_arrays[::-1], iota)
    return lax.sort(ordered, dimension=axis, num_keys=len(key_arrays))[-1]


def sort_complex(a: ArrayLike) -> Array:
    """``a`` sorted along its last axis, by real part then imaginary part, as complex:
    complex128 where NumPy's float for ``a``'s dtype is float64, else complex64."""
    check_arraylike("sort_complex", (a,))
    a = cnp.asarray(a)
    a = lax.sort(a, dimension=canonicalize_axis("sort_complex", -1, cnp.ndim(a)))
    if a.dtype.kind == "c":
        return a
    wide = to_inexact_dtype(a.dtype) == np.float64
    return lax.convert_element_type(a, np.complex128 if wide else np.complex64)
