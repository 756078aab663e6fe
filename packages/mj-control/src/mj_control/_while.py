"""``while_loop`` and ``fori_loop``: the ``while`` primitive.

``while_p`` takes ``(*cond_consts, *body_consts, *carry)`` with params ``cond_jaxpr`` (carry
-> bool scalar, after its ``cond_nconsts`` constants) and ``body_jaxpr`` (carry -> carry, after
its ``body_nconsts`` constants); it returns the final carry. The trip count is data dependent,
so the loop is forward-mode differentiable only; ``fori_loop`` with static bounds is a
``scan`` instead, which reverse mode handles.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, TypeVar
from typing import cast as typing_cast

import numpy as np

from mj_autodiff.extend import (
    PartialEvalTrace,
    Zero,
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
from mj_batch.extend import BatchDim, move_batch_axis, not_mapped, vmap_jaxpr, vmap_rules
from mj_control._jaxprs import (
    add_inputs,
    carry_fixpoint,
    jvp_out_nonzeros,
    move,
    pe_out_unknowns,
    permute,
    types_str,
)
from mj_control._printing import pp_control_eqn
from mj_control._scan import scan
from mj_control._tracing import (
    cast,
    check_callable,
    check_carry,
    fix_carry_types,
    forward_inputs,
    forwarded_inputs,
    host_outputs,
    shaped_avals,
    trace_fun,
    type_tree,
    weak_outputs,
)
from mj_core import (
    Array,
    ConcreteArray,
    Primitive,
    ShapedArray,
    bind,
    config,
    get_aval,
    impl_rules,
    lax,
)
from mj_core.errors import user_line_suffix
from mj_core.extend import ArrayLike
from mj_core.tree_util import tree_flatten, tree_structure, tree_unflatten, treedef_is_leaf
from mj_ir import ClosedJaxpr, Jaxpr, JaxprEqn, Var, abstract_eval_rules, dce_jaxpr, eval_jaxpr
from mj_ir.extend import pp_rules, trace_to_closed_jaxpr, types_match
from mj_xla.extend import (
    LoweringContext,
    Value,
    Vma,
    aval_to_ir_type,
    closed_vma,
    hlo,
    ir,
    lowering_rules,
    vma_rules,
)

__all__ = ["fori_loop", "while_loop", "while_p"]

while_p = Primitive("while", multiple_results=True)

_BOOL = np.dtype(np.bool_)

_Carry = TypeVar("_Carry")  # a loop's carried pytree


def while_loop(
    cond_fun: Callable[[Any], Any], body_fun: Callable[[Any], Any], init_val: object
) -> Any:
    """Run ``val = body_fun(val)`` while ``cond_fun(val)``, staged as one ``while`` primitive.

    ``body_fun`` must return a value of the same pytree structure and types as ``init_val``
    (a weakly typed initial value, such as a Python float, takes the body's dtype).
    Differentiable in forward mode; use :func:`scan` or :func:`fori_loop` with static bounds
    for reverse mode.

    Example::

        >>> while_loop(lambda x: x < 10, lambda x: x + 1, 0)
        10
    """
    check_callable("while_loop", "cond_fun", cond_fun)
    check_callable("while_loop", "body_fun", body_fun)
    init_flat, in_tree = tree_flatten((init_val,))
    carry_tree = tree_structure(init_val)
    init_avals = shaped_avals(init_flat)
    body = trace_fun(body_fun, in_tree, init_avals)
    if body.out_tree == carry_tree and fix_carry_types(init_flat, init_avals, body.out_avals):
        body = trace_fun(body_fun, in_tree, init_avals)
    check_carry(
        "while_loop",
        "init_val",
        "body_fun output",
        carry_tree,
        init_avals,
        body.out_tree,
        body.out_avals,
        body_fun,
    )
    cond = trace_fun(cond_fun, in_tree, init_avals)
    cond_out = cond.out_avals
    if len(cond_out) != 1 or cond_out[0].shape != () or cond_out[0].dtype != _BOOL:
        # JAX's wording, then mj's type tree
        where = user_line_suffix()
        shown = type_tree(cond.out_tree, cond_out)
        if len(cond_out) != 1 or not treedef_is_leaf(cond.out_tree):
            head = f"cond_fun must return a boolean scalar, but got pytree {cond.out_tree}."
        else:
            head = (
                "cond_fun must return a boolean scalar, but got output type(s) "
                f"[{_jax_repr(cond_out[0])}]."
            )
        raise TypeError(f"{head} (while_loop: cond_fun returns {shown}{where})")
    body_jaxpr = body.closed()
    outs = bind(
        while_p,
        *cond.consts,
        *body.consts,
        *init_flat,
        cond_jaxpr=cond.closed(),
        body_jaxpr=body_jaxpr,
        cond_nconsts=len(cond.consts),
        body_nconsts=len(body.consts),
    )
    outs = weak_outputs(outs, body_jaxpr.out_avals)
    # a carry the body returns unchanged is read-only: the loop's output is the initial value
    # itself (JAX moves it into the constants)
    nconsts = len(body.consts)
    fwds = [
        k - nconsts if k == nconsts + i else None
        for i, k in enumerate(forwarded_inputs(body.jaxpr))
    ]
    return tree_unflatten(carry_tree, forward_inputs(outs, init_flat, fwds))


def _jax_repr(aval: ShapedArray) -> str:
    """JAX's ``repr(aval)``: ``ShapedArray(float32[3], weak_type=True)``."""
    dims = ",".join(str(d) for d in aval.shape)
    weak = ", weak_type=True" if aval.weak_type else ""
    return f"ShapedArray({aval.dtype.name}[{dims}]{weak})"


def fori_loop(
    lower: ArrayLike,
    upper: ArrayLike,
    body_fun: Callable[[Any, _Carry], _Carry],
    init_val: _Carry,
    *,
    unroll: int | bool | None = None,
) -> _Carry:
    """``val = body_fun(i, val)`` for ``i`` in ``range(lower, upper)``.

    With concrete (static) bounds the loop is a :func:`scan` of ``upper - lower`` steps, so it
    can be differentiated in reverse mode; with traced bounds it is a :func:`while_loop`.
    ``unroll`` is passed to that scan (where it changes no result); as in JAX, it needs
    static bounds.
    """
    check_callable("fori_loop", "body_fun", body_fun)
    lo_aval, hi_aval = get_aval(lower), get_aval(upper)
    for name, aval in (("lower", lo_aval), ("upper", hi_aval)):
        if aval.shape != () or aval.dtype.kind not in "iuf":
            where = user_line_suffix()
            raise TypeError(
                f"fori_loop: {name} must be an integer or float scalar, got "
                f"{aval.str_short()}{where}"
            )
    dtype, weak = _bounds_dtype(lo_aval, hi_aval)
    if isinstance(lo_aval, ConcreteArray) and isinstance(hi_aval, ConcreteArray):
        # as JAX: concrete bounds (float ones too) are truncated to ints for the trip count
        start, stop = int(lo_aval.val), int(hi_aval.val)
        # Python ints stay weakly typed; float bounds count with a Python int, as in JAX
        i0 = start if weak or dtype.kind == "f" else np.asarray(start, dtype)

        def scan_body(carry: tuple[Any, Any], _: None) -> tuple[tuple[Any, Any], None]:
            i, val = carry
            return (lax.add(i, 1), body_fun(i, val)), None

        if config.disable_jit and stop <= start:
            return init_val  # as JAX's (a zero-length scan cannot run without jit)
        (_, result), _ = scan(
            scan_body,
            (i0, init_val),
            None,
            length=max(stop - start, 0),
            unroll=1 if unroll is None else unroll,
        )
        return typing_cast(_Carry, result)
    if unroll is not None and unroll is not False and unroll != 1:
        raise ValueError(
            "Can only use `unroll` in `fori_loop` if the loop bounds are statically known."
            f"{user_line_suffix()}"
        )

    common = ShapedArray((), dtype, weak)
    lo, hi = cast(lower, common), cast(upper, common)

    def loop_cond(carry: tuple[Any, Any, Any]) -> Array:
        i, stop, _ = carry
        return lax.less(i, stop)

    def loop_body(carry: tuple[Any, Any, Any]) -> tuple[Any, Any, Any]:
        i, stop, val = carry
        return lax.add(i, 1), stop, body_fun(i, val)

    _, _, result = while_loop(loop_cond, loop_body, (lo, hi, init_val))
    return typing_cast(_Carry, result)


def _bounds_dtype(lo: ShapedArray, hi: ShapedArray) -> tuple[np.dtype[Any], bool]:
    """The loop index's type: the bounds' common type, which JAX requires to be the same (a
    weak signed int bound may meet a strong one)."""
    if lo.dtype == hi.dtype:
        return lo.dtype, lo.weak_type and hi.weak_type
    if lo.dtype.kind == "i" and hi.dtype.kind == "i" and lo.weak_type != hi.weak_type:
        return (hi.dtype, False) if lo.weak_type else (lo.dtype, False)
    raise TypeError(
        "lower and upper arguments to fori_loop must have equal types, got "
        f"{lo.dtype.name} and {hi.dtype.name}{user_line_suffix()}"
    )


# --- evaluation and typing ---------------------------------------------------------------------


def _while_impl(
    *args: object,
    cond_jaxpr: ClosedJaxpr,
    body_jaxpr: ClosedJaxpr,
    cond_nconsts: int,
    body_nconsts: int,
) -> list[Any]:
    cond_consts = args[:cond_nconsts]
    body_consts = args[cond_nconsts : cond_nconsts + body_nconsts]
    carry = list(args[cond_nconsts + body_nconsts :])
    while np.asarray(cond_jaxpr(*cond_consts, *carry)[0]):
        carry = body_jaxpr(*body_consts, *carry)
    return host_outputs(carry, body_jaxpr.out_avals)


impl_rules[while_p] = _while_impl


def _while_abstract_eval(
    *avals: ShapedArray,
    cond_jaxpr: ClosedJaxpr,
    body_jaxpr: ClosedJaxpr,
    cond_nconsts: int,
    body_nconsts: int,
) -> list[ShapedArray]:
    carry = avals[cond_nconsts + body_nconsts :]
    cond_in = [*avals[:cond_nconsts], *carry]
    body_in = avals[cond_nconsts:]
    _check_ins("cond_jaxpr", cond_jaxpr, cond_in)
    _check_ins("body_jaxpr", body_jaxpr, body_in)
    (pred,) = cond_jaxpr.out_avals
    if pred.shape != () or pred.dtype != _BOOL:
        raise TypeError(f"while: cond_jaxpr must return a bool scalar, got {pred.str_short()}")
    body_out = body_jaxpr.out_avals
    if len(body_out) != len(carry) or not all(map(types_match, body_out, carry)):
        raise TypeError(
            f"while: body_jaxpr returns ({types_str(body_out)}) for a carry of ({types_str(carry)})"
        )
    return list(body_out)


abstract_eval_rules[while_p] = _while_abstract_eval
pp_rules[while_p] = pp_control_eqn


def _check_ins(name: str, jaxpr: ClosedJaxpr, avals: Any) -> None:
    ins = jaxpr.in_avals
    if len(ins) != len(avals) or not all(map(types_match, ins, avals)):
        raise TypeError(f"while: {name} takes ({types_str(ins)}) but gets ({types_str(avals)})")


def _split_consts(
    args: Sequence[Any], cond_nconsts: int, body_nconsts: int
) -> tuple[list[Any], list[Any], list[Any]]:
    cut = cond_nconsts + body_nconsts
    return list(args[:cond_nconsts]), list(args[cond_nconsts:cut]), list(args[cut:])


# --- forward mode --------------------------------------------------------------------------------


def _while_jvp(
    primals: list[Any],
    tangents: list[Any],
    *,
    cond_jaxpr: ClosedJaxpr,
    body_jaxpr: ClosedJaxpr,
    cond_nconsts: int,
    body_nconsts: int,
) -> tuple[list[Any], list[Any]]:
    cconsts, bconsts, carry = _split_consts(primals, cond_nconsts, body_nconsts)
    _, bconst_t, carry_t = _split_consts(tangents, cond_nconsts, body_nconsts)
    bconst_nz = [type(t) is not Zero for t in bconst_t]
    carry_nz = carry_fixpoint(
        body_jaxpr, bconst_nz, [type(t) is not Zero for t in carry_t], [], jvp_out_nonzeros
    )
    body_jvp, _ = jvp_jaxpr(body_jaxpr, [*bconst_nz, *carry_nz], carry_nz)
    n_bt, n_ct = sum(bconst_nz), sum(carry_nz)
    # jvp order (bconsts, carry, bconst tangents, carry tangents) -> while order
    # (bconsts, bconst tangents, carry, carry tangents)
    body_jvp = permute(body_jvp, move([len(bconsts), len(carry), n_bt, n_ct], [0, 2, 1, 3]))
    carry_tangent_avals = [
        tangent_aval(a) for a, nz in zip(body_jaxpr.out_avals, carry_nz, strict=True) if nz
    ]
    cond_jvp = add_inputs(cond_jaxpr, carry_tangent_avals, cond_nconsts + len(carry))
    outs = bind(
        while_p,
        *cconsts,
        *bconsts,
        *(t for t in bconst_t if type(t) is not Zero),
        *carry,
        *(instantiate_zeros(t) for t, nz in zip(carry_t, carry_nz, strict=True) if nz),
        cond_jaxpr=cond_jvp,
        body_jaxpr=body_jvp,
        cond_nconsts=cond_nconsts,
        body_nconsts=body_nconsts + n_bt,
    )
    n_carry = len(carry)
    return outs[:n_carry], tangents_with_zeros(outs[n_carry:], body_jaxpr.out_avals, carry_nz)


jvp_rules[while_p] = _while_jvp


# --- partial evaluation --------------------------------------------------------------------------
# The trip count is only known when the loop runs, so the unknown part cannot take per-step
# residuals: the known carries are computed by a loop over the known part of the body, and
# the unknown carries by the whole loop, staged (recomputing the known part, like
# rematerialization). That is enough for forward mode (linearize); transposing the staged loop
# is what reverse mode cannot do.


def _known_part(closed: ClosedJaxpr, unknowns: list[bool], n_out: int) -> ClosedJaxpr:
    """The part of ``closed`` computing its first ``n_out`` known outputs from its known
    inputs (all of which it keeps as inputs)."""
    known = partial_eval_jaxpr(closed, unknowns)[0]
    jaxpr, _ = dce_jaxpr(
        Jaxpr(known.jaxpr.in_binders, known.jaxpr.eqns, known.jaxpr.outs[:n_out]),
        [True] * n_out,
        instantiate=True,
    )
    return ClosedJaxpr(jaxpr, known.consts)


class _WhileSplit(NamedTuple):
    carry_unknowns: list[bool]
    cond_known: ClosedJaxpr | None  # None: the whole loop is unknown
    body_known: ClosedJaxpr | None


def _split_while(
    unknowns: list[bool],
    cond_jaxpr: ClosedJaxpr,
    body_jaxpr: ClosedJaxpr,
    cond_nconsts: int,
    body_nconsts: int,
) -> _WhileSplit:
    cc_uk, bc_uk, carry_uk = _split_consts(unknowns, cond_nconsts, body_nconsts)
    carry_uk = carry_fixpoint(body_jaxpr, bc_uk, carry_uk, [], pe_out_unknowns)
    (pred_uk,) = pe_out_unknowns(cond_jaxpr, [*cc_uk, *carry_uk])
    if pred_uk or all(carry_uk):
        return _WhileSplit([True] * len(carry_uk), None, None)
    n_known = carry_uk.count(False)
    body_known = _known_part(body_jaxpr, [*bc_uk, *carry_uk], n_known)
    cond_known = _known_part(cond_jaxpr, [*cc_uk, *carry_uk], 1)
    return _WhileSplit(carry_uk, cond_known, body_known)


def _while_partial_eval(trace: PartialEvalTrace, tracers: list[Any], **params: Any) -> list[Any]:
    avals_out = params["body_jaxpr"].out_avals
    unknowns = [not t.is_known for t in tracers]
    split = _split_while(unknowns, **params)
    outs_unknown = trace.new_eqn_tracers(while_p, tracers, params, avals_out)
    if split.cond_known is None or split.body_known is None:
        return outs_unknown
    cc, bc, _ = _split_consts(unknowns, params["cond_nconsts"], params["body_nconsts"])
    flags = [*cc, *bc, *split.carry_unknowns]
    known = [t.const for t, uk in zip(tracers, flags, strict=True) if not uk]
    outs_known = iter(
        bind(
            while_p,
            *known,
            cond_jaxpr=split.cond_known,
            body_jaxpr=split.body_known,
            cond_nconsts=cc.count(False),
            body_nconsts=bc.count(False),
        )
    )
    return [
        out if uk else next(outs_known)
        for out, uk in zip(outs_unknown, split.carry_unknowns, strict=True)
    ]


partial_eval_rules[while_p] = _while_partial_eval


def _while_partial_eval_jaxpr(
    unks_in: list[bool], eqn: JaxprEqn
) -> tuple[JaxprEqn | None, JaxprEqn, list[bool], list[Var]]:
    params = eqn.params
    split = _split_while(unks_in, **params)
    res = [x for x, uk in zip(eqn.inputs, unks_in, strict=True) if not uk and type(x) is Var]
    if split.cond_known is None or split.body_known is None:
        return None, eqn, [True] * len(eqn.out_binders), res
    cc, bc, _ = _split_consts(unks_in, params["cond_nconsts"], params["body_nconsts"])
    flags = [*cc, *bc, *split.carry_unknowns]
    known_ins = [x for x, uk in zip(eqn.inputs, flags, strict=True) if not uk]
    outs_known = [v for v, uk in zip(eqn.out_binders, split.carry_unknowns, strict=True) if not uk]
    eqn1 = JaxprEqn(
        while_p,
        known_ins,
        {
            "cond_jaxpr": split.cond_known,
            "body_jaxpr": split.body_known,
            "cond_nconsts": cc.count(False),
            "body_nconsts": bc.count(False),
        },
        outs_known,
    )
    # The staged loop recomputes the known carries too; they get fresh (unused) binders.
    outs_all = [
        v if uk else Var(v.aval)
        for v, uk in zip(eqn.out_binders, split.carry_unknowns, strict=True)
    ]
    eqn2 = JaxprEqn(while_p, eqn.inputs, params, outs_all)
    return eqn1, eqn2, split.carry_unknowns, res


partial_eval_jaxpr_rules[while_p] = _while_partial_eval_jaxpr


# --- reverse mode --------------------------------------------------------------------------------


def _while_transpose(cts: list[Any], *args: object, **params: object) -> list[Any]:
    raise ValueError(
        "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with "
        "dynamic start/stop values. Try using lax.scan, or using fori_loop with static "
        "start/stop."
    )


transpose_rules[while_p] = _while_transpose


# --- batching ------------------------------------------------------------------------------------


def _while_vmap(
    axis_size: int,
    vals_in: list[Any],
    dims_in: list[BatchDim],
    *,
    cond_jaxpr: ClosedJaxpr,
    body_jaxpr: ClosedJaxpr,
    cond_nconsts: int,
    body_nconsts: int,
) -> tuple[list[Any], list[BatchDim]]:
    cconsts, bconsts, carry = _split_consts(vals_in, cond_nconsts, body_nconsts)
    cc_dims, bc_dims, init_dims = _split_consts(dims_in, cond_nconsts, body_nconsts)

    def body_out_batched(closed: ClosedJaxpr, flags: list[bool]) -> list[bool]:
        carry_dims = [0 if f else not_mapped for f in flags[body_nconsts:]]
        _, dims = vmap_jaxpr(closed, axis_size, [*bc_dims, *carry_dims])
        return [d is not not_mapped for d in dims]

    carry_bat = carry_fixpoint(
        body_jaxpr,
        [d is not not_mapped for d in bc_dims],
        [d is not not_mapped for d in init_dims],
        [],
        body_out_batched,
    )
    carry_dims: list[BatchDim] = [0 if b else not_mapped for b in carry_bat]
    (pred_dim,) = vmap_jaxpr(cond_jaxpr, axis_size, [*cc_dims, *carry_dims])[1]
    pred_batched = pred_dim is not not_mapped
    if pred_batched:  # every example stops on its own: each carry is per example
        carry_bat = [True] * len(carry)
        carry_dims = [0] * len(carry)
    carry = [
        move_batch_axis(axis_size, d, 0, x) if b else x
        for x, d, b in zip(carry, init_dims, carry_bat, strict=True)
    ]
    body_b, _ = vmap_jaxpr(body_jaxpr, axis_size, [*bc_dims, *carry_dims], instantiate=carry_bat)
    cond_b, _ = vmap_jaxpr(cond_jaxpr, axis_size, [*cc_dims, *carry_dims], instantiate=pred_batched)
    out_dims: list[BatchDim] = list(carry_dims)
    if not pred_batched:
        outs = bind(
            while_p,
            *cconsts,
            *bconsts,
            *carry,
            cond_jaxpr=cond_b,
            body_jaxpr=body_b,
            cond_nconsts=cond_nconsts,
            body_nconsts=body_nconsts,
        )
        return outs, out_dims
    cond_any, body_select = _batched_predicate_loop(cond_b, body_b, cconsts, bconsts, carry)
    outs = bind(
        while_p,
        *cconsts,
        *cconsts,
        *bconsts,
        *carry,
        cond_jaxpr=cond_any,
        body_jaxpr=body_select,
        cond_nconsts=cond_nconsts,
        body_nconsts=cond_nconsts + body_nconsts,
    )
    return outs, out_dims


def _batched_predicate_loop(
    cond_b: ClosedJaxpr,
    body_b: ClosedJaxpr,
    cconsts: list[Any],
    bconsts: list[Any],
    carry: list[Any],
) -> tuple[ClosedJaxpr, ClosedJaxpr]:
    """A loop over a batch whose examples stop at different steps: it runs while any example
    is live, and the body leaves the carries of finished examples unchanged (a select)."""
    n_cc, n_bc = len(cconsts), len(bconsts)

    def cond_any(*args: object) -> list[Any]:
        (pred,) = eval_jaxpr(cond_b, args)
        return [lax.reduce_or(pred, (0,))]

    def body_select(*args: Any) -> list[Any]:
        cc, bc, old = args[:n_cc], args[n_cc : n_cc + n_bc], args[n_cc + n_bc :]
        (pred,) = eval_jaxpr(cond_b, [*cc, *old])
        new = eval_jaxpr(body_b, [*bc, *old])
        return [
            lax.select(lax.broadcast_in_dim(pred, get_aval(n).shape, (0,)), n, o)
            for n, o in zip(new, old, strict=True)
        ]

    cc_avals, bc_avals, carry_avals = (shaped_avals(vals) for vals in (cconsts, bconsts, carry))
    return (
        trace_to_closed_jaxpr(cond_any, [*cc_avals, *carry_avals]),
        trace_to_closed_jaxpr(body_select, [*cc_avals, *bc_avals, *carry_avals]),
    )


vmap_rules[while_p] = _while_vmap


# --- lowering ------------------------------------------------------------------------------------


def _while_lowering(
    ctx: LoweringContext,
    avals_in: list[ShapedArray],
    avals_out: list[ShapedArray],
    in_vals: list[Value],
    *,
    cond_jaxpr: ClosedJaxpr,
    body_jaxpr: ClosedJaxpr,
    cond_nconsts: int,
    body_nconsts: int,
) -> list[Value]:
    """One ``stablehlo.while`` over the carries; the constants are captured by its regions."""
    cconsts, bconsts, init = _split_consts(in_vals, cond_nconsts, body_nconsts)
    carry_types = [aval_to_ir_type(a) for a in avals_in[cond_nconsts + body_nconsts :]]
    op = hlo.WhileOp(carry_types, init)
    cond_block = op.cond.blocks.append(*carry_types)
    with ir.InsertionPoint(cond_block):
        hlo.return_(ctx.lower_jaxpr(cond_jaxpr, [*cconsts, *cond_block.arguments]))
    body_block = op.body.blocks.append(*carry_types)
    with ir.InsertionPoint(body_block):
        hlo.return_(ctx.lower_jaxpr(body_jaxpr, [*bconsts, *body_block.arguments]))
    return list(op.results)


lowering_rules[while_p] = _while_lowering


def _while_vma(ins: Sequence[Vma], params: dict[str, Any]) -> list[Vma]:
    """Inside a ``shard_map``: a carry varies over what it starts with and whatever the body
    makes it vary over, to a fixed point."""
    nc, nb = params["cond_nconsts"], params["body_nconsts"]
    consts, carry = ins[nc : nc + nb], list(ins[nc + nb :])
    while True:
        outs = closed_vma(params["body_jaxpr"], [*consts, *carry])
        new = [c | o for c, o in zip(carry, outs, strict=True)]
        if new == carry:
            return carry
        carry = new


vma_rules[while_p] = _while_vma
