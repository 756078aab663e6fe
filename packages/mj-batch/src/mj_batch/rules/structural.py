"""Batching rules of the shape-changing primitives (broadcast, reshape, transpose, ...) and of
``dynamic_slice`` / ``dynamic_update_slice``.

Each rule rewrites the primitive's axis params so that the batch axis rides along where it
already is; only ``reshape`` (whose new sizes mix axes) needs it at the front. ``dynamic_slice``
and ``dynamic_update_slice`` with batched start indices become a batched gather / scatter.
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
    align_batched,
    dtype_of,
    first_mapped,
    match_batch_dims,
    move_batch_axis,
    moveaxis,
    not_mapped,
    shape_of,
    shift_axis,
    vmap_rules,
)
from mj_core import bind, bind1
from mj_core.prims.conversions import convert_element_type_p
from mj_core.prims.elementwise import select_n_p
from mj_core.prims.indexing import (
    GatherDimensionNumbers,
    ScatterDimensionNumbers,
    gather_p,
    scatter_p,
)
from mj_core.prims.structural import (
    broadcast_p,
    concatenate_p,
    dynamic_slice_p,
    dynamic_update_slice_p,
    optimization_barrier_p,
    pad_p,
    reshape_p,
    rev_p,
    slice_p,
    squeeze_p,
    transpose_p,
)

__all__: list[str] = []


def _broadcast_vmap(
    axis_size: int,
    vals_in: Vals,
    dims_in: Dims,
    *,
    shape: tuple[int, ...],
    broadcast_dimensions: tuple[int, ...],
) -> RuleResult:
    (x,), bdim = vals_in, first_mapped(dims_in)
    bcast = broadcast_dimensions
    if any(a >= b for a, b in itertools.pairwise(bcast)):
        x, bdim = moveaxis(x, bdim, 0), 0  # unsorted dims: batch goes first
    # Insert the batch axis right after the output axis of the operand axis before it, so the
    # operand keeps its layout and the dims stay increasing.
    out_bdim = bcast[bdim - 1] + 1 if bdim > 0 else 0
    new_shape = (*shape[:out_bdim], axis_size, *shape[out_bdim:])
    new_dims = tuple(shift_axis(a, out_bdim) for a in bcast)
    new_dims = (*new_dims[:bdim], out_bdim, *new_dims[bdim:])
    out = bind1(broadcast_p, x, shape=new_shape, broadcast_dimensions=new_dims)
    return [out], [out_bdim]


vmap_rules[broadcast_p] = _broadcast_vmap


def _reshape_vmap(
    axis_size: int, vals_in: Vals, dims_in: Dims, *, new_sizes: tuple[int, ...]
) -> RuleResult:
    (x,), bdim = vals_in, first_mapped(dims_in)
    x = moveaxis(x, bdim, 0)
    return [bind1(reshape_p, x, new_sizes=(axis_size, *new_sizes))], [0]


vmap_rules[reshape_p] = _reshape_vmap


def _transpose_vmap(
    axis_size: int, vals_in: Vals, dims_in: Dims, *, permutation: tuple[int, ...]
) -> RuleResult:
    (x,), bdim = vals_in, first_mapped(dims_in)
    perm = [shift_axis(p, bdim) for p in permutation]
    perm.insert(bdim, bdim)
    return [bind1(transpose_p, x, permutation=tuple(perm))], [bdim]


vmap_rules[transpose_p] = _transpose_vmap


def _per_example_axes(axes: Sequence[int], ndim: int) -> list[int]:
    return [a % ndim if ndim else a for a in axes]


def _squeeze_vmap(
    axis_size: int, vals_in: Vals, dims_in: Dims, *, dimensions: tuple[int, ...]
) -> RuleResult:
    (x,), bdim = vals_in, first_mapped(dims_in)
    axes = _per_example_axes(dimensions, x.ndim - 1)
    new_dims = tuple(shift_axis(a, bdim) for a in axes)
    out_bdim = bdim - sum(a < bdim for a in axes)
    return [bind1(squeeze_p, x, dimensions=new_dims)], [out_bdim]


vmap_rules[squeeze_p] = _squeeze_vmap


def _rev_vmap(
    axis_size: int, vals_in: Vals, dims_in: Dims, *, dimensions: tuple[int, ...]
) -> RuleResult:
    (x,), bdim = vals_in, first_mapped(dims_in)
    axes = _per_example_axes(dimensions, x.ndim - 1)
    new_dims = tuple(shift_axis(a, bdim) for a in axes)
    return [bind1(rev_p, x, dimensions=new_dims)], [bdim]


vmap_rules[rev_p] = _rev_vmap


def _concatenate_vmap(
    axis_size: int, vals_in: Vals, dims_in: Dims, *, dimension: int
) -> RuleResult:
    xs, bdim = match_batch_dims(axis_size, vals_in, dims_in)
    out = bind1(concatenate_p, *xs, dimension=shift_axis(dimension, bdim))
    return [out], [bdim]


vmap_rules[concatenate_p] = _concatenate_vmap


def _pad_vmap(
    axis_size: int,
    vals_in: Vals,
    dims_in: Dims,
    *,
    padding_config: tuple[tuple[int, int, int], ...],
) -> RuleResult:
    (x, padding_value), (bdim, pv_bdim) = vals_in, dims_in
    if pv_bdim is not_mapped:
        bdim = first_mapped(dims_in)  # the operand is the only batched one
        config = (*padding_config[:bdim], (0, 0, 0), *padding_config[bdim:])
        return [bind1(pad_p, x, padding_value, padding_config=config)], [bdim]
    # A batched padding value: pad with zeros, then select the padding value where a mask of
    # the padded positions (computed once, unbatched) says so.
    zero = np.zeros((), dtype_of(x))
    if bdim is not_mapped:
        shape = shape_of(x)
        padded = bind1(pad_p, x, zero, padding_config=padding_config)
        out_bdim: BatchDim = not_mapped
    else:
        full = shape_of(x)
        shape = full[:bdim] + full[bdim + 1 :]
        (padded,), (out_bdim,) = _pad_vmap(
            axis_size, [x, zero], [bdim, not_mapped], padding_config=padding_config
        )
    is_data = bind1(pad_p, np.ones(shape, np.bool_), np.False_, padding_config=padding_config)
    operands, sel_bdim = align_batched(
        [is_data, padding_value, padded], [not_mapped, pv_bdim, out_bdim]
    )
    return bind(select_n_p, *operands), [sel_bdim]


vmap_rules[pad_p] = _pad_vmap


def _slice_vmap(
    axis_size: int,
    vals_in: Vals,
    dims_in: Dims,
    *,
    start_indices: tuple[int, ...],
    limit_indices: tuple[int, ...],
    strides: tuple[int, ...] | None,
) -> RuleResult:
    (x,), bdim = vals_in, first_mapped(dims_in)
    out = bind1(
        slice_p,
        x,
        start_indices=(*start_indices[:bdim], 0, *start_indices[bdim:]),
        limit_indices=(*limit_indices[:bdim], axis_size, *limit_indices[bdim:]),
        strides=None if strides is None else (*strides[:bdim], 1, *strides[bdim:]),
    )
    return [out], [bdim]


vmap_rules[slice_p] = _slice_vmap


# --- dynamic_slice / dynamic_update_slice -----------------------------------------------------


def _with_zero_start(starts: Vals, bdim: int) -> list[Any]:
    """``starts`` with a zero start index for the batch axis at ``bdim`` (unbatched starts)."""
    zero = np.zeros((), dtype_of(starts[0]) if starts else np.int64)
    return [*starts[:bdim], zero, *starts[bdim:]]


def _stacked_starts(axis_size: int, starts: Vals, dims: Dims) -> Any:
    """Per-example start indices as one ``int[axis_size, n]`` indices array for gather/scatter."""
    dtype = np.result_type(*(dtype_of(s) for s in starts))
    columns = []
    for s, d in zip(starts, dims, strict=True):
        if dtype_of(s) != dtype:
            s = bind1(convert_element_type_p, s, new_dtype=dtype, weak_type=False)
        bcast = () if d is not_mapped else (0,)
        columns.append(bind1(broadcast_p, s, shape=(axis_size, 1), broadcast_dimensions=bcast))
    return bind1(concatenate_p, *columns, dimension=1)


def _dynamic_slice_vmap(
    axis_size: int, vals_in: Vals, dims_in: Dims, *, slice_sizes: tuple[int, ...]
) -> RuleResult:
    x, *starts = vals_in
    x_bdim, *start_dims = dims_in
    if all(d is not_mapped for d in start_dims):
        x_bdim = first_mapped(dims_in)  # the operand is the only batched one
        new_starts = _with_zero_start(starts, x_bdim)
        sizes = (*slice_sizes[:x_bdim], axis_size, *slice_sizes[x_bdim:])
        return [bind1(dynamic_slice_p, x, *new_starts, slice_sizes=sizes)], [x_bdim]
    x = move_batch_axis(axis_size, x_bdim, 0, x)
    n = len(starts)
    dn = GatherDimensionNumbers(
        offset_dims=tuple(range(1, n + 1)),
        collapsed_slice_dims=(),
        start_index_map=tuple(range(1, n + 1)),
        operand_batching_dims=(0,),
        start_indices_batching_dims=(0,),
    )
    out = bind1(
        gather_p,
        x,
        _stacked_starts(axis_size, starts, start_dims),
        dimension_numbers=dn,
        slice_sizes=(1, *slice_sizes),
        mode="clip",  # XLA clamps dynamic_slice starts so the window fits, as "clip" does
        fill_value=None,
    )
    return [out], [0]


vmap_rules[dynamic_slice_p] = _dynamic_slice_vmap


def _dynamic_update_slice_vmap(axis_size: int, vals_in: Vals, dims_in: Dims) -> RuleResult:
    x, update, *starts = vals_in
    x_bdim, upd_bdim, *start_dims = dims_in
    if all(d is not_mapped for d in start_dims):
        (x, update), bdim = match_batch_dims(axis_size, [x, update], [x_bdim, upd_bdim])
        new_starts = _with_zero_start(starts, bdim)
        return [bind1(dynamic_update_slice_p, x, update, *new_starts)], [bdim]
    x = move_batch_axis(axis_size, x_bdim, 0, x)
    update = move_batch_axis(axis_size, upd_bdim, 0, update)
    n = len(starts)
    dn = ScatterDimensionNumbers(
        update_window_dims=tuple(range(1, n + 1)),
        inserted_window_dims=(),
        scatter_dims_to_operand_dims=tuple(range(1, n + 1)),
        operand_batching_dims=(0,),
        scatter_indices_batching_dims=(0,),
    )
    out = bind1(
        scatter_p,
        x,
        _stacked_starts(axis_size, starts, start_dims),
        update,
        dimension_numbers=dn,
        indices_are_sorted=True,
        unique_indices=True,
        mode="clip",  # XLA clamps dynamic_update_slice starts so the update fits
    )
    return [out], [0]


vmap_rules[dynamic_update_slice_p] = _dynamic_update_slice_vmap


def _optimization_barrier_vmap(axis_size: int, vals_in: Vals, dims_in: Dims) -> RuleResult:
    del axis_size
    return bind(optimization_barrier_p, *vals_in), list(dims_in)


vmap_rules[optimization_barrier_p] = _optimization_barrier_vmap
