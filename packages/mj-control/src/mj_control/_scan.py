"""``scan``: a loop of static length over the leading axis of arrays, the ``scan`` primitive.

``scan_p`` takes ``(*consts, *carry, *xs)`` and a ``jaxpr`` mapping ``(*consts, *carry,
*x_slices) -> (*carry, *y_slices)``; it returns the final carry and the ``ys`` stacked along
a new leading axis of size ``length``. Params: ``num_consts``, ``num_carry``, ``length``,
``reverse`` (iterate from the end, still writing ``ys[i]`` for step ``i``) and ``linear`` (a
bool per operand, a hint that the operand is used linearly).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from mj_control._printing import pp_control_eqn
from mj_control._tracing import (
    check_callable,
    check_carry,
    fix_carry_types,
    shaped_avals,
    trace_fun,
    type_tree,
    typematch,
)
from mj_core.avals import ShapedArray
from mj_core.errors import user_location
from mj_core.primitive import Primitive, impl_rules
from mj_core.trace import bind
from mj_core.tree_util import tree_flatten, tree_structure, tree_unflatten
from mj_ir import ClosedJaxpr, abstract_eval_rules, pp_rules

__all__ = ["scan", "scan_p"]

scan_p = Primitive("scan", multiple_results=True)


def scan(
    f: Callable[[Any, Any], tuple[Any, Any]],
    init: Any,
    xs: Any = None,
    length: int | None = None,
    reverse: bool = False,
    unroll: int | bool = 1,
) -> tuple[Any, Any]:
    """Loop ``carry, y = f(carry, x)`` over the leading axis of ``xs``; return the final carry
    and the ``y``s stacked, staged as one ``scan`` primitive (compiled to one loop, never
    unrolled: ``unroll`` is accepted for compatibility with JAX and has no effect).

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
    del unroll
    xs_flat, _xs_tree = tree_flatten(xs)
    x_avals_full = shaped_avals(xs_flat)
    length = _scan_length(x_avals_full, length)
    x_avals = [ShapedArray(a.shape[1:], a.dtype, a.weak_type) for a in x_avals_full]
    init_flat, init_tree = tree_flatten(init)
    init_avals = shaped_avals(init_flat)
    in_tree = tree_structure((init, xs))

    def trace() -> Any:
        traced = trace_fun(f, in_tree, [*init_avals, *x_avals])
        children = traced.out_tree.children
        if traced.out_tree.pytype not in (tuple, list) or len(children) != 2:
            where = user_location()
            raise TypeError(
                "scan: the body function must return a pair (carry, y), but it returns "
                f"{type_tree(traced.out_tree, traced.out_avals)}{' ' + where if where else ''}."
            )
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
    )
    operands = [*body.consts, *init_flat, *xs_flat]
    outs = bind(
        scan_p,
        *operands,
        jaxpr=body.closed(),
        num_consts=len(body.consts),
        num_carry=len(init_flat),
        length=length,
        reverse=bool(reverse),
        linear=(False,) * len(operands),
    )
    carry_out, ys = outs[: len(init_flat)], outs[len(init_flat) :]
    return tree_unflatten(init_tree, carry_out), tree_unflatten(y_tree, ys)


def _scan_length(x_avals: list[ShapedArray], length: int | None) -> int:
    where = user_location()
    at = f" {where}" if where else ""
    for a in x_avals:
        if not a.shape:
            raise ValueError(
                f"scan: every leaf of xs must have a leading axis to scan over, got "
                f"{a.str_short()}{at}"
            )
    lengths = sorted({a.shape[0] for a in x_avals})
    if length is not None:
        length = int(length)
        if length < 0 or any(n != length for n in lengths):
            raise ValueError(
                f"scan: length={length} does not match the leading axis sizes of xs {lengths}{at}"
            )
        return length
    if not lengths:
        raise ValueError(f"scan: got no values to scan over (xs=None) and no length{at}")
    if len(lengths) > 1:
        raise ValueError(f"scan: the leaves of xs have different leading axis sizes {lengths}{at}")
    return lengths[0]


# --- evaluation and typing ---------------------------------------------------------------------


def _scan_impl(
    *args: Any,
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
    return [*carry, *ys]


impl_rules[scan_p] = _scan_impl


def _types(avals: Any) -> str:
    return ", ".join(a.str_short() for a in avals)


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
        raise TypeError(f"scan: xs of types ({_types(xs)}) do not all have leading axis {length}")
    body_in = [*avals[: num_consts + num_carry], *(x.update(shape=x.shape[1:]) for x in xs)]
    ins = jaxpr.in_avals
    if len(ins) != len(body_in) or not all(map(typematch, ins, body_in)):
        raise TypeError(f"scan: the body takes ({_types(ins)}) but gets ({_types(body_in)})")
    outs = jaxpr.out_avals
    carry_out, ys = outs[:num_carry], outs[num_carry:]
    if len(carry_out) != len(carry) or not all(map(typematch, carry_out, carry)):
        raise TypeError(
            f"scan: the body returns a carry of ({_types(carry_out)}) for ({_types(carry)})"
        )
    return [*carry_out, *(ShapedArray((length, *y.shape), y.dtype, y.weak_type) for y in ys)]


pp_rules[scan_p] = pp_control_eqn


abstract_eval_rules[scan_p] = _scan_abstract_eval
