"""Lowering rule of ``fft``: one ``stablehlo.fft`` over the trailing dimensions."""

from __future__ import annotations

from mj_core.prims.fft import FftType, fft_p
from mj_xla._jaxlib import Value, hlo
from mj_xla._lowering import Avals, LoweringContext, Values, aval_to_ir_type, lowering_rules

__all__: list[str] = []


@lowering_rules.register(fft_p)
def _fft_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    fft_type: FftType,
    fft_lengths: tuple[int, ...],
) -> list[Value]:
    kind = hlo.FftTypeAttr.get(FftType(fft_type).name)
    return [hlo.fft(in_vals[0], kind, list(fft_lengths), results=[aval_to_ir_type(avals_out[0])])]
