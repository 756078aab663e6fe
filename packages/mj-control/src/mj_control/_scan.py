"""``scan``: a loop of static length over the leading axis of arrays, the ``scan`` primitive.

``scan_p`` takes ``(*consts, *carry, *xs)`` and a ``jaxpr`` mapping ``(*consts, *carry,
*x_slices) -> (*carry, *y_slices)``; it returns the final carry and the ``ys`` stacked along
a new leading axis of size ``length``. Params: ``num_consts``, ``num_carry``, ``length``,
``reverse`` (iterate from the end, still writing ``ys[i]`` for step ``i``) and ``linear`` (a
bool per operand, a hint that the operand is used linearly).

The module is longer than most (about 800 lines) because it is the primitive's one address:
the API and every rule (impl, typing, jvp, partial evaluation of tracers and of jaxprs,
transpose, vmap, lowering), each registered right under its definition, as in the other
control-flow modules; scan's partial evaluation alone (residuals that are loop-invariant
are hoisted out of the loop) is nearly a third of it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from mj_autodiff.extend import (
    PartialEvalTrace,
    UndefPrimal,
    Zero,
    add_tangents,
    backward_pass,
    instantiate_zeros,
    jvp_jaxpr,
    jvp_rules,
    partial_eval_jaxpr,
    partial_eval_jaxpr_rules,
    partial_eval_rules,
    tangent_aval,
    tangents_with_zeros,
    transpose_rules,
)
from mj_batch.extend import BatchDim, move_batch_axis, moveaxis, not_mapped, vmap_jaxpr, vmap_rules
from mj_control._jaxprs import (
    carry_fixpoint,
    jvp_out_nonzeros,
    move,
    pe_out_unknowns,
    permute,
    types_str,
    zeros,
)
from mj_control._printing import pp_control_eqn
from mj_control._tracing import (
    check_callable,
    check_carry,
    fix_carry_types,
    forward_inputs,
    forwarded_inputs,
    host_outputs,
    shaped_avals,
    trace_fun,
    weak_outputs,
)
from mj_core import Primitive, ShapedArray, bind, config, get_aval, impl_rules
from mj_core.errors import user_line_suffix
from mj_core.tree_util import tree_flatten, tree_structure, tree_unflatten
from mj_ir import ClosedJaxpr, Jaxpr, JaxprEqn, Var, abstract_eval_rules, dce_jaxpr, eval_jaxpr
from mj_ir.extend import has_effect, pp_rules, trace_to_closed_jaxpr, types_match
from mj_xla.extend import (
    LoweringContext,
    Value,
    Vma,
    aval_to_ir_type,
    closed_vma,
    hlo,
    ir,
    ir_constant,
    lowering_rules,
    vma_rules,
    xla_call_p,
)

__all__ = ["scan", "scan_p"]

scan_p = Primitive("scan", multiple_results=True)


def scan(
    f: Callable[[Any, Any], tuple[Any, Any]],
    init: object,
    xs: object = None,
    length: int | None = None,
    reverse: bool = False,
    unroll: int | bool = 1,
    _split_transpose: bool = False,
) -> tuple[Any, Any]:
    """Loop ``carry, y = f(carry, x)`` over the leading axis of ``xs``; return the final carry
    and the ``y``s stacked, staged as one ``scan`` primitive (compiled to one loop, never
    unrolled: ``unroll`` is accepted for compatibility with JAX and has no effect, as is JAX's
    private ``_split_transpose``, a memory layout choice of its transpose).

    ``init`` and ``xs`` are pytrees (``xs=None`` with ``length=n`` loops ``n`` times with
    ``x=None``). ``f`` must return a ``(carry, y)`` pair whose carry has ``init``'s structure
    and types. Python equivalent::

        def scan(f, init, xs, length=None):
            carry, ys = init, []
            for x in xs:
                carry, y = f(carry, x)
                ys.append(y)
            return carry, np.stack(ys)
    """
    check_callable("scan", "f", f)
    del _split_transpose
    xs_flat, _xs_tree = tree_flatten(xs)
    _no_leading_axis(xs_flat)
    x_avals_full = shaped_avals(xs_flat)
    length = _scan_length(x_avals_full, length)
    if not isinstance(unroll, bool) and int(unroll) < 0:
        raise ValueError("`unroll` must be a `bool` or a non-negative `int`.")
    if config.disable_jit and length == 0:
        raise ValueError(
            "zero-length scan is not supported in disable_jit() mode because the output type "
            "is unknown."
        )
    x_avals = [ShapedArray(a.shape[1:], a.dtype, a.weak_type) for a in x_avals_full]
    init_flat, init_tree = tree_flatten(init)
    init_avals = shaped_avals(init_flat)
    in_tree = tree_structure((init, xs))

    def trace() -> Any:
        traced = trace_fun(f, in_tree, [*init_avals, *x_avals])
        children = traced.out_tree.child_treedefs
        if traced.out_tree.pytype not in (tuple, list) or len(children) != 2:
            where = user_line_suffix()
            got = tree_unflatten(traced.out_tree, [_AvalStr(a) for a in traced.out_avals])
            raise TypeError(f"scan body output must be a pair, got {got}.{where}")
        return traced, children[0], children[1]

    body, carry_tree, y_tree = trace()
    n_carry_out = carry_tree.num_leaves
    if carry_tree == init_tree and fix_carry_types(
        init_flat, init_avals, body.out_avals[:n_carry_out]
    ):
        body, carry_tree, y_tree = trace()
    check_carry(
        "scan",
        "init",
        "the carry returned by f",
        init_tree,
        init_avals,
        carry_tree,
        body.out_avals[:n_carry_out],
        f,
    )
    operands = [*body.consts, *init_flat, *xs_flat]
    jaxpr = body.closed()
    outs = bind(
        scan_p,
        *operands,
        jaxpr=jaxpr,
        num_consts=len(body.consts),
        num_carry=len(init_flat),
        length=length,
        reverse=bool(reverse),
        linear=(False,) * len(operands),
    )
    outs = weak_outputs(outs, jaxpr.out_avals)
    carry_out, ys = outs[: len(init_flat)], outs[len(init_flat) :]
    # a carry the body returns unchanged is read-only: the loop's output is the initial value
    # itself (JAX moves it into the constants)
    nconsts = len(body.consts)
    fwds = forwarded_inputs(body.jaxpr)[: len(init_flat)]
    fwds = [k - nconsts if k == nconsts + i else None for i, k in enumerate(fwds)]
    carry_out = forward_inputs(carry_out, init_flat, fwds)
    return tree_unflatten(init_tree, carry_out), tree_unflatten(y_tree, ys)


class _AvalStr:
    """A pytree leaf printing as JAX's ``str(aval)`` (``float32[3]``), for error messages."""

    def __init__(self, aval: ShapedArray) -> None:
        self.text = str(aval)

    def __repr__(self) -> str:
        return self.text


