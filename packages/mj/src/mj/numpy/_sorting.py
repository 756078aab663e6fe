"""Sorting and order statistics: ``sort``, ``argsort``, ``median``, ``quantile``,
``percentile``, built on the variadic ``sort`` primitive (stable, NaNs last like NumPy)."""

from __future__ import annotations

from typing import Any

import numpy as np

import mj_core.numpy as cnp
from mj_core import lax
from mj_core.shapes import canonicalize_axis

__all__ = ["argsort", "median", "percentile", "quantile", "sort"]

Array = Any


def _flatten_if_none(api: str, a: Array, axis: int | None) -> tuple[Array, int]:
    a = cnp.asarray(a)
    if axis is None:
        return cnp.ravel(a), 0
    return a, canonicalize_axis(api, axis, cnp.ndim(a))


def sort(
    a: Array, axis: int | None = -1, *, stable: bool = True, descending: bool = False
) -> Array:
    """A sorted copy of ``a`` along ``axis`` (``None``: the flattened array)."""
    a, axis = _flatten_if_none("sort", a, axis)
    out = lax.sort(a, dimension=axis, is_stable=stable)
    return lax.rev(out, (axis,)) if descending else out


def argsort(
    a: Array, axis: int | None = -1, *, stable: bool = True, descending: bool = False
) -> Array:
    """The int64 indices that sort ``a`` along ``axis``; ties keep their original order."""
    a, axis = _flatten_if_none("argsort", a, axis)
    shape = cnp.shape(a)
    if descending:  # sort the reversed array ascending, then map positions back
        n = shape[axis]
        iota = lax.broadcasted_iota(np.int64, shape, axis)
        _, idx = lax.sort((lax.rev(a, (axis,)), iota), dimension=axis, num_keys=1)
        return lax.rev(lax.sub(np.int64(n - 1), idx), (axis,))
    iota = lax.broadcasted_iota(np.int64, shape, axis)
    return lax.sort((a, iota), dimension=axis, is_stable=stable, num_keys=1)[1]


def quantile(
    a: Array, q: Array, axis: int | None = None, keepdims: bool = False, method: str = "linear"
) -> Array:
    """The ``q``-th quantiles (``q`` in ``[0, 1]``) with linear interpolation between order
    statistics (NumPy's default method); ``q``'s dimensions come first in the result."""
    if method != "linear":
        raise NotImplementedError(f"quantile: method={method!r} (only 'linear' is supported)")
    a = cnp.asarray(a)
    orig_ndim = cnp.ndim(a)
    x, ax = _flatten_if_none("quantile", a, axis)
    x = sort(x, ax)
    if x.dtype.kind not in "fc":
        x = lax.convert_element_type(x, np.float64)
    n = cnp.shape(x)[ax]
    q = cnp.asarray(q, x.dtype)
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
    out = lax.add(v_lo, lax.mul(lax.sub(v_hi, v_lo), frac))
    if keepdims:
        if axis is None:
            out = cnp.reshape(out, (*cnp.shape(q), *(1,) * orig_ndim))
        else:
            out = cnp.expand_dims(out, q_ndim + (axis % orig_ndim))
    return out


def percentile(
    a: Array, q: Array, axis: int | None = None, keepdims: bool = False, method: str = "linear"
) -> Array:
    """Like :func:`quantile` with ``q`` in percent."""
    return quantile(a, lax.div(cnp.asarray(q, np.float64), 100.0), axis, keepdims, method)


def median(a: Array, axis: int | None = None, keepdims: bool = False) -> Array:
    """The median along ``axis`` (the mean of the two middle values for even lengths)."""
    return quantile(a, 0.5, axis, keepdims)
