"""``while_loop`` and ``fori_loop``: the ``while`` primitive.

``while_p`` takes ``(*cond_consts, *body_consts, *carry)`` with params ``cond_jaxpr`` (carry
-> bool scalar, after its ``cond_nconsts`` constants) and ``body_jaxpr`` (carry -> carry, after
its ``body_nconsts`` constants); it returns the final carry. The trip count is data dependent,
so the loop is forward-mode differentiable only; ``fori_loop`` with static bounds is a
``scan`` instead, which reverse mode handles.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from mj_control._printing import pp_control_eqn
from mj_control._scan import scan
from mj_control._tracing import (
    cast,
    check_callable,
    check_carry,
    fix_carry_types,
    shaped_avals,
    trace_fun,
    type_tree,
    typematch,
)
from mj_core import lax
from mj_core.avals import ConcreteArray, ShapedArray, get_aval
from mj_core.dtypes import result_type
from mj_core.errors import user_location
from mj_core.primitive import Primitive, impl_rules
from mj_core.trace import bind
from mj_core.tree_util import tree_flatten, tree_structure, tree_unflatten
from mj_ir import ClosedJaxpr, abstract_eval_rules, pp_rules

__all__ = ["fori_loop", "while_loop", "while_p"]

while_p = Primitive("while", multiple_results=True)

_BOOL = np.dtype(np.bool_)


def while_loop(
    cond_fun: Callable[[Any], Any], body_fun: Callable[[Any], Any], init_val: Any
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
    )
    cond = trace_fun(cond_fun, in_tree, init_avals)
    cond_out = cond.out_avals
    if len(cond_out) != 1 or cond_out[0].shape != () or cond_out[0].dtype != _BOOL:
        where = user_location()
        raise TypeError(
            "while_loop: cond_fun must return a boolean scalar, but it returns "
            f"{type_tree(cond.out_tree, cond_out)}{' ' + where if where else ''}."
        )
    outs = bind(
        while_p,
        *cond.consts,
        *body.consts,
        *init_flat,
        cond_jaxpr=cond.closed(),
        body_jaxpr=body.closed(),
        cond_nconsts=len(cond.consts),
        body_nconsts=len(body.consts),
    )
    return tree_unflatten(carry_tree, outs)


def fori_loop(lower: Any, upper: Any, body_fun: Callable[[Any, Any], Any], init_val: Any) -> Any:
    """``val = body_fun(i, val)`` for ``i`` in ``range(lower, upper)``.

    With concrete (static) bounds the loop is a :func:`scan` of ``upper - lower`` steps, so it
    can be differentiated in reverse mode; with traced bounds it is a :func:`while_loop`.
    """
    check_callable("fori_loop", "body_fun", body_fun)
    lo_aval, hi_aval = get_aval(lower), get_aval(upper)
    for name, aval in (("lower", lo_aval), ("upper", hi_aval)):
        if aval.shape != () or aval.dtype.kind not in "iu":
            where = user_location()
            raise TypeError(
                f"fori_loop: {name} must be an integer scalar, got {aval.str_short()}"
                f"{' ' + where if where else ''}"
            )
    if isinstance(lo_aval, ConcreteArray) and isinstance(hi_aval, ConcreteArray):
        start, stop = int(lo_aval.val), int(hi_aval.val)
        dtype, weak = result_type(
            (lo_aval.dtype, lo_aval.weak_type), (hi_aval.dtype, hi_aval.weak_type)
        )
        i0 = start if weak else np.asarray(start, dtype)  # Python ints stay weakly typed

        def scan_body(carry: tuple[Any, Any], _: None) -> tuple[tuple[Any, Any], None]:
            i, val = carry
            return (lax.add(i, 1), body_fun(i, val)), None

        (_, result), _ = scan(scan_body, (i0, init_val), None, length=max(stop - start, 0))
        return result

    dtype, weak = result_type(
        (lo_aval.dtype, lo_aval.weak_type), (hi_aval.dtype, hi_aval.weak_type)
    )
    common = ShapedArray((), dtype, weak)
    lo, hi = cast(lower, common), cast(upper, common)

    def loop_cond(carry: tuple[Any, Any, Any]) -> Any:
        i, stop, _ = carry
        return lax.less(i, stop)

    def loop_body(carry: tuple[Any, Any, Any]) -> tuple[Any, Any, Any]:
        i, stop, val = carry
        return lax.add(i, 1), stop, body_fun(i, val)

    _, _, result = while_loop(loop_cond, loop_body, (lo, hi, init_val))
    return result


# --- evaluation and typing ---------------------------------------------------------------------


def _while_impl(
    *args: Any,
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
    return carry


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
    if len(body_out) != len(carry) or not all(map(typematch, body_out, carry)):
        raise TypeError(
            f"while: body_jaxpr returns ({_types(body_out)}) for a carry of ({_types(carry)})"
        )
    return list(body_out)


pp_rules[while_p] = pp_control_eqn


abstract_eval_rules[while_p] = _while_abstract_eval


def _types(avals: Any) -> str:
    return ", ".join(a.str_short() for a in avals)


def _check_ins(name: str, jaxpr: ClosedJaxpr, avals: Any) -> None:
    ins = jaxpr.in_avals
    if len(ins) != len(avals) or not all(map(typematch, ins, avals)):
        raise TypeError(f"while: {name} takes ({_types(ins)}) but gets ({_types(avals)})")
