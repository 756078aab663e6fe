"""Layer 2 of mini-JAX (mj): jaxprs.

The user API: ``make_jaxpr`` and ``eval_shape`` (with ``ShapeDtypeStruct``), the IR a user
reads or interprets (``Jaxpr``, ``ClosedJaxpr``, ``JaxprEqn``, ``Var``, ``Lit``/``Literal``,
``Atom``, ``JaxprType``), ``eval_jaxpr``, ``jaxpr_as_fun``, ``typecheck_jaxpr`` (with
``JaxprTypeError``) and ``dce_jaxpr``, and the layer's table, ``abstract_eval_rules`` (the very
dict mj-core's families write their typing rules into). :mod:`mj_ir.extend` is the extension
API; the other names here (the builder trace, the printer's helpers, ``types_match``,
``type_str``) are TRANSITIONAL re-exports for importers that have not moved to it yet.
It may import only ``mj_core`` (and numpy); never a higher layer and never jaxlib.
"""

from mj_core.extend import abstract_eval_rules as abstract_eval_rules
from mj_ir.dce import dce_jaxpr as dce_jaxpr
from mj_ir.eval_shape import eval_shape as eval_shape
from mj_ir.evaluation import eval_jaxpr as eval_jaxpr
from mj_ir.evaluation import jaxpr_as_fun as jaxpr_as_fun
from mj_ir.jaxpr import Atom as Atom
from mj_ir.jaxpr import ClosedJaxpr as ClosedJaxpr
from mj_ir.jaxpr import Jaxpr as Jaxpr
from mj_ir.jaxpr import JaxprEqn as JaxprEqn
from mj_ir.jaxpr import JaxprType as JaxprType
from mj_ir.jaxpr import Lit as Lit
from mj_ir.jaxpr import Literal as Literal
from mj_ir.jaxpr import Var as Var
from mj_ir.jaxpr import type_str as type_str
from mj_ir.printing import Names as Names
from mj_ir.printing import PPrint as PPrint
from mj_ir.printing import pp as pp
from mj_ir.printing import pp_eqn as pp_eqn
from mj_ir.printing import pp_jaxpr as pp_jaxpr
from mj_ir.printing import pp_params as pp_params
from mj_ir.printing import pp_rules as pp_rules
from mj_ir.printing import vcat as vcat
from mj_ir.tracing import JaxprBuilder as JaxprBuilder
from mj_ir.tracing import JaxprTrace as JaxprTrace
from mj_ir.tracing import JaxprTracer as JaxprTracer
from mj_ir.tracing import ShapeDtypeStruct as ShapeDtypeStruct
from mj_ir.tracing import inline_literals as inline_literals
from mj_ir.tracing import make_jaxpr as make_jaxpr
from mj_ir.tracing import trace_to_closed_jaxpr as trace_to_closed_jaxpr
from mj_ir.tracing import trace_to_jaxpr as trace_to_jaxpr
from mj_ir.typecheck import JaxprTypeError as JaxprTypeError
from mj_ir.typecheck import typecheck_jaxpr as typecheck_jaxpr
from mj_ir.typecheck import types_match as types_match

__version__ = "0.1.0"
