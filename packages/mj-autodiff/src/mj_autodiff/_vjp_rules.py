"""VJP rules for eager reverse mode (:mod:`mj_autodiff._tape`), derived from the JVP and
transpose rules so that every derivative formula is written once. The tape asks
:func:`vjp_rule`, which derives a primitive's rule the first time it is needed.

* **Linear** primitives (``linear_prims``, declared next to their transpose rules): the VJP
  *is* the transpose rule, applied with the differentiated operands marked ``UndefPrimal``.
* **Bilinear** primitives (``bilinear_prims``: ``mul``, convolution): linear in each operand
  with the other fixed, so the transpose rule is applied once per differentiated operand.
  (``dot_general`` has its own rule, next to its transpose rule.)
* **Elementwise** primitives with :func:`~mj_autodiff.defjvp` rules: the Jacobian is
  diagonal, hence its own transpose, so operand ``i``'s cotangent is its tangent function
  applied to the output cotangent, summed back to the operand's shape (``unbroadcast``).
  That needs the tangent function to be complex-linear, which ``abs`` is not for complex
  operands: those take the general path.

``div`` (linear in the numerator only) is written out. Every other primitive is linearized
alone by the tape, so a missing entry costs speed, never correctness.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mj_autodiff._jvp import tangent_fns
from mj_autodiff._tangents import shaped_aval_of
from mj_autodiff._transpose import (
    UndefPrimal,
    bilinear_prims,
    linear_prims,
    transpose_rules,
    unbroadcast,
)
from mj_core import Primitive, RuleTable, ShapedArray, lax
from mj_core.prims import elementwise as ew

Rule = Callable[[Any, Any, list[Any], list[bool], dict[str, Any]], list[Any]]


def operand_aval(v: Any) -> ShapedArray:
    """The type of a rule's operand, which the tape may have kept as an ``UndefPrimal``."""
    return v.aval if type(v) is UndefPrimal else shaped_aval_of(v)


def _linear_vjp(prim: Primitive) -> Rule:
    def rule(ct: Any, ans: Any, vals: list[Any], wants: list[bool], params: dict[str, Any]) -> Any:
        return transpose_rules[prim]([ct], *vals, **params)  # wanted operands: UndefPrimal

    rule.__name__ = f"{prim.name}_vjp"
    return rule


def _bilinear_vjp(prim: Primitive) -> Rule:
    def rule(ct: Any, ans: Any, vals: list[Any], wants: list[bool], params: dict[str, Any]) -> Any:
        transpose = transpose_rules[prim]
        out: list[Any] = [None] * len(vals)
        for i, w in enumerate(wants):
            if w:
                args = vals
                if type(vals[i]) is not UndefPrimal:  # several operands differentiated
                    args = list(vals)
                    args[i] = UndefPrimal(shaped_aval_of(vals[i]))
                out[i] = transpose([ct], *args, **params)[i]
        return out

    rule.__name__ = f"{prim.name}_vjp"
    return rule


def _elementwise_vjp(prim: Primitive) -> Rule:
    fns, pass_ans = tangent_fns[prim]

    def rule(ct: Any, ans: Any, vals: list[Any], wants: list[bool], params: dict[str, Any]) -> Any:
        args = (ans, *vals) if pass_ans else vals
        return [
            unbroadcast(fn(ct, *args, **params), shaped_aval_of(v))
            if w and fn is not None
            else None
            for fn, v, w in zip(fns, vals, wants, strict=True)
        ]

    rule.__name__ = f"{prim.name}_vjp"
    return rule


def _div_vjp(ct: Any, ans: Any, vals: list[Any], wants: list[bool], params: dict[str, Any]) -> Any:
    x, y = vals
    return [
        unbroadcast(lax.div(ct, y), shaped_aval_of(x)) if wants[0] else None,
        unbroadcast(lax.mul(ct, lax.neg(lax.div(ans, y))), shaped_aval_of(y)) if wants[1] else None,
    ]


#: ``vjp_rules[p](ct, ans, primals, wants, params) -> list``: the cotangents of the operands
#: of single-output ``p`` flagged in ``wants`` (``None`` elsewhere), given the output's
#: cotangent ``ct``, the output ``ans`` and the operands. Entries are derived on first use
#: (:func:`vjp_rule`); a primitive may also register its own (and say what it keeps below).
vjp_rules = RuleTable("vjp_rules", "eager reverse mode (vjp)", "mj_autodiff")
vjp_rules[ew.div_p] = _div_vjp

# What the tape keeps for a rule: by default every operand's value and not the output. The
# less it keeps, the sooner the intermediates of a long computation are freed.
#: Rules that get each differentiated operand as an ``UndefPrimal`` (its type only).
linear_vjps: set[Primitive] = set()
#: Rules that get the differentiated operand as an ``UndefPrimal`` when it is the only one
#: (the others are then the constant factors); values of all operands otherwise.
bilinear_vjps: set[Primitive] = set()
#: Rules that read the output ``ans`` (``None`` for the others).
ans_vjps: set[Primitive] = {ew.div_p}

#: Rules that hold only for real operands (they reuse a JVP formula that is not
#: complex-linear: ``abs``); complex operands take the general path.
real_only_vjps: set[Primitive] = {ew.abs_p}

_UNDERIVABLE: set[Primitive] = set()


def vjp_rule(prim: Primitive) -> Rule | None:
    """``prim``'s entry in :data:`vjp_rules`, derived from its other rules the first time it
    is asked for (so primitives registered later, by any layer or user, are covered); ``None``
    for a primitive whose VJP cannot be derived (the tape linearizes it instead)."""
    rule = vjp_rules.get(prim)
    if rule is not None or prim in _UNDERIVABLE:
        return rule
    if prim in linear_prims:
        rule = _linear_vjp(prim)
        linear_vjps.add(prim)
    elif prim in bilinear_prims:
        rule = _bilinear_vjp(prim)
        bilinear_vjps.add(prim)
    elif prim in tangent_fns and prim in ew.elementwise_specs:
        rule = _elementwise_vjp(prim)
        if tangent_fns[prim][1]:
            ans_vjps.add(prim)
    else:
        _UNDERIVABLE.add(prim)
        return None
    vjp_rules[prim] = rule
    return rule
