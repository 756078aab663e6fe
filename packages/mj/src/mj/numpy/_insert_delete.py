"""``insert`` and ``delete``: arrays grown or shrunk along an axis, as JAX builds them.

``insert`` scatters the values and the original entries into a zero array of the final size,
so its indices may be traced (the output size only depends on their count). ``delete`` with
a static int or slice is a concatenation of slices; an index array must be concrete (the
kept positions are a boolean mask) unless ``assume_unique_indices=True``, which computes
the kept positions with array operations and so traces.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

import mj_core.numpy as cnp
from mj_core.extend import (
    AnyArray,
    Array,
    ArrayLike,
    canonicalize_axis,
    check_arraylike,
    concrete_or_error,
)
from mj_core.numpy import argsort, nonzero, sort

__all__ = ["delete", "insert"]


def insert(
    arr: ArrayLike, obj: AnyArray | slice, values: ArrayLike, axis: int | None = None
) -> Array:
    """``values`` inserted before the positions ``obj`` (an int, a 1-D integer array or a
    slice) along ``axis`` (``None``: the flattened array). Traces in ``obj`` and ``values``."""
    check_arraylike("insert", [arr, 0 if isinstance(obj, slice) else obj, values])
    a = cnp.asarray(arr)
    if axis is None:
        a, axis = cnp.ravel(a), 0
    axis = canonicalize_axis("insert", axis, cnp.ndim(a))
    n_input = cnp.shape(a)[axis]
    indices = cnp.arange(*obj.indices(n_input)) if isinstance(obj, slice) else cnp.asarray(obj)
    if cnp.ndim(indices) > 1:
        raise ValueError(
            "insert: obj must be a slice, a one-dimensional array or a scalar; got an array of "
            f"shape {cnp.shape(indices)}"
        )
    if cnp.result_type(indices).kind not in "iu":
        if cnp.size(indices) == 0 and not isinstance(obj, Array):
            indices = cnp.asarray(indices, np.int64)  # NumPy's empty [] is float64
        else:
            raise ValueError(
                f"insert: the index array must be integer typed; got {cnp.result_type(indices)}"
            )
    vals = cnp.array(values, dtype=a.dtype, ndmin=cnp.ndim(a))
    if cnp.size(indices) == 1:
        index = cnp.ravel(indices)[0]
        if cnp.ndim(indices) == 0:  # a scalar obj: values' leading axis runs along ``axis``
            vals = cnp.moveaxis(vals, 0, axis)
        indices = cnp.full(cnp.shape(vals)[axis], index)
    n_insert = cnp.broadcast_shapes(cnp.shape(indices), (cnp.shape(vals)[axis],))[0]
    out_shape = list(cnp.shape(a))
    out_shape[axis] += n_insert
    out = cnp.zeros_like(a, shape=tuple(out_shape))

    indices = cnp.where(cnp.less(indices, 0), cnp.add(indices, n_input), indices)
    indices = cnp.clip(indices, 0, n_input)
    # the k-th smallest insertion point moves right by the k values inserted before it
    shift = cnp.arange(n_insert, dtype=indices.dtype)
    values_at = indices.at[argsort(indices)].add(shift)
    keep = cnp.ones(n_input + n_insert, dtype=bool).at[values_at].set(False)
    arr_at = nonzero(keep, size=n_input)[0]
    lead = (slice(None),) * axis
    out = out.at[(*lead, values_at)].set(vals)
    return out.at[(*lead, arr_at)].set(a)


def _static_int_or_none(obj: Any) -> int | None:
    """``obj`` as an int when it is a static integer scalar, else ``None``."""
    try:
        return operator.index(obj)
    except TypeError:  # arrays, slices, and traced scalars (ConcretizationError)
        return None


def delete(
    arr: ArrayLike,
    obj: AnyArray | slice,
    axis: int | None = None,
    *,
    assume_unique_indices: bool = False,
) -> AnyArray:
    """``arr`` without the entries ``obj`` (an int, a slice, an integer array or a boolean
    mask) along ``axis`` (``None``: the flattened array).

    An index array must be concrete unless ``assume_unique_indices=True`` promises that it
    has no repeated entries; then the result is computed with array operations and traces."""
    check_arraylike("delete", [arr])
    a = cnp.asarray(arr)
    if axis is None:
        a, axis = cnp.ravel(a), 0
    axis = canonicalize_axis("delete", axis, cnp.ndim(a))
    n = cnp.shape(a)[axis]
    lead = (slice(None),) * axis

    index = _static_int_or_none(obj)
    if index is not None:
        if not -n <= index < n:
            raise ValueError(f"delete: index {index} is out of bounds for axis {axis} of size {n}")
        index %= n
        before, after = a[(*lead, slice(0, index))], a[(*lead, slice(index + 1, None))]
        return cnp.concatenate([before, after], axis=axis)

    if isinstance(obj, slice):
        obj, assume_unique_indices = np.arange(n)[obj], True
    check_arraylike("delete", [obj])
    if cnp.result_type(obj).kind in "iu" and assume_unique_indices:
        return _delete_unique(a, cnp.ravel(cnp.asarray(obj)), axis)

    hint = "Pass assume_unique_indices=True if the indices have no duplicates."
    positions = concrete_or_error("delete", obj, "the obj index array", hint)
    if positions.dtype.kind in "iu":
        mask = np.ones(n, dtype=bool)
        try:
            mask[positions] = False
        except IndexError:
            raise IndexError(
                f"delete: an index in {positions.tolist()} is out of bounds for axis {axis} of "
                f"size {n}"
            ) from None
    elif positions.dtype == np.bool_:
        if positions.shape != (n,):
            raise ValueError(
                f"delete: a boolean obj must be one-dimensional with length {n} (the size of "
                f"axis {axis}); got shape {positions.shape}"
            )
        mask = ~positions
    else:
        raise ValueError(f"delete: obj must be integer or bool; got dtype {positions.dtype}")
    return a[(*lead, mask)]


def _delete_unique(a: AnyArray, positions: AnyArray, axis: int) -> AnyArray:
    """Delete distinct ``positions`` with array operations: the ``i``-th kept entry sits at
    ``i`` plus the number of (sorted, shifted) deleted positions at or before it."""
    n = cnp.shape(a)[axis]
    dtype = positions.dtype
    positions = cnp.where(cnp.less(positions, 0), cnp.add(positions, n), positions)
    positions = sort(cnp.clip(positions, 0, n))
    positions = cnp.subtract(positions, cnp.arange(cnp.size(positions), dtype=dtype))
    kept = cnp.arange(n - cnp.size(positions), dtype=dtype)
    before = cnp.greater_equal(kept[None, :], positions[:, None])
    kept = cnp.add(kept, cnp.sum(before, axis=0, dtype=dtype))
    return a[(*(slice(None),) * axis, kept)]
