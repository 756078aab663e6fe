"""The extension API of mj-autodiff: how to make a new primitive differentiable, and
everything the higher layers build their own rules and interpreters on.

Register a JVP rule (``jvp_rules[p] = rule`` or one of the helpers below) and, for a
primitive that is linear in some operands, a transpose rule. Example, for a primitive
``multiply_add_p(x, y, z) = x * y + z``::

    from mj_autodiff import extend as ad

    ad.defjvp(multiply_add_p,
              lambda g, x, y, z: g * y,     # d/dx
              lambda g, x, y, z: x * g,     # d/dy
              lambda g, x, y, z: g)         # d/dz

    def multiply_add_transpose(cts, x, y, z):
        ct, = cts
        ...  # return one cotangent per operand, None for non-linear ones

    ad.transpose_rules[multiply_add_p] = multiply_add_transpose

The tables: ``jvp_rules``, ``transpose_rules``, ``partial_eval_rules`` and
``partial_eval_jaxpr_rules`` (higher-order primitives), and ``derivative_kinds``, the one
description of each primitive's derivative (:class:`Linear`, :class:`Bilinear`,
:class:`Elementwise`, :class:`ZeroDerivative`) from which eager reverse mode derives its
VJPs. The helpers (:func:`defjvp`, :func:`defjvp2`, :func:`defjvp_zero`, :func:`deflinear`,
:func:`deflinear2`) register a rule and record its kind at once; a primitive without a kind
is still differentiated by ``grad`` eagerly, only by the general path.

Tangents and cotangents handed to rules may be symbolic zeros (:class:`Zero`); use
:func:`instantiate_zeros` when a rule needs an array. Elementwise-style rules that broadcast
use :func:`unbroadcast` to return a cotangent of each operand's shape and dtype.
"""

from mj_autodiff._custom_derivatives import CustomVJPPrimal as CustomVJPPrimal
from mj_autodiff._custom_derivatives import SymbolicZero as SymbolicZero
from mj_autodiff._custom_derivatives import Thunk as Thunk
from mj_autodiff._custom_derivatives import custom_jvp_call_p as custom_jvp_call_p
from mj_autodiff._custom_derivatives import custom_vjp_call_p as custom_vjp_call_p
from mj_autodiff._custom_derivatives import (
    custom_vjp_primal_tree_values as custom_vjp_primal_tree_values,
)
from mj_autodiff._custom_derivatives import zero_from_primal as zero_from_primal
from mj_autodiff._custom_lin import custom_lin_p as custom_lin_p
from mj_autodiff._custom_lin import custom_vjp_jvp_error as custom_vjp_jvp_error
from mj_autodiff._derivatives import Bilinear as Bilinear
from mj_autodiff._derivatives import DerivativeKind as DerivativeKind
from mj_autodiff._derivatives import Elementwise as Elementwise
from mj_autodiff._derivatives import Linear as Linear
from mj_autodiff._derivatives import TangentFn as TangentFn
from mj_autodiff._derivatives import VJPRule as VJPRule
from mj_autodiff._derivatives import ZeroDerivative as ZeroDerivative
from mj_autodiff._derivatives import defjvp as defjvp
from mj_autodiff._derivatives import defjvp2 as defjvp2
from mj_autodiff._derivatives import defjvp_zero as defjvp_zero
from mj_autodiff._derivatives import deflinear as deflinear
from mj_autodiff._derivatives import deflinear2 as deflinear2
from mj_autodiff._derivatives import derivative_kinds as derivative_kinds
from mj_autodiff._jvp import JVPTrace as JVPTrace
from mj_autodiff._jvp import JVPTracer as JVPTracer
from mj_autodiff._jvp import jvp_flat as jvp_flat
from mj_autodiff._jvp import jvp_jaxpr as jvp_jaxpr
from mj_autodiff._jvp import jvp_rules as jvp_rules
from mj_autodiff._linearize import LinearFunction as LinearFunction
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
from mj_autodiff._stop_gradient import stop_gradient_p as stop_gradient_p
from mj_autodiff._tangents import Zero as Zero
from mj_autodiff._tangents import add_tangents as add_tangents
from mj_autodiff._tangents import fit_tangent as fit_tangent
from mj_autodiff._tangents import instantiate_zeros as instantiate_zeros
from mj_autodiff._tangents import tangent_aval as tangent_aval
from mj_autodiff._tangents import tangents_with_zeros as tangents_with_zeros
from mj_autodiff._tangents import zeros_like_aval as zeros_like_aval
from mj_autodiff._transpose import UndefPrimal as UndefPrimal
from mj_autodiff._transpose import backward_pass as backward_pass
from mj_autodiff._transpose import is_undefined_primal as is_undefined_primal
from mj_autodiff._transpose import transpose_jaxpr as transpose_jaxpr
from mj_autodiff._transpose import transpose_rules as transpose_rules
from mj_autodiff._transpose import unbroadcast as unbroadcast

__all__ = [
    "Bilinear",
    "ConstRecipe",
    "CustomVJPPrimal",
    "DerivativeKind",
    "Elementwise",
    "JVPTrace",
    "JVPTracer",
    "JaxprEqnRecipe",
    "LambdaBindingRecipe",
    "Linear",
    "LinearFunction",
    "PartialEvalTrace",
    "PartialEvalTracer",
    "PartialVal",
    "SymbolicZero",
    "TangentFn",
    "Thunk",
    "UndefPrimal",
    "VJPRule",
    "Zero",
    "ZeroDerivative",
    "add_tangents",
    "backward_pass",
    "custom_jvp_call_p",
    "custom_lin_p",
    "custom_vjp_call_p",
    "custom_vjp_jvp_error",
    "custom_vjp_primal_tree_values",
    "defjvp",
    "defjvp2",
    "defjvp_zero",
    "deflinear",
    "deflinear2",
    "derivative_kinds",
    "fit_tangent",
    "instantiate_zeros",
    "is_undefined_primal",
    "jvp_flat",
    "jvp_jaxpr",
    "jvp_rules",
    "linearize_flat",
    "partial_eval_flat",
    "partial_eval_jaxpr",
    "partial_eval_jaxpr_rules",
    "partial_eval_rules",
    "stop_gradient_p",
    "tangent_aval",
    "tangents_with_zeros",
    "tracers_to_jaxpr",
    "transpose_jaxpr",
    "transpose_rules",
    "unbroadcast",
    "zero_from_primal",
    "zeros_like_aval",
]
