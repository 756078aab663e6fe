"""Lowering rule of ``dot_general``: one ``stablehlo.dot_general``, its dimension numbers
mapped one to one (operands of two types converted to the output type first, as JAX's CPU
lowering does, mixed float8 types aside), its ``precision`` as ``precision_config``, or a dot
algorithm's operand casts and ``algorithm`` attribute."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mj_core import ShapedArray
from mj_core.extend import DTypeLike
from mj_core.prims.contractions import (
    DotAlgorithm,
    DotAlgorithmPreset,
    algorithm_compute_types,
    check_cpu_algorithm,
    dot_general_p,
    dot_operand_dtypes,
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
from mj_xla._precision import algorithm_attr, precision_attr

__all__: list[str] = []


@lowering_rules.register(dot_general_p)
def _dot_general_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    dimension_numbers: tuple[
        tuple[Sequence[int], Sequence[int]], tuple[Sequence[int], Sequence[int]]
    ],
    precision: Any = None,
    preferred_element_type: DTypeLike | None = None,
) -> list[Value]:
    (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
    out = avals_out[0]
    lhs_aval, rhs_aval = avals_in
    if isinstance(precision, DotAlgorithm | DotAlgorithmPreset):
        return [_algorithm_dot(ctx, avals_in, out, in_vals, dimension_numbers, precision)]
    lt, rt = dot_operand_dtypes(lhs_aval.dtype, rhs_aval.dtype, out.dtype)
    lhs = as_dtype(in_vals[0], lhs_aval, lt)
    rhs = as_dtype(in_vals[1], rhs_aval, rt)
    dims = hlo.DotDimensionNumbers.get(
        lhs_batching_dimensions=list(lhs_batch),
        rhs_batching_dimensions=list(rhs_batch),
        lhs_contracting_dimensions=list(lhs_contract),
        rhs_contracting_dimensions=list(rhs_contract),
    )
    return [
        hlo.dot_general(
            aval_to_ir_type(out), lhs, rhs, dims, precision_config=precision_attr(precision)
        )
    ]


def _algorithm_dot(
    ctx: LoweringContext,
    avals_in: Avals,
    out: ShapedArray,
    in_vals: Values,
    dimension_numbers: Any,
    algorithm: DotAlgorithm | DotAlgorithmPreset,
) -> Value:
    """A contraction computed by a dot algorithm, as JAX lowers it: the operands cast to the
    algorithm's types, the product in its accumulation type (``algorithm`` attribute), then
    cast to the output type. The CPU computes only some presets (JAX's check)."""
    if ctx.platform == "cpu":
        check_cpu_algorithm(algorithm)
    lhs_aval, rhs_aval = avals_in
    lt, rt, acc = algorithm_compute_types(algorithm, lhs_aval.dtype, rhs_aval.dtype, out.dtype)
    lhs = as_dtype(in_vals[0], lhs_aval, lt)
    rhs = as_dtype(in_vals[1], rhs_aval, rt)
    (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
    dims = hlo.DotDimensionNumbers.get(
        lhs_batching_dimensions=list(lhs_batch),
        rhs_batching_dimensions=list(rhs_batch),
        lhs_contracting_dimensions=list(lhs_contract),
        rhs_contracting_dimensions=list(rhs_contract),
    )
    acc_aval = ShapedArray(out.shape, acc)
    result = hlo.dot_general(
        aval_to_ir_type(acc_aval), lhs, rhs, dims, algorithm=algorithm_attr(algorithm, lt, rt)
    )
    return as_dtype(result, acc_aval, out.dtype)
