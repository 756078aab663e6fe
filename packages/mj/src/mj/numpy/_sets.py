"""Set operations: ``unique`` and its array-API variants (``unique_all``, ``unique_counts``,
``unique_inverse``, ``unique_values``), ``union1d``, ``intersect1d``, ``setdiff1d``,
``setxor1d`` and ``isin``, following JAX's algorithms so that results, padding and index
dtypes agree with it.

The number of unique values depends on the data, so without a static ``size`` these need a
concrete input (``grad`` keeps its primals concrete; ``jit``/``vmap`` do not). With ``size``
the result is truncated or padded (by default with the smallest value found) and everything
traces.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

import mj_core.numpy as cnp
from mj_core import lax
from mj_core.dtypes import is_inexact
from mj_core.extend import (
    AnyArray,
    Array,
    ArrayLike,
    canonicalize_axis,
    check_arraylike,
    concrete_or_error,
    promote,
    static_int,
)
from mj_core.numpy import lexsort, nonzero, searchsorted, sort

__all__ = [
    "intersect1d",
    "isin",
    "setdiff1d",
    "setxor1d",
    "union1d",
    "unique",
    "unique_all",
    "unique_counts",
    "unique_inverse",
    "unique_values",
]


_SIZE_HINT = (
    "Pass a static size=... (the result is truncated or padded with fill_value) to use it "
    "under jit or vmap."
)
_ISIN_METHODS = ("auto", "compare_all", "binary_search", "sort")


def _concrete_mask(name: str, mask: ArrayLike) -> np.ndarray[Any, Any]:
    """The positions where the concrete boolean ``mask`` holds (a ``ConcretizationError`` if
    it is traced: the result's length depends on it)."""
    what = "the data deciding the number of results (without a static size)"
    return np.nonzero(concrete_or_error(name, mask, what, _SIZE_HINT))[0]


def _unique_sorted_mask(ar: ArrayLike, axis: int, equal_nan: bool) -> tuple[Array, Array, Array]:
    """``ar``'s slices along ``axis`` sorted lexicographically (moved to the front), a mask of
    the first slice of each run of equal ones, and the sorting permutation."""
    aux = cnp.moveaxis(ar, axis, 0)
    if aux.dtype.kind == "c":  # one NaN, whatever its imaginary part, as NumPy sorts them
        aux = cnp.where(cnp.isnan(aux), cnp.asarray(np.nan, aux.dtype), aux)
    size, *rest = cnp.shape(aux)
    width = math.prod(rest)
    if width == 0:  # empty slices are all equal: one of them survives
        size, perm = 1, cnp.zeros(1, np.int64)
    else:
        columns = cnp.reshape(aux, (size, width))
        perm = lexsort([columns[:, j] for j in reversed(range(width))])
    aux = cnp.take(aux, perm, axis=0, mode="clip")
    if cnp.size(aux) == 0:
        return aux, cnp.zeros(size, np.bool_), perm
    later, earlier = aux[1:], aux[:-1]
    differ = lax.ne(later, earlier)
    if equal_nan and is_inexact(aux.dtype):
        both_nan = lax.bitwise_and(cnp.isnan(later), cnp.isnan(earlier))
        differ = lax.bitwise_and(differ, lax.bitwise_not(both_nan))
    starts = cnp.any(differ, axis=tuple(range(1, cnp.ndim(aux))))
    return aux, lax.concatenate([cnp.ones(1, np.bool_), starts], 0), perm


def _unique(
    ar: ArrayLike,
    axis: int,
    return_index: bool = False,
    return_inverse: bool = False,
    return_counts: bool = False,
    equal_nan: bool = True,
    size: int | None = None,
    fill_value: ArrayLike | None = None,
    return_true_size: bool = False,
) -> tuple[Array, ...]:
    """The unique slices of ``ar`` along ``axis`` and the requested extras (JAX's
    ``_unique``; ``return_true_size`` adds the number of unique slices, for the set ops)."""
    n = cnp.shape(ar)[axis]
    if n == 0 and size and fill_value is None:
        raise ValueError(
            "unique: for an empty input with a nonzero size argument, fill_value must be given"
        )
    aux, mask, perm = _unique_sorted_mask(ar, axis, equal_nan)
    nonempty = cnp.size(aux) > 0
    ind: AnyArray = None  # the positions of the unique slices in aux (when there are any)
    result = aux
    if nonempty:
        ind = _concrete_mask("unique", mask) if size is None else nonzero(mask, size=size)[0]
        result = cnp.take(aux, ind, axis=0)
    if size is not None and fill_value is not None:
        fill = lax.convert_element_type(cnp.asarray(fill_value), result.dtype)
        if cnp.shape(result)[0]:
            valid = lax.lt(lax.iota(np.int64, size), cnp.sum(mask))
            valid = cnp.reshape(valid, (size, *(1,) * (cnp.ndim(result) - 1)))
            result = cnp.where(valid, result, fill)
        else:
            result = cnp.full((size, *cnp.shape(result)[1:]), fill, result.dtype)
    ret: tuple[AnyArray, ...] = (cnp.moveaxis(result, 0, axis),)
    if return_index:
        ret += (cnp.take(perm, ind, mode="clip") if nonempty else perm,)
    if return_inverse:
        if nonempty:
            position = lax.sub(cnp.cumsum(mask), np.int64(1))
            ret += (cnp.zeros(cnp.shape(mask), np.int64).at[perm].set(position),)
        else:
            ret += (cnp.zeros(n, np.int64),)
    if return_counts:
        if nonempty:
            n_sorted = cnp.shape(mask)[0]
            if size is None:
                starts = cnp.asarray(np.append(ind, n_sorted))
            else:
                starts = nonzero(mask, size=size + 1)[0]
                tail = starts[1:]
                starts = starts.at[1:].set(cnp.where(lax.ne(tail, 0), tail, np.int64(n_sorted)))
            ret += (lax.sub(starts[1:], starts[:-1]),)
        elif n:
            ret += (cnp.full((1,), n, np.int64),)
        else:
            ret += (cnp.zeros(0, np.int64),)
    if return_true_size:
        ret += (cnp.sum(mask),)
    return ret


def unique(
    ar: ArrayLike,
    return_index: bool = False,
    return_inverse: bool = False,
    return_counts: bool = False,
    axis: int | None = None,
    *,
    equal_nan: bool = True,
    size: int | None = None,
    fill_value: ArrayLike | None = None,
    sorted: bool = True,
) -> Array | tuple[Array, ...]:
    """The sorted unique values of ``ar`` (flattened, or unique slices along ``axis``), with
    the index of each one's first occurrence, the inverse indices rebuilding ``ar`` and the
    counts on request (int64). ``size`` fixes the number of results: extra ones are dropped,
    missing ones are ``fill_value`` (default: the smallest value). ``sorted`` is unused."""
    del sorted  # the results are always sorted, as in JAX
    check_arraylike("unique", (ar,))
    arr = cnp.asarray(ar)
    if size is None:
        concrete_or_error("unique", arr, "the input (without a static size)", _SIZE_HINT)
    else:
        size = static_int("unique", size, "size")
    shape = cnp.shape(arr)
    if axis is None:
        axis_int, arr = 0, cnp.ravel(arr)
    else:
        axis_int = canonicalize_axis("unique", axis, cnp.ndim(arr))
    result = _unique(
        arr, axis_int, return_index, return_inverse, return_counts, equal_nan, size, fill_value
    )
    if return_inverse and axis is None:  # NumPy 2: the inverse has the input's shape
        i = 2 if return_index else 1
        result = (*result[:i], cnp.reshape(result[i], shape), *result[i + 1 :])
    return result[0] if len(result) == 1 else result


class UniqueAllResult(NamedTuple):
    """What :func:`unique_all` returns."""

    values: AnyArray
    indices: AnyArray
    inverse_indices: AnyArray
    counts: AnyArray


class UniqueCountsResult(NamedTuple):
    """What :func:`unique_counts` returns."""

    values: AnyArray
    counts: AnyArray


class UniqueInverseResult(NamedTuple):
    """What :func:`unique_inverse` returns."""

    values: AnyArray
    inverse_indices: AnyArray


def unique_all(
    x: ArrayLike, /, *, size: int | None = None, fill_value: ArrayLike | None = None
) -> UniqueAllResult:
    """``unique`` with indices, inverse indices and counts; NaNs count as distinct."""
    check_arraylike("unique_all", (x,))
    values, indices, inverse, counts = unique(
        x, True, True, True, equal_nan=False, size=size, fill_value=fill_value
    )
    return UniqueAllResult(values, indices, inverse, counts)


def unique_counts(
    x: ArrayLike, /, *, size: int | None = None, fill_value: ArrayLike | None = None
) -> UniqueCountsResult:
    """``unique`` with counts; NaNs count as distinct."""
    check_arraylike("unique_counts", (x,))
    values, counts = unique(
        x, return_counts=True, equal_nan=False, size=size, fill_value=fill_value
    )
    return UniqueCountsResult(values, counts)


def unique_inverse(
    x: ArrayLike, /, *, size: int | None = None, fill_value: ArrayLike | None = None
) -> UniqueInverseResult:
    """``unique`` with the inverse indices (of ``x``'s shape); NaNs count as distinct."""
    check_arraylike("unique_inverse", (x,))
    values, inverse = unique(
        x, return_inverse=True, equal_nan=False, size=size, fill_value=fill_value
    )
    return UniqueInverseResult(values, inverse)


def unique_values(
    x: ArrayLike, /, *, size: int | None = None, fill_value: ArrayLike | None = None
) -> AnyArray:
    """The unique values of ``x``; NaNs count as distinct."""
    check_arraylike("unique_values", (x,))
    return unique(x, equal_nan=False, size=size, fill_value=fill_value)


def _in1d(ar1: ArrayLike, ar2: ArrayLike, invert: bool, method: str = "auto") -> Array:
    """Whether each element of the flattened ``ar1`` is in ``ar2`` (not in it if ``invert``).

    ``'auto'``/``'compare_all'`` compare every pair (fast for small ``ar2``);
    ``'binary_search'``/``'sort'`` search the sorted ``ar2`` (memory ``O(n + m)``)."""
    if method not in _ISIN_METHODS:
        raise ValueError(f"isin: method must be one of {list(_ISIN_METHODS)}, got {method!r}")
    arr1, arr2 = promote(cnp.asarray(ar1), cnp.asarray(ar2))
    arr1, arr2 = cnp.ravel(arr1), cnp.ravel(arr2)
    if cnp.size(arr1) == 0 or cnp.size(arr2) == 0:
        return (cnp.ones if invert else cnp.zeros)(cnp.shape(arr1), np.bool_)
    if method in ("auto", "compare_all"):
        if invert:
            return cnp.all(lax.ne(arr1[:, None], arr2[None, :]), axis=-1)
        return cnp.any(lax.eq(arr1[:, None], arr2[None, :]), axis=-1)
    ordered = sort(arr2)
    nearest = cnp.take(ordered, searchsorted(ordered, arr1), mode="clip")
    return lax.ne(arr1, nearest) if invert else lax.eq(arr1, nearest)


def isin(
    element: ArrayLike,
    test_elements: ArrayLike,
    assume_unique: bool = False,
    invert: bool = False,
    *,
    method: str = "auto",
) -> Array:
    """Whether each element of ``element`` is in ``test_elements`` (a bool array of
    ``element``'s shape; NaN is in nothing). ``assume_unique`` is accepted for NumPy."""
    del assume_unique  # the methods here do not need unique inputs
    check_arraylike("isin", (element, test_elements))
    element = cnp.asarray(element)
    return cnp.reshape(_in1d(element, test_elements, invert, method), cnp.shape(element))


def union1d(
    ar1: ArrayLike, ar2: ArrayLike, *, size: int | None = None, fill_value: ArrayLike | None = None
) -> AnyArray:
    """The sorted unique values found in either array (both flattened)."""
    check_arraylike("union1d", (ar1, ar2))
    if size is None:
        for value in (ar1, ar2):
            concrete_or_error("union1d", value, "the inputs (without a static size)", _SIZE_HINT)
    both = cnp.concatenate([cnp.ravel(cnp.asarray(ar1)), cnp.ravel(cnp.asarray(ar2))])
    return unique(both, size=size, fill_value=fill_value)


def setdiff1d(
    ar1: ArrayLike,
    ar2: ArrayLike,
    assume_unique: bool = False,
    *,
    size: int | None = None,
    fill_value: ArrayLike | None = None,
) -> Array:
    """The sorted unique values of ``ar1`` that are not in ``ar2`` (``ar1``'s dtype); with
    ``size``, padded with ``fill_value`` (default 0)."""
    check_arraylike("setdiff1d", (ar1, ar2))
    arr1, arr2 = cnp.ravel(cnp.asarray(ar1)), cnp.ravel(cnp.asarray(ar2))
    if size is None:
        concrete_or_error("setdiff1d", arr1, "ar1 (without a static size)", _SIZE_HINT)
    else:
        size = static_int("setdiff1d", size, "size")
    fill = lax.convert_element_type(
        cnp.asarray(0 if fill_value is None else fill_value), arr1.dtype
    )
    n = cnp.size(arr1)
    if n == 0:
        return cnp.full((size or 0,), fill, arr1.dtype)
    if not assume_unique:
        arr1 = cnp.asarray(unique(arr1, size=None if size is None else n))
    mask = _in1d(arr1, arr2, invert=True)
    if size is None:
        return cnp.take(arr1, _concrete_mask("setdiff1d", mask), mode="clip")
    if not assume_unique:  # unique's padding repeats arr1[0]: drop those copies
        n_unique = lax.sub(np.int64(n + 1), cnp.sum(lax.eq(arr1, arr1[0])))
        mask = lax.bitwise_and(mask, lax.lt(lax.iota(np.int64, n), n_unique))
    kept = cnp.take(arr1, nonzero(mask, size=size)[0], mode="clip")
    return cnp.where(lax.lt(lax.iota(np.int64, size), cnp.sum(mask)), kept, fill)


def _concat_unique(arr1: ArrayLike, arr2: ArrayLike) -> tuple[Array, Array]:
    """Each array's unique values, the second's right after the first's, and their count."""
    u1, n1 = _unique(arr1, 0, size=cnp.size(arr1), return_true_size=True)
    u2, n2 = _unique(arr2, 0, size=cnp.size(arr2), return_true_size=True)
    out = cnp.zeros(cnp.size(u1) + cnp.size(u2), cnp.result_type(u1, u2))
    out = lax.dynamic_update_slice(out, u1, (np.int64(0),))
    out = lax.dynamic_update_slice(out, u2, (n1,))
    return out, lax.add(n1, n2)


def _pad_results(vals: AnyArray, num_results: AnyArray, fill_value: AnyArray | None) -> AnyArray:
    """``vals`` past the first ``num_results`` set to ``fill_value``, by default the smallest
    valid value (JAX's padding for ``intersect1d``/``setxor1d`` with ``size``)."""
    valid = lax.lt(lax.iota(np.int64, cnp.shape(vals)[0]), num_results)
    if fill_value is not None:
        return cnp.where(valid, vals, lax.convert_element_type(fill_value, vals.dtype))
    vals = cnp.where(valid, vals, cnp.max(vals))
    return cnp.where(valid, vals, cnp.min(vals))


def _setxor1d_size(
    arr1: ArrayLike, arr2: ArrayLike, fill_value: ArrayLike | None, assume_unique: bool, size: int
) -> AnyArray:
    """``setxor1d`` with a static ``size`` (traceable)."""
    if assume_unique:
        aux = sort(cnp.concatenate([arr1, arr2]))
        flag = lax.concatenate(
            [cnp.full(1, cnp.size(aux) > 0), lax.ne(aux[1:], aux[:-1]), cnp.ones(1, np.bool_)], 0
        )
    else:
        arr, num_unique = _concat_unique(arr1, arr2)
        total = cnp.size(arr)
        mask = lax.lt(lax.iota(np.int64, total + 1), lax.add(num_unique, np.int64(1)))
        _, aux = lax.sort((lax.bitwise_not(mask[1:]), arr), num_keys=2)
        edges = lax.concatenate(
            [cnp.full(1, total > 0), lax.ne(aux[1:], aux[:-1]), cnp.zeros(1, np.bool_)], 0
        )
        flag = lax.bitwise_and(mask, edges.at[num_unique].set(True))
    alone = lax.bitwise_and(flag[1:], flag[:-1])
    if cnp.size(aux):
        index = nonzero(alone, size=size, fill_value=cnp.size(aux))[0]
        vals = aux.at[index].get(mode="fill", fill_value=0)
    else:
        vals = cnp.zeros(size, aux.dtype)
    return _pad_results(vals, cnp.sum(alone), fill_value)


def setxor1d(
    ar1: ArrayLike,
    ar2: ArrayLike,
    assume_unique: bool = False,
    *,
    size: int | None = None,
    fill_value: ArrayLike | None = None,
) -> AnyArray:
    """The sorted unique values found in exactly one of the arrays (both flattened)."""
    check_arraylike("setxor1d", (ar1, ar2))
    arr1, arr2 = promote(cnp.ravel(cnp.asarray(ar1)), cnp.ravel(cnp.asarray(ar2)))
    if size is not None:
        return _setxor1d_size(
            arr1, arr2, fill_value, assume_unique, static_int("setxor1d", size, "size")
        )
    if not assume_unique:
        arr1, arr2 = unique(arr1), unique(arr2)
    aux = cnp.concatenate([arr1, arr2])
    if cnp.size(aux) == 0:
        return aux
    aux = sort(aux)
    edge = lax.ne(aux[1:], aux[:-1])
    flag = lax.concatenate([cnp.ones(1, np.bool_), edge, cnp.ones(1, np.bool_)], 0)
    alone = lax.bitwise_and(flag[1:], flag[:-1])
    return cnp.take(aux, _concrete_mask("setxor1d", alone), mode="clip")


def _intersect1d_size(
    arr1: ArrayLike,
    arr2: ArrayLike,
    fill_value: ArrayLike | None,
    assume_unique: bool,
    size: int,
    return_indices: bool,
) -> AnyArray | tuple[AnyArray, AnyArray, AnyArray]:
    """``intersect1d`` with a static ``size`` (traceable): padded values are ``fill_value``,
    padded indices are out of bounds (the array's length)."""
    n1, n2 = cnp.size(arr1), cnp.size(arr2)
    if assume_unique:
        ind1, num_unique1 = cnp.arange(n1), cnp.asarray(np.int64(n1))
        ind2 = cnp.arange(n2)
        arr = cnp.concatenate([arr1, arr2])
        aux, aux_sort_indices = lax.sort((arr, cnp.arange(cnp.size(arr))), num_keys=1)
        mask = cnp.ones(cnp.size(arr), np.bool_)
    else:
        arr1, ind1, num_unique1 = _unique(
            arr1, 0, return_index=True, size=n1, fill_value=0, return_true_size=True
        )
        arr2, ind2, num_unique2 = _unique(
            arr2, 0, return_index=True, size=n2, fill_value=0, return_true_size=True
        )
        arr = cnp.zeros(n1 + n2, cnp.result_type(arr1, arr2))
        arr = lax.dynamic_update_slice(arr, arr1, (np.int64(0),))
        arr = lax.dynamic_update_slice(arr, arr2, (num_unique1,))
        mask = lax.lt(cnp.arange(n1 + n2), lax.add(num_unique1, num_unique2))
        _, aux, aux_sort_indices = lax.sort(
            (lax.bitwise_not(mask), arr, cnp.arange(n1 + n2)), num_keys=2
        )
    total = cnp.size(aux)
    pairs = lax.bitwise_and(lax.eq(aux[1:], aux[:-1]), mask[1:])
    num_results = cnp.sum(pairs)
    if total:
        val_indices = nonzero(pairs, size=size, fill_value=total)[0]
        vals = aux.at[val_indices].get(mode="fill", fill_value=0)
    else:
        val_indices = cnp.zeros(size, np.int64)
        vals = cnp.zeros(size, aux.dtype)
    vals = _pad_results(vals, num_results, fill_value)
    if not return_indices:
        return vals
    valid = lax.lt(lax.iota(np.int64, size), num_results)
    idx1 = aux_sort_indices.at[val_indices].get(mode="fill", fill_value=n1)
    idx1 = cnp.where(valid, idx1, np.int64(n1))
    idx2 = aux_sort_indices.at[lax.add(val_indices, np.int64(1))].get(mode="fill", fill_value=n2)
    idx2 = cnp.where(valid, lax.sub(idx2, num_unique1), np.int64(n2))
    if not assume_unique:
        idx1 = ind1.at[idx1].get(mode="fill", fill_value=cnp.size(ind1))
        idx2 = ind2.at[idx2].get(mode="fill", fill_value=cnp.size(ind2))
    return vals, idx1, idx2


def intersect1d(
    ar1: ArrayLike,
    ar2: ArrayLike,
    assume_unique: bool = False,
    return_indices: bool = False,
    *,
    size: int | None = None,
    fill_value: ArrayLike | None = None,
) -> Array | tuple[Array, Array, Array]:
    """The sorted unique values found in both arrays (flattened); ``return_indices`` adds
    where each first occurs in ``ar1`` and in ``ar2``."""
    check_arraylike("intersect1d", (ar1, ar2))
    arr1, arr2 = promote(cnp.ravel(cnp.asarray(ar1)), cnp.ravel(cnp.asarray(ar2)))
    if size is not None:
        size = static_int("intersect1d", size, "size")
        return _intersect1d_size(arr1, arr2, fill_value, assume_unique, size, return_indices)
    ind1 = ind2 = None
    if not assume_unique:
        if return_indices:
            arr1, ind1 = unique(arr1, return_index=True)
            arr2, ind2 = unique(arr2, return_index=True)
        else:
            arr1, arr2 = unique(arr1), unique(arr2)
    arr = cnp.concatenate([arr1, arr2])
    n1, total = cnp.size(arr1), cnp.size(arr)
    # JAX's index dtype for the joint sort: int32 below 2**31 elements
    iota = lax.iota(np.int32 if total < 2**31 else np.int64, total)
    aux, order = lax.sort((arr, iota), num_keys=1)
    pairs = _concrete_mask("intersect1d", lax.eq(aux[1:], aux[:-1]))
    values = cnp.take(aux, pairs, mode="clip")
    if not return_indices:
        return values
    idx1 = cnp.take(order, pairs, mode="clip")
    idx2 = lax.sub(
        cnp.take(order, pairs + 1, mode="clip"), lax.convert_element_type(n1, order.dtype)
    )
    if ind1 is not None and ind2 is not None:
        idx1, idx2 = cnp.take(ind1, idx1, mode="clip"), cnp.take(ind2, idx2, mode="clip")
    return values, idx1, idx2
