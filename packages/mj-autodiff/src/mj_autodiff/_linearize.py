"""Linearization: partial evaluation of the JVP with unknown tangents (Autodidax Part 4).

The primal computation runs now, in Python (so Python control flow on values works); every
tangent operation is staged into a linear jaxpr. :class:`LinearFunction` holds that jaxpr and
its residuals, and can be applied forwards (``linearize``'s ``f_jvp``) or transposed
(``vjp``'s ``f_vjp``) without redoing any primal work.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from mj_autodiff._jvp import _check_tangent, jvp_flat
from mj_autodiff._partial_eval import (
    _LAMBDA,
    PartialEvalTrace,
    PartialEvalTracer,
    new_partial_eval_main,
    tracers_to_jaxpr,
)
from mj_autodiff._tangents import Zero, instantiate_zeros, is_float0, tangent_aval_of
from mj_autodiff._transpose import UndefPrimal, backward_pass
from mj_core import ShapedArray, Tracer, full_lower, full_raise
from mj_core.tree_util import flatten_fun, tree_flatten, tree_unflatten
from mj_ir import Jaxpr, eval_jaxpr

__all__ = ["LinearFunction", "linearize", "linearize_flat"]


class LinearFunction:
    """The linear map ``tangents_in -> tangents_out`` of a linearized function.

    ``jaxpr`` takes ``(*consts, *tangents of the inputs flagged in in_nonzero)`` and returns
    the tangents of the outputs flagged in ``out_nonzero``; the other tangents are zero.
    """

    __slots__ = ("consts", "in_avals", "in_nonzero", "jaxpr", "out_avals", "out_nonzero")

    def __init__(
        self,
        jaxpr: Jaxpr,
        consts: list[Any],
        in_avals: list[ShapedArray],
        in_nonzero: list[bool],
        out_avals: list[ShapedArray],
        out_nonzero: list[bool],
    ) -> None:
        self.jaxpr = jaxpr
        self.consts = consts
        self.in_avals = in_avals
        self.in_nonzero = in_nonzero
        self.out_avals = out_avals
        self.out_nonzero = out_nonzero

    def __call__(self, *tangents: Any) -> list[Any]:
        """Apply the map to one tangent per input; returns one tangent per output (``Zero``
        where the output does not depend on the inputs)."""
        args = [t for t, nz in zip(tangents, self.in_nonzero, strict=True) if nz]
        outs = iter(eval_jaxpr(self.jaxpr, [*self.consts, *map(instantiate_zeros, args)]))
        return [
            next(outs) if nz else Zero(a)
            for a, nz in zip(self.out_avals, self.out_nonzero, strict=True)
        ]

    def transpose(self, cts: Sequence[Any]) -> list[Any]:
        """Apply the transposed map to one cotangent per output (``Zero`` allowed); returns
        one cotangent per input (``Zero`` where the input has none)."""
        lin_cts = [ct for ct, nz in zip(cts, self.out_nonzero, strict=True) if nz]
        undefs = [UndefPrimal(v.aval) for v in self.jaxpr.in_binders[len(self.consts) :]]
        cts_in = iter(backward_pass(self.jaxpr, [*self.consts, *undefs], lin_cts))
        return [
            next(cts_in) if nz else Zero(a)
            for a, nz in zip(self.in_avals, self.in_nonzero, strict=True)
        ]


def linearize_flat(
    fun: Callable[..., Sequence[Any]], primals: Sequence[Any]
) -> tuple[list[Any], LinearFunction]:
    """Evaluate ``fun`` (flat arrays in, flat list out) at ``primals`` and stage its JVP's
    tangent computation as a :class:`LinearFunction`."""
    with new_partial_eval_main() as main:
        trace: PartialEvalTrace = main.trace
        in_avals = [tangent_aval_of(p) for p in primals]
        in_nonzero = [not is_float0(a.dtype) for a in in_avals]
        tangents_in: list[Any] = []
        lin_in: list[PartialEvalTracer] = []
        for aval, nz in zip(in_avals, in_nonzero, strict=True):
            if nz:
                t = PartialEvalTracer(trace, None, aval, _LAMBDA)
                lin_in.append(t)
                tangents_in.append(t)
            else:
                tangents_in.append(Zero(aval))
        primals_out, tangents_out = jvp_flat(fun, primals, tangents_in)
        primals_out = [full_lower(p) for p in primals_out]
        for p in primals_out:
            if isinstance(p, Tracer) and p._trace is trace:
                raise TypeError(
                    "linearize: a primal output depends on the tangents; a JVP rule mixed "
                    "primal and tangent values."
                )
        out_avals: list[ShapedArray] = []
        out_nonzero: list[bool] = []
        lin_out: list[PartialEvalTracer] = []
        for p, t in zip(primals_out, tangents_out, strict=True):
            if type(t) is Zero:
                out_avals.append(t.aval)
                out_nonzero.append(False)
            else:
                out_avals.append(tangent_aval_of(p))
                out_nonzero.append(True)
                lin_out.append(trace.instantiate_const(full_raise(trace, t)))
        jaxpr, consts = tracers_to_jaxpr(lin_in, lin_out)
    return primals_out, LinearFunction(jaxpr, consts, in_avals, in_nonzero, out_avals, out_nonzero)


def linearize(fun: Callable[..., Any], *primals: Any) -> tuple[Any, Callable[..., Any]]:
    """``(fun(*primals), f_jvp)`` where ``f_jvp(*tangents)`` is the JVP at ``primals``,
    evaluated from a staged linear jaxpr without redoing the primal computation.

    ``linearize(f, x)[1](v)`` equals ``jvp(f, (x,), (v,))[1]``.
    """
    primals_flat, in_tree = tree_flatten(primals)
    flat_fun, out_tree = flatten_fun(fun, in_tree)
    primals_out, lin = linearize_flat(flat_fun, primals_flat)
    out_treedef = out_tree()

    def f_jvp(*tangents: Any) -> Any:
        tangents_flat, tangent_tree = tree_flatten(tangents)
        if tangent_tree != in_tree:
            raise TypeError(
                "linearize's f_jvp must be called with tangents of the primals' structure: "
                f"expected {in_tree}, got {tangent_tree}."
            )
        checked = [
            _check_tangent(i, p, t)
            for i, (p, t) in enumerate(zip(primals_flat, tangents_flat, strict=True))
        ]
        outs = [instantiate_zeros(t) for t in lin(*checked)]
        return tree_unflatten(out_treedef, outs)

    return tree_unflatten(out_treedef, primals_out), f_jvp
