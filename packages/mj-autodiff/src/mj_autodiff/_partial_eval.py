"""Partial evaluation (Autodidax Part 4): compute what is known now, stage the rest.

Trace level: :class:`PartialEvalTrace` evaluates every primitive whose inputs are all known
and records the others as *recipes*, building a graph of :class:`PartialEvalTracer` nodes;
:func:`tracers_to_jaxpr` turns the part of that graph the outputs depend on into a jaxpr
(an iterative depth-first walk, then the equations in creation order, which is a
topological order). Linearize is partial evaluation of a JVP whose tangents are unknown.

Jaxpr level: :func:`partial_eval_jaxpr` splits a jaxpr into a known part (which also returns
the residuals) and an unknown part (which takes them), for the higher-order primitives of
jit and control flow. ``partial_eval_jaxpr_rules[p](unks_in, eqn) -> (eqn_known | None,
eqn_unknown | None, unks_out, residual_vars)`` overrides the default split for a primitive
holding a sub-jaxpr; ``partial_eval_rules[p](trace, tracers, **params) -> tracers`` does the
same at trace level.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from mj_autodiff._tangents import shaped_aval_of
from mj_core import (
    Primitive,
    RuleTable,
    ShapedArray,
    Trace,
    Tracer,
    bind,
    config,
    full_lower,
    full_raise,
    get_aval,
    new_main,
    raise_to_shaped,
)
from mj_core.extend import ArrayLike
from mj_ir import (
    Atom,
    ClosedJaxpr,
    Jaxpr,
    JaxprEqn,
    Lit,
    Var,
    abstract_eval_rules,
    typecheck_jaxpr,
)

__all__ = [
    "ConstRecipe",
    "JaxprEqnRecipe",
    "LambdaBindingRecipe",
    "PartialEvalTrace",
    "PartialEvalTracer",
    "PartialVal",
    "partial_eval_flat",
    "partial_eval_jaxpr",
    "partial_eval_jaxpr_rules",
    "partial_eval_rules",
    "tracers_to_jaxpr",
]

partial_eval_rules: RuleTable[Callable[..., Any]] = RuleTable(
    "partial_eval_rules",
    "partial evaluation (trace level)",
    "mj_autodiff",
    default="an equation with an unknown operand is staged whole, its known operands as residuals",
)
partial_eval_jaxpr_rules: RuleTable[Callable[..., Any]] = RuleTable(
    "partial_eval_jaxpr_rules",
    "jaxpr partial evaluation",
    "mj_autodiff",
    default="an equation with an unknown input goes whole to the unknown jaxpr, its known "
    "inputs as residuals",
)


class PartialVal(NamedTuple):
    """A value that is either known (``const``) or only known by its type (``aval``)."""

    aval: ShapedArray
    const: Any

    @classmethod
    def known(cls, val: ArrayLike) -> PartialVal:
        return PartialVal(get_aval(val), val)

    @classmethod
    def unknown(cls, aval: ShapedArray) -> PartialVal:
        return PartialVal(raise_to_shaped(aval), None)

    @property
    def is_known(self) -> bool:
        return self.const is not None


# --- recipes: how an unknown tracer will be computed ------------------------------------------


class LambdaBindingRecipe:
    """The tracer is an input of the jaxpr being built."""

    __slots__ = ()


class ConstRecipe:
    """The tracer is a known value the staged computation uses (a residual)."""

    __slots__ = ("val",)

    def __init__(self, val: ArrayLike) -> None:
        self.val = val


_eqn_counter = itertools.count()


class JaxprEqnRecipe:
    """The tracer is output ``i`` of applying ``prim`` to ``tracers_in``.

    ``seq`` numbers recipes in creation order, which is a topological order of the graph.
    ``out_vars`` is filled in when the recipe becomes an equation.
    """

    __slots__ = ("avals_out", "out_vars", "params", "prim", "seq", "tracers_in")

    def __init__(
        self,
        prim: Primitive,
        tracers_in: list[PartialEvalTracer],
        params: dict[str, Any],
        avals_out: list[ShapedArray],
    ) -> None:
        self.prim = prim
        self.tracers_in = tracers_in
        self.params = params
        self.avals_out = avals_out
        self.seq = next(_eqn_counter)
        self.out_vars: list[Var] | None = None


_LAMBDA = LambdaBindingRecipe()
Recipe = LambdaBindingRecipe | ConstRecipe | JaxprEqnRecipe


class PartialEvalTracer(Tracer):
    """Known (``recipe is None``, value in ``const``) or unknown (built by ``recipe``).

    ``index`` is the output position within an equation recipe.
    """

    __slots__ = ("_aval", "const", "index", "recipe")

    def __init__(
        self,
        trace: Trace,
        const: Any,
        aval: ShapedArray | None,
        recipe: Recipe | None,
        index: int = 0,
    ) -> None:
        self._trace = trace
        self.const = const
        self._aval = aval
        self.recipe = recipe
        self.index = index

    @property
    def aval(self) -> ShapedArray:
        if self.recipe is None:
            return get_aval(self.const)
        return self._aval  # type: ignore[return-value]

    @property
    def pval(self) -> PartialVal:
        if self.recipe is None:
            return PartialVal.known(self.const)
        return PartialVal(self._aval, None)  # type: ignore[arg-type]

    @property
    def is_known(self) -> bool:
        return self.recipe is None

    def full_lower(self) -> Any:
        if self.recipe is None:
            return full_lower(self.const)
        return self


class PartialEvalTrace(Trace):
    """Evaluates known computations eagerly and records unknown ones as recipes.

    ``main.global_data`` maps ``id(value)`` to the constant tracer already made for it, so a
    residual used by many staged operations becomes one jaxpr input.
    """

    __slots__ = ()
    transformation_name = "partial_eval"

    def new_arg(self, pval: PartialVal) -> PartialEvalTracer:
        if pval.is_known:
            return PartialEvalTracer(self, pval.const, None, None)
        return PartialEvalTracer(self, None, raise_to_shaped(pval.aval), _LAMBDA)

    def pure(self, val: Any) -> PartialEvalTracer:
        return PartialEvalTracer(self, val, None, None)

    lift = pure

    def instantiate_const(self, tracer: PartialEvalTracer) -> PartialEvalTracer:
        """An unknown tracer standing for ``tracer``'s known value (a residual)."""
        if tracer.recipe is not None:
            return tracer
        val = tracer.const
        consts: dict[int, PartialEvalTracer] = self.main.global_data
        const_tracer = consts.get(id(val))
        if const_tracer is None:
            const_tracer = PartialEvalTracer(self, None, shaped_aval_of(val), ConstRecipe(val))
            consts[id(val)] = const_tracer
        return const_tracer

    def process_primitive(
        self, primitive: Primitive, tracers: list[Any], params: dict[str, Any]
    ) -> list[Any]:
        for t in tracers:
            if t.recipe is not None:
                break
        else:  # everything known: evaluate now
            return bind(primitive, *[t.const for t in tracers], **params)
        rule = partial_eval_rules.get(primitive)
        if rule is not None:
            return rule(self, tracers, **params)  # type: ignore[no-any-return]
        tracers_in = [t if t.recipe is not None else self.instantiate_const(t) for t in tracers]
        avals_out = abstract_eval_rules[primitive](*[t._aval for t in tracers_in], **params)
        recipe = JaxprEqnRecipe(primitive, tracers_in, params, avals_out)
        if len(avals_out) == 1:
            return [PartialEvalTracer(self, None, avals_out[0], recipe)]
        return [PartialEvalTracer(self, None, a, recipe, i) for i, a in enumerate(avals_out)]

    def new_eqn_tracers(
        self,
        primitive: Primitive,
        tracers_in: Sequence[PartialEvalTracer],
        params: dict[str, Any],
        avals_out: Sequence[ShapedArray],
    ) -> list[PartialEvalTracer]:
        """Unknown output tracers of a staged ``primitive`` application (for
        ``partial_eval_rules`` of higher-order primitives)."""
        ins = [self.instantiate_const(t) for t in tracers_in]
        recipe = JaxprEqnRecipe(primitive, ins, params, list(avals_out))
        return [PartialEvalTracer(self, None, a, recipe, i) for i, a in enumerate(avals_out)]


