"""Lowering rules of the special-function primitives: CHLO ops, as JAX emits them
(``chlo.lgamma``, ``chlo.digamma``, ``chlo.erfc``, ``chlo.erf_inv``); XLA expands them
during compilation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mj_core.primitive import Primitive
from mj_core.prims import special as sp
from mj_xla._jaxlib import Value, chlo
from mj_xla.elementwise_lowering import lower_operands
from mj_xla.lowering import Avals, LoweringContext, Values, lowering_rules


def _register(prim: Primitive, op: Callable[[Value], Value]) -> None:
    def rule(
        ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values, **params: Any
    ) -> list[Value]:
        (x,), _ = lower_operands(prim, avals_in, avals_out, in_vals)
        return [op(x)]

    rule.__name__ = f"{prim.name}_lowering"
    lowering_rules[prim] = rule


_register(sp.lgamma_p, chlo.lgamma)
_register(sp.digamma_p, chlo.digamma)
_register(sp.erfc_p, chlo.erfc)
_register(sp.erf_inv_p, chlo.erf_inv)
