"""Lowering of the tokens: ``create_token`` is ``stablehlo.create_token`` and ``after_all``
is ``stablehlo.after_all`` (JAX's rules), both of type ``!stablehlo.token``."""

from __future__ import annotations

from typing import Any

from mj_core import impl_rules
from mj_core.prims.tokens import after_all_p, create_token_p
from mj_xla._executable import compiled_impl
from mj_xla._jaxlib import Value, hlo
from mj_xla._lowering import Avals, LoweringContext, Values, lowering_rules

__all__: list[str] = []


@lowering_rules.register(create_token_p)
def _create_token_lowering(
    ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values, **params: Any
) -> list[Value]:
    return [hlo.create_token()]


@lowering_rules.register(after_all_p)
def _after_all_lowering(
    ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values
) -> list[Value]:
    return [hlo.after_all(list(in_vals))]


# Eagerly, each runs as a compiled program, as JAX's ``dispatch.apply_primitive``: the token
# it returns wraps a device buffer of token shape.
impl_rules[create_token_p] = compiled_impl(create_token_p)
impl_rules[after_all_p] = compiled_impl(after_all_p)
