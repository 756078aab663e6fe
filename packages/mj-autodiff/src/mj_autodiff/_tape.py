"""Eager reverse mode: ``vjp`` on a tape, for calls made outside every transformation.

When ``vjp`` (and so ``grad``) is called eagerly, nothing needs a jaxpr: the function runs
once on :class:`TapeTracer` values, each primitive is evaluated at once and appended to a
tape with what its VJP needs, and the pullback walks the tape backwards (the tape is in
evaluation order, so reversed it is a topological order: one linear pass, as autograd and
torch do). This skips the tangent staging, typing and transposition that direct
linearization (:mod:`mj_autodiff._linearize`) pays per primitive, which dominates the cost
of eager reverse mode on small arrays.

A primitive's VJP comes from the derivative description
(:data:`~mj_autodiff._derivatives.derivative_kinds`) when it has an entry there (the common
primitives; the VJPs are derived from their JVP and transpose rules, so there is one source
of derivative formulas). Any other primitive, higher-order ones (jit, control flow) and
custom derivative rules are linearized one at a time by
:func:`~mj_autodiff._linearize.linearize_flat` and their node transposes that linear
function: every primitive with JVP and transpose rules works, at the general path's cost.

The results are the numbers the jaxpr path computes (the same formulas, applied to the same
values). Under an enclosing transformation (``jit``, ``vmap``, ``make_jaxpr``, an outer
``grad``) ``vjp`` keeps linearizing, so staged programs keep JAX's shape.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

from mj_autodiff._derivatives import ZeroDerivative, derivative_kinds
from mj_autodiff._jvp import PrimalTracer
from mj_autodiff._linearize import LinearFunction, linearize_flat
from mj_autodiff._tangents import Tangent, Zero, add_tangents, shaped_aval_of, tangent_aval_of
from mj_autodiff._transpose import UndefPrimal
from mj_core import (
    EagerArray,
    Primitive,
    Trace,
    bind,
    eval_primitive,
    new_main,
)
from mj_core.dtypes import is_inexact
from mj_core.extend import ArrayLike
from mj_ir.extend import gc_paused

_T = TypeVar("_T")

__all__ = ["TapeTrace", "TapeTracer", "tape_vjp_flat"]


class _Node:
    """One tape entry: a primitive application that has differentiable operands.

    ``parents`` has one entry per operand: the :class:`TapeTracer` it came from, or ``None``
    for a constant. ``rule(prim, ct, ans, vals, wants, params)`` returns the operands'
    cotangents; ``vals`` and ``ans`` hold what the rule reads (its derivative kind says what,
    see :mod:`mj_autodiff._derivatives`), and for a node linearized alone ``ans`` is its
    :class:`~mj_autodiff.extend.LinearFunction`.
    """

    __slots__ = ("ans", "n_out", "params", "parents", "prim", "rule", "vals", "wants")

    def __init__(
        self,
        parents: list[TapeTracer | None],
        rule: Callable[..., Sequence[Any]] | None,
        prim: Primitive | None,
        vals: list[Any],
        ans: ArrayLike | LinearFunction | None,
        wants: list[bool],
        params: dict[str, Any],
        n_out: int,
    ) -> None:
        self.parents = parents
        self.rule = rule
        self.prim = prim
        self.vals = vals
        self.ans = ans
        self.wants = wants
        self.params = params
        self.n_out = n_out


class TapeTracer(PrimalTracer):
    """A concrete value recorded on the tape: ``node`` produced it (output ``index``)."""

    __slots__ = ("index", "node")

    def __init__(self, trace: Trace, primal: ArrayLike, node: _Node, index: int) -> None:
        self._trace = trace
        self.primal = primal
        self.node = node
        self.index = index


class TapeTrace(Trace):
    """Evaluates primitives on concrete values and records the differentiable ones.

    The trace sits directly above the eval trace (it is only used when no transformation
    is active), so constants need no boxing: :meth:`pure` returns them as they are.
    """

    __slots__ = ()
    transformation_name = "vjp (eager reverse mode)"

    def pure(self, val: _T) -> _T:
        return val

    lift = pure

    def process_primitive(
        self, primitive: Primitive, tracers: list[Any], params: dict[str, Any]
    ) -> list[Any]:
        vals, parents, wants = _unbox(tracers)
        kind = derivative_kinds.get(primitive)
        if type(kind) is ZeroDerivative:
            return eval_primitive(primitive, vals, params)
        if (
            kind is None
            or primitive.multiple_results
            or (kind.real_only and _any_complex(vals, wants))
        ):
            return self._linearized(
                lambda *xs: bind(primitive, *xs, **params), vals, parents, wants
            )
        outs = eval_primitive(primitive, vals, params)
        ans = outs[0]
        if not _is_inexact(ans):
            return outs  # an integer or boolean result: a constant
        if kind.keeps_types or (kind.keeps_types_if_alone and wants.count(True) == 1):
            vals = [
                UndefPrimal(shaped_aval_of(v)) if w else v for v, w in zip(vals, wants, strict=True)
            ]
        node = _Node(
            parents, kind.vjp, primitive, vals, ans if kind.uses_ans else None, wants, params, 1
        )
        self.main.global_data.append(node)
        return [TapeTracer(self, ans, node, 0)]

    def process_custom_jvp_call(
        self, fun: Callable[..., list[Any]], jvp_fun: Callable[..., Any], tracers: list[Any]
    ) -> list[Any]:
        """A ``custom_jvp`` function: linearized alone (its rule runs there)."""
        return self._linearized_call(fun, tracers)

    def process_custom_vjp_call(
        self,
        fun: Callable[..., list[Any]],
        fwd: Callable[..., Any],
        bwd: Callable[..., Any],
        tracers: list[Any],
    ) -> list[Any]:
        """A ``custom_vjp`` function: linearized alone (``fwd`` runs now, ``bwd`` on the way
        back)."""
        return self._linearized_call(fun, tracers)

    def _linearized_call(self, fun: Callable[..., list[Any]], tracers: list[Any]) -> list[Any]:
        return self._linearized(fun, *_unbox(tracers))

    def _linearized(
        self,
        fun: Callable[..., Sequence[Any]],
        vals: list[Any],
        parents: list[TapeTracer | None],
        wants: list[bool],
    ) -> list[Any]:
        """Apply ``fun`` to ``vals`` linearized in the operands that have parents, and
        record a node that transposes that linear function."""

        def partial(*xs: ArrayLike) -> Sequence[Any]:
            args = list(vals)
            it = iter(xs)
            for i, w in enumerate(wants):
                if w:
                    args[i] = next(it)
            return fun(*args)

        outs, lin = linearize_flat(partial, [v for v, w in zip(vals, wants, strict=True) if w])
        if not any(lin.out_nonzero):
            return outs
        node = _Node(parents, _transpose_linear, None, vals, lin, wants, {}, len(outs))
        self.main.global_data.append(node)
        return [
            TapeTracer(self, out, node, i) if nz else out
            for i, (out, nz) in enumerate(zip(outs, lin.out_nonzero, strict=True))
        ]


def _unbox(tracers: list[Any]) -> tuple[list[Any], list[TapeTracer | None], list[bool]]:
    """The operands' values, the tracers they came from (``None`` for constants) and which
    operands are differentiated (the ones with a tracer)."""
    vals: list[Any] = []
    parents: list[TapeTracer | None] = []
    wants: list[bool] = []
    for t in tracers:
        if type(t) is TapeTracer:
            vals.append(t.primal)
            parents.append(t)
            wants.append(True)
        else:
            vals.append(t)
            parents.append(None)
            wants.append(False)
    return vals, parents, wants


def _transpose_linear(
    prim: None,
    ct: Tangent | list[Tangent | None],
    lin: LinearFunction,
    vals: list[Any],
    wants: list[bool],
    params: dict[str, Any],
) -> list[Any]:
    """The rule of a node linearized by :meth:`TapeTrace._linearized`: ``ct`` holds one
    cotangent per output (``None`` for none)."""
    cts = ct if type(ct) is list else [ct]
    cts = [Zero(a) if c is None else c for c, a in zip(cts, lin.out_avals, strict=True)]
    cts_in = iter(lin.transpose(cts))
    return [next(cts_in) if w else None for w in wants]


def _is_inexact(x: Any) -> bool:
    t = type(x)
    if t is np.ndarray or t is EagerArray:
        return is_inexact(x.dtype)
    return is_inexact(tangent_aval_of(x).dtype)


def _any_complex(vals: list[Any], wants: list[bool]) -> bool:
    return any(w and shaped_aval_of(v).dtype.kind == "c" for v, w in zip(vals, wants, strict=True))


def tape_vjp_flat(
    fun: Callable[..., Sequence[Any]], primals: Sequence[Any]
) -> tuple[list[Any], Callable[[Sequence[Any]], list[Any]]]:
    """Evaluate ``fun`` (flat arrays in, flat list out) at ``primals`` on a tape.

    Returns the outputs and the pullback: one cotangent per output (``Zero`` allowed) to one
    cotangent per input (``Zero`` where the input has none). Integer and boolean inputs are
    constants (their cotangent is a float0 ``Zero``). Call only when no transformation is
    active (:func:`mj_core.is_eager`).
    """
    tape: list[_Node] = []
    leaves: list[_Node | None] = []
    with gc_paused(), new_main(TapeTrace, tape) as main:  # the tape holds no cycles
        trace = main.trace
        args = []
        for p in primals:
            if _is_inexact(p):
                leaf = _Node([], None, None, [], None, [], {}, 1)
                leaves.append(leaf)
                args.append(TapeTracer(trace, p, leaf, 0))
            else:
                leaves.append(None)
                args.append(p)
        outs = list(fun(*args))
        out_nodes: list[tuple[_Node, int] | None] = []
        for i, out in enumerate(outs):
            if type(out) is TapeTracer and out._trace is trace:
                out_nodes.append((out.node, out.index))
                outs[i] = out.primal
            else:
                out_nodes.append(None)

    def pullback(cts: Sequence[Any]) -> list[Any]:
        env: dict[_Node, Any] = {}
        for where, ct in zip(out_nodes, cts, strict=True):
            if where is not None and type(ct) is not Zero:
                _accumulate(env, where[0], where[1], ct)
        with gc_paused():
            _backward(tape, env)
        return [
            Zero(tangent_aval_of(p)) if leaf is None or leaf not in env else env[leaf]
            for leaf, p in zip(leaves, primals, strict=True)
        ]

    return outs, pullback


def _accumulate(env: dict[_Node, Any], node: _Node, index: int, ct: Tangent) -> None:
    if node.n_out == 1:
        prev = env.get(node)
        env[node] = ct if prev is None else add_tangents(prev, ct)
        return
    cts = env.get(node)
    if cts is None:
        cts = env[node] = [None] * node.n_out
    prev = cts[index]
    cts[index] = ct if prev is None else add_tangents(prev, ct)


def _backward(tape: list[_Node], env: dict[_Node, Any]) -> None:
    """Walk the tape from the end, handing each node with a cotangent to its rule and
    accumulating the operand cotangents it returns on their producers."""
    pop = env.pop
    for node in reversed(tape):
        ct = pop(node, None)
        if ct is None:
            continue
        rule = node.rule
        assert rule is not None
        cts_in = rule(node.prim, ct, node.ans, node.vals, node.wants, node.params)
        for parent, c in zip(node.parents, cts_in, strict=True):
            if parent is None or c is None or type(c) is Zero:
                continue
            _accumulate(env, parent.node, parent.index, c)
