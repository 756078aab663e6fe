"""Lowering rules of ``real``, ``imag``, ``conj`` and ``complex`` (as JAX lowers them:
``conj`` is built from ``real``/``imag``/``complex``, StableHLO having no conjugate op)."""

from __future__ import annotations

from typing import Any

from mj_core.prims.complex import complex_p, conj_p, imag_p, real_dtype, real_p
from mj_xla._jaxlib import Value, hlo, ir_tensor_type
from mj_xla._lowering import (
    Avals,
    LoweringContext,
    Values,
    broadcast_to_aval,
    ir_constant,
    lowering_rules,
)

__all__: list[str] = []


@lowering_rules.register(real_p)
def _real_lowering(
    ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values
) -> list[Value]:
    return [hlo.real(in_vals[0])]


@lowering_rules.register(imag_p)
def _imag_lowering(
    ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values
) -> list[Value]:
    return [hlo.imag(in_vals[0])]


@lowering_rules.register(complex_p)
def _complex_lowering(
    ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values
) -> list[Value]:
    shape = avals_out[0].shape
    dtype = real_dtype(avals_out[0].dtype)
    x, y = (broadcast_to_aval(v, a, shape, dtype) for v, a in zip(in_vals, avals_in, strict=True))
    return [hlo.complex(x, y)]


@lowering_rules.register(conj_p)
def _conj_lowering(
    ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values, *, input_dtype: Any
) -> list[Value]:
    (x,), (aval,) = in_vals, avals_in
    if aval.dtype.kind == "c":
        return [hlo.complex(hlo.real(x), hlo.negate(hlo.imag(x)))]
    zero = ir_constant(0, aval.dtype)
    if aval.shape:
        zero = hlo.broadcast_in_dim(ir_tensor_type(aval.shape, aval.dtype), zero, [])
    return [hlo.complex(x, zero)]
