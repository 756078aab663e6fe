"""``xla_call``: the higher-order primitive a ``jit`` call becomes under a transformation.

Operands: ``*consts, *args``; params: ``jaxpr`` (a ``ClosedJaxpr`` whose binders, after its
own constants, match the operands), ``num_consts`` (how many leading operands are constants
that ``jit`` hoisted out of the traced function) and ``name`` (the jitted function's name).

This module registers one rule in every table: impl (compile and run), abstract eval, jvp
(``jvp_jaxpr``), vmap (``vmap_jaxpr``), trace-level and jaxpr-level partial evaluation,
transpose, printing and lowering (a private function and a ``func.call``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mj_core.avals import ShapedArray, raise_to_shaped
from mj_core.errors import user_location
from mj_core.primitive import Primitive, impl_rules
from mj_ir.abstract_eval import abstract_eval_rules
from mj_ir.jaxpr import ClosedJaxpr, JaxprEqn
from mj_ir.printing import Names, PPrint, pp, pp_atom, pp_jaxpr, pp_params, pp_rules, var_str
from mj_ir.typecheck import types_match
from mj_xla._jaxlib import Value
from mj_xla.executable import executable_for_closed_jaxpr
from mj_xla.lowering import LoweringContext, lowering_rules

__all__ = ["xla_call_p"]

xla_call_p = Primitive("xla_call", multiple_results=True)


def _xla_call_impl(*args: Any, jaxpr: ClosedJaxpr, num_consts: int, name: str) -> list[Any]:
    """Compile ``jaxpr`` (once: the executable is cached by jaxpr identity) and run it."""
    return list(executable_for_closed_jaxpr(jaxpr, name).run(args))


impl_rules[xla_call_p] = _xla_call_impl


def _xla_call_abstract_eval(
    *in_avals: ShapedArray, jaxpr: ClosedJaxpr, num_consts: int, name: str
) -> list[ShapedArray]:
    expected = jaxpr.in_avals
    if len(expected) != len(in_avals) or not all(
        types_match(raise_to_shaped(a), e) for a, e in zip(in_avals, expected, strict=True)
    ):
        where = user_location()
        got = ", ".join(a.str_short() for a in in_avals)
        want = ", ".join(a.str_short() for a in expected)
        raise TypeError(
            f"xla_call ({name}): operands ({got}) do not match the jaxpr's inputs ({want})"
            f"{' ' + where if where else ''}"
        )
    return jaxpr.out_avals


abstract_eval_rules[xla_call_p] = _xla_call_abstract_eval


def _xla_call_lowering(
    ctx: LoweringContext,
    avals_in: Sequence[ShapedArray],
    avals_out: Sequence[ShapedArray],
    in_vals: Sequence[Value],
    *,
    jaxpr: ClosedJaxpr,
    num_consts: int,
    name: str,
) -> list[Value]:
    """A private function per distinct jaxpr, called with ``func.call`` (XLA inlines it)."""
    return ctx.call_jaxpr(jaxpr, in_vals, name)


lowering_rules[xla_call_p] = _xla_call_lowering


def _xla_call_pp(names: Names, eqn: JaxprEqn) -> PPrint:
    """``a:f32[] = xla_call[name=f num_consts=0] b`` with the jaxpr indented below."""
    lhs = " ".join(var_str(names, v) for v in eqn.out_binders)
    params = {k: v for k, v in eqn.params.items() if k != "jaxpr"}
    args = " ".join(pp_atom(names, x) for x in eqn.inputs)
    head = pp(f"{lhs} = ") >> pp(eqn.primitive.name) >> pp_params(params) >> pp(f" {args}")
    return head + pp_jaxpr(eqn.params["jaxpr"].jaxpr).indent(2)


pp_rules[xla_call_p] = _xla_call_pp
