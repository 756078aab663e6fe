"""The derivative description: what kind of derivative each primitive has, recorded where its
JVP rule is registered, and the helpers that register a rule and record its kind at once.

``derivative_kinds[p]`` is one of

* :class:`ZeroDerivative`: ``p``'s outputs are constants to every differentiation
  (comparisons, ``floor``, ``argmax``, ``stop_gradient``; :func:`defjvp_zero`).
* :class:`Linear`: linear in every operand that can carry a tangent (integer operands, such
  as indices, are fixed); :func:`deflinear`, :func:`deflinear2`, or a hand-written JVP rule
  next to a transpose rule that accepts every such operand as an ``UndefPrimal`` at once.
* :class:`Bilinear`: linear in each operand with the others fixed (``mul``, ``dot_general``,
  convolution); the transpose rule takes one ``UndefPrimal`` operand at a time.
* :class:`Elementwise`: an elementwise primitive whose JVP is a sum of per-operand tangent
  functions (:func:`defjvp`, :func:`defjvp2`).

Eager reverse mode (:mod:`mj_autodiff._tape`) reads nothing else: each kind carries the VJP
the tape applies, ``vjp(prim, ct, ans, vals, wants, params) -> list`` (the cotangents of the
operands flagged in ``wants``, ``None`` elsewhere, given the output cotangent ``ct``, the
output ``ans`` and the operands), and says what the tape keeps for it: the less it keeps,
the sooner the intermediates of a long computation are freed. The VJPs are derived from the
JVP and transpose rules, so every derivative formula is written once:

* a linear primitive's VJP *is* its transpose rule, applied with the differentiated operands
  marked ``UndefPrimal`` (the tape keeps only their types);
* a bilinear one applies its transpose rule once per differentiated operand (``dot_general``
  gives its own VJP instead, which lays out the rhs cotangent directly);
* an elementwise one has a diagonal Jacobian, hence its own transpose: operand ``i``'s
  cotangent is its tangent function applied to the output cotangent, summed back to the
  operand's shape (``unbroadcast``). That needs the tangent function to be complex-linear,
  which ``abs``'s is not: ``real_only`` sends complex operands to the general path.

A primitive with no entry (or one with several outputs) is linearized alone by the tape:
a missing entry costs speed, never correctness.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from mj_autodiff._jvp import jvp_rules
from mj_autodiff._tangents import (
    Tangent,
    Zero,
    add_tangents,
    fit_tangent,
    instantiate_zeros,
    shaped_aval_of,
    tangent_aval_of,
)
from mj_autodiff._transpose import Operand, UndefPrimal, transpose_rules, unbroadcast
from mj_core import Primitive, RuleTable, bind, bind1
from mj_core.extend import ArrayLike
from mj_core.prims.elementwise import elementwise_specs

__all__ = [
    "Bilinear",
    "DerivativeKind",
    "Elementwise",
    "Linear",
    "TangentFn",
    "VJPRule",
    "ZeroDerivative",
    "defjvp",
    "defjvp2",
    "defjvp_zero",
    "deflinear",
    "deflinear2",
    "derivative_kinds",
]

TangentFn = Callable[..., Any]
#: ``vjp(prim, ct, ans, vals, wants, params) -> list``: see the module docstring.
VJPRule = Callable[[Primitive, Any, Any, list[Any], list[bool], dict[str, Any]], list[Any]]


class DerivativeKind:
    """What eager reverse mode needs to know about a primitive's derivative."""

    __slots__ = ()

    #: The tape's VJP of the primitive (``None``: its outputs are constants).
    vjp: VJPRule | None = None
    #: The rule takes every differentiated operand as an ``UndefPrimal`` (its type only).
    keeps_types: bool = False
    #: The rule takes the differentiated operand as an ``UndefPrimal`` when it is the only
    #: one (the others are then the constant factors), values of all operands otherwise.
    keeps_types_if_alone: bool = False
    #: The rule reads the output ``ans`` (the tape passes ``None`` otherwise).
    uses_ans: bool = False
    #: The rule holds only for real operands; complex ones take the general path.
    real_only: bool = False

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class ZeroDerivative(DerivativeKind):
    """The outputs are constants: the tape evaluates the primitive and records nothing."""

    __slots__ = ()


