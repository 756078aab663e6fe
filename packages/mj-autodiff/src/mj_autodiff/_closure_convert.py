"""``closure_convert``: make a function's closed-over traced values explicit arguments.

``custom_vjp``/``custom_jvp`` rules, and the solvers built on them, must not close over
values being differentiated: JAX's answer is to trace the function once and hoist the
closed-over *tracers* out as extra arguments. Concrete closed-over arrays stay inside.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mj_core import Tracer, get_aval, raise_to_shaped
from mj_core.errors import user_line_suffix
from mj_core.tree_util import PyTreeDef, flatten_fun, tree_flatten, tree_unflatten
from mj_ir import Jaxpr, eval_jaxpr
from mj_ir.extend import trace_to_jaxpr

__all__ = ["closure_convert"]


class _Converted:
    """``fun`` as a function of ``(*args, *hoisted_consts)``."""

    __slots__ = ("closure_consts", "hoisted", "in_tree", "jaxpr", "out_tree")

    def __init__(
        self,
        jaxpr: Jaxpr,
        consts: list[Any],
        hoisted: list[bool],
        in_tree: PyTreeDef,
        out_tree: PyTreeDef,
    ) -> None:
        self.jaxpr = jaxpr
        self.closure_consts = [c for c, h in zip(consts, hoisted, strict=True) if not h]
        self.hoisted = hoisted
        self.in_tree = in_tree
        self.out_tree = out_tree

    def __call__(self, *args_and_consts: Any) -> Any:
        n_args = len(args_and_consts) - sum(self.hoisted)
        args, hoisted_vals = args_and_consts[:n_args], iter(args_and_consts[n_args:])
        closure_vals = iter(self.closure_consts)
        consts = [next(hoisted_vals) if h else next(closure_vals) for h in self.hoisted]
        flat, in_tree = tree_flatten(tuple(args))
        if in_tree != self.in_tree:
            raise TypeError(
                "closure_convert: the converted function expects arguments of structure "
                f"{self.in_tree} (then the hoisted constants), got {in_tree}{user_line_suffix()}"
            )
        return tree_unflatten(self.out_tree, eval_jaxpr(self.jaxpr, [*consts, *flat]))


def closure_convert(
    fun: Callable[..., Any], *example_args: Any
) -> tuple[Callable[..., Any], list[Any]]:
    """``(converted_fun, hoisted_consts)`` with ``converted_fun(*args, *hoisted_consts) ==
    fun(*args)``: the traced values ``fun`` closes over, hoisted out as arguments."""
    flat, in_tree = tree_flatten(example_args)
    in_avals = [raise_to_shaped(get_aval(x)) for x in flat]
    flat_fun, out_store = flatten_fun(fun, in_tree)
    jaxpr, consts = trace_to_jaxpr(flat_fun, in_avals)
    hoisted = [isinstance(c, Tracer) for c in consts]
    converted = _Converted(jaxpr, list(consts), hoisted, in_tree, out_store())
    return converted, [c for c, h in zip(consts, hoisted, strict=True) if h]
