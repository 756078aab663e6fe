"""Searching and counting: ``searchsorted``, ``digitize``, ``bincount`` and the histograms
(``histogram``, ``histogram_bin_edges``, ``histogram2d``, ``histogramdd``), with JAX's
signatures and dtypes.

``bincount``'s result length depends on the data unless ``length`` is given, so without it
``x`` must be concrete, as in JAX: a plain array, or a value ``grad`` traces (its primal is
known); under ``jit``/``vmap`` pass the static ``length``.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from mj_core import lax
from mj_core._typing import AnyArray, Array, ArrayLike
from mj_core.dtypes import is_complex, is_float
from mj_core.numpy import _base as cnp
from mj_core.numpy._concrete import concrete_or_error, static_int
from mj_core.numpy._matrices import ix_
from mj_core.numpy._promotion import check_arraylike, promote, promote_inexact
from mj_core.prims.elementwise import to_inexact_dtype

__all__ = [
    "argwhere",
    "bincount",
    "digitize",
    "flatnonzero",
    "histogram",
    "histogram2d",
    "histogram_bin_edges",
    "histogramdd",
    "nonzero",
    "searchsorted",
]


_SEARCH_METHODS = ("compare_all", "scan", "scan_unrolled", "sort")


def _index_dtype(n: int) -> np.dtype[Any]:
    """JAX's index dtype for an axis of length ``n``: int32 unless it overflows."""
    return np.dtype(np.int32 if n <= np.iinfo(np.int32).max else np.int64)


def _sort_less(x: AnyArray, y: AnyArray, or_equal: bool) -> AnyArray:
    """``x < y`` (``x <= y`` if ``or_equal``) in ``sort``'s total order: NaN after every
    number and equal to NaN, ``-0.0 == 0.0``, complex numbers by real then imaginary part."""
    if is_complex(x.dtype):
        xr, xi, yr, yi = cnp.real(x), cnp.imag(x), cnp.real(y), cnp.imag(y)
        same_real = lax.bitwise_or(lax.eq(xr, yr), lax.bitwise_and(cnp.isnan(xr), cnp.isnan(yr)))
        tie = lax.bitwise_and(same_real, _sort_less(xi, yi, or_equal))
        return lax.bitwise_or(_sort_less(xr, yr, False), tie)
    if not is_float(x.dtype):  # (bfloat16 and the float8 types are floats too)
        return lax.le(x, y) if or_equal else lax.lt(x, y)
    if or_equal:
        return lax.bitwise_or(lax.le(x, y), cnp.isnan(y))
    return lax.bitwise_or(
        lax.lt(x, y), lax.bitwise_and(lax.bitwise_not(cnp.isnan(x)), cnp.isnan(y))
    )


def searchsorted(
    a: AnyArray,
    v: AnyArray,
    side: str = "left",
    sorter: AnyArray | None = None,
    *,
    method: str = "scan",
) -> AnyArray:
    """int32 indices where ``v``'s values would be inserted into the sorted 1-D ``a`` to keep
    it sorted (``side='left'``: before equal values; ``'right'``: after them). NaNs sort last
    and ``-0.0 == 0.0``, as in ``sort``.

    Every ``method`` JAX accepts gives the same answer; mj runs JAX's binary search for all the
    queries at once, ``ceil(log2(len(a) + 1))`` unrolled halving steps (``O(m log n)`` work,
    no sort, traceable and batchable)."""
    check_arraylike("searchsorted", (a, v) if sorter is None else (a, v, sorter))
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got side={side!r}")
    if method not in _SEARCH_METHODS:
        raise ValueError(
            f"searchsorted: method must be one of {list(_SEARCH_METHODS)}, got method={method!r}"
        )
    a = cnp.asarray(a)
    if cnp.ndim(a) != 1:
        raise ValueError(f"searchsorted: a must be 1-dimensional, got shape {cnp.shape(a)}")
    a, v = promote(a, cnp.asarray(v))
    if a.dtype.kind == "b":  # order False < True as integers
        a, v = lax.convert_element_type(a, np.int8), lax.convert_element_type(v, np.int8)
    if sorter is not None:
        a = cnp.take(a, sorter, mode="clip")
    n = cnp.shape(a)[0]
    out_dtype = _index_dtype(n)
    low = cnp.zeros(cnp.shape(v), out_dtype)
    high = cnp.full(cnp.shape(v), n, out_dtype)
    # the answer is in [low, high]; each step compares with a[mid] and keeps one half
    for _ in builtins.range(int(np.ceil(np.log2(n + 1)))):
        mid = lax.add(low, lax.div(lax.sub(high, low), np.array(2, out_dtype)))
        go_left = _sort_less(v, cnp.take(a, mid, mode="clip"), or_equal=side == "left")
        low, high = cnp.where(go_left, low, mid), cnp.where(go_left, mid, high)
    return high


