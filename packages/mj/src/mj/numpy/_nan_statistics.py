"""Statistics that skip NaNs: ``nanvar``/``nanstd`` (a ``where`` mask and a given ``mean``
as in ``jax.numpy``), ``nanquantile``/``nanpercentile``/``nanmedian`` (every ``jax.numpy``
method, ``inverted_cdf`` with ``weights``), ``nanargmax``/``nanargmin`` (-1 for an all-NaN
slice). NaNs are masked with ``where`` rather than removed, so shapes stay static: the
functions jit, batch and differentiate (NaN entries get zero gradient)."""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

import mj_core.numpy as cnp
from mj.numpy._manipulation import take_along_axis
from mj_core import lax
from mj_core.dtypes import is_inexact
from mj_core.errors import user_line_suffix
from mj_core.extend import (
    AnyArray,
    Array,
    ArrayLike,
    Axis,
    DTypeLike,
    canonicalize_axes,
    check_arraylike,
    dtype_weak,
    int_tuple,
    promote_inexact,
    to_inexact_dtype,
)

__all__ = [
    "nanargmax",
    "nanargmin",
    "nanmedian",
    "nanpercentile",
    "nanquantile",
    "nanstd",
    "nanvar",
]


_METHODS = ("linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf")


def _variance_dtypes(name: str, a_dtype: np.dtype[Any], dtype: DTypeLike | None) -> tuple[Any, Any]:
    """``(computation, result)`` dtypes: JAX's float for integers and bools (float32 up to
    32-bit integers, as mj's ``var``), the input's (real) dtype otherwise, float16 computed
    in float32."""
    if dtype is not None:
        result = np.dtype(dtype)
        if a_dtype.kind == "c" and result.kind != "c":
            raise ValueError(
                f"{name}: a real dtype ({result}) is not supported for complex input "
                f"({a_dtype}){user_line_suffix()}"
            )
        compute = result
    elif not is_inexact(a_dtype):
        result = compute = to_inexact_dtype(a_dtype)
    else:
        compute, result = a_dtype, np.zeros((), a_dtype).real.dtype
    return (np.dtype(np.float32) if compute == np.float16 else compute), result


def nanvar(
    a: ArrayLike,
    axis: Axis = None,
    dtype: DTypeLike | None = None,
    out: None = None,
    ddof: int = 0,
    keepdims: bool = False,
    where: ArrayLike | None = None,
    mean: ArrayLike | None = None,
) -> Array:
    """The variance of the non-NaN elements (and those ``where`` selects), NaN where fewer
    than ``ddof + 1`` remain; ``mean`` replaces the computed mean."""
    check_arraylike("nanvar", [a])
    if out is not None:
        raise NotImplementedError(f"nanvar: the out argument is not supported{user_line_suffix()}")
    a = cnp.asarray(a)
    compute, result = _variance_dtypes("nanvar", dtype_weak(a)[0], dtype)
    a = lax.convert_element_type(a, compute)
    valid = lax.bitwise_not(cnp.isnan(a))
    if where is not None:
        valid = lax.bitwise_and(valid, where)
    zero = lax.full_like(a, 0)
    if mean is None:
        total = cnp.sum(cnp.where(valid, a, zero), axis=axis, keepdims=True)
        count = cnp.sum(valid, axis=axis, dtype=compute, keepdims=True)
        # an empty slice's mean is never used (its variance is NaN): avoid computing 0 / 0
        mean = lax.div(total, cnp.where(lax.eq(count, 0), lax.full_like(count, 1), count))
    else:
        mean = lax.convert_element_type(mean, compute)
    centered = cnp.where(valid, lax.sub(a, mean), zero)
    if compute.kind == "c":
        squares = lax.real(lax.mul(centered, lax.conj(centered)))
    else:
        squares = lax.integer_pow(centered, 2)
    normalizer = lax.sub(cnp.sum(valid, axis=axis, keepdims=keepdims), ddof)
    empty = lax.le(normalizer, lax.full_like(normalizer, 0))
    total = cnp.sum(squares, axis=axis, keepdims=keepdims)
    total = cnp.where(empty, lax.full_like(total, np.nan), total)
    divisor = lax.convert_element_type(cnp.where(empty, 1, normalizer), dtype_weak(total)[0])
    return lax.convert_element_type(lax.div(total, divisor), result)


def nanstd(
    a: ArrayLike,
    axis: Axis = None,
    dtype: DTypeLike | None = None,
    out: None = None,
    ddof: int = 0,
    keepdims: bool = False,
    where: ArrayLike | None = None,
    mean: ArrayLike | None = None,
) -> Array:
    """The square root of :func:`nanvar`."""
    check_arraylike("nanstd", [a])
    if out is not None:
        raise NotImplementedError(f"nanstd: the out argument is not supported{user_line_suffix()}")
    return lax.sqrt(nanvar(a, axis, dtype, ddof=ddof, keepdims=keepdims, where=where, mean=mean))


