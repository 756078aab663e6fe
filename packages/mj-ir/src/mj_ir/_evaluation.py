"""Evaluating a jaxpr: the reference interpreter.

Every equation is applied with :func:`mj_core.bind`, so evaluating a jaxpr under a
transformation (jvp, vmap, make_jaxpr, ...) transforms it: ``eval_jaxpr`` is the way
higher-order primitives run their sub-programs. The read/write-environment loop here is the
pattern every other jaxpr interpreter (transpose, lowering, a user's own) follows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from mj_core.extend import bind, unchanged, user_line_suffix
from mj_ir._jaxpr import ClosedJaxpr, Jaxpr, Var

__all__ = ["eval_jaxpr", "jaxpr_as_fun"]


def eval_jaxpr(jaxpr: Jaxpr | ClosedJaxpr, args: Sequence[Any]) -> list[Any]:
    """Evaluate ``jaxpr`` on ``args`` (values for its constant binders, then its arguments)
    and return the list of outputs. A ``ClosedJaxpr`` supplies its own constants, so ``args``
    are then the arguments only."""
    if isinstance(jaxpr, ClosedJaxpr):
        args = [*jaxpr.consts, *args]
        jaxpr = jaxpr.jaxpr
    binders = jaxpr.in_binders
    if len(args) != len(binders):
        where = user_line_suffix()
        raise TypeError(
            f"eval_jaxpr: the jaxpr takes {len(binders)} inputs (constants first, then "
            f"arguments) but {len(args)} were given{where}"
        )
    env: dict[Var, Any] = dict(zip(binders, args, strict=True))
    for eqn in jaxpr.eqns:
        in_vals = [env[x] if type(x) is Var else x.val for x in eqn.inputs]  # type: ignore[union-attr]
        outs = bind(eqn.primitive, *in_vals, **eqn.params)
        for v, val in zip(eqn.out_binders, outs, strict=True):
            env[v] = val
    # an output that is an input (or a literal) as any operation's output: never host data
    return [unchanged(env[x] if type(x) is Var else x.val) for x in jaxpr.outs]  # type: ignore[union-attr]


def jaxpr_as_fun(jaxpr: Jaxpr | ClosedJaxpr) -> Callable[..., list[Any]]:
    """A function of flat arguments evaluating ``jaxpr`` (constants first for a ``Jaxpr``)."""

    def fun(*args: Any) -> list[Any]:
        return eval_jaxpr(jaxpr, args)

    return fun