def new_partial_eval_main() -> Any:
    """``new_main`` for a :class:`PartialEvalTrace` with its constant table."""
    return new_main(PartialEvalTrace, {})


def partial_eval_flat(
    f: Callable[..., Sequence[Any]], pvals_in: Sequence[PartialVal]
) -> tuple[Jaxpr, list[PartialVal], list[Any]]:
    """Run ``f`` on partially known inputs. Returns the jaxpr of the unknown part (constant
    binders first, then one per unknown input), the outputs as ``PartialVal`` s, and the
    jaxpr's constants (the residuals)."""
    with new_partial_eval_main() as main:
        trace: PartialEvalTrace = main.trace
        tracers_in = [trace.new_arg(pval) for pval in pvals_in]
        outs = f(*tracers_in)
        tracers_out = [full_raise(trace, out) for out in outs]
        pvals_out = [t.pval for t in tracers_out]
        unk_in = [t for t in tracers_in if t.recipe is not None]
        unk_out = [t for t in tracers_out if t.recipe is not None]
        jaxpr, consts = tracers_to_jaxpr(unk_in, unk_out)
    return jaxpr, pvals_out, consts


_SCALAR_TYPES = frozenset({bool, int, float, complex})


def _literal(val: object) -> Lit | None:
    """A literal for a Python scalar residual (kept weakly typed), else None."""
    if type(val) in _SCALAR_TYPES:
        return Lit(val)
    return None


