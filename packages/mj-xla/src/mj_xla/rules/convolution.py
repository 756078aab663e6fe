"""Lowering of ``conv_general_dilated``: one ``stablehlo.convolution``.

The primitive's params map one to one onto the op's attributes (``dimension_numbers`` onto
``#stablehlo.conv`` batch/feature/spatial positions). Both operands are first converted to
the output dtype, as the eager impl computes, so ``preferred_element_type`` and a weak
operand give the same numbers eagerly and under ``jit``.

On the CPU and GPUs a complex convolution becomes three real ones (Gauss's product, as JAX
registers for those platforms): XLA's GPU backend has no complex convolution at all, and
the same expansion everywhere gives the numbers JAX gives.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mj_core import ShapedArray
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
    register_lowering,
)
from mj_xla._precision import precision_attr

__all__: list[str] = []


@lowering_rules.register(conv_general_dilated_p)
def _conv_general_dilated_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    **params: Any,
) -> list[Value]:
    out = avals_out[0]
    lhs = as_dtype(in_vals[0], avals_in[0], out.dtype)
    rhs = as_dtype(in_vals[1], avals_in[1], out.dtype)
    return [_convolution(out, lhs, rhs, **params)]


def _conv_expanding_complex(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    **params: Any,
) -> list[Value]:
    """A complex convolution as three real ones (Gauss: ``k1 = (a + b) * c``, ``k2 = a *
    (d - c)``, ``k3 = b * (c + d)``; ``(k1 - k3) + i (k1 + k2)`` for ``(a + ib) * (c + id)``),
    JAX's ``expand_complex_convolutions`` for the CPU and GPUs."""
    out = avals_out[0]
    if out.dtype.kind != "c":
        return list(_conv_general_dilated_lowering(ctx, avals_in, avals_out, in_vals, **params))
    lhs = as_dtype(in_vals[0], avals_in[0], out.dtype)
    rhs = as_dtype(in_vals[1], avals_in[1], out.dtype)
    part = np.dtype(np.float32 if out.dtype == np.complex64 else np.float64)

    a, b = hlo.real(lhs), hlo.imag(lhs)
    c, d = hlo.real(rhs), hlo.imag(rhs)
    real_out = ShapedArray(out.shape, part)

    def conv(x: Value, y: Value) -> Value:
        return _convolution(real_out, x, y, **params)

    k1 = conv(hlo.add(a, b), c)
    k2 = conv(a, hlo.subtract(d, c))
    k3 = conv(b, hlo.add(c, d))
    return [hlo.complex(hlo.subtract(k1, k3), hlo.add(k1, k2))]


for _platform in ("cpu", "cuda", "rocm"):
    register_lowering(conv_general_dilated_p, _conv_expanding_complex, _platform)


def _convolution(
    out: ShapedArray,
    lhs: Value,
    rhs: Value,
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
) -> Value:
    """One ``stablehlo.convolution`` of ``lhs`` and ``rhs`` (already of ``out``'s dtype)."""
    del preferred_element_type  # the operands are converted to the output dtype
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
    return hlo.convolution(
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
