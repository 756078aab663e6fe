"""Batching rules of the shape-changing primitives (broadcast, reshape, transpose, ...).

Each rule rewrites the primitive's axis params so that the batch axis rides along where it
already is; only ``reshape`` (whose new sizes mix axes) needs it at the front.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from mj_batch._batching import (
    BatchDim,
    Dims,
    RuleResult,
    Vals,
    defvectorized,
    dtype_of,
    match_batch_dims,
    moveaxis,
    not_mapped,
    shape_of,
    shift_axis,
    vmap_rules,
)
from mj_batch._elementwise import align_batched
from mj_core import prims
from mj_core.prims.elementwise import select_n_p
from mj_core.trace import bind, bind1

__all__: list[str] = []


def _broadcast_vmap(
    axis_size: int,
    vals_in: Vals,
    dims_in: Dims,
    *,
    shape: tuple[int, ...],
    broadcast_dimensions: tuple[int, ...],
) -> RuleResult:
    (x,), (bdim,) = vals_in, dims_in
    assert isinstance(bdim, int)
    bcast = broadcast_dimensions
    if any(a >= b for a, b in itertools.pairwise(bcast)):
        x, bdim = moveaxis(x, bdim, 0), 0  # unsorted dims: batch goes first
    # Insert the batch axis right after the output axis of the operand axis before it, so the
    # operand keeps its layout and the dims stay increasing.
    out_bdim = bcast[bdim - 1] + 1 if bdim > 0 else 0
    new_shape = (*shape[:out_bdim], axis_size, *shape[out_bdim:])
    new_dims = tuple(shift_axis(a, out_bdim) for a in bcast)
    new_dims = (*new_dims[:bdim], out_bdim, *new_dims[bdim:])
    out = bind1(prims.broadcast_p, x, shape=new_shape, broadcast_dimensions=new_dims)
    return [out], [out_bdim]


vmap_rules[prims.broadcast_p] = _broadcast_vmap


def _reshape_vmap(
    axis_size: int, vals_in: Vals, dims_in: Dims, *, new_sizes: tuple[int, ...]
) -> RuleResult:
    (x,), (bdim,) = vals_in, dims_in
    assert isinstance(bdim, int)
    x = moveaxis(x, bdim, 0)
    return [bind1(prims.reshape_p, x, new_sizes=(axis_size, *new_sizes))], [0]


vmap_rules[prims.reshape_p] = _reshape_vmap


def _transpose_vmap(
    axis_size: int, vals_in: Vals, dims_in: Dims, *, permutation: tuple[int, ...]
) -> RuleResult:
    (x,), (bdim,) = vals_in, dims_in
    assert isinstance(bdim, int)
    perm = [shift_axis(p, bdim) for p in permutation]
    perm.insert(bdim, bdim)
    return [bind1(prims.transpose_p, x, permutation=tuple(perm))], [bdim]


vmap_rules[prims.transpose_p] = _transpose_vmap


def _per_example_axes(axes: Sequence[int], ndim: int) -> list[int]:
    return [a % ndim if ndim else a for a in axes]


def _squeeze_vmap(
    axis_size: int, vals_in: Vals, dims_in: Dims, *, dimensions: tuple[int, ...]
) -> RuleResult:
    (x,), (bdim,) = vals_in, dims_in
    assert isinstance(bdim, int)
    axes = _per_example_axes(dimensions, x.ndim - 1)
    new_dims = tuple(shift_axis(a, bdim) for a in axes)
    out_bdim = bdim - sum(a < bdim for a in axes)
    return [bind1(prims.squeeze_p, x, dimensions=new_dims)], [out_bdim]


vmap_rules[prims.squeeze_p] = _squeeze_vmap


def _rev_vmap(
    axis_size: int, vals_in: Vals, dims_in: Dims, *, dimensions: tuple[int, ...]
) -> RuleResult:
    (x,), (bdim,) = vals_in, dims_in
    assert isinstance(bdim, int)
    axes = _per_example_axes(dimensions, x.ndim - 1)
    new_dims = tuple(shift_axis(a, bdim) for a in axes)
    return [bind1(prims.rev_p, x, dimensions=new_dims)], [bdim]


vmap_rules[prims.rev_p] = _rev_vmap


def _concatenate_vmap(
    axis_size: int, vals_in: Vals, dims_in: Dims, *, dimension: int
) -> RuleResult:
    xs, bdim = match_batch_dims(axis_size, vals_in, dims_in)
    out = bind1(prims.concatenate_p, *xs, dimension=shift_axis(dimension, bdim))
    return [out], [bdim]


vmap_rules[prims.concatenate_p] = _concatenate_vmap


def _pad_vmap(
    axis_size: int,
    vals_in: Vals,
    dims_in: Dims,
    *,
    padding_config: tuple[tuple[int, int, int], ...],
) -> RuleResult:
    (x, padding_value), (bdim, pv_bdim) = vals_in, dims_in
    if pv_bdim is not_mapped:
        assert isinstance(bdim, int)
        config = (*padding_config[:bdim], (0, 0, 0), *padding_config[bdim:])
        return [bind1(prims.pad_p, x, padding_value, padding_config=config)], [bdim]
    # A batched padding value: pad with zeros, then select the padding value where a mask of
    # the padded positions (computed once, unbatched) says so.
    zero = np.zeros((), dtype_of(x))
    if bdim is not_mapped:
        shape = shape_of(x)
        padded = bind1(prims.pad_p, x, zero, padding_config=padding_config)
        out_bdim: BatchDim = not_mapped
    else:
        assert isinstance(bdim, int)
        full = shape_of(x)
        shape = full[:bdim] + full[bdim + 1 :]
        (padded,), (out_bdim,) = _pad_vmap(
            axis_size, [x, zero], [bdim, not_mapped], padding_config=padding_config
        )
    is_data = bind1(prims.pad_p, np.ones(shape, np.bool_), np.False_, padding_config=padding_config)
    operands, sel_bdim = align_batched(
        [is_data, padding_value, padded], [not_mapped, pv_bdim, out_bdim]
    )
    return bind(select_n_p, *operands), [sel_bdim]


vmap_rules[prims.pad_p] = _pad_vmap


def _slice_vmap(
    axis_size: int,
    vals_in: Vals,
    dims_in: Dims,
    *,
    start_indices: tuple[int, ...],
    limit_indices: tuple[int, ...],
    strides: tuple[int, ...] | None,
) -> RuleResult:
    (x,), (bdim,) = vals_in, dims_in
    assert isinstance(bdim, int)
    out = bind1(
        prims.slice_p,
        x,
        start_indices=(*start_indices[:bdim], 0, *start_indices[bdim:]),
        limit_indices=(*limit_indices[:bdim], axis_size, *limit_indices[bdim:]),
        strides=None if strides is None else (*strides[:bdim], 1, *strides[bdim:]),
    )
    return [out], [bdim]


vmap_rules[prims.slice_p] = _slice_vmap


defvectorized(prims.convert_element_type_p)


def _bitcast_convert_type_vmap(
    axis_size: int, vals_in: Vals, dims_in: Dims, *, new_dtype: np.dtype[Any]
) -> RuleResult:
    (x,), (bdim,) = vals_in, dims_in
    assert isinstance(bdim, int)
    if np.dtype(new_dtype).itemsize > dtype_of(x).itemsize and bdim == x.ndim - 1:
        # A wider dtype consumes the last axis, which must not be the batch axis.
        x, bdim = moveaxis(x, bdim, 0), 0
    return [bind1(prims.bitcast_convert_type_p, x, new_dtype=new_dtype)], [bdim]


vmap_rules[prims.bitcast_convert_type_p] = _bitcast_convert_type_vmap