def _no_leading_axis(xs_flat: list[Any]) -> None:
    """JAX's error for leaves of ``xs`` that have no leading axis (Python numbers, 0-d)."""
    bad = [x for x in xs_flat if not (x.shape if hasattr(x, "shape") else np.shape(x))]
    if bad:
        listed = ", ".join(str(x) for x in bad)
        where = user_line_suffix()
        raise ValueError(f"scan got value with no leading axis to scan over: {listed}.{where}")


def _scan_length(x_avals: list[ShapedArray], length: int | None) -> int:
    at = user_line_suffix()
    lengths = sorted({a.shape[0] for a in x_avals})
    if length is not None:
        length = int(length)
        if length < 0 or any(n != length for n in lengths):
            # JAX's message, literally (JAX's test matches it whole)
            raise ValueError(
                f"scan got `length` argument of {length} which disagrees with leading axis "
                f"sizes {[a.shape[0] for a in x_avals]}."
            )
        return length
    if not lengths:
        raise ValueError(f"scan: got no values to scan over (xs=None) and no length{at}")
    if len(lengths) > 1:
        raise ValueError(f"scan: the leaves of xs have different leading axis sizes {lengths}{at}")
    return lengths[0]


# --- evaluation and typing ---------------------------------------------------------------------


def _scan_impl(
    *args: object,
    jaxpr: ClosedJaxpr,
    num_consts: int,
    num_carry: int,
    length: int,
    reverse: bool,
    linear: tuple[bool, ...],
) -> list[Any]:
    consts = args[:num_consts]
    carry = list(args[num_consts : num_consts + num_carry])
    xs = [np.asarray(x) for x in args[num_consts + num_carry :]]
    ys = [np.empty((length, *a.shape), a.dtype) for a in jaxpr.out_avals[num_carry:]]
    for step in range(length):
        i = length - 1 - step if reverse else step
        outs = jaxpr(*consts, *carry, *(x[i] for x in xs))
        carry = outs[:num_carry]
        for y, val in zip(ys, outs[num_carry:], strict=True):
            y[i] = val
    return [*host_outputs(carry, jaxpr.out_avals[:num_carry]), *ys]


impl_rules[scan_p] = _scan_impl


def _scan_abstract_eval(
    *avals: ShapedArray,
    jaxpr: ClosedJaxpr,
    num_consts: int,
    num_carry: int,
    length: int,
    reverse: bool,
    linear: tuple[bool, ...],
) -> list[ShapedArray]:
    if len(linear) != len(avals):
        raise TypeError(f"scan: linear has {len(linear)} entries for {len(avals)} operands")
    carry = avals[num_consts : num_consts + num_carry]
    xs = avals[num_consts + num_carry :]
    if any(not x.shape or x.shape[0] != length for x in xs):
        raise TypeError(
            f"scan: xs of types ({types_str(xs)}) do not all have leading axis {length}"
        )
    body_in = [*avals[: num_consts + num_carry], *(x.update(shape=x.shape[1:]) for x in xs)]
    ins = jaxpr.in_avals
    if len(ins) != len(body_in) or not all(map(types_match, ins, body_in)):
        raise TypeError(f"scan: the body takes ({types_str(ins)}) but gets ({types_str(body_in)})")
    outs = jaxpr.out_avals
    carry_out, ys = outs[:num_carry], outs[num_carry:]
    if len(carry_out) != len(carry) or not all(map(types_match, carry_out, carry)):
        raise TypeError(
            f"scan: the body returns a carry of ({types_str(carry_out)}) for ({types_str(carry)})"
        )
    return [*carry_out, *(ShapedArray((length, *y.shape), y.dtype, y.weak_type) for y in ys)]


