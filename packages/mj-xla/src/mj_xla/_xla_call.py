"""``xla_call``: the higher-order primitive a ``jit`` call becomes under a transformation.

Operands: ``*consts, *args``; params: ``jaxpr`` (a ``ClosedJaxpr`` whose binders, after its
own constants, match the operands), ``num_consts`` (how many leading operands are constants
that ``jit`` hoisted out of the traced function) and ``name`` (the jitted function's name).

This module registers one rule in every table: impl (compile and run), abstract eval, jvp
(``jvp_jaxpr``), vmap (``vmap_jaxpr``), trace-level and jaxpr-level partial evaluation,
transpose, printing and lowering (a private function and a ``func.call``).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from mj_autodiff.extend import (
    PartialEvalTrace,
    PartialEvalTracer,
    UndefPrimal,
    Zero,
    jvp_jaxpr,
    jvp_rules,
    partial_eval_jaxpr,
    partial_eval_jaxpr_rules,
    partial_eval_rules,
    tangents_with_zeros,
    transpose_jaxpr,
    transpose_rules,
)
from mj_batch.extend import BatchDim, inherited_axis_name, vmap_jaxpr, vmap_rules
from mj_core import Primitive, ShapedArray, bind, get_aval, impl_rules, raise_to_shaped
from mj_core.errors import user_line_suffix
from mj_core.extend import abstract_eval_rules
from mj_ir import ClosedJaxpr, Jaxpr, JaxprEqn, Var, dce_jaxpr, pp_jaxpr
from mj_ir.extend import Names, PPrint, pp, pp_atom, pp_params, pp_rules, types_match, var_str
from mj_xla._debug_nans import nan_check_rules
from mj_xla._executable import executable_for_closed_jaxpr
from mj_xla._jaxlib import Value
from mj_xla._lowering import Avals, LoweringContext, Values, lowering_rules

__all__ = ["xla_call_p"]

xla_call_p = Primitive("xla_call", multiple_results=True)


def _xla_call_impl(*args: Any, jaxpr: ClosedJaxpr, num_consts: int, name: str) -> list[Any]:
    """Compile ``jaxpr`` (once: the executable is cached by jaxpr identity) and run it."""
    return list(executable_for_closed_jaxpr(jaxpr, name).run(args))


impl_rules[xla_call_p] = _xla_call_impl


def _xla_call_nan_check(*args: Any, jaxpr: ClosedJaxpr, num_consts: int, name: str) -> list[Any]:
    """Under debug_nans' op-by-op re-run a nested jit is opened, not run compiled."""
    return jaxpr(*args)


nan_check_rules[xla_call_p] = _xla_call_nan_check


def _xla_call_abstract_eval(
    *in_avals: ShapedArray, jaxpr: ClosedJaxpr, num_consts: int, name: str
) -> list[ShapedArray]:
    expected = jaxpr.in_avals
    if len(expected) != len(in_avals) or not all(
        types_match(raise_to_shaped(a), e) for a, e in zip(in_avals, expected, strict=True)
    ):
        where = user_line_suffix()
        got = ", ".join(a.str_short() for a in in_avals)
        want = ", ".join(a.str_short() for a in expected)
        raise TypeError(
            f"xla_call ({name}): operands ({got}) do not match the jaxpr's inputs ({want}){where}"
        )
    return jaxpr.out_avals


abstract_eval_rules[xla_call_p] = _xla_call_abstract_eval


def _xla_call_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    jaxpr: ClosedJaxpr,
    num_consts: int,
    name: str,
) -> list[Value]:
    """A private function per distinct jaxpr, called with ``func.call`` (XLA inlines it)."""
    return ctx.call_jaxpr(jaxpr, in_vals, name)


lowering_rules[xla_call_p] = _xla_call_lowering


def _xla_call_pp(names: Names, eqn: JaxprEqn) -> PPrint:
    """``a:f32[] = xla_call[name=f num_consts=0] b`` with the jaxpr indented below."""
    lhs = " ".join(var_str(names, v) for v in eqn.out_binders)
    params = {k: v for k, v in eqn.params.items() if k != "jaxpr"}
    args = " ".join(pp_atom(names, x) for x in eqn.inputs)
    head = pp(f"{lhs} = ") >> pp(eqn.primitive.name) >> pp_params(params) >> pp(f" {args}")
    return head + pp_jaxpr(eqn.params["jaxpr"].jaxpr).indent(2)


pp_rules[xla_call_p] = _xla_call_pp


# --- transformations of the carried jaxpr, cached by (jaxpr identity, flags) -----------------
# Caching keeps the transformed jaxpr's identity stable across calls, so the executable cache
# (keyed by jaxpr identity) hits: grad(jit(f)) called in a loop compiles once.

