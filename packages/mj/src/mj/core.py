"""``mj.core``: JAX's ``jax.core`` names for mj's jaxpr and primitive object model.

The objects are mj's own (no wrappers): a jaxpr from :func:`mj.make_jaxpr` answers to JAX's
names with JAX's meaning (``jaxpr.constvars``, ``jaxpr.invars`` the arguments only,
``jaxpr.outvars``, ``jaxpr.eqns``; ``eqn.primitive``, ``eqn.invars``, ``eqn.outvars``,
``eqn.params``; ``Literal.val``), and ``eqn.primitive.bind(*args, **params)`` applies a
primitive under the current transformations, so an interpreter written for JAX runs on mj::

    closed = mj.make_jaxpr(f)(x)
    mj.core.eval_jaxpr(closed.jaxpr, closed.consts, x)

``eval_jaxpr`` here has JAX's signature ``(jaxpr, consts, *args)``; :func:`mj.eval_jaxpr` is
Autodidax's ``(jaxpr, args)``, with a ``Jaxpr``'s constants first in ``args``.
"""

from mj_core.extend import AbstractValue as AbstractValue
from mj_core.extend import Primitive as Primitive
from mj_core.extend import ShapedArray as ShapedArray
from mj_core.extend import Trace as Trace
from mj_core.extend import Tracer as Tracer
from mj_core.extend import ensure_compile_time_eval as ensure_compile_time_eval
from mj_core.extend import find_top_trace as find_top_trace
from mj_ir import Atom as Atom
from mj_ir import ClosedJaxpr as ClosedJaxpr
from mj_ir import Jaxpr as Jaxpr
from mj_ir import JaxprEqn as JaxprEqn
from mj_ir import Literal as Literal
from mj_ir import Var as Var
from mj_ir import jaxpr_as_fun as jaxpr_as_fun
from mj_ir.extend import eval_jaxpr_consts as eval_jaxpr

__all__ = [
    "AbstractValue",
    "Atom",
    "ClosedJaxpr",
    "Jaxpr",
    "JaxprEqn",
    "Literal",
    "Primitive",
    "ShapedArray",
    "Trace",
    "Tracer",
    "ensure_compile_time_eval",
    "eval_jaxpr",
    "find_top_trace",
    "jaxpr_as_fun",
]
