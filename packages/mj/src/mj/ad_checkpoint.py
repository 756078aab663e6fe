"""``mj.ad_checkpoint``: gradient checkpointing (JAX's ``jax.ad_checkpoint``). The same
objects as :mod:`mj_control`'s ``checkpoint``, ``checkpoint_name`` and ``checkpoint_policies``,
and JAX's ``saved_residuals`` / ``print_saved_residuals``: what reverse mode saves."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from mj_autodiff import vjp
from mj_control import checkpoint as checkpoint
from mj_control import checkpoint_name as checkpoint_name
from mj_control import checkpoint_policies as checkpoint_policies
from mj_control import remat as remat
from mj_control.extend import name_p
from mj_core import ShapedArray
from mj_core.prims.conversions import reduce_precision_p
from mj_core.tree_util import tree_flatten, tree_leaves, tree_unflatten
from mj_ir import Jaxpr, Lit, make_jaxpr
from mj_xla.extend import arg_names, xla_call_p

__all__ = [
    "checkpoint",
    "checkpoint_name",
    "checkpoint_policies",
    "print_saved_residuals",
    "remat",
    "saved_residuals",
]


def saved_residuals(f: Callable[..., Any], *args: Any, **kwargs: Any) -> list[tuple[Any, str]]:
    """The values reverse mode saves to differentiate ``f`` at ``args`` (JAX's
    ``saved_residuals``): one ``(aval, description)`` per residual of ``vjp(f, *args)``'s
    pullback, in JAX's order and wording: literals (``from a literal``), constants
    (``from a constant``), arguments (``from the argument x[0]``), then equation outputs in
    program order (``named 'z'`` for a ``checkpoint_name``, ``output of jitted function 'g'``,
    else ``output of sin``; mj records no source lines, so none follows)."""
    in_leaves, in_tree = tree_flatten((args, kwargs))

    def f_(*leaves: Any) -> Any:
        a, kw = tree_unflatten(in_tree, list(leaves))
        return f(*a, **kw)

    def residuals(*leaves: Any) -> list[Any]:
        f_vjp = vjp(f_, *leaves)[1]
        return tree_leaves((f_vjp.args_res, f_vjp.opaque_residuals))

    closed = make_jaxpr(residuals)(*in_leaves)
    return _saved_residuals(closed.jaxpr, arg_names(f, in_tree, ()))


def _saved_residuals(jaxpr: Jaxpr, names: Sequence[str]) -> list[tuple[ShapedArray, str]]:
    res_lits = [x for x in jaxpr.outvars if isinstance(x, Lit)]
    # a reduce_precision is not the producer: its operand is (as JAX looks through it)
    through = {e.outvars[0]: e.invars[0] for e in jaxpr.eqns if e.primitive is reduce_precision_p}
    res_vars = {through.get(x, x) for x in jaxpr.outvars if not isinstance(x, Lit)}
    results: list[tuple[ShapedArray, str]] = [(x.aval, "from a literal") for x in res_lits]
    results += [(v.aval, "from a constant") for v in jaxpr.constvars if v in res_vars]
    for i, v in enumerate(jaxpr.invars):
        if v in res_vars:
            name = names[i] if i < len(names) else f"at flattened index {i}"
            results.append((v.aval, f"from the argument {name}"))
    for eqn in jaxpr.eqns:
        for v in eqn.outvars:
            if v not in res_vars:
                continue
            if eqn.primitive is name_p:
                results.append((v.aval, f"named '{eqn.params['name']}'"))
            elif eqn.primitive is xla_call_p:
                results.append((v.aval, f"output of jitted function '{eqn.params['name']}'"))
            else:
                results.append((v.aval, f"output of {eqn.primitive.name}"))
    return results


def print_saved_residuals(f: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    """Print :func:`saved_residuals`, one ``aval description`` line per residual (JAX's)."""
    for aval, src in saved_residuals(f, *args, **kwargs):
        print(f"{aval.str_short()} {src}")