abstract_eval_rules[scan_p] = _scan_abstract_eval
pp_rules[scan_p] = pp_control_eqn


class _Groups(NamedTuple):
    """Operands (or flags) of a scan split into its three groups."""

    consts: list[Any]
    carry: list[Any]
    xs: list[Any]


def _groups(args: Sequence[Any], num_consts: int, num_carry: int) -> _Groups:
    cut = num_consts + num_carry
    return _Groups(list(args[:num_consts]), list(args[num_consts:cut]), list(args[cut:]))


# --- forward mode --------------------------------------------------------------------------------


def _scan_jvp(
    primals: list[Any],
    tangents: list[Any],
    *,
    jaxpr: ClosedJaxpr,
    num_consts: int,
    num_carry: int,
    length: int,
    reverse: bool,
    linear: tuple[bool, ...],
) -> tuple[list[Any], list[Any]]:
    nz = _groups([type(t) is not Zero for t in tangents], num_consts, num_carry)
    carry_nz = carry_fixpoint(jaxpr, nz.consts, nz.carry, nz.xs, jvp_out_nonzeros)
    n_ys = len(jaxpr.out_avals) - num_carry
    jaxpr_jvp, out_nz = jvp_jaxpr(
        jaxpr, [*nz.consts, *carry_nz, *nz.xs], [*carry_nz, *[False] * n_ys]
    )
    ys_nz = out_nz[num_carry:]
    n_xs = len(nz.xs)
    n_ct, n_cct, n_xt, n_yt = sum(nz.consts), sum(carry_nz), sum(nz.xs), sum(ys_nz)
    # jvp order: (consts, carry, xs, const tangents, carry tangents, xs tangents) ->
    # (carry, ys, carry tangents, ys tangents); scan order groups each primal with its tangents
    jaxpr_jvp = permute(
        jaxpr_jvp,
        move([num_consts, num_carry, n_xs, n_ct, n_cct, n_xt], [0, 3, 1, 4, 2, 5]),
        move([num_carry, n_ys, n_cct, n_yt], [0, 2, 1, 3]),
    )
    p = _groups(primals, num_consts, num_carry)
    t = _groups(tangents, num_consts, num_carry)
    lin = _groups(linear, num_consts, num_carry)
    outs = bind(
        scan_p,
        *p.consts,
        *(x for x in t.consts if type(x) is not Zero),
        *p.carry,
        *(instantiate_zeros(x) for x, f in zip(t.carry, carry_nz, strict=True) if f),
        *p.xs,
        *(x for x in t.xs if type(x) is not Zero),
        jaxpr=jaxpr_jvp,
        num_consts=num_consts + n_ct,
        num_carry=num_carry + n_cct,
        length=length,
        reverse=reverse,
        linear=(*lin.consts, *[True] * n_ct, *lin.carry, *[True] * n_cct, *lin.xs, *[True] * n_xt),
    )
    carry_out, carry_t, ys, ys_t = _split_sizes(outs, [num_carry, n_cct, n_ys, n_yt])
    out_avals = _scan_abstract_eval(
        *(get_aval(x) for x in primals),
        jaxpr=jaxpr,
        num_consts=num_consts,
        num_carry=num_carry,
        length=length,
        reverse=reverse,
        linear=linear,
    )
    return [*carry_out, *ys], [
        *tangents_with_zeros(carry_t, out_avals[:num_carry], carry_nz),
        *tangents_with_zeros(ys_t, out_avals[num_carry:], ys_nz),
    ]


jvp_rules[scan_p] = _scan_jvp


# --- partial evaluation --------------------------------------------------------------------------
# The known scan computes the known carries and ys and, as extra ys, the per-step residuals the
# unknown scan needs. Residuals that do not change across steps are not stacked: known const
# operands and constants of the body are passed to the unknown scan as consts, and values
# computed from them alone are hoisted out of the loop (at jaxpr level, where a rule returns a
# single known equation, that equation is an xla_call of the hoisting and the known scan);
# known xs operands are passed on as xs.


class _Residual(NamedTuple):
    kind: str  # "closed" (a body constant), "const", "xs" (forwarded operand), "hoist", "loop"
    at: int  # into the body's consts, the scan's operands, or the hoisted / stacked outputs


