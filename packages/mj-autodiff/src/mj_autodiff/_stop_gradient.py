"""``stop_gradient``: the identity whose derivative is zero.

A primitive (``stop_gradient``) so that every transformation sees it: its impl and typing
rules are the identity, its JVP rule gives a ``Zero`` tangent and stops the primal again
(so that every enclosing level of differentiation sees it). Higher layers register the
identity for their interpretations (vmap: unchanged batch dim; lowering: the operand).
"""

from __future__ import annotations

from typing import Any

from mj_autodiff._derivatives import ZeroDerivative, derivative_kinds
from mj_autodiff._jvp import jvp_rules
from mj_autodiff._tangents import Zero, tangent_aval_of
from mj_core import Primitive, ShapedArray, bind1, get_aval, impl_rules
from mj_core.tree_util import tree_map
from mj_ir import abstract_eval_rules

__all__ = ["stop_gradient", "stop_gradient_p"]

stop_gradient_p = Primitive("stop_gradient")


def _stop_gradient_impl(x: Any) -> list[Any]:
    return [x]


impl_rules[stop_gradient_p] = _stop_gradient_impl


def _stop_gradient_abstract_eval(x: ShapedArray) -> list[ShapedArray]:
    return [ShapedArray(x.shape, x.dtype, x.weak_type)]


abstract_eval_rules[stop_gradient_p] = _stop_gradient_abstract_eval


def _stop_gradient_jvp(primals: list[Any], tangents: list[Any]) -> tuple[list[Any], list[Any]]:
    # The primal is stopped again: returning ``x`` itself would only peel off this level of
    # differentiation, and an enclosing one (``grad`` of ``grad``, ``hessian``) would see
    # through to it.
    (x,) = primals
    return [bind1(stop_gradient_p, x)], [Zero(tangent_aval_of(x))]


jvp_rules[stop_gradient_p] = _stop_gradient_jvp
derivative_kinds[stop_gradient_p] = ZeroDerivative()


def stop_gradient(x: Any) -> Any:
    """``x`` unchanged, but treated as a constant by differentiation (pytrees allowed)."""
    return tree_map(_stop_leaf, x)


def _stop_leaf(x: Any) -> Any:
    get_aval(x)  # (its TypeError for a leaf that is no array: a function, a string)
    return bind1(stop_gradient_p, x)