def digitize(
    x: AnyArray, bins: AnyArray, right: bool = False, *, method: str | None = None
) -> AnyArray:
    """int32 index of the bin each value of ``x`` falls in; ``bins`` is 1-D and monotonic
    (increasing or decreasing); ``right`` puts the bins' right edges inside them."""
    check_arraylike("digitize", (x, bins))
    x, bins = cnp.asarray(x), cnp.asarray(bins)
    right = bool(concrete_or_error("digitize", right, "the right argument"))
    if cnp.ndim(bins) != 1:
        raise ValueError(f"digitize: bins must be a 1-dimensional array, got shape {bins.shape}")
    n = cnp.shape(bins)[0]
    if n == 0:
        return cnp.zeros(cnp.shape(x), np.int32)
    side = "left" if right else "right"
    kwargs = {} if method is None else {"method": method}
    increasing = searchsorted(bins, x, side, **kwargs)
    decreasing = lax.sub(np.int32(n), searchsorted(lax.rev(bins, (0,)), x, side, **kwargs))
    return cnp.where(lax.ge(bins[-1], bins[0]), increasing, decreasing)


def bincount(
    x: ArrayLike, weights: ArrayLike | None = None, minlength: int = 0, *, length: int | None = None
) -> AnyArray:
    """Counts (or summed ``weights``) of each value of the non-negative 1-D integer array
    ``x``; negative values count as 0, as in JAX. The result has ``length`` entries, by
    default ``max(minlength, x.max() + 1)``, which needs a concrete ``x``."""
    check_arraylike("bincount", (x,) if weights is None else (x, weights))
    x = cnp.asarray(x)
    if x.dtype.kind == "b":
        x = lax.convert_element_type(x, np.int32)
    if x.dtype.kind not in "iu":
        raise TypeError(f"bincount: x must have an integer dtype, got {x.dtype.name}")
    if cnp.ndim(x) != 1:
        raise ValueError(f"bincount: x must be 1-dimensional, got shape {cnp.shape(x)}")
    minlength = static_int("bincount", minlength, "minlength")
    if length is None:
        hint = "Pass a static length=... to use bincount under jit."
        values = concrete_or_error("bincount", x, "x (without a static length)", hint)
        length = max(minlength, int(max(0, values.max())) + 1 if values.size else 0)
    else:
        length = static_int("bincount", length, "length")
    if weights is None:
        w: AnyArray = np.array(1, np.int64)
    else:
        w = cnp.asarray(weights)
        if cnp.shape(w) != cnp.shape(x):
            raise ValueError(
                f"bincount: weights must have x's shape {cnp.shape(x)}, got {cnp.shape(w)}"
            )
    return cnp.zeros(length, w.dtype).at[cnp.maximum(x, 0)].add(w)


def histogram_bin_edges(
    a: AnyArray,
    bins: AnyArray = 10,
    range: Sequence[AnyArray] | AnyArray | None = None,
    weights: AnyArray | None = None,
) -> AnyArray:
    """The bin edges :func:`histogram` uses: ``bins`` itself if it is 1-D, else ``bins + 1``
    evenly spaced edges over ``range`` (by default the data's min and max, widened by 0.5
    each way when they are equal). ``weights`` is unused, as in JAX."""
    del weights  # only NumPy's string bins use it, and those are not supported
    if isinstance(bins, str):
        raise NotImplementedError(f"histogram: string bins ({bins!r}) are not supported")
    check_arraylike("histogram_bin_edges", (a, bins))
    arr = cnp.asarray(a)
    dtype = to_inexact_dtype(arr.dtype)
    if cnp.ndim(bins) == 1:
        return cnp.asarray(bins, dtype)
    count = static_int("histogram", bins, "bins")
    if range is None:
        bounds = cnp.stack([cnp.min(arr), cnp.max(arr)]).astype(dtype)
    else:
        bounds = cnp.asarray(range, dtype)
        if cnp.shape(bounds) != (2,):
            raise ValueError(
                f"histogram: range must be None or a pair of scalars, got shape {cnp.shape(bounds)}"
            )
    lo, hi = bounds[0], bounds[1]
    empty = lax.eq(hi, lo)
    lo = cnp.where(empty, lax.sub(lo, 0.5), lo)
    hi = cnp.where(empty, lax.add(hi, 0.5), hi)
    return cnp.linspace(lo, hi, count + 1, dtype=dtype)