#: Where the unknown body takes each kind of residual: among its constants, its leading consts
#: (invariant) or its trailing xs (variant).
_RESIDUAL_GROUP = {
    "closed": "closed",
    "const": "invariant",
    "hoist": "invariant",
    "xs": "variant",
    "loop": "variant",
}


class _ScanSplit(NamedTuple):
    unknowns: list[bool]  # per operand, after growing the unknown carries to a fixpoint
    out_unknowns: list[bool]
    known: ClosedJaxpr  # known (consts, carry, xs) -> (carry, ys, stacked residuals)
    num_known_out: int  # known carry + ys outputs of ``known``, before the stacked residuals
    hoist: ClosedJaxpr | None  # known consts -> hoisted residuals
    invariant: list[_Residual]  # residuals passed as leading consts of ``unknown``
    variant: list[_Residual]  # residuals passed as trailing xs of ``unknown``
    unknown: ClosedJaxpr  # (invariant, consts, carry, xs, variant) -> (carry, ys), unknown ones


def _loop_variant(jaxpr: Jaxpr, variant_inputs: Sequence[Var]) -> set[Var]:
    """The variables of ``jaxpr`` that depend on ``variant_inputs``, and the outputs of its
    effectful equations (which run at every step)."""
    variant = set(variant_inputs)
    for eqn in jaxpr.eqns:
        if has_effect(eqn) or any(type(x) is Var and x in variant for x in eqn.inputs):
            variant.update(eqn.out_binders)
    return variant


def _hoisted_effect(eqn: JaxprEqn, variant: set[Var]) -> bool:
    """Whether ``eqn`` is an effect with no outputs on loop constants only: as in JAX, hoisting
    runs it once, before the known loop, which no longer runs it."""
    return (
        not eqn.out_binders
        and has_effect(eqn)
        and not any(type(x) is Var and x in variant for x in eqn.inputs)
    )


def _split_scan(
    unknowns: Sequence[bool], jaxpr: ClosedJaxpr, num_consts: int, num_carry: int, hoist: bool
) -> _ScanSplit:
    uk = _groups(unknowns, num_consts, num_carry)
    carry_uk = carry_fixpoint(jaxpr, uk.consts, uk.carry, uk.xs, pe_out_unknowns)
    in_uks = [*uk.consts, *carry_uk, *uk.xs]
    n_ys = len(jaxpr.out_avals) - num_carry
    known, unknown, out_uks, num_res = partial_eval_jaxpr(
        jaxpr, in_uks, [*carry_uk, *[False] * n_ys]
    )
    kj = known.jaxpr
    n_closed = len(known.consts)
    known_pos = [i for i, u in enumerate(in_uks) if not u]  # operand index of each known arg
    n_kc = uk.consts.count(False)
    n_kcarry = carry_uk.count(False)
    args = kj.in_binders[n_closed:]
    closed_at = {v: i for i, v in enumerate(kj.in_binders[:n_closed])}
    const_at = {v: known_pos[i] for i, v in enumerate(args[:n_kc])}
    xs_at = {v: known_pos[i] for i, v in enumerate(args[n_kc + n_kcarry :], n_kc + n_kcarry)}
    variant_vars = _loop_variant(kj, args[n_kc:])
    n_kout = len(kj.outs) - num_res
    kinds: list[_Residual] = []
    hoisted: list[Any] = []
    stacked: list[Any] = []
    for r in kj.outs[n_kout:]:
        assert type(r) is Var
        if r in closed_at:
            kinds.append(_Residual("closed", closed_at[r]))
        elif r in const_at:
            kinds.append(_Residual("const", const_at[r]))
        elif r in xs_at:
            kinds.append(_Residual("xs", xs_at[r]))
        elif hoist and r not in variant_vars:
            kinds.append(_Residual("hoist", len(hoisted)))
            hoisted.append(r)
        else:
            kinds.append(_Residual("loop", len(stacked)))
            stacked.append(r)
    hoisted_effects = {id(e) for e in kj.eqns if hoist and _hoisted_effect(e, variant_vars)}
    loop_eqns = [e for e in kj.eqns if id(e) not in hoisted_effects]
    loop_jaxpr, _ = dce_jaxpr(
        Jaxpr(kj.in_binders, loop_eqns, [*kj.outs[:n_kout], *stacked]),
        [True] * (n_kout + len(stacked)),
        instantiate=True,
    )
    hoist_jaxpr = None
    if hoisted or hoisted_effects:
        hoist_binders = kj.in_binders[: n_closed + n_kc]
        # the loop-invariant equations only (DCE keeps every effectful one, and the other
        # effects read the carry or xs, which the hoisted part has not)
        invariant_eqns = [
            e
            for e in kj.eqns
            if id(e) in hoisted_effects
            or (e.out_binders and not any(v in variant_vars for v in e.out_binders))
        ]
        pruned, _ = dce_jaxpr(
            Jaxpr(hoist_binders, invariant_eqns, hoisted), [True] * len(hoisted), instantiate=True
        )
        hoist_jaxpr = ClosedJaxpr(pruned, known.consts)
    # the unknown body: (closed residuals as its constants, invariant residuals, unknown
    # consts, carry and xs, variant residuals)
    res_binders = unknown.jaxpr.in_binders[:num_res]
    groups: dict[str, list[int]] = {"closed": [], "invariant": [], "variant": []}
    for j, res in enumerate(kinds):
        groups[_RESIDUAL_GROUP[res.kind]].append(j)
    binders = [
        *(res_binders[j] for j in groups["closed"]),
        *(res_binders[j] for j in groups["invariant"]),
        *unknown.jaxpr.in_binders[num_res:],
        *(res_binders[j] for j in groups["variant"]),
    ]
    unknown_body = ClosedJaxpr(
        Jaxpr(binders, unknown.jaxpr.eqns, unknown.jaxpr.outs),
        [known.consts[kinds[j].at] for j in groups["closed"]],
    )
    return _ScanSplit(
        unknowns=[*uk.consts, *carry_uk, *uk.xs],
        out_unknowns=out_uks,
        known=ClosedJaxpr(loop_jaxpr, known.consts),
        num_known_out=n_kout,
        hoist=hoist_jaxpr,
        invariant=[kinds[j] for j in groups["invariant"]],
        variant=[kinds[j] for j in groups["variant"]],
        unknown=unknown_body,
    )