def _to_last_axis(x: ArrayLike, axes: tuple[int, ...]) -> Array:
    """``x`` with the ``axes`` moved to the end and merged into one."""
    keep = [i for i in range(cnp.ndim(x)) if i not in axes]
    x = lax.transpose(x, (*keep, *axes))
    shape = cnp.shape(x)
    return cnp.reshape(x, (*shape[: len(keep)], math.prod(shape[len(keep) :])))


def _inverted_cdf(a: ArrayLike, weights: ArrayLike, q: ArrayLike) -> Array:
    """The first sorted value whose cumulative weight reaches ``q`` times the total (over
    non-NaN values with valid weights); NaN where a weight is negative/NaN or all data is
    NaN. ``a``/``weights``: ``batch + (n,)``, sorted; ``q``: ``q_shape + (1,) * len(batch)``."""
    bad_weight = lax.bitwise_or(lax.lt(weights, lax.full_like(weights, 0)), cnp.isnan(weights))
    nan_data = cnp.isnan(a)
    zero = lax.full_like(weights, 0)
    clean = cnp.where(lax.bitwise_or(bad_weight, nan_data), zero, weights)
    last = cnp.ndim(clean) - 1
    cumulative = lax.cumsum(clean, last)
    total = lax.index_in_dim(cumulative, cnp.shape(a)[-1] - 1, last, keepdims=False)
    target = cnp.expand_dims(lax.mul(q, total), -1)
    below = lax.lt(cumulative, target)  # broadcasts to q_shape + batch + (n,)
    index = cnp.sum(below, axis=-1)
    valid = cnp.sum(lax.bitwise_not(nan_data), axis=-1)
    index = lax.max(lax.min(index, lax.sub(valid, 1)), lax.full_like(index, 0))
    values = _take_last(a, index)
    force_nan = lax.bitwise_or(cnp.any(bad_weight, axis=-1), lax.eq(valid, 0))
    return cnp.where(force_nan, lax.full_like(values, np.nan), values)


def _take_last(a: ArrayLike, index: ArrayLike) -> Array:
    """``a[..., index]`` along the last axis, ``index`` of shape ``q_shape + batch``."""
    shape = (*cnp.shape(index), cnp.shape(a)[-1])
    return cnp.squeeze(
        take_along_axis(cnp.broadcast_to(a, shape), cnp.expand_dims(index, -1), -1), -1
    )


def nanquantile(
    a: ArrayLike,
    q: ArrayLike,
    axis: int | tuple[int, ...] | None = None,
    out: None = None,
    overwrite_input: bool = False,
    method: str = "linear",
    keepdims: bool = False,
    *,
    weights: ArrayLike | None = None,
) -> Array:
    """The ``q``-th quantiles (``q`` in ``[0, 1]``, at most 1-D; its dimension comes first)
    of the non-NaN values along ``axis``. ``method``: ``linear``, ``lower``, ``higher``,
    ``midpoint``, ``nearest`` (``jax.numpy``'s: ties go to the lower value) or
    ``inverted_cdf`` (the only one that takes ``weights``)."""
    check_arraylike("nanquantile", [a, q])
    if overwrite_input or out is not None:
        raise ValueError(
            f"nanquantile: overwrite_input=True and out are not supported{user_line_suffix()}"
        )
    if method not in _METHODS:
        raise ValueError(
            f"nanquantile: method must be one of {list(_METHODS)}, got {method!r}"
            f"{user_line_suffix()}"
        )
    a = cnp.asarray(a)
    if weights is not None:
        check_arraylike("nanquantile", [weights])
        if dtype_weak(weights)[0].kind == "c":
            raise ValueError(f"nanquantile: weights cannot be complex{user_line_suffix()}")
        if method != "inverted_cdf":
            raise NotImplementedError(
                f"nanquantile: method {method!r} does not take weights; only 'inverted_cdf' "
                f"does{user_line_suffix()}"
            )
        a, weights = promote_inexact(a, cnp.asarray(weights))
    else:
        (a,) = promote_inexact(a)
    dtype, _ = dtype_weak(a)
    if dtype.kind == "c":
        raise ValueError(
            f"nanquantile: complex input is not supported, got {dtype}{user_line_suffix()}"
        )
    (q,) = promote_inexact(cnp.asarray(q))
    if cnp.ndim(q) > 1:
        raise ValueError(
            f"nanquantile: q must be at most 1-D, got shape {cnp.shape(q)}{user_line_suffix()}"
        )
    shape, nd = cnp.shape(a), cnp.ndim(a)
    axes = tuple(range(nd)) if axis is None else int_tuple("nanquantile", "axis", axis)
    axes = canonicalize_axes("nanquantile", axes, nd)
    if weights is not None and cnp.shape(weights) != shape:
        if axis is None:
            raise ValueError(
                f"nanquantile: weights must have a's shape {shape} when axis is None, got "
                f"{cnp.shape(weights)}{user_line_suffix()}"
            )
        reduced = tuple(shape[i] for i in axes)
        if cnp.shape(weights) != reduced:
            raise ValueError(
                f"nanquantile: weights must have shape {reduced} (the reduced axes of a) or "
                f"{shape}, got {cnp.shape(weights)}{user_line_suffix()}"
            )
        weights = lax.broadcast_in_dim(weights, shape, axes)

    x = _to_last_axis(cnp.where(cnp.isnan(a), np.nan, a), axes)
    batch_nd = cnp.ndim(x) - 1
    q_b = cnp.reshape(q, (*cnp.shape(q), *(1,) * batch_nd))
    if method == "inverted_cdf":
        w = lax.full_like(x, 1) if weights is None else _to_last_axis(weights, axes)
        x, w = lax.sort((x, w), dimension=batch_nd, num_keys=1)
        result = _inverted_cdf(x, w, q_b)
    else:
        x = lax.sort(x, dimension=batch_nd)
        result = _order_statistic(x, q_b, method)
    if keepdims:
        result = cnp.reshape(
            result, (*cnp.shape(q), *(1 if i in axes else d for i, d in enumerate(shape)))
        )
    return lax.convert_element_type(result, dtype)


