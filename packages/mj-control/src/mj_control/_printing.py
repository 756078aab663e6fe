"""Printing control-flow equations the way JAX's jaxpr documentation shows them: one param per
line, even when a nested jaxpr would fit on a line::

    b:float32[] = while[
      body_jaxpr={ lambda a:float32[] b:float32[] . let ... in ( c ) }
      ...
    ] a 1.0
"""

from __future__ import annotations

from mj_ir import JaxprEqn
from mj_ir.extend import Names, PPrint, pp_default_eqn

__all__ = ["pp_control_eqn"]


def pp_control_eqn(names: Names, eqn: JaxprEqn) -> PPrint:
    """``outs = prim[`` one param per line ``] args``."""
    return pp_default_eqn(names, eqn, one_param_per_line=True)