def _known_params(split: _ScanSplit, params: dict[str, Any]) -> dict[str, Any]:
    uk = _groups(split.unknowns, params["num_consts"], params["num_carry"])
    n_known = split.unknowns.count(False)
    return {
        **params,
        "jaxpr": split.known,
        "num_consts": uk.consts.count(False),
        "num_carry": uk.carry.count(False),
        "linear": (False,) * n_known,
    }


def _unknown_params(split: _ScanSplit, params: dict[str, Any]) -> dict[str, Any]:
    uk = _groups(split.unknowns, params["num_consts"], params["num_carry"])
    lin = [f for f, u in zip(params["linear"], split.unknowns, strict=True) if u]
    return {
        **params,
        "jaxpr": split.unknown,
        "num_consts": len(split.invariant) + uk.consts.count(True),
        "num_carry": uk.carry.count(True),
        "linear": (*[False] * len(split.invariant), *lin, *[False] * len(split.variant)),
    }


def _merge(flags: Sequence[bool], when_false: Sequence[Any], when_true: Sequence[Any]) -> list[Any]:
    it_false, it_true = iter(when_false), iter(when_true)
    return [next(it_true) if f else next(it_false) for f in flags]


def _scan_partial_eval(trace: PartialEvalTrace, tracers: list[Any], **params: Any) -> list[Any]:
    unknowns = [not t.is_known for t in tracers]
    split = _split_scan(
        unknowns, params["jaxpr"], params["num_consts"], params["num_carry"], hoist=True
    )
    known_vals = [t.const for t, u in zip(tracers, split.unknowns, strict=True) if not u]
    hoisted: list[Any] = []
    if split.hoist is not None:  # first, as JAX runs the hoisted part (and its effects)
        n_known_consts = len(split.hoist.in_avals)
        hoisted = eval_jaxpr(split.hoist, known_vals[:n_known_consts])
    known_outs = []  # no loop at all when it would compute nothing
    if split.known.out_avals or any(has_effect(e) for e in split.known.jaxpr.eqns):
        known_outs = bind(scan_p, *known_vals, **_known_params(split, params))
    stacked = known_outs[split.num_known_out :]

    def residual(res: _Residual) -> Any:
        if res.kind in ("const", "xs"):
            return trace.pure(tracers[res.at].const)
        return trace.pure((hoisted if res.kind == "hoist" else stacked)[res.at])

    ins = [
        *(residual(r) for r in split.invariant),
        *(t for t, u in zip(tracers, split.unknowns, strict=True) if u),
        *(residual(r) for r in split.variant),
    ]
    unknown_params = _unknown_params(split, params)
    out_avals = _scan_abstract_eval(*(t.aval for t in ins), **unknown_params)
    outs_unknown = trace.new_eqn_tracers(scan_p, ins, unknown_params, out_avals)
    return _merge(split.out_unknowns, known_outs[: split.num_known_out], outs_unknown)


partial_eval_rules[scan_p] = _scan_partial_eval