def _linear_vjp(
    prim: Primitive,
    ct: Tangent,
    ans: ArrayLike | None,
    vals: list[Any],
    wants: list[bool],
    params: dict[str, Any],
) -> list[Any]:
    cts: list[Any] = transpose_rules[prim]([ct], *vals, **params)  # wanted ones: UndefPrimal
    return cts


class Linear(DerivativeKind):
    """Linear in every operand that can carry a tangent: the VJP is the transpose rule."""

    __slots__ = ()
    vjp = staticmethod(_linear_vjp)
    keeps_types = True


def _bilinear_vjp(
    prim: Primitive,
    ct: Tangent,
    ans: ArrayLike | None,
    vals: list[Any],
    wants: list[bool],
    params: dict[str, Any],
) -> list[Any]:
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


class Bilinear(DerivativeKind):
    """Linear in each operand with the others fixed: the VJP applies the transpose rule once
    per differentiated operand, unless the primitive gives its own ``vjp``."""

    __slots__ = ("vjp",)
    vjp: VJPRule
    keeps_types_if_alone = True

    def __init__(self, vjp: VJPRule | None = None) -> None:
        self.vjp = _bilinear_vjp if vjp is None else vjp

    def __repr__(self) -> str:
        return "Bilinear()" if self.vjp is _bilinear_vjp else f"Bilinear(vjp={self.vjp.__name__})"


class Elementwise(DerivativeKind):
    """An elementwise primitive whose JVP sums ``tangent_fns[i](g, [ans,] *primals, **params)``
    over its operands (``None``: no dependence); ``uses_ans`` says the functions see the
    output. ``real_only``: the functions are not complex-linear in ``g`` for complex operands
    (``abs``), so the VJP derived from them holds for real operands only."""

    __slots__ = ("real_only", "tangent_fns", "uses_ans", "vjp")

    def __init__(
        self, tangent_fns: Sequence[TangentFn | None], uses_ans: bool, real_only: bool = False
    ) -> None:
        self.tangent_fns = tuple(tangent_fns)
        self.uses_ans = uses_ans
        self.real_only = real_only
        self.vjp = _elementwise_vjp(self.tangent_fns, uses_ans)

    def __repr__(self) -> str:
        names = ", ".join("None" if fn is None else fn.__name__ for fn in self.tangent_fns)
        return f"Elementwise(({names}), uses_ans={self.uses_ans}, real_only={self.real_only})"


def _elementwise_vjp(fns: tuple[TangentFn | None, ...], uses_ans: bool) -> VJPRule:
    def vjp(
        prim: Primitive,
        ct: Tangent,
        ans: ArrayLike | None,
        vals: list[Any],
        wants: list[bool],
        params: dict[str, Any],
    ) -> list[Any]:
        args = (ans, *vals) if uses_ans else vals
        return [
            unbroadcast(fn(ct, *args, **params), shaped_aval_of(v))
            if w and fn is not None
            else None
            for fn, v, w in zip(fns, vals, wants, strict=True)
        ]

    return vjp


#: The one description of every primitive's derivative kind (see the module docstring): an
#: optional hook, filled by the ``defjvp``/``deflinear``-style helpers where they register the
#: jvp rule.
derivative_kinds: RuleTable[DerivativeKind] = RuleTable(
    "derivative_kinds",
    "derivative description",
    "mj_autodiff.extend",
    default="the eager tape linearizes the primitive through its jvp rule and transposes that",
)


# --- helpers: register a JVP rule and record its kind -----------------------------------------


def _sum_of_contributions_rule(
    prim: Primitive, jvp_fns: tuple[TangentFn | None, ...], pass_ans: bool
) -> Callable[..., tuple[list[Any], list[Any]]]:
    """The JVP rule :func:`defjvp` (``pass_ans=False``) and :func:`defjvp2` register."""
    unary = len(jvp_fns) == 1

    def rule(
        primals: list[Any], tangents: list[Any], **params: object
    ) -> tuple[list[Any], list[Any]]:
        ans = bind1(prim, *primals, **params)
        args = (ans, *primals) if pass_ans else primals
        if unary:  # the contribution already has the output's type
            t = tangents[0]
            if type(t) is Zero or jvp_fns[0] is None:
                return [ans], [Zero(tangent_aval_of(ans))]
            return [ans], [jvp_fns[0](t, *args, **params)]
        out: Any = None
        for fn, t in zip(jvp_fns, tangents, strict=True):
            if fn is None or type(t) is Zero:
                continue
            contribution = fn(t, *args, **params)
            out = contribution if out is None else add_tangents(out, contribution)
        if out is None:
            return [ans], [Zero(tangent_aval_of(ans))]
        return [ans], [fit_tangent(out, ans)]

    rule.__name__ = f"{prim.name}_jvp"
    return rule


