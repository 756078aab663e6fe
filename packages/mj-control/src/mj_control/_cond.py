"""``cond`` and ``switch``: the ``cond`` primitive (Autodidax Part 5, generalised to N branches).

``cond_p`` takes ``(index, *operands)`` and a ``branches`` param: a tuple of closed jaxprs of
one type. ``index`` is an int32 scalar, already clamped into range by :func:`switch` (and
``cond``'s predicate is converted to 0/1), so branch ``index`` is applied to ``operands``.
Every branch takes the same operands: the constants any branch closes over come first (see
:func:`~mj_control._tracing.join_consts`), then the user's operands.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from mj_autodiff import stop_gradient
from mj_autodiff.extend import (
    PartialEvalTrace,
    UndefPrimal,
    Zero,
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
from mj_batch.extend import BatchDim, move_batch_axis, not_mapped, vmap_jaxpr, vmap_rules
from mj_control._jaxprs import add_inputs, join_residuals, types_str
from mj_control._printing import pp_control_eqn
from mj_control._tracing import (
    branch_mismatch,
    cast,
    check_callable,
    forward_inputs,
    forwarded_inputs,
    host_outputs,
    join_consts,
    shaped_avals,
    trace_fun,
    type_tree,
    weak_outputs,
)
from mj_core import Primitive, ShapedArray, bind, get_aval, impl_rules, lax
from mj_core.dtypes import is_inexact
from mj_core.errors import user_line_suffix
from mj_core.extend import ArrayLike
from mj_core.tree_util import tree_flatten, tree_unflatten
from mj_ir import ClosedJaxpr, JaxprEqn, Var, abstract_eval_rules, eval_jaxpr
from mj_ir.extend import pp_rules, trace_to_closed_jaxpr, types_match
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
)

__all__ = ["cond", "cond_p", "switch"]

cond_p = Primitive("cond", multiple_results=True)

_INDEX_AVAL = ShapedArray((), np.int32)


#: ``operand=``'s default: no operand passed by keyword (``None`` is an operand).
_NO_OPERAND = object()


def _keyword_operand(operands: tuple[object, ...], operand: object) -> tuple[object, ...]:
    """The operands, with JAX's older keyword form ``operand=x`` (one operand) folded in."""
    if operand is _NO_OPERAND:
        return operands
    if operands:
        raise _where(
            TypeError,
            "if 'operand' keyword is passed then no positional operands can be passed, got "
            f"operand={operand!r} and positional operands {operands}",
        )
    return (operand,)