def _scan_partial_eval_jaxpr(
    unks_in: list[bool], eqn: JaxprEqn
) -> tuple[JaxprEqn | None, JaxprEqn, list[bool], list[Var]]:
    params = eqn.params
    split = _split_scan(unks_in, params["jaxpr"], params["num_consts"], params["num_carry"], True)
    known_params = _known_params(split, params)
    known_ins = [x for x, u in zip(eqn.inputs, split.unknowns, strict=True) if not u]
    stacked_avals = known_params["jaxpr"].out_avals[split.num_known_out :]
    length = params["length"]
    stacked = [Var(ShapedArray((length, *a.shape), a.dtype, a.weak_type)) for a in stacked_avals]
    outs_known = [v for v, u in zip(eqn.out_binders, split.out_unknowns, strict=True) if not u]
    hoisted = [] if split.hoist is None else [Var(a) for a in split.hoist.out_avals]
    eqn1: JaxprEqn | None = None
    if split.hoist is None:
        if split.known.out_avals or any(has_effect(e) for e in split.known.jaxpr.eqns):
            eqn1 = JaxprEqn(scan_p, known_ins, known_params, [*outs_known, *stacked])
    else:  # one known equation: a call computing the hoisted residuals, then the known scan
        call = _hoisting_call(split.hoist, known_params, [x.aval for x in known_ins])
        eqn1 = JaxprEqn(
            xla_call_p,
            known_ins,
            {"jaxpr": call, "num_consts": 0, "name": "scan_known"},
            [*hoisted, *outs_known, *stacked],
        )

    def residual(res: _Residual) -> Any:
        if res.kind in ("const", "xs"):
            return eqn.inputs[res.at]
        return (hoisted if res.kind == "hoist" else stacked)[res.at]

    ins = [
        *(residual(r) for r in split.invariant),
        *(x for x, u in zip(eqn.inputs, split.unknowns, strict=True) if u),
        *(residual(r) for r in split.variant),
    ]
    outs_unknown = [v for v, u in zip(eqn.out_binders, split.out_unknowns, strict=True) if u]
    eqn2 = JaxprEqn(scan_p, ins, _unknown_params(split, params), outs_unknown)
    res_vars = [*map(residual, split.invariant), *map(residual, split.variant)]
    # an operand that is known but joined the unknown carries is passed to the unknown scan
    forced = [
        x
        for x, u, u0 in zip(eqn.inputs, split.unknowns, unks_in, strict=True)
        if u and not u0 and type(x) is Var
    ]
    res = [x for x in [*res_vars, *forced] if type(x) is Var]
    return eqn1, eqn2, split.out_unknowns, res


def _hoisting_call(
    hoist: ClosedJaxpr, known_params: dict[str, Any], in_avals: list[ShapedArray]
) -> ClosedJaxpr:
    """``known operands -> (*hoisted residuals, *known scan outputs)``."""
    n_consts = known_params["num_consts"]

    def known(*args: object) -> list[Any]:
        hoisted = eval_jaxpr(hoist, args[:n_consts])
        return [*hoisted, *bind(scan_p, *args, **known_params)]

    return trace_to_closed_jaxpr(known, in_avals)


partial_eval_jaxpr_rules[scan_p] = _scan_partial_eval_jaxpr


# --- transposition -------------------------------------------------------------------------------
# A scan linear in some consts, its carries and some xs transposes to a scan running the other
# way: its carries are the cotangents of the linear consts (accumulated over the steps) and of
# the carries; it consumes the cotangents of the ys and the residual xs, and produces the
# cotangents of the linear xs as its ys. Carries always count as linear (a carry whose initial
# value is a known zero, such as an instantiated tangent, still gets a cotangent, unused).


def _transposed_body(
    jaxpr: ClosedJaxpr,
    lin: _Groups,
    ct_ys_nonzero: Sequence[bool],
) -> ClosedJaxpr:
    """``(res consts, ct accumulators of linear consts, ct carry, ct ys, res xs) ->
    (ct accumulators, ct carry, ct linear xs)``."""
    in_avals = _groups(jaxpr.in_avals, len(lin.consts), len(lin.carry))
    out_avals = jaxpr.out_avals
    num_carry = len(lin.carry)
    y_avals = out_avals[num_carry:]
    res_c = [a for a, f in zip(in_avals.consts, lin.consts, strict=True) if not f]
    lin_c = [a for a, f in zip(in_avals.consts, lin.consts, strict=True) if f]
    res_x = [a for a, f in zip(in_avals.xs, lin.xs, strict=True) if not f]
    ct_y = [tangent_aval(a) for a, nz in zip(y_avals, ct_ys_nonzero, strict=True) if nz]
    carry_ct = [tangent_aval(a) for a in in_avals.carry]
    sizes = [len(res_c), len(lin_c), num_carry, len(ct_y), len(res_x)]

    def body(*args: object) -> list[Any]:
        rc, acc, ct_carry, cty, rx = _split_sizes(args, sizes)
        rc_it, rx_it = iter(rc), iter(rx)
        primals = [
            *(
                UndefPrimal(a) if f else next(rc_it)
                for a, f in zip(in_avals.consts, lin.consts, strict=True)
            ),
            *(UndefPrimal(a) for a in in_avals.carry),
            *(
                UndefPrimal(a) if f else next(rx_it)
                for a, f in zip(in_avals.xs, lin.xs, strict=True)
            ),
        ]
        cts_out = [*ct_carry, *tangents_with_zeros(cty, y_avals, ct_ys_nonzero)]
        cts_in = backward_pass(jaxpr.jaxpr, [*jaxpr.consts, *primals], cts_out)
        ct_consts, ct_carry_in, ct_xs = _split_sizes(
            cts_in, [len(lin_c), num_carry, len(cts_in) - len(lin_c) - num_carry]
        )
        return [
            *(instantiate_zeros(add_tangents(a, c)) for a, c in zip(acc, ct_consts, strict=True)),
            *(instantiate_zeros(c) for c in ct_carry_in),
            *(instantiate_zeros(c) for c in ct_xs),
        ]

    return trace_to_closed_jaxpr(
        body, [*res_c, *map(tangent_aval, lin_c), *carry_ct, *ct_y, *res_x]
    )


