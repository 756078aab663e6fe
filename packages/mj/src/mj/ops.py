"""``mj.ops``: functional indexed updates that work on any array, NumPy arrays included,
and the segment reductions.

``x.at[idx].set(v)`` is the everyday spelling, but a user's NumPy arrays have no ``.at``.
These functions (the names of JAX's original API) accept any array:
``index_update(x, index[1, :], 1.0)`` is ``x.at[1, :].set(1.0)``. ``segment_sum`` and its
siblings reduce the rows of ``data`` that share a segment id, with ``jax.ops``' signature.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

import mj_core.numpy as cnp
from mj_core import lax
from mj_core.errors import user_line_suffix
from mj_core.extend import (
    Array,
    ArrayLike,
    IndexUpdateRef,
    concrete_or_error,
    gather_scatter_mode,
    shape_of,
    static_int,
)

__all__ = [
    "index",
    "index_add",
    "index_max",
    "index_min",
    "index_mul",
    "index_update",
    "segment_max",
    "segment_min",
    "segment_prod",
    "segment_sum",
]


_I = TypeVar("_I")


class _Index:
    """``index[...]`` returns the index expression itself: ``index[::2, 3:]``."""

    __slots__ = ()

    def __getitem__(self, idx: _I) -> _I:
        return idx


index = _Index()


def index_update(x: ArrayLike, idx: object, y: ArrayLike) -> Array:
    """A copy of ``x`` with ``x[idx] = y``."""
    return IndexUpdateRef(x, idx).set(y)


def index_add(x: ArrayLike, idx: object, y: ArrayLike) -> Array:
    """A copy of ``x`` with ``x[idx] += y`` (repeated indices accumulate)."""
    return IndexUpdateRef(x, idx).add(y)


def index_mul(x: ArrayLike, idx: object, y: ArrayLike) -> Array:
    """A copy of ``x`` with ``x[idx] *= y``."""
    return IndexUpdateRef(x, idx).multiply(y)


def index_min(x: ArrayLike, idx: object, y: ArrayLike) -> Array:
    """A copy of ``x`` with ``x[idx] = minimum(x[idx], y)``."""
    return IndexUpdateRef(x, idx).min(y)


def index_max(x: ArrayLike, idx: object, y: ArrayLike) -> Array:
    """A copy of ``x`` with ``x[idx] = maximum(x[idx], y)``."""
    return IndexUpdateRef(x, idx).max(y)


# --- segment reductions ---------------------------------------------------------------------
def _identity(scatter: Callable[..., Array], dtype: np.dtype[Any]) -> bool | int | float:
    """The value an empty segment holds: the reduction's identity in ``dtype`` (JAX's)."""
    if scatter is lax.scatter_add:
        return 0
    if scatter is lax.scatter_mul:
        return 1
    low = scatter is lax.scatter_max
    if dtype == np.bool_:
        return not low
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return info.min if low else info.max
    return -np.inf if low else np.inf


def _segment_reduce(
    name: str,
    scatter: Callable[..., Array],
    reducer: Callable[..., Array],
    data: ArrayLike,
    segment_ids: ArrayLike,
    num_segments: int | None,
    indices_are_sorted: bool,
    unique_indices: bool,
    bucket_size: int | None,
    mode: str | None,
) -> Array:
    """Scatter the rows of ``data`` into ``num_segments`` rows filled with the identity
    (per bucket of ``bucket_size`` rows, then ``reducer`` over the buckets, when given)."""
    data = cnp.asarray(data)
    ids = cnp.asarray(segment_ids)
    shape = tuple(shape_of(data))
    if len(shape_of(ids)) != 1 or not shape or shape_of(ids)[0] != shape[0]:
        raise ValueError(
            f"{name}: segment_ids must be a 1-D array with one id per row of data, got "
            f"segment_ids of shape {tuple(shape_of(ids))} for data of shape {shape}"
            f"{user_line_suffix()}"
        )
    if not np.issubdtype(cnp.result_type(ids), np.integer):
        raise TypeError(
            f"{name}: segment_ids must be integers, got {cnp.result_type(ids)}{user_line_suffix()}"
        )
    if num_segments is None:
        concrete = concrete_or_error(
            name, ids, "segment_ids", "Pass num_segments to use it under jit or vmap."
        )
        num_segments = int(concrete.max()) + 1 if concrete.size else 0
    num_segments = static_int(name, num_segments, "num_segments")
    if num_segments < 0:
        raise ValueError(f"{name}: num_segments must be non-negative, got {num_segments}")
    clip = gather_scatter_mode(mode) != "fill"
    if clip:
        ids = cnp.clip(ids, 0, max(num_segments - 1, 0))
    dtype = cnp.result_type(data)
    rest = shape[1:]
    window = tuple(range(1, len(shape)))
    if bucket_size is None:
        out = cnp.full((num_segments, *rest), _identity(scatter, dtype), dtype)
        dnums = lax.ScatterDimensionNumbers(
            update_window_dims=window, inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
        )
        indices = lax.expand_dims(ids, (1,))
    else:
        bucket_size = static_int(name, bucket_size, "bucket_size")
        num_buckets = -(-shape[0] // bucket_size)
        out = cnp.full((num_buckets, num_segments, *rest), _identity(scatter, dtype), dtype)
        dnums = lax.ScatterDimensionNumbers(
            update_window_dims=window,
            inserted_window_dims=(0, 1),
            scatter_dims_to_operand_dims=(0, 1),
        )
        buckets = cnp.floor_divide(cnp.arange(shape[0], dtype=cnp.result_type(ids)), bucket_size)
        indices = cnp.stack([buckets, ids], axis=1)
    out = scatter(
        out,
        indices,
        data,
        dnums,
        indices_are_sorted=indices_are_sorted,
        unique_indices=unique_indices,
        mode="clip" if clip else "fill",
    )
    if bucket_size is None:
        return out
    return cnp.asarray(reducer(out, axis=0), dtype)


def segment_sum(
    data: ArrayLike,
    segment_ids: ArrayLike,
    num_segments: int | None = None,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    bucket_size: int | None = None,
    mode: str | None = None,
) -> Array:
    """``out[s] = sum of data[i] with segment_ids[i] == s`` for ``s < num_segments`` (default
    ``max(segment_ids) + 1``, which must then be concrete); ids out of range are dropped
    (``mode="clip"`` clamps them). ``bucket_size`` sums buckets of rows first."""
    return _segment_reduce(
        "segment_sum", lax.scatter_add, cnp.sum, data, segment_ids, num_segments,
        indices_are_sorted, unique_indices, bucket_size, mode,
    )  # fmt: skip


def segment_prod(
    data: ArrayLike,
    segment_ids: ArrayLike,
    num_segments: int | None = None,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    bucket_size: int | None = None,
    mode: str | None = None,
) -> Array:
    """The product within each segment (1 for an empty one); see :func:`segment_sum`. As in
    JAX, its gradient with respect to ``data`` needs ``unique_indices=True``."""
    return _segment_reduce(
        "segment_prod", lax.scatter_mul, cnp.prod, data, segment_ids, num_segments,
        indices_are_sorted, unique_indices, bucket_size, mode,
    )  # fmt: skip


def segment_max(
    data: ArrayLike,
    segment_ids: ArrayLike,
    num_segments: int | None = None,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    bucket_size: int | None = None,
    mode: str | None = None,
) -> Array:
    """The maximum within each segment (``-inf``, or the dtype's minimum, for an empty one);
    see :func:`segment_sum`."""
    return _segment_reduce(
        "segment_max", lax.scatter_max, cnp.max, data, segment_ids, num_segments,
        indices_are_sorted, unique_indices, bucket_size, mode,
    )  # fmt: skip


def segment_min(
    data: ArrayLike,
    segment_ids: ArrayLike,
    num_segments: int | None = None,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    bucket_size: int | None = None,
    mode: str | None = None,
) -> Array:
    """The minimum within each segment (``inf``, or the dtype's maximum, for an empty one);
    see :func:`segment_sum`."""
    return _segment_reduce(
        "segment_min", lax.scatter_min, cnp.min, data, segment_ids, num_segments,
        indices_are_sorted, unique_indices, bucket_size, mode,
    )  # fmt: skip