_MAX_TRANSFORM_CACHE = 256
_transform_cache: OrderedDict[Hashable, tuple[ClosedJaxpr, Any]] = OrderedDict()


def _cached(kind: str, jaxpr: ClosedJaxpr, flags: Hashable, make: Callable[[], Any]) -> Any:
    key = (kind, id(jaxpr), flags)
    hit = _transform_cache.get(key)
    if hit is not None and hit[0] is jaxpr:
        _transform_cache.move_to_end(key)
        return hit[1]
    result = make()
    _transform_cache[key] = (jaxpr, result)  # holding jaxpr keeps its id unique
    if len(_transform_cache) > _MAX_TRANSFORM_CACHE:
        _transform_cache.popitem(last=False)
    return result


def _xla_call_jvp(
    primals: Sequence[Any],
    tangents: Sequence[Any],
    *,
    jaxpr: ClosedJaxpr,
    num_consts: int,
    name: str,
) -> tuple[list[Any], list[Any]]:
    """One xla_call of the JVP jaxpr on primals and the non-zero tangents, under the jitted
    function's own name (as JAX's: ``saved_residuals`` names its outputs by it)."""
    nonzeros = tuple(type(t) is not Zero for t in tangents)
    new_jaxpr, out_nonzeros = _cached(
        "jvp", jaxpr, nonzeros, lambda: jvp_jaxpr(jaxpr, nonzeros, False)
    )
    nz_tangents = [t for t in tangents if type(t) is not Zero]
    outs = bind(xla_call_p, *primals, *nz_tangents, jaxpr=new_jaxpr, num_consts=0, name=name)
    n_out = len(out_nonzeros)
    return outs[:n_out], tangents_with_zeros(outs[n_out:], jaxpr.out_avals, out_nonzeros)


jvp_rules[xla_call_p] = _xla_call_jvp


def _xla_call_vmap(
    axis_size: int,
    vals_in: Sequence[Any],
    dims_in: Sequence[BatchDim],
    *,
    jaxpr: ClosedJaxpr,
    num_consts: int,
    name: str,
) -> tuple[list[Any], list[BatchDim]]:
    """One xla_call of the batched jaxpr; batch dims stay where the jaxpr puts them."""
    flags = (axis_size, tuple(dims_in), inherited_axis_name(axis_size))
    new_jaxpr, dims_out = _cached(
        "vmap", jaxpr, flags, lambda: vmap_jaxpr(jaxpr, axis_size, list(dims_in))
    )
    outs = bind(xla_call_p, *vals_in, jaxpr=new_jaxpr, num_consts=0, name=f"vmap_{name}")
    return outs, list(dims_out)


vmap_rules[xla_call_p] = _xla_call_vmap


def _split_jaxpr(
    jaxpr: ClosedJaxpr, unknowns: tuple[bool, ...]
) -> tuple[ClosedJaxpr, ClosedJaxpr, list[bool], int]:
    result: tuple[ClosedJaxpr, ClosedJaxpr, list[bool], int] = _cached(
        "partial_eval", jaxpr, unknowns, lambda: _pruned(*partial_eval_jaxpr(jaxpr, unknowns))
    )
    return result


def _pruned(
    known: ClosedJaxpr, unknown: ClosedJaxpr, out_unknowns: list[bool], num_res: int
) -> tuple[ClosedJaxpr, ClosedJaxpr, list[bool], int]:
    """The split without the unknown equations no output reads and the residuals only they
    read (a stop_gradient's operand's tangent, say), as JAX's jit: the known call does not
    return them (``saved_residuals`` counts JAX's)."""
    n_args = len(unknown.jaxpr.in_binders) - num_res
    used_outs = [True] * len(unknown.jaxpr.outs)
    body, used = dce_jaxpr(
        unknown.jaxpr, used_outs, instantiate=[False] * num_res + [True] * n_args
    )
    keep = used[:num_res]
    if all(keep):
        return known, unknown, out_unknowns, num_res
    k = known.jaxpr
    n_known = len(k.outs) - num_res
    outs = k.outs[:n_known] + [x for x, u in zip(k.outs[n_known:], keep, strict=True) if u]
    k_body = dce_jaxpr(Jaxpr(k.in_binders, k.eqns, outs), [True] * len(outs), instantiate=True)[0]
    return (
        ClosedJaxpr(k_body, known.consts),
        ClosedJaxpr(body, unknown.consts),
        out_unknowns,
        sum(keep),
    )


