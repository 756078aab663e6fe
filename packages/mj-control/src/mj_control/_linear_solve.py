"""``custom_linear_solve``: a linear solve differentiated as the solution of ``A x = b``,
never through the solver's iterations (JAX's semantics).

``custom_linear_solve(matvec, b, solve, transpose_solve)`` returns ``solve(matvec, b)`` and is
the primitive ``custom_linear_solve`` (``linear_solve_p``): its JVP is another linear solve
(``dx = A^-1 (db - dA x)``), its transpose solves the transposed system with
``transpose_solve`` and ``vecmat`` (``matvec`` transposed by autodiff), vmap batches the four
jaxprs consistently, and lowering inlines ``solve``. All its rules are registered here.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from mj_autodiff import jvp, vjp
from mj_autodiff.extend import (
    UndefPrimal,
    Zero,
    add_tangents,
    instantiate_zeros,
    jvp_rules,
    transpose_rules,
)
from mj_batch.extend import BatchDim, move_batch_axis, not_mapped, vmap_jaxpr, vmap_rules
from mj_control._tracing import check_out_tree, shaped_avals, split_groups, trace_fun
from mj_core import Primitive, ShapedArray, bind, get_aval, impl_rules, lax, raise_to_shaped
from mj_core import numpy as mnp
from mj_core.errors import user_line_suffix
from mj_core.tree_util import PyTreeDef, tree_flatten, tree_leaves, tree_unflatten, treedef_children
from mj_ir import ClosedJaxpr, abstract_eval_rules
from mj_xla.extend import LoweringContext, Value, lowering_rules

__all__ = ["custom_linear_solve", "linear_solve_p"]


def _trace(
    fun: Callable[..., Any], in_tree: PyTreeDef, in_avals: Sequence[ShapedArray]
) -> tuple[ClosedJaxpr, list[Any], PyTreeDef]:
    """``fun`` traced on flat abstract arguments: a const-free jaxpr taking its constants
    (values it closes over, possibly tracers of enclosing transformations) first."""
    traced = trace_fun(fun, in_tree, in_avals)
    return traced.closed(), traced.consts, traced.out_tree


def _check_shapes(func_name: str, actual: object, expected: Sequence[Any]) -> None:
    actual_shapes = [tuple(get_aval(x).shape) for x in tree_leaves(actual)]
    expected_shapes = [tuple(get_aval(x).shape) for x in expected]
    if actual_shapes != expected_shapes:
        raise ValueError(
            f"{func_name}() output shapes must match b, got {actual_shapes} and "
            f"{expected_shapes}{user_line_suffix()}"
        )


class _SolveJaxprs(NamedTuple):
    matvec: ClosedJaxpr
    vecmat: ClosedJaxpr | None
    solve: ClosedJaxpr
    transpose_solve: ClosedJaxpr | None

    def transpose(self) -> _SolveJaxprs:
        assert self.vecmat is not None
        assert self.transpose_solve is not None
        return _SolveJaxprs(self.vecmat, self.matvec, self.transpose_solve, self.solve)


class _SolveLengths(NamedTuple):
    matvec: int
    vecmat: int
    solve: int
    transpose_solve: int

    def transpose(self) -> _SolveLengths:
        return _SolveLengths(self.vecmat, self.matvec, self.transpose_solve, self.solve)


linear_solve_p = Primitive("custom_linear_solve", multiple_results=True)


def custom_linear_solve(
    matvec: Callable[[Any], Any],
    b: object,
    solve: Callable[[Callable[[Any], Any], Any], Any],
    transpose_solve: Callable[[Callable[[Any], Any], Any], Any] | None = None,
    symmetric: bool = False,
    has_aux: bool = False,
) -> Any:
    """``solve(matvec, b)``, differentiated as the solution of ``matvec(x) == b``.

    Arguments:
        matvec: the linear map ``x -> A x`` (differentiable; it may close over values being
            differentiated).
        b: the right-hand side, any pytree of arrays.
        solve: ``solve(matvec, b) -> x`` (``(x, aux)`` with ``has_aux``); never
            differentiated.
        transpose_solve: ``transpose_solve(vecmat, b) -> x`` for the transposed system
            (``vecmat`` is ``matvec`` transposed by autodiff); needed for reverse mode unless
            ``symmetric``.
        symmetric: ``matvec`` is symmetric, so ``solve`` also solves the transposed system.
        has_aux: ``solve`` and ``transpose_solve`` return ``(x, aux)``.

    Returns:
        ``solve``'s result (``(x, aux)`` with ``has_aux``).
    """
    if transpose_solve is None and symmetric:
        transpose_solve = solve
    b_flat, in_args_tree = tree_flatten((b,))
    (tree,) = treedef_children(in_args_tree)
    b_avals = shaped_avals(b_flat)

    def shape_checked(fun: Callable[[Any], Any], name: str, aux: bool) -> Callable[[Any], Any]:
        def checked(x: object) -> Any:
            y = fun(x)
            _check_shapes(name, y[0] if aux else y, b_flat)
            return y

        return checked

    matvec_jaxpr, matvec_consts, out_tree = _trace(
        shape_checked(matvec, "matvec", False), in_args_tree, b_avals
    )
    check_out_tree("matvec", "b", out_tree, tree, False)
    solve_jaxpr, solve_consts, solution_tree = _trace(
        shape_checked(functools.partial(solve, matvec), "solve", has_aux), in_args_tree, b_avals
    )
    check_out_tree("solve", "b", solution_tree, tree, has_aux)
    vecmat_jaxpr: ClosedJaxpr | None = None
    tr_solve_jaxpr: ClosedJaxpr | None = None
    vecmat_consts: list[Any] = []
    tr_solve_consts: list[Any] = []
    if transpose_solve is not None:
        if symmetric:
            vecmat, vecmat_jaxpr, vecmat_consts = matvec, matvec_jaxpr, matvec_consts
        else:
            vecmat = _transposed(matvec, b_avals, tree)
            vecmat_jaxpr, vecmat_consts, _ = _trace(vecmat, in_args_tree, b_avals)
        tr_solve_jaxpr, tr_solve_consts, out_tree = _trace(
            shape_checked(functools.partial(transpose_solve, vecmat), "transpose_solve", has_aux),
            in_args_tree,
            b_avals,
        )
        check_out_tree("transpose_solve", "b", out_tree, tree, has_aux)
    lengths = _SolveLengths(
        len(matvec_consts), len(vecmat_consts), len(solve_consts), len(tr_solve_consts)
    )
    jaxprs = _SolveJaxprs(matvec_jaxpr, vecmat_jaxpr, solve_jaxpr, tr_solve_jaxpr)
    consts = [*matvec_consts, *vecmat_consts, *solve_consts, *tr_solve_consts]
    out_flat = bind(linear_solve_p, *consts, *b_flat, const_lengths=lengths, jaxprs=jaxprs)
    return tree_unflatten(solution_tree, out_flat)


def _transposed(
    matvec: Callable[[Any], Any], b_avals: Sequence[ShapedArray], tree: PyTreeDef
) -> Callable[[Any], Any]:
    """``vecmat``: the transpose of the linear ``matvec``, its VJP at zero (any point gives
    the same linear map, and zeros keep ``b`` out of ``vecmat``'s constants)."""

    def vecmat(y: object) -> Any:
        zeros = tree_unflatten(tree, [mnp.zeros(a.shape, a.dtype) for a in b_avals])
        _, pullback = vjp(matvec, zeros)
        return pullback(y)[0]

    return vecmat


def _linear_solve_impl(*args: object, const_lengths: _SolveLengths, jaxprs: _SolveJaxprs) -> Any:
    (_, _, solve_consts, _), b = split_groups(args, const_lengths)
    return jaxprs.solve(*solve_consts, *b)


impl_rules[linear_solve_p] = _linear_solve_impl


def _linear_solve_abstract_eval(
    *avals: ShapedArray, const_lengths: _SolveLengths, jaxprs: _SolveJaxprs
) -> list[ShapedArray]:
    _, b_avals = split_groups(avals, const_lengths)
    aux_avals = jaxprs.solve.out_avals[len(b_avals) :]
    return [raise_to_shaped(a) for a in b_avals] + list(aux_avals)


abstract_eval_rules[linear_solve_p] = _linear_solve_abstract_eval


def _linear_solve_jvp(
    primals: list[Any],
    tangents: list[Any],
    *,
    const_lengths: _SolveLengths,
    jaxprs: _SolveJaxprs,
) -> tuple[list[Any], list[Any]]:
    """``A x = b`` gives ``dx = A^-1 (db - dA x)``: one more linear solve."""
    params = {"const_lengths": const_lengths, "jaxprs": jaxprs}
    x = bind(linear_solve_p, *primals, **params)
    (matvec_consts, *_), b = split_groups(primals, const_lengths)
    (matvec_dots, *_), b_dot = split_groups(tangents, const_lengths)
    n_b = len(b)
    x_leaves, aux = x[:n_b], x[n_b:]
    aux_dots = [Zero(raise_to_shaped(get_aval(a))) for a in aux]
    matvec_moves = any(type(t) is not Zero for t in matvec_dots)
    if not matvec_moves and all(type(t) is Zero for t in b_dot):
        return x, [*(Zero(raise_to_shaped(get_aval(v))) for v in x_leaves), *aux_dots]
    rhs = list(b_dot)
    if matvec_moves:

        def matvec_at_x(*consts: object) -> list[Any]:
            return jaxprs.matvec(*consts, *x_leaves)

        dots = tuple(instantiate_zeros(t) for t in matvec_dots)
        _, moved = jvp(matvec_at_x, tuple(matvec_consts), dots)
        rhs = [add_tangents(r, lax.neg(m)) for r, m in zip(rhs, moved, strict=True)]
    n_consts = sum(const_lengths)
    x_dot = bind(
        linear_solve_p, *primals[:n_consts], *(instantiate_zeros(r) for r in rhs), **params
    )
    return x, [*x_dot[:n_b], *aux_dots]


jvp_rules[linear_solve_p] = _linear_solve_jvp


def _linear_solve_transpose(
    cts: list[Any], *args: object, const_lengths: _SolveLengths, jaxprs: _SolveJaxprs
) -> list[Any]:
    if jaxprs.transpose_solve is None:
        raise TypeError(
            "transpose_solve required for backwards mode automatic differentiation of "
            "custom_linear_solve"
        )
    n_consts = sum(const_lengths)
    consts, b = args[:n_consts], args[n_consts:]
    if any(type(c) is UndefPrimal for c in consts):
        raise TypeError(
            "custom_linear_solve: the values matvec or solve close over cannot be linear "
            "inputs of its transpose"
        )
    x_cts = [instantiate_zeros(ct) for ct in cts[: len(b)]]
    groups, _ = split_groups(consts, const_lengths)
    transposed = [groups[1], groups[0], groups[3], groups[2]]
    flat = [c for group in transposed for c in group]
    b_cts = bind(
        linear_solve_p,
        *flat,
        *x_cts,
        const_lengths=const_lengths.transpose(),
        jaxprs=jaxprs.transpose(),
    )
    return [None] * n_consts + list(b_cts[: len(b)])


transpose_rules[linear_solve_p] = _linear_solve_transpose


def _batch(
    closed: ClosedJaxpr | None, axis_size: int, batched: Sequence[bool], force: Sequence[bool]
) -> tuple[ClosedJaxpr | None, list[bool]]:
    if closed is None:
        return None, []
    dims = [0 if b else not_mapped for b in batched]
    out, out_dims = vmap_jaxpr(closed, axis_size, dims, instantiate=list(force))
    return out, [d is not not_mapped for d in out_dims]


def _linear_solve_vmap(
    axis_size: int,
    vals_in: list[Any],
    dims_in: list[BatchDim],
    *,
    const_lengths: _SolveLengths,
    jaxprs: _SolveJaxprs,
) -> tuple[list[Any], list[BatchDim]]:
    """JAX's fixpoint: which parts of ``x`` and ``b`` are batched must agree across the four
    jaxprs (``solve``/``vecmat`` map ``b``-like to ``x``-like values, ``matvec`` and
    ``transpose_solve`` the other way)."""
    in_batched = [d is not not_mapped for d in dims_in]
    (mv_bat, vm_bat, s_bat, ts_bat), orig_b_bat = split_groups(in_batched, const_lengths)
    n_b = len(orig_b_bat)
    n_out = len(jaxprs.solve.out_avals)
    b_bat, x_bat = list(orig_b_bat), [False] * n_out
    for _ in range(1 + n_b + n_out):
        solve_b, solve_x_bat = _batch(jaxprs.solve, axis_size, s_bat + b_bat, x_bat)
        vecmat_b, vecmat_x_bat = _batch(jaxprs.vecmat, axis_size, vm_bat + b_bat, b_bat)
        x_bat_out = list(solve_x_bat)
        if jaxprs.vecmat is not None:
            x_bat_out = [
                a or v
                for a, v in zip(x_bat_out, vecmat_x_bat + [True] * (n_out - n_b), strict=True)
            ]
        matvec_b, matvec_b_bat = _batch(jaxprs.matvec, axis_size, mv_bat + x_bat_out[:n_b], b_bat)
        tr_b, tr_bat = _batch(
            jaxprs.transpose_solve, axis_size, ts_bat + x_bat_out[:n_b], x_bat_out
        )
        b_bat_out = [m or o for m, o in zip(matvec_b_bat, orig_b_bat, strict=True)]
        if tr_bat:
            b_bat_out = [m or t for m, t in zip(b_bat_out, tr_bat[:n_b], strict=True)]
        if x_bat_out == x_bat and b_bat_out == b_bat:
            break
        x_bat, b_bat = x_bat_out, b_bat_out
    assert matvec_b is not None
    assert solve_b is not None
    batched = _SolveJaxprs(matvec_b, vecmat_b, solve_b, tr_b)
    n_consts = sum(const_lengths)
    consts = [
        move_batch_axis(axis_size, d, 0, v) if d is not not_mapped else v
        for v, d in zip(vals_in[:n_consts], dims_in[:n_consts], strict=True)
    ]
    b = [
        move_batch_axis(axis_size, d, 0, v) if now else v
        for v, d, now in zip(vals_in[n_consts:], dims_in[n_consts:], b_bat, strict=True)
    ]
    outs = bind(linear_solve_p, *consts, *b, const_lengths=const_lengths, jaxprs=batched)
    return outs, [0 if bat else not_mapped for bat in x_bat]


vmap_rules[linear_solve_p] = _linear_solve_vmap


def _linear_solve_lowering(
    ctx: LoweringContext,
    avals_in: list[ShapedArray],
    avals_out: list[ShapedArray],
    in_vals: list[Value],
    *,
    const_lengths: _SolveLengths,
    jaxprs: _SolveJaxprs,
) -> list[Value]:
    (_, _, solve_consts, _), b = split_groups(in_vals, const_lengths)
    return ctx.lower_jaxpr(jaxprs.solve, [*solve_consts, *b])


lowering_rules[linear_solve_p] = _linear_solve_lowering
