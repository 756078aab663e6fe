"""Batching rules of the indexing primitives: gather and the scatter family.

A batched operand read or written through unbatched indices gets its batch axis as one more
*window* axis (the whole batch is one slice). Batched indices pair the operand's batch axis
with theirs through ``operand_batching_dims`` / ``*_indices_batching_dims``, so that example
``b`` only touches slice ``b`` of the operand. Either way the data is not moved, except that
the index vector must stay the last axis of ``indices``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mj_batch._batching import (
    Dims,
    RuleResult,
    Vals,
    VmapRule,
    broadcast_batched,
    first_mapped,
    move_batch_axis,
    moveaxis,
    not_mapped,
    shape_of,
    shift_axis,
    vmap_rules,
)
from mj_core import Primitive, bind1
from mj_core.prims.indexing import (
    GatherDimensionNumbers,
    ScatterDimensionNumbers,
    gather_p,
    scatter_add_p,
    scatter_max_p,
    scatter_min_p,
    scatter_mul_p,
    scatter_p,
)

__all__: list[str] = []


def _insert_sorted_position(positions: Sequence[int], k: int) -> int:
    """Where to put a new axis so that it is the ``k``-th of ``positions`` (sorted, in the
    coordinates before insertion) once the others at or after it shift right by one."""
    if k < len(positions):
        return positions[k]
    return positions[-1] + 1 if positions else 0


def _indices_at_batchable_dim(indices: Any, bdim: int) -> tuple[Any, int]:
    """Indices whose batch axis is not the last one (the last axis is the index vector)."""
    if bdim == len(shape_of(indices)) - 1:
        return moveaxis(indices, bdim, 0), 0
    return indices, bdim


def _batching_pairs(
    operand_dims: Sequence[int], indices_dims: Sequence[int], new_operand: int, new_indices: int
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Add the pair (``new_operand``, ``new_indices``) to the batching dims, sorted by operand
    dim as gather/scatter require."""
    pairs = sorted([*zip(operand_dims, indices_dims, strict=True), (new_operand, new_indices)])
    return tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)


def _with_batch_window(
    window_dims: Sequence[int],
    op_bdim: int,
    non_window_dims: Sequence[int],
    operand_batching_dims: Sequence[int],
) -> tuple[tuple[int, ...], int]:
    """Make the operand's batch axis ``op_bdim`` one more window axis (gather's offset dims,
    scatter's update window dims): the new window dims and where the batch axis sits in them.

    ``non_window_dims`` are the operand dims that are not windows (collapsed/inserted dims).
    """
    ignored = set(non_window_dims) | set(operand_batching_dims)
    k = sum(1 for d in range(op_bdim) if d not in ignored)  # its rank among window axes
    position = window_dims[k - 1] + 1 if k else 0
    new_windows = [shift_axis(d, position) for d in window_dims]
    new_windows.insert(k, position)
    return tuple(new_windows), position


# --- gather -----------------------------------------------------------------------------------