def histogram(
    a: AnyArray,
    bins: AnyArray = 10,
    range: Sequence[AnyArray] | AnyArray | None = None,
    weights: AnyArray | None = None,
    density: bool | None = None,
) -> tuple[AnyArray, AnyArray]:
    """``(counts, bin_edges)`` of ``a``'s values (any shape). Bins are half-open except the
    last, which includes its right edge; values outside the edges are not counted. ``density``
    divides by the total and the bin widths."""
    if isinstance(bins, str):  # rejected like any non-array argument, as in JAX
        raise TypeError(f"histogram: bins must be an int or an array of edges, got {bins!r}")
    if weights is None:
        check_arraylike("histogram", (a, bins))
        (a,) = promote_inexact(cnp.asarray(a))
        weights = cnp.ones_like(a)
    else:
        check_arraylike("histogram", (a, bins, weights))
        if cnp.shape(a) != cnp.shape(weights):
            raise ValueError(
                f"histogram: weights must have a's shape {cnp.shape(a)}, got {cnp.shape(weights)}"
            )
        a, weights = promote_inexact(cnp.asarray(a), cnp.asarray(weights))
    edges = histogram_bin_edges(a, bins, range)
    n_edges = cnp.shape(edges)[0]
    index = searchsorted(edges, a, side="right")
    index = cnp.where(lax.eq(a, edges[-1]), np.int32(n_edges - 1), index)
    counts = cnp.zeros(n_edges, weights.dtype).at[index].add(weights)[1:]
    if density:
        widths = lax.sub(edges[1:], edges[:-1])
        counts = lax.div(lax.div(counts, widths), cnp.sum(counts))
    return counts, edges


def histogramdd(
    sample: AnyArray,
    bins: AnyArray | Sequence[AnyArray] = 10,
    range: Sequence[Any] | None = None,
    weights: AnyArray | None = None,
    density: bool | None = None,
) -> tuple[AnyArray, list[AnyArray]]:
    """``(counts, edges)`` of ``N`` points in ``D`` dimensions (``sample`` is ``(N, D)``):
    ``bins``/``range`` are one for all dimensions or one per dimension; counts are integers
    without ``weights`` (floats with them, or with ``density``)."""
    if weights is None:
        check_arraylike("histogramdd", (sample,))
        (sample,) = promote_inexact(cnp.asarray(sample))
    else:
        check_arraylike("histogramdd", (sample, weights))
        if cnp.shape(weights) != cnp.shape(sample)[:1]:
            raise ValueError(
                f"histogramdd: weights must have one value per sample, shape "
                f"{cnp.shape(sample)[:1]}, got {cnp.shape(weights)}"
            )
        sample, weights = promote_inexact(cnp.asarray(sample), cnp.asarray(weights))
    if cnp.ndim(sample) != 2:
        raise ValueError(
            f"histogramdd: sample must be 2-D, (N points, D dimensions), got shape "
            f"{cnp.shape(sample)}"
        )
    n_dims = cnp.shape(sample)[1]
    if range is not None and (
        len(range) != n_dims or any(r is not None and np.shape(r)[0] != 2 for r in range)
    ):
        raise ValueError(
            f"histogramdd: range must be a sequence of {n_dims} pairs or Nones, got {range!r}"
        )
    try:
        bins_per_dim = list(bins)
    except TypeError:  # one bin count for every dimension
        bins_per_dim = n_dims * [bins]
    if len(bins_per_dim) != n_dims:
        raise ValueError(
            f"histogramdd: bins must give one entry per dimension ({n_dims}), got "
            f"{len(bins_per_dim)}"
        )
    all_edges, indices = [], []
    for i in builtins.range(n_dims):  # (the range argument shadows the builtin)
        column = sample[:, i]
        edges = histogram_bin_edges(column, bins_per_dim[i], None if range is None else range[i])
        index = searchsorted(edges, column, side="right")
        index = cnp.where(lax.eq(column, edges[-1]), lax.sub(index, np.int32(1)), index)
        all_edges.append(edges)
        indices.append(lax.convert_element_type(index, np.int64))
    n_cells = [cnp.shape(e)[0] + 1 for e in all_edges]  # the bins and an outlier cell each side
    flat_index = indices[0]
    for index, n in zip(indices[1:], n_cells[1:], strict=True):  # row-major cell numbers
        flat_index = lax.add(lax.mul(flat_index, np.int64(n)), index)
    hist = bincount(flat_index, weights, length=math.prod(n_cells))
    hist = cnp.reshape(hist, tuple(n_cells))[(slice(1, -1),) * n_dims]
    if density:
        hist = lax.convert_element_type(hist, sample.dtype)
        hist = lax.div(hist, cnp.sum(hist))
        widths = [lax.sub(e[1:], e[:-1]) for e in all_edges]
        for norm in ix_(*widths):
            hist = lax.div(hist, norm)
    return hist, all_edges


