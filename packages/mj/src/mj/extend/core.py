"""``mj.extend.core``: JAX's ``jax.extend.core`` names for mj's jaxpr and primitive objects.

mj's own objects (see :mod:`mj.core`): ``type(atom) is mj.extend.core.Literal`` tells a
literal from a variable in a jaxpr made by :func:`mj.make_jaxpr`, and
``Primitive(name).bind`` / ``def_impl`` / ``def_abstract_eval`` follow JAX's conventions.
"""

from mj_core.extend import Primitive as Primitive
from mj_ir import ClosedJaxpr as ClosedJaxpr
from mj_ir import Jaxpr as Jaxpr
from mj_ir import JaxprEqn as JaxprEqn
from mj_ir import JaxprTypeError as JaxprTypeError
from mj_ir import Literal as Literal
from mj_ir import Var as Var
from mj_ir import jaxpr_as_fun as jaxpr_as_fun

#: JAX's empty effect set: mj's jaxprs and equations have no effects.
no_effects: frozenset[object] = frozenset()

__all__ = [
    "ClosedJaxpr",
    "Jaxpr",
    "JaxprEqn",
    "JaxprTypeError",
    "Literal",
    "Primitive",
    "Var",
    "jaxpr_as_fun",
    "no_effects",
]