def tracers_to_jaxpr(
    tracers_in: Sequence[PartialEvalTracer], tracers_out: Sequence[PartialEvalTracer]
) -> tuple[Jaxpr, list[Any]]:
    """The jaxpr computing the unknown ``tracers_out`` from the unknown ``tracers_in``.

    Returns the jaxpr (one binder per constant first, then one per input) and the constant
    values. Only the recipes the outputs depend on are included (dead code is dropped).
    """
    in_vars: dict[int, Var] = {id(t): Var(t._aval) for t in tracers_in}  # type: ignore[arg-type]
    const_atoms: dict[int, Var | Lit] = {}
    const_vars: list[Var] = []
    const_vals: list[Any] = []

    # Iterative DFS collecting the reachable equation recipes (each once).
    recipes: list[JaxprEqnRecipe] = []
    seen: set[int] = set()
    stack: list[PartialEvalTracer] = list(tracers_out)
    while stack:
        t = stack.pop()
        r = t.recipe
        if type(r) is JaxprEqnRecipe:
            if id(r) not in seen:
                seen.add(id(r))
                recipes.append(r)
                stack.extend(r.tracers_in)
        elif type(r) is ConstRecipe:
            val = r.val
            key = id(val)  # (the recipe's value: ``atom`` looks it up by this id)
            if key not in const_atoms:
                lit = _literal(val)
                if lit is None:
                    var = Var(t._aval)  # type: ignore[arg-type]
                    const_vars.append(var)
                    if type(val) is np.ndarray and val.dtype != var.aval.dtype:
                        val = val.astype(var.aval.dtype)  # (a 64-bit one, narrowed)
                    const_vals.append(val)
                    const_atoms[key] = var
                else:
                    const_atoms[key] = lit
        elif r is _LAMBDA:
            if id(t) not in in_vars:
                raise _leaked_input_error(t)
        else:
            raise TypeError(f"tracers_to_jaxpr: a known tracer among the outputs ({t.aval})")
    recipes.sort(key=_seq)

    def atom(t: PartialEvalTracer) -> Var | Lit:
        r = t.recipe
        if type(r) is JaxprEqnRecipe:
            return r.out_vars[t.index]  # type: ignore[index]
        if type(r) is ConstRecipe:
            return const_atoms[id(r.val)]
        return in_vars[id(t)]

    eqns: list[JaxprEqn] = []
    for r in recipes:
        out_vars = [Var(a) for a in r.avals_out]
        eqns.append(JaxprEqn(r.prim, [atom(t) for t in r.tracers_in], r.params, out_vars))
        r.out_vars = out_vars
    in_binders = [*const_vars, *(in_vars[id(t)] for t in tracers_in)]
    jaxpr = Jaxpr(in_binders, eqns, [atom(t) for t in tracers_out])
    if config.check_jaxprs:
        typecheck_jaxpr(jaxpr)
    return jaxpr, const_vals


def _seq(r: JaxprEqnRecipe) -> int:
    return r.seq


def _leaked_input_error(t: PartialEvalTracer) -> TypeError:
    return TypeError(
        f"tracers_to_jaxpr: the staged computation depends on an unknown input "
        f"({t.aval.str_short()}) that is not one of the jaxpr's inputs; a tracer of an "
        "enclosing partial evaluation leaked into this one."
    )