def cond(
    pred: ArrayLike, true_fun: Any, false_fun: Any, *operands: object, operand: object = _NO_OPERAND
) -> Any:
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``, staged as one
    ``cond`` primitive.

    Both branches are traced; their outputs must have the same pytree structure and types.
    ``pred`` is a scalar bool (or number, compared with 0). The older form
    ``cond(pred, true_operand, true_fun, false_operand, false_fun)`` is accepted too, and
    JAX's keyword ``operand=x`` for one operand.

    Example::

        >>> cond(x > 0, lambda x: x * 2, lambda x: -x, x)
    """
    operands = _keyword_operand(operands, operand)
    if not callable(true_fun) and len(operands) == 2 and callable(false_fun):
        true_operand, old_true_fun, (false_operand, old_false_fun) = true_fun, false_fun, operands
        if callable(old_false_fun):
            return _cond(
                pred,
                lambda ops: old_true_fun(ops[0]),
                lambda ops: old_false_fun(ops[1]),
                (true_operand, false_operand),
            )
    return _cond(pred, true_fun, false_fun, *operands)


def _cond(
    pred: ArrayLike,
    true_fun: Callable[..., Any],
    false_fun: Callable[..., Any],
    *operands: object,
) -> Any:
    check_callable("cond", "true_fun", true_fun)
    check_callable("cond", "false_fun", false_fun)
    # JAX's checks and wording
    if pred is None:
        raise _where(TypeError, "cond predicate is None")
    if isinstance(pred, Sequence):
        raise _where(TypeError, f"Pred must be a scalar, got {pred} of type {type(pred)}")
    try:
        aval = get_aval(pred)
    except TypeError as err:
        raise _where(TypeError, f"Pred type must be either boolean or number, got {pred}.") from err
    if aval.shape != ():
        raise _where(TypeError, f"Pred must be a scalar, got {pred} of shape {aval.shape}.")
    if aval.dtype.kind not in "biuf":
        raise _where(TypeError, f"Pred type must be either boolean or number, got {aval.dtype}.")
    if aval.dtype.kind != "b":
        pred = lax.ne(pred, 0)
    index = _to_index(pred)
    return _bind_branches("cond", ("false_fun", "true_fun"), index, [false_fun, true_fun], operands)


def switch(
    index: ArrayLike,
    branches: Sequence[Callable[..., Any]],
    *operands: object,
    operand: object = _NO_OPERAND,
) -> Any:
    """``branches[index](*operands)``, with ``index`` clamped into ``[0, len(branches) - 1]``,
    staged as one ``cond`` primitive.

    Example::

        >>> switch(i, [lambda x: x + 1, lambda x: x * 2, jnp.sin], x)
    """
    operands = _keyword_operand(operands, operand)
    # JAX's checks and wording
    if not isinstance(branches, Sequence) or not all(callable(f) for f in branches):
        raise _where(
            TypeError,
            f"lax.switch: branches argument should be a sequence of callables. (got {branches!r})",
        )
    funs = list(branches)
    if isinstance(index, list | tuple):
        raise _where(
            TypeError, f"Branch index must be scalar, got {index} of shape {np.shape(index)}."
        )
    try:
        aval = get_aval(index)
    except TypeError as err:
        raise _where(TypeError, f"Index type must be an integer, got {index}.") from err
    if aval.shape != ():
        raise _where(TypeError, f"Branch index must be scalar, got {index} of shape {aval.shape}.")
    if aval.dtype.kind not in "iu":
        raise _where(TypeError, f"Index type must be an integer, got {index} as {aval.dtype}")
    if not funs:
        raise _where(ValueError, "Empty branch sequence")
    if len(funs) == 1:
        return funs[0](*operands)
    index = lax.clamp(0, _to_index(index), len(funs) - 1)
    names = tuple(f"branches[{k}]" for k in range(len(funs)))
    return _bind_branches("switch", names, index, funs, operands)


def _to_index(x: ArrayLike) -> Any:
    return cast(x, _INDEX_AVAL)


def _where(exc: type[Exception], msg: str) -> Exception:
    where = user_line_suffix()
    return exc(f"{msg}{where}")


def _bind_branches(
    api: str,
    names: Sequence[str],
    index: ArrayLike,
    funs: Sequence[Callable[..., Any]],
    operands: tuple[Any, ...],
) -> Any:
    ops_flat, in_tree = tree_flatten(operands)
    in_avals = shaped_avals(ops_flat)
    traced = [trace_fun(f, in_tree, in_avals) for f in funs]
    first = traced[0]
    # JAX compares true_fun with false_fun, and branch 0 with each other branch
    pairs = [(1, 0)] if api == "cond" else [(0, k) for k in range(1, len(funs))]
    for i, k in pairs:
        a, b = traced[i], traced[k]
        if a.out_tree != b.out_tree or not all(
            types_match(x, y) for x, y in zip(a.out_avals, b.out_avals, strict=True)
        ):
            label = ["false_fun", "true_fun"] if api == "cond" else ["branch 0"]
            name1 = label[i]
            name2 = label[k] if api == "cond" else f"branch{k}"  # (JAX's spelling)
            head = branch_mismatch(api, name1, name2, funs[i], funs[k], a, b)
            raise _where(
                TypeError,
                f"{head}\n  {names[i]} returns {type_tree(a.out_tree, a.out_avals)}\n"
                f"  {names[k]} returns {type_tree(b.out_tree, b.out_avals)}\n",
            )
    branches, consts = join_consts(traced)
    outs = bind(cond_p, index, *consts, *ops_flat, branches=tuple(branches))
    outs = weak_outputs(outs, _joined_out_avals(branches))
    # an output every branch returns as the same operand is that operand (JAX's forwarding)
    fwds = [forwarded_inputs(b.jaxpr) for b in branches]
    same = [ks[0] if len(set(ks)) == 1 else None for ks in zip(*fwds, strict=True)]
    outs = forward_inputs(outs, [*consts, *ops_flat], same)
    return tree_unflatten(first.out_tree, outs)


# --- evaluation and typing ---------------------------------------------------------------------


def _cond_impl(index: object, *args: object, branches: tuple[ClosedJaxpr, ...]) -> list[Any]:
    i = int(np.clip(np.asarray(index), 0, len(branches) - 1))
    return host_outputs(branches[i](*args), _joined_out_avals(branches))


impl_rules[cond_p] = _cond_impl


def _joined_out_avals(branches: Sequence[ClosedJaxpr]) -> list[ShapedArray]:
    """The branches' common output types: weakly typed only where every branch's is."""
    outs = [list(b.out_avals) for b in branches]
    return [
        ShapedArray(avals[0].shape, avals[0].dtype, all(a.weak_type for a in avals))
        for avals in zip(*outs, strict=True)
    ]


def _cond_abstract_eval(
    index: ShapedArray, *avals: ShapedArray, branches: tuple[ClosedJaxpr, ...]
) -> list[ShapedArray]:
    if index.shape != () or index.dtype.kind not in "iu":
        raise TypeError(f"cond: the index must be an integer scalar, got {index.str_short()}")
    out0 = branches[0].out_avals
    for k, b in enumerate(branches):
        b_in = b.in_avals
        if len(b_in) != len(avals) or not all(map(types_match, b_in, avals)):
            raise TypeError(
                f"cond: branch {k} takes ({types_str(b_in)}) but the operands are "
                f"({types_str(avals)})"
            )
        b_out = b.out_avals
        if len(b_out) != len(out0) or not all(map(types_match, b_out, out0)):
            raise TypeError(
                f"cond: branch {k} returns ({types_str(b_out)}) but branch 0 returns "
                f"({types_str(out0)})"
            )
    return _joined_out_avals(branches)


abstract_eval_rules[cond_p] = _cond_abstract_eval
pp_rules[cond_p] = pp_control_eqn


# --- forward mode --------------------------------------------------------------------------------


def _cond_jvp(
    primals: list[Any], tangents: list[Any], *, branches: tuple[ClosedJaxpr, ...]
) -> tuple[list[Any], list[Any]]:
    index, *ops = primals
    op_tangents = tangents[1:]
    nonzeros = [type(t) is not Zero for t in op_tangents]
    first = [jvp_jaxpr(b, nonzeros, False) for b in branches]
    out_nz = [any(flags) for flags in zip(*(nz for _, nz in first), strict=True)]
    jvps = tuple(
        j if nz == out_nz else jvp_jaxpr(b, nonzeros, out_nz)[0]
        for b, (j, nz) in zip(branches, first, strict=True)
    )
    nz_tangents = [t for t in op_tangents if type(t) is not Zero]
    out_avals = _joined_out_avals(branches)
    outs = bind(cond_p, index, *ops, *nz_tangents, branches=jvps)
    n_out = len(out_avals)
    return outs[:n_out], tangents_with_zeros(outs[n_out:], out_avals, out_nz)


jvp_rules[cond_p] = _cond_jvp


# --- partial evaluation --------------------------------------------------------------------------


class _SplitBranches(NamedTuple):
    known: tuple[ClosedJaxpr, ...]  # known operands -> (*known outputs, *residuals)
    unknown: tuple[ClosedJaxpr, ...]  # (*residuals, *unknown operands) -> unknown outputs
    out_unknowns: list[bool]
    res_avals: list[ShapedArray]


def _split_branches(branches: Sequence[ClosedJaxpr], in_unknowns: Sequence[bool]) -> _SplitBranches:
    """Partially evaluate every branch with the same unknown inputs and outputs, then join
    their residuals so that the known and the unknown branches each share one type."""
    out_uks = [False] * len(branches[0].out_avals)
    for b in branches:
        out_uks = [
            a or u for a, u in zip(out_uks, partial_eval_jaxpr(b, in_unknowns)[2], strict=True)
        ]
    splits = [partial_eval_jaxpr(b, in_unknowns, out_uks) for b in branches]
    known, res_avals = join_residuals([s[0] for s in splits], [s[3] for s in splits])
    unknown = []
    before = 0
    for _, u, _, nres in splits:
        u = add_inputs(u, res_avals[:before], 0)
        unknown.append(add_inputs(u, res_avals[before + nres :], before + nres))
        before += nres
    return _SplitBranches(tuple(known), tuple(unknown), out_uks, res_avals)


def _cond_partial_eval(
    trace: PartialEvalTrace, tracers: list[Any], *, branches: tuple[ClosedJaxpr, ...]
) -> list[Any]:
    index, *ops = tracers
    if not index.is_known:
        return trace.new_eqn_tracers(
            cond_p, tracers, {"branches": branches}, _joined_out_avals(branches)
        )
    in_uks = [not t.is_known for t in ops]
    split = _split_branches(branches, in_uks)
    known_vals = [t.const for t in ops if t.is_known]
    outs = bind(cond_p, index.const, *known_vals, branches=split.known)
    n_known = len(outs) - len(split.res_avals)
    res = [trace.pure(r) for r in outs[n_known:]]
    unknown_avals = [
        a for a, uk in zip(_joined_out_avals(branches), split.out_unknowns, strict=True) if uk
    ]
    unknown_ins = [t for t in ops if not t.is_known]
    outs_unknown = trace.new_eqn_tracers(
        cond_p, [index, *res, *unknown_ins], {"branches": split.unknown}, unknown_avals
    )
    known_it, unknown_it = iter(outs[:n_known]), iter(outs_unknown)
    return [next(unknown_it) if uk else next(known_it) for uk in split.out_unknowns]


partial_eval_rules[cond_p] = _cond_partial_eval


def _cond_partial_eval_jaxpr(
    unks_in: list[bool], eqn: JaxprEqn
) -> tuple[JaxprEqn | None, JaxprEqn | None, list[bool], list[Var]]:
    index, *ops = eqn.inputs
    index_unknown, *op_uks = unks_in
    if index_unknown:
        res = [x for x, uk in zip(eqn.inputs, unks_in, strict=True) if not uk and type(x) is Var]
        return None, eqn, [True] * len(eqn.out_binders), res
    split = _split_branches(eqn.params["branches"], op_uks)
    res_vars = [Var(a) for a in split.res_avals]
    outs_known = [v for v, uk in zip(eqn.out_binders, split.out_unknowns, strict=True) if not uk]
    outs_unknown = [v for v, uk in zip(eqn.out_binders, split.out_unknowns, strict=True) if uk]
    ins_known = [x for x, uk in zip(ops, op_uks, strict=True) if not uk]
    ins_unknown = [x for x, uk in zip(ops, op_uks, strict=True) if uk]
    eqn1 = JaxprEqn(
        cond_p, [index, *ins_known], {"branches": split.known}, [*outs_known, *res_vars]
    )
    eqn2 = JaxprEqn(
        cond_p, [index, *res_vars, *ins_unknown], {"branches": split.unknown}, outs_unknown
    )
    res = [index, *res_vars] if type(index) is Var else res_vars
    return (
        eqn1 if outs_known or res_vars else None,
        eqn2 if outs_unknown else None,
        split.out_unknowns,
        res,
    )


partial_eval_jaxpr_rules[cond_p] = _cond_partial_eval_jaxpr


# --- transposition -------------------------------------------------------------------------------


def _transpose_branch(
    closed: ClosedJaxpr, linear: Sequence[bool], ct_nonzero: Sequence[bool]
) -> ClosedJaxpr:
    """The transpose of ``closed`` w.r.t. the arguments flagged ``linear``: it takes the
    non-linear arguments and the cotangents of the outputs flagged ``ct_nonzero`` (the others
    are zero), and returns the cotangents of the linear arguments (zeros instantiated)."""
    in_avals = closed.in_avals
    out_avals = closed.out_avals
    n_res = linear.count(False)

    def transposed(*args: object) -> list[Any]:
        res = iter(args[:n_res])
        primals = [
            UndefPrimal(a) if lin else next(res) for a, lin in zip(in_avals, linear, strict=True)
        ]
        cts_out = tangents_with_zeros(args[n_res:], out_avals, ct_nonzero)
        cts_in = backward_pass(closed.jaxpr, [*closed.consts, *primals], cts_out)
        return [instantiate_zeros(ct) for ct in cts_in]

    res_avals = [a for a, lin in zip(in_avals, linear, strict=True) if not lin]
    ct_avals = [tangent_aval(a) for a, nz in zip(out_avals, ct_nonzero, strict=True) if nz]
    return trace_to_closed_jaxpr(transposed, [*res_avals, *ct_avals])


def _cond_transpose(
    cts: list[Any], index: object, *ops: object, branches: tuple[ClosedJaxpr, ...]
) -> list[Any]:
    if type(index) is UndefPrimal:
        raise TypeError("cond: the branch index cannot be a linear input")
    linear = [type(x) is UndefPrimal for x in ops]
    ct_nonzero = [type(ct) is not Zero for ct in cts]
    transposed = tuple(_transpose_branch(b, linear, ct_nonzero) for b in branches)
    res = [x for x in ops if type(x) is not UndefPrimal]
    nz_cts = [ct for ct in cts if type(ct) is not Zero]
    outs = iter(bind(cond_p, index, *res, *nz_cts, branches=transposed))
    return [None, *(next(outs) if lin else None for lin in linear)]


transpose_rules[cond_p] = _cond_transpose


# --- batching ------------------------------------------------------------------------------------


def _cond_vmap(
    axis_size: int,
    vals_in: list[Any],
    dims_in: list[BatchDim],
    *,
    branches: tuple[ClosedJaxpr, ...],
) -> tuple[list[Any], list[BatchDim]]:
    index, *ops = vals_in
    index_dim, *op_dims = dims_in
    if index_dim is not not_mapped:
        # Each example takes its own branch: run every branch on the whole batch and select
        # (as JAX does; branches have no side effects, so this only costs compute). Branch k
        # sees its float operands under stop_gradient in the examples that do not take it, as
        # JAX's: reverse mode then sends no cotangent through a branch an example did not take
        # (a sqrt at 0 there would make it NaN).
        index = move_batch_axis(axis_size, index_dim, 0, index)
        outs = []
        for k, b in enumerate(branches):
            taken = lax.eq(index, np.asarray(k, get_aval(index).dtype))
            ops_k, dims_k = [], []
            for x, d in zip(ops, op_dims, strict=True):
                if is_inexact(get_aval(x).dtype):
                    x = move_batch_axis(axis_size, d, 0, x)
                    which = lax.broadcast_in_dim(taken, get_aval(x).shape, (0,))
                    x, d = lax.select(which, x, stop_gradient(x)), 0
                ops_k.append(x)
                dims_k.append(d)
            outs.append(eval_jaxpr(vmap_jaxpr(b, axis_size, dims_k, instantiate=True)[0], ops_k))
        selected = []
        for cases in zip(*outs, strict=True):
            which = lax.broadcast_in_dim(index, get_aval(cases[0]).shape, (0,))
            selected.append(lax.select_n(which, *cases))
        return selected, [0] * len(selected)
    first = [vmap_jaxpr(b, axis_size, op_dims) for b in branches]
    out_batched = [
        any(d is not not_mapped for d in dims) for dims in zip(*(d for _, d in first), strict=True)
    ]
    batched = tuple(vmap_jaxpr(b, axis_size, op_dims, instantiate=out_batched)[0] for b in branches)
    outs = bind(cond_p, index, *ops, branches=batched)
    return outs, [0 if b else not_mapped for b in out_batched]


vmap_rules[cond_p] = _cond_vmap


# --- lowering ------------------------------------------------------------------------------------


def _cond_lowering(
    ctx: LoweringContext,
    avals_in: list[ShapedArray],
    avals_out: list[ShapedArray],
    in_vals: list[Value],
    *,
    branches: tuple[ClosedJaxpr, ...],
) -> list[Value]:
    """Two branches: ``stablehlo.if``; more: ``stablehlo.case`` (the index is in range). A
    constant index (``platform_dependent``'s) lowers only the branch it selects, inline."""
    index, *ops = in_vals
    chosen = _constant_index(index)
    if chosen is not None:
        return ctx.lower_jaxpr(branches[min(max(chosen, 0), len(branches) - 1)], ops)
    out_types = [aval_to_ir_type(a) for a in avals_out]
    op: hlo.IfOp | hlo.CaseOp
    if len(branches) == 2:
        zero = ir_constant(np.zeros((), avals_in[0].dtype))
        pred = hlo.compare(index, zero, hlo.ComparisonDirectionAttr.get("NE"))
        op = hlo.IfOp(out_types, pred)
        regions = [op.false_branch, op.true_branch]
    else:
        op = hlo.CaseOp(out_types, index, num_branches=len(branches))
        regions = list(op.branches)
    for region, branch in zip(regions, branches, strict=True):
        with ir.InsertionPoint(region.blocks.append()):
            hlo.return_(ctx.lower_jaxpr(branch, ops))
    return [*op.results]


def _constant_index(index: Value) -> int | None:
    """The value of ``index`` if a ``stablehlo.constant`` defines it, else None."""
    owner = index.owner
    op = owner.operation if isinstance(owner, ir.OpView) else owner
    if not isinstance(op, ir.Operation) or op.name != "stablehlo.constant":
        return None
    return int(np.asarray(ir.DenseElementsAttr(op.attributes["value"])).reshape(()))


lowering_rules[cond_p] = _cond_lowering


def _cond_vma(ins: Sequence[Vma], params: dict[str, Any]) -> list[Vma]:
    """Inside a ``shard_map``: what any branch's outputs vary over (JAX joins the branches;
    the index's own axes are not added)."""
    per_branch = [closed_vma(b, ins[1:]) for b in params["branches"]]
    return [frozenset().union(*outs) for outs in zip(*per_branch, strict=True)]


vma_rules[cond_p] = _cond_vma
