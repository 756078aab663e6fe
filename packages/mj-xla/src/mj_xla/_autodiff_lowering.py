"""Lowering of mj-autodiff's own primitives.

By the time a jaxpr is compiled its derivatives are already taken, so ``stop_gradient`` is
the identity and a custom-derivative call is just its primal computation (``call_jaxpr``).
"""

from __future__ import annotations

from typing import Any

from mj_autodiff.extend import (
    custom_jvp_call_p,
    custom_lin_p,
    custom_vjp_call_p,
    custom_vjp_jvp_error,
    stop_gradient_p,
)
from mj_ir import ClosedJaxpr
from mj_xla._jaxlib import Value
from mj_xla._lowering import Avals, LoweringContext, Values, lower_jaxpr, lowering_rules

__all__: list[str] = []


def _stop_gradient_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
) -> list[Value]:
    return [in_vals[0]]


lowering_rules[stop_gradient_p] = _stop_gradient_lowering


def _custom_call_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    call_jaxpr: ClosedJaxpr,
    **_: Any,
) -> list[Value]:
    return lower_jaxpr(ctx, call_jaxpr, in_vals)


lowering_rules[custom_jvp_call_p] = _custom_call_lowering
lowering_rules[custom_vjp_call_p] = _custom_call_lowering


def _custom_lin_lowering(ctx: LoweringContext, *_: Any, **__: Any) -> list[Value]:
    # forward mode through a custom_vjp function under jit: JAX's error (its lowering raises)
    raise custom_vjp_jvp_error()


lowering_rules[custom_lin_p] = _custom_lin_lowering