def _gather_vmap(
    axis_size: int,
    vals_in: Vals,
    dims_in: Dims,
    *,
    dimension_numbers: GatherDimensionNumbers,
    slice_sizes: tuple[int, ...],
    mode: str,
    fill_value: Any,
) -> RuleResult:
    (operand, indices), (op_bdim, idx_bdim) = vals_in, dims_in
    dn = dimension_numbers
    offset_dims = dn.offset_dims
    collapsed, index_map = dn.collapsed_slice_dims, dn.start_index_map
    op_batching, idx_batching = dn.operand_batching_dims, dn.start_indices_batching_dims
    if op_bdim is not not_mapped:
        collapsed = tuple(shift_axis(d, op_bdim) for d in collapsed)
        index_map = tuple(shift_axis(d, op_bdim) for d in index_map)
        op_batching = tuple(shift_axis(d, op_bdim) for d in op_batching)
    if idx_bdim is not_mapped:
        # The operand's batch axis is one more window axis, of size axis_size.
        op_bdim = first_mapped(dims_in)  # the operand is the only batched one
        offset_dims, out_bdim = _with_batch_window(
            offset_dims, op_bdim, dn.collapsed_slice_dims, dn.operand_batching_dims
        )
        slice_sizes = (*slice_sizes[:op_bdim], axis_size, *slice_sizes[op_bdim:])
    else:
        indices, idx_bdim = _indices_at_batchable_dim(indices, idx_bdim)
        idx_batching = tuple(shift_axis(d, idx_bdim) for d in idx_batching)
        # The new indices batch axis is the idx_bdim-th batch axis of indices, so it must be
        # the idx_bdim-th non-offset axis of the output.
        out_rank = len(offset_dims) + len(shape_of(indices)) - 2
        batch_positions = [i for i in range(out_rank) if i not in offset_dims]
        out_bdim = _insert_sorted_position(batch_positions, idx_bdim)
        offset_dims = tuple(shift_axis(d, out_bdim) for d in offset_dims)
        if op_bdim is not not_mapped:
            op_batching, idx_batching = _batching_pairs(
                op_batching, idx_batching, op_bdim, idx_bdim
            )
            # one example per batch index; none of an empty batch (as JAX: a slice of 1
            # would not fit in the operand's axis of size 0)
            size = 0 if axis_size == 0 else 1
            slice_sizes = (*slice_sizes[:op_bdim], size, *slice_sizes[op_bdim:])
    new_dn = GatherDimensionNumbers(offset_dims, collapsed, index_map, op_batching, idx_batching)
    out = bind1(
        gather_p,
        operand,
        indices,
        dimension_numbers=new_dn,
        slice_sizes=slice_sizes,
        mode=mode,
        fill_value=fill_value,
    )
    return [out], [out_bdim]


vmap_rules[gather_p] = _gather_vmap


# --- scatter family ---------------------------------------------------------------------------


def _scatter_rule(prim: Primitive) -> VmapRule:
    def rule(
        axis_size: int,
        vals_in: Vals,
        dims_in: Dims,
        *,
        dimension_numbers: ScatterDimensionNumbers,
        indices_are_sorted: bool,
        unique_indices: bool,
        mode: str,
    ) -> RuleResult:
        (operand, indices, updates), (op_bdim, idx_bdim, upd_bdim) = vals_in, dims_in
        dn = dimension_numbers
        if op_bdim is not_mapped:  # the result is batched: every example gets its own copy
            operand, op_bdim = broadcast_batched(operand, axis_size, 0), 0
        inserted = tuple(shift_axis(d, op_bdim) for d in dn.inserted_window_dims)
        index_map = tuple(shift_axis(d, op_bdim) for d in dn.scatter_dims_to_operand_dims)
        op_batching = tuple(shift_axis(d, op_bdim) for d in dn.operand_batching_dims)
        idx_batching = dn.scatter_indices_batching_dims
        window_dims = dn.update_window_dims
        upd_rank = len(shape_of(updates)) - (upd_bdim is not not_mapped)
        if idx_bdim is not_mapped:
            # The operand's batch axis is one more window axis; updates carry it at the
            # matching window position.
            window_dims, target = _with_batch_window(
                window_dims, op_bdim, dn.inserted_window_dims, dn.operand_batching_dims
            )
        else:
            indices, idx_bdim = _indices_at_batchable_dim(indices, idx_bdim)
            idx_batching = tuple(shift_axis(d, idx_bdim) for d in idx_batching)
            # updates' scatter (non-window) axes follow the batch axes of indices in order.
            scatter_positions = [i for i in range(upd_rank) if i not in window_dims]
            target = _insert_sorted_position(scatter_positions, idx_bdim)
            window_dims = tuple(shift_axis(d, target) for d in window_dims)
            op_batching, idx_batching = _batching_pairs(
                op_batching, idx_batching, op_bdim, idx_bdim
            )
        updates = move_batch_axis(axis_size, upd_bdim, target, updates)
        new_dn = ScatterDimensionNumbers(
            window_dims, inserted, index_map, op_batching, idx_batching
        )
        out = bind1(
            prim,
            operand,
            indices,
            updates,
            dimension_numbers=new_dn,
            indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices,
            mode=mode,
        )
        return [out], [op_bdim]

    rule.__name__ = f"{prim.name}_vmap"
    return rule


for _prim in (
    scatter_p,
    scatter_add_p,
    scatter_mul_p,
    scatter_min_p,
    scatter_max_p,
):
    vmap_rules[_prim] = _scatter_rule(_prim)
