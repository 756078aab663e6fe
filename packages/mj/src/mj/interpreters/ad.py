"""``mj.interpreters.ad``: JAX's autodiff registries (``jax.interpreters.ad``) over mj's
tables.

* ``primitive_jvps[p] = rule`` registers ``rule(primals, tangents, **params) -> (primal_out,
  tangent_out)`` (single values unless ``p.multiple_results``) into
  ``mj_autodiff.extend.jvp_rules``, whose rules take and return lists.
* ``primitive_transposes[p] = rule`` registers ``rule(ct, *args, **params) -> cotangents``
  (``ct`` a single cotangent unless ``p.multiple_results``; ``None`` for non-linear inputs)
  into ``mj_autodiff.extend.transpose_rules``, whose rules take the list ``cts``.
* ``defjvp``, ``defjvp2``, ``deflinear``, ``deflinear2`` are mj's helpers: their rule
  signatures are JAX's already. ``Zero``, ``UndefinedPrimal`` (mj's ``UndefPrimal``),
  ``is_undefined_primal``, ``instantiate_zeros``, ``zeros_like_aval`` and ``add_tangents`` are
  mj's objects.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from mj._rule_views import RuleView, multiple_results
from mj_autodiff.extend import JVPTracer as JVPTracer
from mj_autodiff.extend import UndefPrimal as UndefinedPrimal
from mj_autodiff.extend import Zero as Zero
from mj_autodiff.extend import add_tangents as add_tangents
from mj_autodiff.extend import defjvp as defjvp
from mj_autodiff.extend import defjvp2 as defjvp2
from mj_autodiff.extend import deflinear as deflinear
from mj_autodiff.extend import deflinear2 as deflinear2
from mj_autodiff.extend import derivative_kinds, jvp_rules, transpose_rules
from mj_autodiff.extend import instantiate_zeros as instantiate_zeros
from mj_autodiff.extend import is_undefined_primal as is_undefined_primal
from mj_autodiff.extend import zeros_like_aval as zeros_like_aval
from mj_core import Primitive, bind
from mj_core.extend import Array

__all__ = [
    "JVPTracer",
    "UndefinedPrimal",
    "Zero",
    "add_tangents",
    "defbilinear",
    "defjvp",
    "defjvp2",
    "deflinear",
    "deflinear2",
    "get_primitive_transpose",
    "instantiate_zeros",
    "is_undefined_primal",
    "primitive_jvps",
    "primitive_transposes",
    "zeros_like_aval",
]

Rule = Callable[..., Any]


# --- jvp rules --------------------------------------------------------------------------------


def _jvp_to_mj(prim: Primitive, rule: Rule) -> Rule:
    multiple = multiple_results(prim)

    def jvp_rule(
        primals: list[Any], tangents: list[Any], **params: object
    ) -> tuple[list[Any], list[Any]]:
        primal_out, tangent_out = rule(primals, tangents, **params)
        if multiple:
            return list(primal_out), list(tangent_out)
        return [primal_out], [tangent_out]

    return jvp_rule


def _jvp_to_jax(prim: Primitive, rule: Rule) -> Rule:
    multiple = multiple_results(prim)

    def jvp_rule(primals: Sequence[Any], tangents: Sequence[Any], **params: object) -> Any:
        primals_out, tangents_out = rule(list(primals), list(tangents), **params)
        if multiple:
            return primals_out, tangents_out
        return primals_out[0], tangents_out[0]

    return jvp_rule


def _jvp_assigned(prim: Primitive, rule: Rule) -> Rule:
    # A rule written as a whole says nothing of the derivative's kind: eager reverse mode
    # then linearizes the primitive alone (mj's helpers record the kind themselves).
    derivative_kinds.pop(prim, None)
    return _jvp_to_mj(prim, rule)


primitive_jvps = RuleView("primitive_jvps", jvp_rules, _jvp_assigned, _jvp_to_jax)
"""``primitive_jvps[p]``: ``p``'s JVP rule in JAX's signature; assigning registers it in
``mj_autodiff.extend.jvp_rules``."""


# --- transpose rules --------------------------------------------------------------------------


def _transpose_to_mj(prim: Primitive, rule: Rule) -> Rule:
    multiple = multiple_results(prim)

    def transpose_rule(cts: list[Any], *invals: object, **params: object) -> list[Any]:
        out = rule(cts if multiple else cts[0], *invals, **params)
        return list(out)

    return transpose_rule


def _transpose_to_jax(prim: Primitive, rule: Rule) -> Rule:
    multiple = multiple_results(prim)

    def transpose_rule(ct: Any, *invals: Any, **params: Any) -> list[Any]:
        return list(rule(list(ct) if multiple else [ct], *invals, **params))

    return transpose_rule


primitive_transposes = RuleView(
    "primitive_transposes", transpose_rules, _transpose_to_mj, _transpose_to_jax
)
"""``primitive_transposes[p]``: ``p``'s transpose rule in JAX's signature; assigning
registers it in ``mj_autodiff.extend.transpose_rules``."""


def get_primitive_transpose(prim: Primitive) -> Rule:
    """``prim``'s transpose rule in JAX's signature (``NotImplementedError`` naming the
    primitive and the table when it has none, as JAX)."""
    if prim not in transpose_rules:
        raise NotImplementedError(
            f"Transpose rule (for reverse-mode differentiation) for '{prim}' not implemented"
        )
    return primitive_transposes[prim]


def defbilinear(prim: Primitive, lhs_rule: Rule, rhs_rule: Rule) -> None:
    """Register single-output ``prim`` as bilinear (JAX's ``ad.defbilinear``): its JVP is
    ``prim(x_dot, y) + prim(x, y_dot)``; ``lhs_rule(ct, x, y, **params)`` and
    ``rhs_rule(ct, x, y, **params)`` give the cotangent of the undefined operand."""

    def jvp_rule(
        primals: list[Any], tangents: list[Any], **params: object
    ) -> tuple[list[Any], list[Any]]:
        x, y = primals
        xt, yt = tangents
        (out,) = bind(prim, x, y, **params)
        terms: list[Array] = []
        if type(xt) is not Zero:
            terms += bind(prim, xt, y, **params)
        if type(yt) is not Zero:
            terms += bind(prim, x, yt, **params)
        if not terms:
            return [out], [Zero.from_value(out)]
        tangent = terms[0] if len(terms) == 1 else add_tangents(terms[0], terms[1])
        return [out], [tangent]

    def transpose_rule(cts: list[Any], x: Any, y: Any, **params: Any) -> list[Any]:
        (ct,) = cts
        if is_undefined_primal(x):
            ct_x = Zero(x.aval) if type(ct) is Zero else lhs_rule(ct, x, y, **params)
            return [ct_x, None]
        ct_y = Zero(y.aval) if type(ct) is Zero else rhs_rule(ct, x, y, **params)
        return [None, ct_y]

    jvp_rule.__name__ = f"{prim.name}_jvp"
    transpose_rule.__name__ = f"{prim.name}_transpose"
    derivative_kinds.pop(prim, None)
    jvp_rules[prim] = jvp_rule
    transpose_rules[prim] = transpose_rule