def _split_sizes(xs: Sequence[Any], sizes: Sequence[int]) -> list[list[Any]]:
    out, start = [], 0
    for n in sizes:
        out.append(list(xs[start : start + n]))
        start += n
    return out


def _scan_transpose(
    cts: list[Any],
    *args: object,
    jaxpr: ClosedJaxpr,
    num_consts: int,
    num_carry: int,
    length: int,
    reverse: bool,
    linear: tuple[bool, ...],
) -> list[Any]:
    ops = _groups(args, num_consts, num_carry)
    lin = _Groups(
        [type(x) is UndefPrimal for x in ops.consts],
        [True] * num_carry,
        [type(x) is UndefPrimal for x in ops.xs],
    )
    ct_carry, ct_ys = cts[:num_carry], cts[num_carry:]
    ct_ys_nonzero = [type(ct) is not Zero for ct in ct_ys]
    body = _transposed_body(jaxpr, lin, ct_ys_nonzero)
    carry_avals = jaxpr.in_avals[num_consts : num_consts + num_carry]
    res_c = [x for x, f in zip(ops.consts, lin.consts, strict=True) if not f]
    lin_c = [x for x, f in zip(ops.consts, lin.consts, strict=True) if f]
    res_x = [x for x, f in zip(ops.xs, lin.xs, strict=True) if not f]
    n_lin_x = lin.xs.count(True)
    outs = bind(
        scan_p,
        *res_c,
        *(zeros(tangent_aval(x.aval)) for x in lin_c),
        *(
            zeros(tangent_aval(a)) if type(ct) is Zero else ct
            for a, ct in zip(carry_avals, ct_carry, strict=True)
        ),
        *(ct for ct in ct_ys if type(ct) is not Zero),
        *res_x,
        jaxpr=body,
        num_consts=len(res_c),
        num_carry=len(lin_c) + num_carry,
        length=length,
        reverse=not reverse,
        linear=(
            *[False] * len(res_c),
            *[True] * (len(lin_c) + num_carry + sum(ct_ys_nonzero)),
            *[False] * len(res_x),
        ),
    )
    ct_consts = iter(outs[: len(lin_c)])
    ct_init = outs[len(lin_c) : len(lin_c) + num_carry]
    ct_xs = iter(outs[len(lin_c) + num_carry :])
    assert len(outs) == len(lin_c) + num_carry + n_lin_x
    return [
        *(next(ct_consts) if f else None for f in lin.consts),
        *(ct if type(x) is UndefPrimal else None for x, ct in zip(ops.carry, ct_init, strict=True)),
        *(next(ct_xs) if f else None for f in lin.xs),
    ]


transpose_rules[scan_p] = _scan_transpose


# --- batching ------------------------------------------------------------------------------------


def _scan_vmap(
    axis_size: int,
    vals_in: list[Any],
    dims_in: list[BatchDim],
    *,
    jaxpr: ClosedJaxpr,
    num_consts: int,
    num_carry: int,
    length: int,
    reverse: bool,
    linear: tuple[bool, ...],
) -> tuple[list[Any], list[BatchDim]]:
    vals = _groups(vals_in, num_consts, num_carry)
    dims = _groups(dims_in, num_consts, num_carry)
    # xs keep their scanned axis first: a batch axis goes to 1, which is 0 for the slices
    xs = [
        x if d is not_mapped else moveaxis(x, d, 1) for x, d in zip(vals.xs, dims.xs, strict=True)
    ]
    x_dims: list[BatchDim] = [not_mapped if d is not_mapped else 0 for d in dims.xs]

    def out_batched(closed: ClosedJaxpr, flags: list[bool]) -> list[bool]:
        carry_dims = [0 if f else not_mapped for f in flags[num_consts : num_consts + num_carry]]
        _, out_dims = vmap_jaxpr(closed, axis_size, [*dims.consts, *carry_dims, *x_dims])
        return [d is not not_mapped for d in out_dims]

    flags = _Groups(
        [d is not not_mapped for d in dims.consts],
        [d is not not_mapped for d in dims.carry],
        [d is not not_mapped for d in dims.xs],
    )
    carry_bat = carry_fixpoint(jaxpr, flags.consts, flags.carry, flags.xs, out_batched)
    carry_dims: list[BatchDim] = [0 if b else not_mapped for b in carry_bat]
    in_dims = [*dims.consts, *carry_dims, *x_dims]
    ys_bat = [d is not not_mapped for d in vmap_jaxpr(jaxpr, axis_size, in_dims)[1][num_carry:]]
    batched, _ = vmap_jaxpr(jaxpr, axis_size, in_dims, instantiate=[*carry_bat, *ys_bat])
    carry = [
        move_batch_axis(axis_size, d, 0, x) if b else x
        for x, d, b in zip(vals.carry, dims.carry, carry_bat, strict=True)
    ]
    outs = bind(
        scan_p,
        *vals.consts,
        *carry,
        *xs,
        jaxpr=batched,
        num_consts=num_consts,
        num_carry=num_carry,
        length=length,
        reverse=reverse,
        linear=linear,
    )
    return outs, [*carry_dims, *(1 if b else not_mapped for b in ys_bat)]


