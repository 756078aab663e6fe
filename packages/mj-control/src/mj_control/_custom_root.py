"""``custom_root``: a root-finder differentiated implicitly at its solution, never through its
iterations (JAX's semantics).

``custom_root(f, x0, solve, tangent_solve)`` returns ``solve(f, x0)``, a root of ``f``. By the
implicit function theorem its tangent is ``-tangent_solve(J, df)`` where ``J`` is ``f``
linearised at the root and ``df`` the tangent of ``f`` through the values it closes over. As in
JAX it is no primitive of its own but a ``custom_jvp`` function (``_custom_root``) whose
operands are the traced callables' constants, so every transformation already handles it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, NamedTuple

from mj_autodiff import custom_jvp, jvp, linearize
from mj_control._tracing import check_out_tree, shaped_avals, split_groups, trace_fun
from mj_core import lax
from mj_core import numpy as mnp
from mj_core.tree_util import tree_flatten, tree_unflatten, treedef_children
from mj_ir import ClosedJaxpr

__all__ = ["custom_root"]


class _RootJaxprs(NamedTuple):
    f: ClosedJaxpr
    solve: ClosedJaxpr
    l_and_s: ClosedJaxpr


class _RootLengths(NamedTuple):
    f: int
    solve: int
    l_and_s: int


def custom_root(
    f: Callable[..., Any],
    initial_guess: object,
    solve: Callable[[Callable[..., Any], Any], Any],
    tangent_solve: Callable[[Callable[..., Any], Any], Any],
    has_aux: bool = False,
) -> Any:
    """A root of ``f`` found by ``solve(f, initial_guess)``, differentiated implicitly.

    Arguments:
        f: the function whose root is sought; it maps ``initial_guess``'s pytree to one of
            the same structure and may close over values being differentiated.
        initial_guess: where ``solve`` starts; it gets no derivative.
        solve: ``solve(f, initial_guess) -> root`` (``(root, aux)`` with ``has_aux``); never
            differentiated, so it may use ``while_loop``.
        tangent_solve: ``tangent_solve(g, y) -> x`` solving the linear system ``g(x) = y``
            for the linearisation ``g`` of ``f`` at the root (``lambda g, y: y / g(1.0)``
            for a scalar).
        has_aux: whether ``solve`` also returns auxiliary data (which gets zero derivative).

    Returns:
        ``solve``'s result, whose derivatives come from ``tangent_solve`` at the root.
    """
    guess_flat, in_args_tree = tree_flatten((initial_guess,))
    (in_tree,) = treedef_children(in_args_tree)
    guess_avals = shaped_avals(guess_flat)
    f_traced = trace_fun(f, in_args_tree, guess_avals)
    check_out_tree("f", "initial_guess", f_traced.out_tree, in_tree, False)
    solve_traced = trace_fun(functools.partial(solve, f), in_args_tree, guess_avals)
    solution_tree = solve_traced.out_tree
    check_out_tree("solve", "initial_guess", solution_tree, in_tree, has_aux)

    def linearize_and_solve(x: object, b: object) -> Any:
        _, f_jvp = linearize(f, x)
        return tangent_solve(f_jvp, b)

    _, pair_tree = tree_flatten((initial_guess, initial_guess))
    l_and_s_traced = trace_fun(linearize_and_solve, pair_tree, guess_avals * 2)
    check_out_tree("tangent_solve", "x", l_and_s_traced.out_tree, in_tree, False)
    traced = (f_traced, solve_traced, l_and_s_traced)
    lengths = _RootLengths(*(len(t.consts) for t in traced))
    jaxprs = _RootJaxprs(*(t.closed() for t in traced))
    consts = [c for t in traced for c in t.consts]
    solution_flat = _custom_root(lengths, jaxprs, *consts, *guess_flat)
    return tree_unflatten(solution_tree, solution_flat)


def _root(lengths: _RootLengths, jaxprs: _RootJaxprs, *args: object) -> list[Any]:
    (_, solve_consts, _), guess = split_groups(args, lengths)
    return jaxprs.solve(*solve_consts, *guess)


_custom_root = custom_jvp(_root, nondiff_argnums=(0, 1))


@_custom_root.defjvp
def _root_jvp(
    lengths: _RootLengths,
    jaxprs: _RootJaxprs,
    primals: tuple[Any, ...],
    tangents: tuple[Any, ...],
) -> tuple[list[Any], list[Any]]:
    """``f(m, u*(m)) = 0`` gives ``du* = -(d_u f)^-1 (d_m f) dm``: the tangent of ``f``
    through its constants at the solution, solved by ``tangent_solve``."""
    (f_consts, _, l_and_s_consts), _ = split_groups(primals, lengths)
    (f_dots, _, _), _ = split_groups(tangents, lengths)
    outs = _custom_root(lengths, jaxprs, *primals)
    n_out = len(jaxprs.f.out_avals)
    solution, aux = outs[:n_out], outs[n_out:]

    def f_at_solution(*consts: object) -> list[Any]:
        return jaxprs.f(*consts, *solution)

    if f_consts:
        _, rhs = jvp(f_at_solution, tuple(f_consts), tuple(f_dots))
    else:
        rhs = [mnp.zeros_like(s) for s in solution]
    solution_dot = [lax.neg(t) for t in jaxprs.l_and_s(*l_and_s_consts, *solution, *rhs)]
    return [*solution, *aux], [*solution_dot, *(mnp.zeros_like(a) for a in aux)]