def _defjvp(
    prim: Primitive, jvp_fns: tuple[TangentFn | None, ...], uses_ans: bool, real_only: bool
) -> None:
    jvp_rules[prim] = _sum_of_contributions_rule(prim, jvp_fns, uses_ans)
    if prim in elementwise_specs:
        derivative_kinds[prim] = Elementwise(jvp_fns, uses_ans, real_only)
    else:  # e.g. a reduction: the functions are not their own transposes
        derivative_kinds.pop(prim, None)


def defjvp(prim: Primitive, *jvp_fns: TangentFn | None, real_only: bool = False) -> None:
    """Register a JVP rule for single-output ``prim`` from one function per operand.

    ``jvp_fns[i](g, *primals, **params)`` is operand ``i``'s tangent contribution given its
    (nonzero) tangent ``g``; ``None`` marks an operand the output does not depend on
    differentiably. Contributions are summed and fitted to the output's shape and dtype.
    For a primitive mj-core types as elementwise, this records it as :class:`Elementwise`
    (with ``real_only``, see there); for any other it clears ``prim``'s kind.
    """
    _defjvp(prim, jvp_fns, False, real_only)


def defjvp2(prim: Primitive, *jvp_fns: TangentFn | None, real_only: bool = False) -> None:
    """Like :func:`defjvp`, but each function also sees the primal output:
    ``jvp_fns[i](g, ans, *primals, **params)``."""
    _defjvp(prim, jvp_fns, True, real_only)


def defjvp_zero(prim: Primitive) -> None:
    """Register ``prim`` as having zero derivative everywhere (comparisons, floor, argmax,
    ...): its outputs get ``Zero`` tangents (:class:`ZeroDerivative`)."""

    def rule(
        primals: list[Any], tangents: list[Any], **params: object
    ) -> tuple[list[Any], list[Any]]:
        outs = bind(prim, *primals, **params)
        return outs, [Zero(tangent_aval_of(o)) for o in outs]

    rule.__name__ = f"{prim.name}_jvp_zero"
    jvp_rules[prim] = rule
    derivative_kinds[prim] = ZeroDerivative()


def _linear_jvp_rule(prim: Primitive) -> Callable[..., tuple[list[Any], list[Any]]]:
    """The JVP of a primitive linear in all its operands: itself, applied to the tangents."""

    def jvp_rule(
        primals: list[Any], tangents: list[Any], **params: object
    ) -> tuple[list[Any], list[Any]]:
        outs = bind(prim, *primals, **params)
        return outs, bind(prim, *map(instantiate_zeros, tangents), **params)

    jvp_rule.__name__ = f"{prim.name}_jvp"
    return jvp_rule


def deflinear(prim: Primitive, transpose_fn: Callable[..., list[Any]]) -> None:
    """Register ``prim`` as linear in all its operands (:class:`Linear`).

    JVP: the primitive applied to the (instantiated) tangents. Transpose:
    ``transpose_fn(ct, **params) -> list`` of operand cotangents (single-output ``prim``).
    """

    def transpose_rule(cts: list[Tangent], *invals: Operand, **params: object) -> list[Any]:
        return transpose_fn(cts[0], **params)

    transpose_rule.__name__ = f"{prim.name}_transpose"
    _register_linear(prim, transpose_rule)


def deflinear2(prim: Primitive, transpose_fn: Callable[..., list[Any]]) -> None:
    """Like :func:`deflinear`, but ``transpose_fn(ct, *invals, **params)`` also sees the
    operands (``UndefPrimal`` for the linear ones), e.g. to read their avals."""

    def transpose_rule(cts: list[Tangent], *invals: Operand, **params: object) -> list[Any]:
        return transpose_fn(cts[0], *invals, **params)

    transpose_rule.__name__ = f"{prim.name}_transpose"
    _register_linear(prim, transpose_rule)


def _register_linear(prim: Primitive, transpose_rule: Callable[..., list[Any]]) -> None:
    jvp_rules[prim] = _linear_jvp_rule(prim)
    transpose_rules[prim] = transpose_rule
    derivative_kinds[prim] = Linear()