def _order_statistic(x: ArrayLike, q: ArrayLike, method: str) -> Array:
    """Interpolate between the order statistics around ``q (count - 1)``, where ``count`` is
    the number of non-NaN values (sorted to the front of the last axis of ``x``)."""
    qdt, _ = dtype_weak(q)
    count = cnp.sum(lax.bitwise_not(cnp.isnan(x)), axis=-1, dtype=qdt)
    pos = lax.mul(q, lax.sub(count, lax.full_like(count, 1)))
    low, high = lax.floor(pos), lax.ceil(pos)
    high_weight = lax.sub(pos, low)
    top = lax.sub(count, lax.full_like(count, 1))
    low = lax.max(lax.full_like(low, 0), lax.min(low, top))
    high = lax.max(lax.full_like(high, 0), lax.min(high, top))
    low_value = _take_last(x, lax.convert_element_type(low, np.int64))
    high_value = _take_last(x, lax.convert_element_type(high, np.int64))
    if method == "linear":
        low_weight = lax.sub(lax.full_like(high_weight, 1), high_weight)
        return lax.add(
            lax.mul(lax.convert_element_type(low_value, qdt), low_weight),
            lax.mul(lax.convert_element_type(high_value, qdt), high_weight),
        )
    if method == "lower":
        return low_value
    if method == "higher":
        return high_value
    if method == "nearest":
        return cnp.where(lax.le(high_weight, 0.5), low_value, high_value)
    return lax.mul(lax.add(low_value, high_value), 0.5)  # midpoint


def nanpercentile(
    a: ArrayLike,
    q: ArrayLike,
    axis: int | tuple[int, ...] | None = None,
    out: None = None,
    overwrite_input: bool = False,
    method: str = "linear",
    keepdims: bool = False,
    *,
    weights: ArrayLike | None = None,
) -> Array:
    """Like :func:`nanquantile` with ``q`` in percent."""
    check_arraylike("nanpercentile", [a, q])
    (q,) = promote_inexact(cnp.asarray(q))
    return nanquantile(
        a, lax.div(q, 100.0), axis, out, overwrite_input, method, keepdims, weights=weights
    )


def nanmedian(
    a: ArrayLike,
    axis: int | tuple[int, ...] | None = None,
    out: None = None,
    overwrite_input: bool = False,
    keepdims: bool = False,
) -> Array:
    """The median of the non-NaN values (the midpoint of the two middle ones for an even
    count); NaN for an all-NaN slice."""
    check_arraylike("nanmedian", [a])
    return nanquantile(a, 0.5, axis, out, overwrite_input, "midpoint", keepdims)


def _nan_arg_reduction(
    name: str,
    reduce: Any,
    fill: float,
    a: AnyArray,
    axis: int | None,
    out: None,
    keepdims: bool | None,
) -> AnyArray:
    check_arraylike(name, [a])
    if out is not None:
        raise NotImplementedError(f"{name}: the out argument is not supported{user_line_suffix()}")
    a = cnp.asarray(a)
    axis = None if axis is None else operator.index(axis)
    keep = bool(keepdims)
    if not is_inexact(dtype_weak(a)[0]):
        return reduce(a, axis=axis, keepdims=keep)
    nan = cnp.isnan(a)
    res = reduce(cnp.where(nan, lax.full_like(a, fill), a), axis=axis, keepdims=keep)
    return cnp.where(cnp.all(nan, axis=axis, keepdims=keep), lax.full_like(res, -1), res)


def nanargmax(
    a: ArrayLike, axis: int | None = None, out: None = None, keepdims: bool | None = None
) -> AnyArray:
    """The index of the largest non-NaN value (-1 where a slice is all NaN)."""
    return _nan_arg_reduction("nanargmax", cnp.argmax, -np.inf, a, axis, out, keepdims)


def nanargmin(
    a: ArrayLike, axis: int | None = None, out: None = None, keepdims: bool | None = None
) -> AnyArray:
    """The index of the smallest non-NaN value (-1 where a slice is all NaN)."""
    return _nan_arg_reduction("nanargmin", cnp.argmin, np.inf, a, axis, out, keepdims)