def histogram2d(
    x: AnyArray,
    y: AnyArray,
    bins: AnyArray | Sequence[AnyArray] = 10,
    range: Sequence[Any] | None = None,
    weights: AnyArray | None = None,
    density: bool | None = None,
) -> tuple[AnyArray, AnyArray, AnyArray]:
    """``(counts, x_edges, y_edges)``: :func:`histogramdd` of the points ``(x[i], y[i])``.
    ``bins`` is a count, an edges array for both axes, or a pair of either."""
    check_arraylike("histogram2d", (x, y))
    try:
        n_bins = len(bins)
    except TypeError:
        n_bins = 1
    if n_bins not in (1, 2):  # one edges array, shared by both axes
        edges = cnp.asarray(bins)
        bins = [edges, edges]
    sample = cnp.stack([cnp.asarray(x), cnp.asarray(y)], axis=1)
    hist, (x_edges, y_edges) = histogramdd(sample, bins, range, weights, density)
    return hist, x_edges, y_edges


_SIZE_HINT = (
    "Pass a static size=... (padding with fill_value), or use mnp.where(condition, x, y) to "
    "keep the shape fixed."
)


def nonzero(a: ArrayLike, *, size: int | None = None, fill_value: Any = None) -> tuple[Array, ...]:
    """Indices of the non-zero elements, one int64 array per dimension.

    Under ``jit``/``vmap`` the number of results must be static: give ``size`` (the result is
    truncated or padded with ``fill_value``, default 0)."""
    if size is None:
        values = concrete_or_error(
            "nonzero", a, "the array (its values set the result's length)", _SIZE_HINT
        )
        return tuple(cnp.asarray(i) for i in np.nonzero(values))
    a = cnp.asarray(a)
    shape = cnp.shape(a)
    flat_mask = cnp.ravel(lax.ne(a, cnp.zeros_like(a)))
    # a stable argsort of "is zero" lists the non-zero positions first, in order
    order = lax.sort(
        (lax.bitwise_not(flat_mask), lax.iota(np.int64, cnp.shape(flat_mask)[0])), num_keys=1
    )[1]
    n = cnp.shape(flat_mask)[0]
    if size > n:
        order = lax.pad(order, np.int64(0), [(0, size - n, 0)])
    order = lax.slice(order, (0,), (size,))
    valid = lax.lt(lax.iota(np.int64, size), cnp.sum(flat_mask))
    out = []
    stride = 1
    strides = []
    for d in reversed(shape):
        strides.append(stride)
        stride *= d
    strides.reverse()
    fills = fill_value if isinstance(fill_value, tuple) else (fill_value,) * len(shape)
    for dim, st, fill in zip(shape, strides, fills, strict=True):
        coord = lax.rem(lax.div(order, np.int64(st)), np.int64(dim))
        out.append(lax.select(valid, coord, cnp.full_like(coord, 0 if fill is None else fill)))
    return tuple(out)


def flatnonzero(a: ArrayLike, *, size: int | None = None, fill_value: Any = None) -> Array:
    """Indices of the non-zero elements of the flattened array."""
    return nonzero(cnp.ravel(cnp.asarray(a)), size=size, fill_value=fill_value)[0]


def argwhere(a: ArrayLike, *, size: int | None = None, fill_value: Any = None) -> Array:
    """``(N, ndim)`` indices of the non-zero elements."""
    a = cnp.asarray(a)
    if cnp.ndim(a) == 0:
        a = cnp.reshape(a, (1,))
        return cnp.stack(nonzero(a, size=size, fill_value=fill_value), axis=1)[:, :0]
    return cnp.stack(nonzero(a, size=size, fill_value=fill_value), axis=1)
