"""Lowering rules of the dtype conversions: ``stablehlo.convert``,
``stablehlo.bitcast_convert`` and ``stablehlo.reduce_precision``; ``copy`` lowers to its operand,
as in JAX (a compiled computation's outputs are new buffers anyway). ``dce_sink`` lowers to
nothing, or with ``prevent_mlir_dce`` to JAX's side-effecting custom call to jaxlib's no-op
``dce_sink`` FFI handler (XLA then keeps what computes its operand)."""

from __future__ import annotations

from typing import Any

import numpy as np

from mj_core.prims.conversions import (
    bitcast_convert_type_p,
    convert_element_type_p,
    copy_p,
    dce_sink_p,
    reduce_precision_p,
)
from mj_xla._jaxlib import Value, hlo, ir
from mj_xla._lowering import (
    Avals,
    LoweringContext,
    Values,
    aval_to_ir_type,
    ir_constant,
    lowering_rules,
)

__all__: list[str] = []


@lowering_rules.register(convert_element_type_p)
def _convert_element_type_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    new_dtype: np.dtype[Any],
    weak_type: bool,
) -> list[Value]:
    """``stablehlo.convert`` already saturates float->int and maps NaN to 0, like the impl;
    complex->real keeps the real part and anything->bool tests ``!= 0``."""
    (x,), (aval,), out = in_vals, avals_in, avals_out[0]
    if aval.dtype == out.dtype:
        return [x]
    if out.dtype == np.bool_:
        zero = hlo.broadcast_in_dim(aval_to_ir_type(aval), ir_constant(0, aval.dtype), [])
        return [hlo.compare(x, zero, hlo.ComparisonDirectionAttr.get("NE"))]
    if aval.dtype.kind == "c" and out.dtype.kind != "c":
        x = hlo.real(x)
    return [hlo.convert(aval_to_ir_type(out), x)]


@lowering_rules.register(bitcast_convert_type_p)
def _bitcast_convert_type_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    new_dtype: np.dtype[Any],
) -> list[Value]:
    return [hlo.bitcast_convert(aval_to_ir_type(avals_out[0]), in_vals[0])]


@lowering_rules.register(reduce_precision_p)
def _reduce_precision_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    exponent_bits: int,
    mantissa_bits: int,
) -> list[Value]:
    i32 = ir.IntegerType.get_signless(32)
    exp_attr, mant_attr = (ir.IntegerAttr.get(i32, n) for n in (exponent_bits, mantissa_bits))
    return [hlo.reduce_precision(in_vals[0], exp_attr, mant_attr)]


@lowering_rules.register(copy_p)
def _copy_lowering(
    ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values
) -> list[Value]:
    return [in_vals[0]]


@lowering_rules.register(dce_sink_p)
def _dce_sink_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    prevent_mlir_dce: bool,
) -> list[Value]:
    if not prevent_mlir_dce:
        return []
    (aval,) = avals_in
    index = ir.IndexType.get()
    layout = ir.DenseElementsAttr.get(  # type: ignore[call-overload]
        np.arange(aval.ndim - 1, -1, -1, dtype=np.int64), type=index
    )
    hlo.CustomCallOp(
        [],
        list(in_vals),
        call_target_name="dce_sink",
        has_side_effect=ir.BoolAttr.get(True),
        backend_config=ir.DictAttr.get({}),
        api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 4),
        operand_layouts=ir.ArrayAttr.get([layout]),
        result_layouts=ir.ArrayAttr.get([]),
    )
    return []
