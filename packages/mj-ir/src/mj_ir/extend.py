"""The extension API of mj-ir: what a new primitive or a higher layer builds on.

``mj_ir``'s ``__init__`` is the user API; this module is the whole extension surface: the
typing table (``abstract_eval_rules``, the same dict as ``mj_core.extend.abstract_eval_rules``),
the IR's building blocks, the jaxpr builder trace (``JaxprTrace``, ``JaxprBuilder``,
``trace_to_jaxpr``), the type checker's helpers and the pretty printer (``pp_rules`` for a
primitive's own printing, ``Names``, ``PPrint``). Other layers import mj-ir only through
``mj_ir`` and this module.
"""

from mj_core.extend import abstract_eval_rules as abstract_eval_rules
from mj_ir._dce import dce_jaxpr as dce_jaxpr
from mj_ir._dce import has_effect as has_effect
from mj_ir._jaxpr import Atom as Atom
from mj_ir._jaxpr import ClosedJaxpr as ClosedJaxpr
from mj_ir._jaxpr import Jaxpr as Jaxpr
from mj_ir._jaxpr import JaxprEqn as JaxprEqn
from mj_ir._jaxpr import JaxprType as JaxprType
from mj_ir._jaxpr import Lit as Lit
from mj_ir._jaxpr import Literal as Literal
from mj_ir._jaxpr import Names as Names
from mj_ir._jaxpr import PPrint as PPrint
from mj_ir._jaxpr import Var as Var
from mj_ir._jaxpr import eval_jaxpr as eval_jaxpr
from mj_ir._jaxpr import eval_jaxpr_consts as eval_jaxpr_consts
from mj_ir._jaxpr import jax_type_str as jax_type_str
from mj_ir._jaxpr import jaxpr_as_fun as jaxpr_as_fun
from mj_ir._jaxpr import pp as pp
from mj_ir._jaxpr import pp_atom as pp_atom
from mj_ir._jaxpr import pp_default_eqn as pp_default_eqn
from mj_ir._jaxpr import pp_eqn as pp_eqn
from mj_ir._jaxpr import pp_jaxpr as pp_jaxpr
from mj_ir._jaxpr import pp_jaxpr_jax as pp_jaxpr_jax
from mj_ir._jaxpr import pp_params as pp_params
from mj_ir._jaxpr import pp_rules as pp_rules
from mj_ir._jaxpr import type_str as type_str
from mj_ir._jaxpr import var_str as var_str
from mj_ir._jaxpr import vcat as vcat
from mj_ir._tracing import JaxprBuilder as JaxprBuilder
from mj_ir._tracing import JaxprTrace as JaxprTrace
from mj_ir._tracing import JaxprTracer as JaxprTracer
from mj_ir._tracing import ShapeDtypeStruct as ShapeDtypeStruct
from mj_ir._tracing import check_returned_jaxtypes as check_returned_jaxtypes
from mj_ir._tracing import gc_paused as gc_paused
from mj_ir._tracing import inline_literals as inline_literals
from mj_ir._tracing import trace_to_closed_jaxpr as trace_to_closed_jaxpr
from mj_ir._tracing import trace_to_jaxpr as trace_to_jaxpr
from mj_ir._typecheck import JaxprTypeError as JaxprTypeError
from mj_ir._typecheck import typecheck_jaxpr as typecheck_jaxpr
from mj_ir._typecheck import types_match as types_match