def _xla_call_partial_eval(
    trace: PartialEvalTrace,
    tracers: Sequence[PartialEvalTracer],
    *,
    jaxpr: ClosedJaxpr,
    num_consts: int,
    name: str,
) -> list[Any]:
    """Run the known part now (one xla_call), stage the unknown part as another xla_call
    taking the residuals."""
    unknowns = tuple(not t.is_known for t in tracers)
    known, unknown, out_unknowns, num_res = _split_jaxpr(jaxpr, unknowns)
    known_vals = [t.const for t in tracers if t.is_known]
    outs_res = bind(xla_call_p, *known_vals, jaxpr=known, num_consts=0, name=name)
    n_known = len(outs_res) - num_res
    outs_known, residuals = outs_res[:n_known], _forwarded(known, known_vals, outs_res, n_known)
    ins = [trace.pure(r) for r in residuals] + [t for t in tracers if not t.is_known]
    params = {"jaxpr": unknown, "num_consts": 0, "name": name}
    outs_unknown = trace.new_eqn_tracers(xla_call_p, ins, params, unknown.out_avals)
    known_iter, unknown_iter = iter(outs_known), iter(outs_unknown)
    return [next(unknown_iter) if unk else next(known_iter) for unk in out_unknowns]


partial_eval_rules[xla_call_p] = _xla_call_partial_eval


def _forwarded(
    known: ClosedJaxpr, known_vals: list[Any], outs_res: list[Any], n_known: int
) -> list[Any]:
    """The residuals, those that are the known call's arguments or constants as themselves
    (JAX's input forwarding: ``saved_residuals`` reports them as arguments and constants)."""
    binders = {v: i for i, v in enumerate(known.jaxpr.in_binders)}
    n_consts = len(known.consts)
    residuals = list(outs_res[n_known:])
    for j, x in enumerate(known.jaxpr.outs[n_known:]):
        i = binders.get(x) if type(x) is Var else None
        if i is not None:
            residuals[j] = known.consts[i] if i < n_consts else known_vals[i - n_consts]
    return residuals


def _xla_call_partial_eval_jaxpr(
    unks_in: Sequence[bool], eqn: JaxprEqn
) -> tuple[JaxprEqn, JaxprEqn, list[bool], list[Var]]:
    """Split one xla_call equation into a known and an unknown xla_call equation."""
    jaxpr: ClosedJaxpr = eqn.params["jaxpr"]
    name: str = eqn.params["name"]
    known, unknown, unks_out, num_res = _split_jaxpr(jaxpr, tuple(unks_in))
    ins_known = [x for x, u in zip(eqn.inputs, unks_in, strict=True) if not u]
    ins_unknown = [x for x, u in zip(eqn.inputs, unks_in, strict=True) if u]
    outs_known = [v for v, u in zip(eqn.out_binders, unks_out, strict=True) if not u]
    outs_unknown = [v for v, u in zip(eqn.out_binders, unks_out, strict=True) if u]
    residuals = [Var(aval) for aval in unknown.in_avals[:num_res]]
    eqn_known = JaxprEqn(
        xla_call_p,
        ins_known,
        {"jaxpr": known, "num_consts": 0, "name": name},
        [*outs_known, *residuals],
    )
    eqn_unknown = JaxprEqn(
        xla_call_p,
        [*residuals, *ins_unknown],
        {"jaxpr": unknown, "num_consts": 0, "name": name},
        outs_unknown,
    )
    return eqn_known, eqn_unknown, list(unks_out), residuals


partial_eval_jaxpr_rules[xla_call_p] = _xla_call_partial_eval_jaxpr


def _xla_call_transpose(
    cts: Sequence[Any], *invals: Any, jaxpr: ClosedJaxpr, num_consts: int, name: str
) -> list[Any]:
    """One xla_call of the transposed jaxpr on the non-linear inputs and the cotangents."""
    linear = tuple(type(x) is UndefPrimal for x in invals)
    # a symbolic-zero cotangent is no argument: the transposed jaxpr sees a Zero there (a
    # custom_vjp rule inside with symbolic_zeros sees a SymbolicZero, as JAX's)
    ct_zeros = tuple(type(ct) is Zero for ct in cts)
    cts_in = [ct for ct in cts if type(ct) is not Zero]
    # the cotangents' own types: an integer output's integer cotangent (integer-linear
    # functions) stays one, as in JAX
    ct_dtypes = tuple(ct.aval.dtype if type(ct) is Zero else get_aval(ct).dtype for ct in cts)
    transposed = _cached(
        "transpose",
        jaxpr,
        (linear, ct_dtypes, ct_zeros),
        lambda: transpose_jaxpr(jaxpr, linear, ct_dtypes, ct_zeros),
    )
    residuals = [x for x, lin in zip(invals, linear, strict=True) if not lin]
    outs = bind(
        xla_call_p,
        *residuals,
        *cts_in,
        jaxpr=transposed,
        num_consts=0,
        name=f"transpose_{name}",
    )
    outs_iter = iter(outs)
    return [next(outs_iter) if lin else None for lin in linear]


transpose_rules[xla_call_p] = _xla_call_transpose
