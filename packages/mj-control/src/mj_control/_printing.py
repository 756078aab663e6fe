"""Printing control-flow equations the way JAX's jaxpr documentation shows them: one param per
line, nested jaxprs indented under their name, even when a nested jaxpr would fit on a line::

    b:float64[] = while[
                    body_jaxpr={ lambda a:float64[] b:float64[] . let ... in ( c ) }
                    ...
                  ] a 1.0
"""

from __future__ import annotations

from typing import Any

from mj_ir import ClosedJaxpr, Jaxpr, JaxprEqn, Names, PPrint, pp, pp_jaxpr, vcat
from mj_ir.printing import pp_atom, var_str

__all__ = ["pp_control_eqn"]


def _pp_value(v: Any) -> PPrint:
    if isinstance(v, ClosedJaxpr):
        return pp_jaxpr(v.jaxpr)
    if isinstance(v, Jaxpr):
        return pp_jaxpr(v)
    if isinstance(v, tuple) and v and all(isinstance(x, ClosedJaxpr | Jaxpr) for x in v):
        return pp("(") + vcat(_pp_value(x) for x in v).indent(2) + pp(")")
    return pp(v)


def pp_control_eqn(names: Names, eqn: JaxprEqn) -> PPrint:
    """``outs = prim[ one param per line ] args``."""
    lhs = pp(" ".join(var_str(names, v) for v in eqn.out_binders))
    items = [pp(f"{k}=") >> _pp_value(v) for k, v in sorted(eqn.params.items())]
    params = pp("[") + vcat(items).indent(2) + pp("]")
    args = " ".join(pp_atom(names, x) for x in eqn.inputs)
    return lhs >> pp(" = ") >> (pp(eqn.primitive.name) >> params >> pp(" " + args))
