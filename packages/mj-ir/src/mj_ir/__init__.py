"""Layer 2 of mini-JAX (mj): jaxprs.

The user API: ``make_jaxpr`` and ``eval_shape`` (with ``ShapeDtypeStruct``), the IR a user
reads or interprets (``Jaxpr``, ``ClosedJaxpr``, ``JaxprEqn``, ``Var``, ``Lit``/``Literal``,
``Atom``, ``JaxprType``), ``eval_jaxpr``, ``jaxpr_as_fun``, ``typecheck_jaxpr`` (with
``JaxprTypeError``) and ``dce_jaxpr``, and the layer's table, ``abstract_eval_rules`` (the very
dict mj-core's families write their typing rules into). :mod:`mj_ir.extend` is the extension
API (the builder trace, the printer's helpers, ``types_match``, ``type_str``, ...).
It may import only ``mj_core`` (and numpy); never a higher layer and never jaxlib.
"""

from mj_core.errors import register_exclusion as _register_exclusion
from mj_core.extend import abstract_eval_rules as abstract_eval_rules
from mj_ir._dce import dce_jaxpr as dce_jaxpr
from mj_ir._eval_shape import eval_shape as eval_shape
from mj_ir._jaxpr import Atom as Atom
from mj_ir._jaxpr import ClosedJaxpr as ClosedJaxpr
from mj_ir._jaxpr import Jaxpr as Jaxpr
from mj_ir._jaxpr import JaxprEqn as JaxprEqn
from mj_ir._jaxpr import JaxprType as JaxprType
from mj_ir._jaxpr import Lit as Lit
from mj_ir._jaxpr import Literal as Literal
from mj_ir._jaxpr import Var as Var
from mj_ir._jaxpr import eval_jaxpr as eval_jaxpr
from mj_ir._jaxpr import jaxpr_as_fun as jaxpr_as_fun
from mj_ir._jaxpr import pp_jaxpr as pp_jaxpr
from mj_ir._tracing import ShapeDtypeStruct as ShapeDtypeStruct
from mj_ir._tracing import make_jaxpr as make_jaxpr
from mj_ir._typecheck import JaxprTypeError as JaxprTypeError
from mj_ir._typecheck import typecheck_jaxpr as typecheck_jaxpr

_register_exclusion(__path__[0])  # its frames are never "the user's line" in errors

__version__ = "0.1.0"
