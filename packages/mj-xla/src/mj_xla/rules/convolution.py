"""Lowering of ``conv_general_dilated``: one ``stablehlo.convolution``.

The primitive's params map one to one onto the op's attributes (``dimension_numbers`` onto
``#stablehlo.conv`` batch/feature/spatial positions). Both operands are first converted to
the output dtype, as the eager impl computes, so ``preferred_element_type`` and a weak
operand give the same numbers eagerly and under ``jit``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mj_core.extend import DTypeLike
from mj_core.prims.convolution import ConvDimensionNumbers, conv_general_dilated_p
from mj_xla._jaxlib import Value, hlo, ir
from mj_xla._lowering import (
    Avals,
    LoweringContext,
    Values,
    as_dtype,
    aval_to_ir_type,
    lowering_rules,
)
from mj_xla._precision import precision_attr

__all__: list[str] = []


@lowering_rules.register(conv_general_dilated_p)
def _conv_general_dilated_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    window_strides: tuple[int, ...],
    padding: tuple[tuple[int, int], ...],
    lhs_dilation: tuple[int, ...],
    rhs_dilation: tuple[int, ...],
    dimension_numbers: ConvDimensionNumbers,
    feature_group_count: int,
    batch_group_count: int,
    precision: Any = None,
    preferred_element_type: DTypeLike | None = None,
) -> list[Value]:
    out = avals_out[0]
    lhs = as_dtype(in_vals[0], avals_in[0], out.dtype)
    rhs = as_dtype(in_vals[1], avals_in[1], out.dtype)
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    dnums = hlo.ConvDimensionNumbers.get(
        input_batch_dimension=lhs_spec[0],
        input_feature_dimension=lhs_spec[1],
        input_spatial_dimensions=list(lhs_spec[2:]),
        kernel_output_feature_dimension=rhs_spec[0],
        kernel_input_feature_dimension=rhs_spec[1],
        kernel_spatial_dimensions=list(rhs_spec[2:]),
        output_batch_dimension=out_spec[0],
        output_feature_dimension=out_spec[1],
        output_spatial_dimensions=list(out_spec[2:]),
    )
    i64 = ir.IntegerType.get_signless(64)
    pads = np.array(padding, np.int64).reshape(len(padding), 2)
    return [
        hlo.convolution(
            aval_to_ir_type(out),
            lhs,
            rhs,
            dimension_numbers=dnums,
            feature_group_count=ir.IntegerAttr.get(i64, feature_group_count),
            batch_group_count=ir.IntegerAttr.get(i64, batch_group_count),
            window_strides=list(window_strides),
            padding=ir.DenseIntElementsAttr.get(pads),  # type: ignore[call-overload]
            lhs_dilation=list(lhs_dilation),
            rhs_dilation=list(rhs_dilation),
            window_reversal=[False] * len(window_strides),
            precision_config=precision_attr(precision),
        )
    ]
