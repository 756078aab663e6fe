"""Dead-code elimination: drop the equations and inputs no wanted output depends on.

An equation is live when one of its outputs is used, or when it has an effect (JAX's
``effects``): its primitive is one of :data:`mj_core.extend.effectful_primitives`
(``dce_sink``, ``debug_callback``) or a jaxpr among its params holds such an equation.
Higher-order equations are kept or dropped whole.
"""

from __future__ import annotations

from collections.abc import Sequence

from mj_core.extend import effectful_primitives
from mj_ir._jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Var

__all__ = ["dce_jaxpr", "has_effect"]


def has_effect(eqn: JaxprEqn) -> bool:
    """Whether ``eqn`` has an effect that keeps it alive: an effectful primitive, or a jaxpr
    param (a body, a branch) holding an effectful equation."""
    if not effectful_primitives:
        return False
    if eqn.primitive in effectful_primitives:
        return True
    return any(_jaxpr_has_effect(v) for v in eqn.params.values())


def _jaxpr_has_effect(value: object) -> bool:
    if isinstance(value, ClosedJaxpr):
        value = value.jaxpr
    if isinstance(value, Jaxpr):
        return any(has_effect(e) for e in value.eqns)
    if isinstance(value, tuple | list):
        return any(_jaxpr_has_effect(v) for v in value)
    return False


def dce_jaxpr(
    jaxpr: Jaxpr, used_outputs: Sequence[bool], instantiate: bool | Sequence[bool] = False
) -> tuple[Jaxpr, list[bool]]:
    """Keep only the outputs flagged in ``used_outputs`` and what they depend on.

    Returns the pruned jaxpr, whose inputs are the used ones (plus those forced by
    ``instantiate``), and ``used_inputs``, one flag per original input binder.
    """
    if len(used_outputs) != len(jaxpr.outs):
        raise ValueError(
            f"dce_jaxpr: used_outputs has {len(used_outputs)} flags for a jaxpr with "
            f"{len(jaxpr.outs)} outputs"
        )
    nin = len(jaxpr.in_binders)
    keep_in = [instantiate] * nin if isinstance(instantiate, bool) else list(instantiate)
    if len(keep_in) != nin:
        raise ValueError(
            f"dce_jaxpr: instantiate has {len(keep_in)} flags for a jaxpr with {nin} inputs"
        )
    outs = [x for x, used in zip(jaxpr.outs, used_outputs, strict=True) if used]
    live: set[Var] = {x for x in outs if type(x) is Var}
    kept: list[JaxprEqn] = []
    for eqn in reversed(jaxpr.eqns):
        if any(v in live for v in eqn.out_binders) or has_effect(eqn):
            kept.append(eqn)
            live.update(x for x in eqn.inputs if type(x) is Var)
    kept.reverse()
    used_inputs = [v in live or k for v, k in zip(jaxpr.in_binders, keep_in, strict=True)]
    in_binders = [v for v, u in zip(jaxpr.in_binders, used_inputs, strict=True) if u]
    return Jaxpr(in_binders, kept, outs), used_inputs
