"""``custom_gradient``: JAX's decorator for a function returning ``(value, vjp_rule)``, built
on :class:`custom_vjp`.

The rule may close over anything the forward pass computed, including traced values. Like
JAX, the forward pass traces the rule into a jaxpr right away; the values it closes over
become that jaxpr's constants, which travel as the ``custom_vjp`` residuals (so nothing
leaks out of the transformation that made them).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Iterable
from typing import Any

from mj_autodiff._custom_derivatives import custom_vjp
from mj_autodiff._tangents import tangent_aval_of
from mj_core.errors import user_line_suffix
from mj_core.tree_util import (
    PyTreeDef,
    flatten_fun,
    register_pytree_node,
    tree_flatten,
    tree_unflatten,
    treedef_is_leaf,
)
from mj_ir import Jaxpr, eval_jaxpr
from mj_ir.extend import trace_to_jaxpr

__all__ = ["custom_gradient"]


class _RuleResiduals:
    """The traced VJP rule: its jaxpr and trees (static) and its constants (the residuals)."""

    __slots__ = ("consts", "in_tree", "jaxpr", "out_tree")

    def __init__(
        self, jaxpr: Jaxpr, in_tree: PyTreeDef, out_tree: PyTreeDef, consts: list[Any]
    ) -> None:
        self.jaxpr = jaxpr
        self.in_tree = in_tree
        self.out_tree = out_tree
        self.consts = consts


def _flatten_residuals(r: _RuleResiduals) -> tuple[list[Any], Hashable]:
    return r.consts, (r.jaxpr, r.in_tree, r.out_tree)


def _unflatten_residuals(aux: Any, children: Iterable[Any]) -> _RuleResiduals:
    jaxpr, in_tree, out_tree = aux
    return _RuleResiduals(jaxpr, in_tree, out_tree, list(children))


register_pytree_node(_RuleResiduals, _flatten_residuals, _unflatten_residuals)


def _split(fun: Callable[..., Any], args: tuple[Any, ...]) -> tuple[Any, Callable[..., Any]]:
    res = fun(*args)
    if not (isinstance(res, tuple | list) and len(res) == 2 and callable(res[1])):
        raise TypeError(
            "custom_gradient: the decorated function must return a pair (value, vjp_rule) "
            f"with a callable rule, got {type(res).__name__}{user_line_suffix()}"
        )
    return res[0], res[1]


def custom_gradient(fun: Callable[..., Any]) -> custom_vjp:
    """Decorate ``fun(*args) -> (value, rule)``, where ``rule(value_cotangent)`` returns the
    cotangents of the arguments (a tuple, or the bare cotangent for a single argument)."""

    @functools.wraps(fun)
    def primal(*args: Any) -> Any:
        return _split(fun, args)[0]

    def fwd(*args: Any) -> tuple[Any, _RuleResiduals]:
        ans, rule = _split(fun, args)
        ans_flat, out_tree = tree_flatten((ans,))
        flat_rule, in_store = flatten_fun(rule, out_tree)
        jaxpr, consts = trace_to_jaxpr(flat_rule, [tangent_aval_of(x) for x in ans_flat])
        return ans, _RuleResiduals(jaxpr, in_store(), out_tree, list(consts))

    def bwd(res: _RuleResiduals, ct: Any) -> tuple[Any, ...]:
        cts_flat, ct_tree = tree_flatten((ct,))
        if ct_tree != res.out_tree:
            raise TypeError(
                f"custom_gradient: cotangent structure {ct_tree} does not match the output "
                f"structure {res.out_tree}{user_line_suffix()}"
            )
        cts_out = tree_unflatten(res.in_tree, eval_jaxpr(res.jaxpr, [*res.consts, *cts_flat]))
        return (cts_out,) if treedef_is_leaf(res.in_tree) else tuple(cts_out)

    wrapped = custom_vjp(primal)
    wrapped.defvjp(fwd, bwd)
    return wrapped
