"""Layer 3 of mini-JAX (mj): automatic differentiation.

Owns ``jvp``, ``linearize``, ``vjp``, ``grad``, ``value_and_grad``, partial evaluation,
transposition, symbolic zeros, ``custom_jvp``/``custom_vjp``, ``check_grads`` and the
``jvp_rules``, ``transpose_rules`` and ``partial_eval_jaxpr_rules`` tables. It may import only
``mj_ir`` and ``mj_core`` (and numpy); never a higher layer and never jaxlib.
"""

from mj_autodiff import _rules as _rules
from mj_autodiff import extend as extend
from mj_autodiff._check_grads import check_grads as check_grads
from mj_autodiff._check_grads import numerical_jvp as numerical_jvp
from mj_autodiff._closure_convert import closure_convert as closure_convert
from mj_autodiff._custom_derivatives import Thunk as Thunk
from mj_autodiff._custom_derivatives import custom_jvp as custom_jvp
from mj_autodiff._custom_derivatives import custom_jvp_call_p as custom_jvp_call_p
from mj_autodiff._custom_derivatives import custom_vjp as custom_vjp
from mj_autodiff._custom_derivatives import custom_vjp_call_p as custom_vjp_call_p
from mj_autodiff._custom_gradient import custom_gradient as custom_gradient
from mj_autodiff._custom_lin import custom_lin_p as custom_lin_p
from mj_autodiff._jvp import JVPTrace as JVPTrace
from mj_autodiff._jvp import JVPTracer as JVPTracer
from mj_autodiff._jvp import defjvp as defjvp
from mj_autodiff._jvp import defjvp2 as defjvp2
from mj_autodiff._jvp import defjvp_zero as defjvp_zero
from mj_autodiff._jvp import jvp as jvp
from mj_autodiff._jvp import jvp_flat as jvp_flat
from mj_autodiff._jvp import jvp_jaxpr as jvp_jaxpr
from mj_autodiff._jvp import jvp_rules as jvp_rules
from mj_autodiff._linear_transpose import linear_transpose as linear_transpose
from mj_autodiff._linearize import LinearFunction as LinearFunction
from mj_autodiff._linearize import linearize as linearize
from mj_autodiff._linearize import linearize_flat as linearize_flat
from mj_autodiff._partial_eval import ConstRecipe as ConstRecipe
from mj_autodiff._partial_eval import JaxprEqnRecipe as JaxprEqnRecipe
from mj_autodiff._partial_eval import LambdaBindingRecipe as LambdaBindingRecipe
from mj_autodiff._partial_eval import PartialEvalTrace as PartialEvalTrace
from mj_autodiff._partial_eval import PartialEvalTracer as PartialEvalTracer
from mj_autodiff._partial_eval import PartialVal as PartialVal
from mj_autodiff._partial_eval import partial_eval_flat as partial_eval_flat
from mj_autodiff._partial_eval import partial_eval_jaxpr as partial_eval_jaxpr
from mj_autodiff._partial_eval import partial_eval_jaxpr_rules as partial_eval_jaxpr_rules
from mj_autodiff._partial_eval import partial_eval_rules as partial_eval_rules
from mj_autodiff._partial_eval import tracers_to_jaxpr as tracers_to_jaxpr
from mj_autodiff._stop_gradient import stop_gradient as stop_gradient
from mj_autodiff._stop_gradient import stop_gradient_p as stop_gradient_p
from mj_autodiff._tangents import Zero as Zero
from mj_autodiff._tangents import add_tangents as add_tangents
from mj_autodiff._tangents import float0 as float0
from mj_autodiff._tangents import instantiate_zeros as instantiate_zeros
from mj_autodiff._tangents import tangent_aval as tangent_aval
from mj_autodiff._tangents import tangents_with_zeros as tangents_with_zeros
from mj_autodiff._tangents import zeros_like_aval as zeros_like_aval
from mj_autodiff._transpose import UndefPrimal as UndefPrimal
from mj_autodiff._transpose import backward_pass as backward_pass
from mj_autodiff._transpose import deflinear as deflinear
from mj_autodiff._transpose import deflinear2 as deflinear2
from mj_autodiff._transpose import is_undefined_primal as is_undefined_primal
from mj_autodiff._transpose import transpose_jaxpr as transpose_jaxpr
from mj_autodiff._transpose import transpose_rules as transpose_rules
from mj_autodiff._transpose import unbroadcast as unbroadcast
from mj_autodiff._vjp import grad as grad
from mj_autodiff._vjp import value_and_grad as value_and_grad
from mj_autodiff._vjp import vjp as vjp

__version__ = "0.1.0"
