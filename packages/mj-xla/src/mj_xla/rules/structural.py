"""Lowering rules of the structural primitives: each is one StableHLO op.

Their array operands share one dtype, except that a weak (Python scalar) operand adopts the
strong dtype; ``as_dtype`` makes that conversion explicit, since StableHLO has none.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mj_core.prims.structural import (
    broadcast_p,
    concatenate_p,
    dynamic_slice_p,
    dynamic_update_slice_p,
    iota_p,
    optimization_barrier_p,
    pad_p,
    reshape_p,
    rev_p,
    slice_p,
    squeeze_p,
    transpose_p,
)
from mj_xla._jaxlib import Value, hlo
from mj_xla._lowering import (
    Avals,
    LoweringContext,
    Values,
    as_dtype,
    aval_to_ir_type,
    lowering_rules,
)

__all__: list[str] = []


@lowering_rules.register(broadcast_p)
def _broadcast_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    shape: tuple[int, ...],
    broadcast_dimensions: tuple[int, ...],
) -> list[Value]:
    x = as_dtype(in_vals[0], avals_in[0], avals_out[0].dtype)
    return [hlo.broadcast_in_dim(aval_to_ir_type(avals_out[0]), x, list(broadcast_dimensions))]


@lowering_rules.register(reshape_p)
@lowering_rules.register(squeeze_p)
def _reshape_lowering(
    ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values, **params: Any
) -> list[Value]:
    """``reshape`` and ``squeeze``: one ``stablehlo.reshape`` to the output type."""
    return [hlo.reshape(aval_to_ir_type(avals_out[0]), in_vals[0])]


@lowering_rules.register(transpose_p)
def _transpose_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    permutation: tuple[int, ...],
) -> list[Value]:
    return [hlo.transpose(in_vals[0], list(permutation))]


@lowering_rules.register(rev_p)
def _rev_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    dimensions: tuple[int, ...],
) -> list[Value]:
    ndim = avals_in[0].ndim
    return [hlo.reverse(in_vals[0], sorted(d % ndim for d in dimensions))]


@lowering_rules.register(concatenate_p)
def _concatenate_lowering(
    ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values, *, dimension: int
) -> list[Value]:
    dtype = avals_out[0].dtype
    xs = [as_dtype(v, a, dtype) for v, a in zip(in_vals, avals_in, strict=True)]
    return [hlo.concatenate(xs, dimension % avals_out[0].ndim)]


@lowering_rules.register(pad_p)
def _pad_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    padding_config: tuple[tuple[int, int, int], ...],
) -> list[Value]:
    dtype = avals_out[0].dtype
    x = as_dtype(in_vals[0], avals_in[0], dtype)
    pad_value = as_dtype(in_vals[1], avals_in[1], dtype)
    lo, hi, interior = zip(*padding_config, strict=True) if padding_config else ((), (), ())
    return [hlo.pad(x, pad_value, list(lo), list(hi), list(interior))]


@lowering_rules.register(slice_p)
def _slice_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    start_indices: tuple[int, ...],
    limit_indices: tuple[int, ...],
    strides: tuple[int, ...] | None,
) -> list[Value]:
    steps = strides or (1,) * len(start_indices)
    return [hlo.slice(in_vals[0], list(start_indices), list(limit_indices), list(steps))]


def _start_indices(avals: Avals, vals: Values) -> list[Value]:
    """Scalar start indices as one integer type (StableHLO requires them to agree)."""
    index = np.dtype(np.int64)
    return [as_dtype(v, a, index) for v, a in zip(vals, avals, strict=True)]


@lowering_rules.register(dynamic_slice_p)
def _dynamic_slice_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    slice_sizes: tuple[int, ...],
) -> list[Value]:
    starts = _start_indices(avals_in[1:], in_vals[1:])
    return [hlo.dynamic_slice(in_vals[0], starts, list(slice_sizes))]


@lowering_rules.register(dynamic_update_slice_p)
def _dynamic_update_slice_lowering(
    ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values
) -> list[Value]:
    dtype = avals_out[0].dtype
    x = as_dtype(in_vals[0], avals_in[0], dtype)
    update = as_dtype(in_vals[1], avals_in[1], dtype)
    starts = _start_indices(avals_in[2:], in_vals[2:])
    return [hlo.dynamic_update_slice(x, update, starts)]


@lowering_rules.register(iota_p)
def _iota_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    dtype: np.dtype[Any],
    shape: tuple[int, ...],
    dimension: int,
) -> list[Value]:
    return [hlo.iota(aval_to_ir_type(avals_out[0]), dimension)]


@lowering_rules.register(optimization_barrier_p)
def _optimization_barrier_lowering(
    ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values
) -> list[Value]:
    if not in_vals:
        return []
    return list(hlo.OptimizationBarrierOp(list(in_vals)).results)
