"""Lowering rules of ``gather`` and the ``scatter`` family: the real StableHLO ops, with
batching dimensions, never expansions.

The index vector is the last dimension of ``indices``. Out-of-bounds modes: XLA's gather
clamps start indices (``"clip"``/``"promise_in_bounds"``) and XLA's scatter drops windows
that do not fit (``"fill"``); the other two combinations add one mask (gather ``"fill"``) or
one clamp of the indices (scatter ``"clip"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mj_core import Primitive, ShapedArray
from mj_core.prims.indexing import (
    GatherDimensionNumbers,
    ScatterDimensionNumbers,
    _default_fill,
    gather_p,
    scatter_add_p,
    scatter_max_p,
    scatter_min_p,
    scatter_mul_p,
    scatter_p,
    scatter_window_sizes,
)
from mj_xla._jaxlib import Value, hlo, ir_tensor_type
from mj_xla._lowering import (
    Avals,
    LoweringContext,
    Values,
    as_dtype,
    aval_to_ir_type,
    ir_constant,
    lowering_rules,
)
from mj_xla._monoids import reduce_op, set_combiner

__all__: list[str] = []


def _full(value: Any, shape: Sequence[int], dtype: np.dtype[Any]) -> Value:
    return hlo.broadcast_in_dim(ir_tensor_type(shape, dtype), ir_constant(value, dtype), [])


def _window_limits(
    operand_shape: Sequence[int], dims: Sequence[int], sizes: Sequence[int], idx: ShapedArray
) -> tuple[Value, Value]:
    """Per index component ``j`` (operand dim ``dims[j]``): 0 and the largest start at which
    the window still fits, broadcast to the shape of ``indices``. A limit past the index
    dtype's largest value is that value (every index of the dtype is within it: a uint8
    index into 300 elements)."""
    top = int(np.iinfo(idx.dtype).max)
    limits = np.array([min(operand_shape[d] - sizes[d], top) for d in dims], idx.dtype)
    hi = hlo.broadcast_in_dim(aval_to_ir_type(idx), ir_constant(limits), [idx.ndim - 1])
    return _full(0, idx.shape, idx.dtype), hi


@lowering_rules.register(gather_p)
def _gather_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    dimension_numbers: GatherDimensionNumbers,
    slice_sizes: tuple[int, ...],
    mode: str,
    fill_value: Any,
) -> list[Value]:
    operand, indices = in_vals
    op_aval, idx_aval = avals_in
    out = avals_out[0]
    dn = dimension_numbers
    operand = as_dtype(operand, op_aval, out.dtype)
    dims = hlo.GatherDimensionNumbers.get(
        offset_dims=list(dn.offset_dims),
        collapsed_slice_dims=list(dn.collapsed_slice_dims),
        operand_batching_dims=list(dn.operand_batching_dims),
        start_indices_batching_dims=list(dn.start_indices_batching_dims),
        start_index_map=list(dn.start_index_map),
        index_vector_dim=idx_aval.ndim - 1,
    )
    gathered = hlo.gather(operand, indices, dims, list(slice_sizes), indices_are_sorted=False)
    if mode != "fill":
        return [gathered]
    lo, hi = _window_limits(op_aval.shape, dn.start_index_map, slice_sizes, idx_aval)
    ok = hlo.and_(
        _compare_index(indices, lo, "GE", idx_aval), _compare_index(indices, hi, "LE", idx_aval)
    )
    ok_aval = ShapedArray(idx_aval.shape, np.dtype(np.bool_))
    in_bounds = reduce_op(ok, ok_aval, [idx_aval.ndim - 1], "and")
    batch_dims = [d for d in range(out.ndim) if d not in dn.offset_dims]
    mask = hlo.broadcast_in_dim(
        ir_tensor_type(out.shape, np.dtype(np.bool_)), in_bounds, batch_dims
    )
    fill = _default_fill(out.dtype) if fill_value is None else fill_value
    return [hlo.select(mask, gathered, _full(fill, out.shape, out.dtype))]


def _compare_index(x: Value, y: Value, direction: str, aval: ShapedArray) -> Value:
    kind = "UNSIGNED" if aval.dtype.kind == "u" else "SIGNED"
    return hlo.compare(
        x,
        y,
        hlo.ComparisonDirectionAttr.get(direction),
        compare_type=hlo.ComparisonTypeAttr.get(kind),
    )


def _register_scatter(prim: Primitive, combine: str) -> None:
    """``combine``: how an update meets the operand, a :func:`set_combiner` op name."""

    def rule(
        ctx: LoweringContext,
        avals_in: Avals,
        avals_out: Avals,
        in_vals: Values,
        *,
        dimension_numbers: ScatterDimensionNumbers,
        indices_are_sorted: bool,
        unique_indices: bool,
        mode: str,
    ) -> list[Value]:
        operand, indices, updates = in_vals
        op_aval, idx_aval, upd_aval = avals_in
        out = avals_out[0]
        dn = dimension_numbers
        operand = as_dtype(operand, op_aval, out.dtype)
        updates = as_dtype(updates, upd_aval, out.dtype)
        if mode != "fill":  # XLA drops out-of-bounds windows; "clip" clamps them in instead
            sizes = scatter_window_sizes(dn, op_aval.ndim, upd_aval.shape)
            lo, hi = _window_limits(op_aval.shape, dn.scatter_dims_to_operand_dims, sizes, idx_aval)
            indices = hlo.clamp(lo, indices, hi)
        dims = hlo.ScatterDimensionNumbers.get(
            update_window_dims=list(dn.update_window_dims),
            inserted_window_dims=list(dn.inserted_window_dims),
            input_batching_dims=list(dn.operand_batching_dims),
            scatter_indices_batching_dims=list(dn.scatter_indices_batching_dims),
            scattered_dims_to_operand_dims=list(dn.scatter_dims_to_operand_dims),
            index_vector_dim=idx_aval.ndim - 1,
        )
        op = hlo.ScatterOp(
            [aval_to_ir_type(out)],
            [operand],
            indices,
            [updates],
            dims,
            indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices,
        )
        set_combiner(op.update_computation, combine, out.dtype)
        return [op.result]

    rule.__name__ = f"{prim.name}_lowering"
    lowering_rules[prim] = rule


_register_scatter(scatter_p, "replace")
_register_scatter(scatter_add_p, "sum")
_register_scatter(scatter_mul_p, "prod")
_register_scatter(scatter_min_p, "min")
_register_scatter(scatter_max_p, "max")