# --- jaxpr-level partial evaluation -----------------------------------------------------------


def partial_eval_jaxpr(
    closed_jaxpr: ClosedJaxpr | Jaxpr,
    in_unknowns: Sequence[bool],
    instantiate: bool | Sequence[bool] | None = False,
) -> tuple[ClosedJaxpr, ClosedJaxpr, list[bool], int]:
    """Split ``closed_jaxpr`` by which arguments are unknown.

    Returns ``(jaxpr_known, jaxpr_unknown, out_unknowns, num_res)``: ``jaxpr_known`` takes the
    known arguments and returns the known outputs followed by ``num_res`` residuals;
    ``jaxpr_unknown`` takes the residuals followed by the unknown arguments and returns the
    unknown outputs. An output flagged in ``instantiate`` is made unknown even if it could be
    computed from known inputs. Autodidax's call form also works: a plain ``Jaxpr`` (no
    consts) and ``instantiate=None``.
    """
    if isinstance(closed_jaxpr, Jaxpr):
        closed_jaxpr = ClosedJaxpr(closed_jaxpr, [])
    if instantiate is None:
        instantiate = False
    jaxpr = closed_jaxpr.jaxpr
    consts = closed_jaxpr.consts
    n_consts = len(consts)
    n_out = len(jaxpr.outs)
    inst = [instantiate] * n_out if isinstance(instantiate, bool) else list(instantiate)
    unknown: dict[Var, bool] = {}
    residuals: dict[Var, None] = {}  # insertion-ordered set

    def is_unknown(x: Atom) -> bool:
        return type(x) is Var and unknown[x]

    binder_unknowns = [False] * n_consts + list(in_unknowns)
    for v, unk in zip(jaxpr.in_binders, binder_unknowns, strict=True):
        unknown[v] = unk

    eqns_known: list[JaxprEqn] = []
    eqns_unknown: list[JaxprEqn] = []
    for eqn in jaxpr.eqns:
        unks_in = [is_unknown(x) for x in eqn.inputs]
        rule = partial_eval_jaxpr_rules.get(eqn.primitive)
        if rule is not None and any(unks_in):
            eqn1, eqn2, unks_out, res = rule(unks_in, eqn)
            if eqn1 is not None:
                eqns_known.append(eqn1)
            if eqn2 is not None:
                eqns_unknown.append(eqn2)
            for r in res:
                residuals[r] = None
            for v, unk in zip(eqn.out_binders, unks_out, strict=True):
                unknown[v] = unk
        elif any(unks_in):
            for x, unk in zip(eqn.inputs, unks_in, strict=True):
                if not unk and type(x) is Var:
                    residuals[x] = None
            eqns_unknown.append(eqn)
            for v in eqn.out_binders:
                unknown[v] = True
        else:
            eqns_known.append(eqn)
            for v in eqn.out_binders:
                unknown[v] = False

    out_unknowns = [is_unknown(x) for x in jaxpr.outs]
    for i, (x, unk) in enumerate(zip(jaxpr.outs, out_unknowns, strict=True)):
        if inst[i] and not unk:
            if type(x) is Var:
                residuals[x] = None
            out_unknowns[i] = True

    res_list = list(residuals)
    known_binders = [v for v, unk in zip(jaxpr.in_binders, binder_unknowns, strict=True) if not unk]
    unknown_args = [v for v, unk in zip(jaxpr.in_binders, binder_unknowns, strict=True) if unk]
    outs_known = [x for x, unk in zip(jaxpr.outs, out_unknowns, strict=True) if not unk]
    outs_unknown = [x for x, unk in zip(jaxpr.outs, out_unknowns, strict=True) if unk]
    jaxpr_known = Jaxpr(known_binders, eqns_known, [*outs_known, *res_list])
    jaxpr_unknown = Jaxpr([*res_list, *unknown_args], eqns_unknown, outs_unknown)
    if config.check_jaxprs:
        typecheck_jaxpr(jaxpr_known)
        typecheck_jaxpr(jaxpr_unknown)
    return (
        ClosedJaxpr(jaxpr_known, consts),
        ClosedJaxpr(jaxpr_unknown, []),
        out_unknowns,
        len(res_list),
    )
