"""Rearranging closed jaxprs so that transformed sub-programs fit their primitive's calling
convention: reordering inputs and outputs, adding ignored inputs, and joining the residuals
of several branches (Autodidax Part 5's ``_join_jaxpr_res``).

Reordering only rebuilds the binder and output lists (no tracing); joining traces a small
wrapper, which inlines the wrapped jaxpr. Loops also find here the fixpoint of which carries
a transformation flags (:func:`carry_fixpoint`) and the flag functions it iterates.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from mj_autodiff.extend import jvp_jaxpr, partial_eval_jaxpr
from mj_core import ShapedArray, lax
from mj_ir import ClosedJaxpr, Jaxpr, Var, eval_jaxpr
from mj_ir.extend import trace_to_closed_jaxpr

__all__ = [
    "add_inputs",
    "carry_fixpoint",
    "join_residuals",
    "jvp_out_nonzeros",
    "move",
    "pe_out_unknowns",
    "permute",
    "types_str",
    "zeros",
]


def permute(
    closed: ClosedJaxpr,
    in_order: Sequence[int] | None = None,
    out_order: Sequence[int] | None = None,
) -> ClosedJaxpr:
    """``closed`` with argument ``k`` being old argument ``in_order[k]`` and output ``k`` old
    output ``out_order[k]`` (constants stay first)."""
    jaxpr = closed.jaxpr
    n = len(closed.consts)
    binders = jaxpr.in_binders
    if in_order is not None:
        args = binders[n:]
        binders = [*binders[:n], *(args[i] for i in in_order)]
    outs = jaxpr.outs if out_order is None else [jaxpr.outs[i] for i in out_order]
    return ClosedJaxpr(Jaxpr(binders, jaxpr.eqns, outs), closed.consts)


def move(groups: Sequence[int], order: Sequence[int]) -> list[int]:
    """The permutation that reorders consecutive groups of sizes ``groups`` as ``order``:
    ``move([2, 1, 3], [0, 2, 1])`` -> ``[0, 1, 3, 4, 5, 2]``."""
    starts = [sum(groups[:i]) for i in range(len(groups))]
    return [starts[g] + k for g in order for k in range(groups[g])]


def add_inputs(closed: ClosedJaxpr, avals: Sequence[ShapedArray], at: int) -> ClosedJaxpr:
    """``closed`` taking extra, ignored arguments of types ``avals`` before argument ``at``."""
    jaxpr = closed.jaxpr
    pos = len(closed.consts) + at
    new = [Var(a) for a in avals]
    binders = [*jaxpr.in_binders[:pos], *new, *jaxpr.in_binders[pos:]]
    return ClosedJaxpr(Jaxpr(binders, jaxpr.eqns, jaxpr.outs), closed.consts)


def zeros(aval: ShapedArray) -> Any:
    """A zero array of ``aval`` (a scalar broadcast, not a stored constant)."""
    return lax.full(aval.shape, 0, aval.dtype)


def join_residuals(
    knowns: Sequence[ClosedJaxpr], num_res: Sequence[int]
) -> tuple[list[ClosedJaxpr], list[ShapedArray]]:
    """Make branches that return ``(*outs, *their own residuals)`` all return ``(*outs,
    *residuals of branch 0, *residuals of branch 1, ...)``, with zeros in the slots of the
    other branches' residuals. Returns the joined jaxprs and the residual types."""
    res_avals: list[list[ShapedArray]] = []
    for k, n in zip(knowns, num_res, strict=True):
        outs = k.out_avals
        res_avals.append(list(outs[len(outs) - n :]))
    all_res = [a for avals in res_avals for a in avals]
    joined = []
    for b, (k, n) in enumerate(zip(knowns, num_res, strict=True)):
        before = [a for avals in res_avals[:b] for a in avals]
        after = [a for avals in res_avals[b + 1 :] for a in avals]
        joined.append(trace_to_closed_jaxpr(_padded_residuals(k, n, before, after), k.in_avals))
    return joined, all_res


def _padded_residuals(
    known: ClosedJaxpr, n_res: int, before: list[ShapedArray], after: list[ShapedArray]
) -> Callable[..., list[Any]]:
    def fun(*args: object) -> list[Any]:
        outs = eval_jaxpr(known, args)
        n_out = len(outs) - n_res
        return [
            *outs[:n_out],
            *(zeros(a) for a in before),
            *outs[n_out:],
            *(zeros(a) for a in after),
        ]

    return fun


def types_str(avals: Sequence[ShapedArray]) -> str:
    """``f32[3], i64[]``: types in error messages of the typing rules."""
    return ", ".join(a.str_short() for a in avals)


def carry_fixpoint(
    body: ClosedJaxpr,
    before: Sequence[bool],
    carry: Sequence[bool],
    after: Sequence[bool],
    out_flags: Callable[[ClosedJaxpr, list[bool]], list[bool]],
) -> list[bool]:
    """Grow the set of flagged loop carries (nonzero tangents, unknown values, batched ones)
    until ``body``, whose inputs are ``(*before, *carry, *after)`` and whose first outputs are
    the new carries, maps it into itself. ``out_flags(body, input_flags)`` says which outputs
    a transformation flags given which inputs it flags."""
    flags = list(carry)
    while True:
        outs = out_flags(body, [*before, *flags, *after])[: len(flags)]
        new = [a or b for a, b in zip(flags, outs, strict=True)]
        if new == flags:
            return flags
        flags = new


def jvp_out_nonzeros(closed: ClosedJaxpr, nonzeros: list[bool]) -> list[bool]:
    """Which outputs of ``closed`` get nonzero tangents, given which inputs have them (an
    ``out_flags`` for :func:`carry_fixpoint`)."""
    return jvp_jaxpr(closed, nonzeros, False)[1]


def pe_out_unknowns(closed: ClosedJaxpr, unknowns: list[bool]) -> list[bool]:
    """Which outputs of ``closed`` are unknown in partial evaluation, given which inputs are
    (an ``out_flags`` for :func:`carry_fixpoint`)."""
    return partial_eval_jaxpr(closed, unknowns)[2]