vmap_rules[scan_p] = _scan_vmap


# --- lowering ------------------------------------------------------------------------------------
# One stablehlo.while whatever the length (never unrolled): its carries are the step counter,
# the scan's carries and the ys being filled in; consts and xs are captured by the body, which
# reads step i's slices with dynamic_slice and writes its ys with dynamic_update_slice.


def _scan_lowering(
    ctx: LoweringContext,
    avals_in: list[ShapedArray],
    avals_out: list[ShapedArray],
    in_vals: list[Value],
    *,
    jaxpr: ClosedJaxpr,
    num_consts: int,
    num_carry: int,
    length: int,
    reverse: bool,
    linear: tuple[bool, ...],
) -> list[Value]:
    vals = _groups(in_vals, num_consts, num_carry)
    x_avals = avals_in[num_consts + num_carry :]
    ys_avals = avals_out[num_carry:]
    counter = np.dtype(np.int32)
    i_type = aval_to_ir_type(ShapedArray((), counter))
    carry_types = [aval_to_ir_type(a) for a in avals_out[:num_carry]]
    ys_types = [aval_to_ir_type(a) for a in ys_avals]
    ys_init = [
        hlo.broadcast_in_dim(t, ir_constant(np.zeros((), a.dtype)), [])
        for t, a in zip(ys_types, ys_avals, strict=True)
    ]
    types = [i_type, *carry_types, *ys_types]
    op = hlo.WhileOp(types, [ir_constant(np.zeros((), counter)), *vals.carry, *ys_init])
    cond_block = op.cond.blocks.append(*types)
    with ir.InsertionPoint(cond_block):
        limit = ir_constant(np.asarray(length, counter))
        lt = hlo.ComparisonDirectionAttr.get("LT")
        hlo.return_([hlo.compare(cond_block.arguments[0], limit, lt)])
    body_block = op.body.blocks.append(*types)
    with ir.InsertionPoint(body_block):
        i, *rest = body_block.arguments
        carry, ys = rest[:num_carry], rest[num_carry:]
        index: Value = i
        if reverse:
            index = hlo.subtract(ir_constant(np.asarray(length - 1, counter)), i)
        zero = ir_constant(np.zeros((), counter))
        x_slices = []
        for x, a in zip(vals.xs, x_avals, strict=True):
            starts = [index, *[zero] * (a.ndim - 1)]
            piece = hlo.dynamic_slice(x, starts, [1, *a.shape[1:]])
            x_slices.append(hlo.reshape(aval_to_ir_type(a.update(shape=a.shape[1:])), piece))
        outs = ctx.lower_jaxpr(jaxpr, [*vals.consts, *carry, *x_slices])
        new_ys = []
        for acc, y, a in zip(ys, outs[num_carry:], ys_avals, strict=True):
            row = hlo.reshape(aval_to_ir_type(a.update(shape=(1, *a.shape[1:]))), y)
            new_ys.append(hlo.dynamic_update_slice(acc, row, [index, *[zero] * (a.ndim - 1)]))
        one = ir_constant(np.ones((), counter))
        hlo.return_([hlo.add(i, one), *outs[:num_carry], *new_ys])
    results: list[Value] = [*op.results]
    return results[1:]


lowering_rules[scan_p] = _scan_lowering


def _scan_vma(ins: Sequence[Vma], params: dict[str, Any]) -> list[Vma]:
    """Inside a ``shard_map``: a carry varies over what it starts with and whatever the body
    makes it vary over, to a fixed point; then the stacked outputs follow."""
    nc, ncarry = params["num_consts"], params["num_carry"]
    consts, carry, xs = ins[:nc], list(ins[nc : nc + ncarry]), ins[nc + ncarry :]
    while True:
        outs = closed_vma(params["jaxpr"], [*consts, *carry, *xs])
        new = [c | o for c, o in zip(carry, outs[:ncarry], strict=True)]
        if new == carry:
            return [*carry, *outs[ncarry:]]
        carry = new


vma_rules[scan_p] = _scan_vma
