"""``cond`` and ``switch``: the ``cond`` primitive (Autodidax Part 5, generalised to N branches).

``cond_p`` takes ``(index, *operands)`` and a ``branches`` param: a tuple of closed jaxprs of
one type. ``index`` is an int32 scalar, already clamped into range by :func:`switch` (and
``cond``'s predicate is converted to 0/1), so branch ``index`` is applied to ``operands``.
Every branch takes the same operands: the constants any branch closes over come first (see
:func:`~mj_control._tracing.join_consts`), then the user's operands.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mj_control._printing import pp_control_eqn
from mj_control._tracing import (
    cast,
    check_callable,
    join_consts,
    shaped_avals,
    trace_fun,
    type_tree,
    typematch,
)
from mj_core import lax
from mj_core.avals import ShapedArray, get_aval
from mj_core.errors import user_location
from mj_core.primitive import Primitive, impl_rules
from mj_core.trace import bind
from mj_core.tree_util import tree_flatten, tree_unflatten
from mj_ir import ClosedJaxpr, abstract_eval_rules, pp_rules

__all__ = ["cond", "cond_p", "switch"]

cond_p = Primitive("cond", multiple_results=True)

_INDEX_AVAL = ShapedArray((), np.int32)


def cond(*args: Any, **kwargs: Any) -> Any:
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``, staged as one
    ``cond`` primitive: ``cond(pred, true_fun, false_fun, *operands)``.

    Both branches are traced; their outputs must have the same pytree structure and types.
    ``pred`` is a scalar bool (or number, compared with 0). The older form
    ``cond(pred, true_operand, true_fun, false_operand, false_fun)`` is accepted too.

    Example::

        >>> cond(x > 0, lambda x: x * 2, lambda x: -x, x)
    """
    old_form = len(args) == 5 and callable(args[2]) and callable(args[4])
    if old_form and not kwargs and not callable(args[1]):
        pred, true_op, true_fun, false_op, false_fun = args
        return _cond(
            pred,
            lambda ops: true_fun(ops[0]),
            lambda ops: false_fun(ops[1]),
            (true_op, false_op),
        )
    try:
        bound = inspect.signature(_cond).bind(*args, **kwargs)
    except TypeError as err:
        raise TypeError(
            f"cond: {err}; expected cond(pred, true_fun, false_fun, *operands)"
        ) from None
    return _cond(*bound.args)


def _cond(
    pred: Any, true_fun: Callable[..., Any], false_fun: Callable[..., Any], *operands: Any
) -> Any:
    check_callable("cond", "true_fun", true_fun)
    check_callable("cond", "false_fun", false_fun)
    if pred is None or isinstance(pred, list | tuple):
        raise _where(TypeError, f"cond: the predicate must be a scalar, got {pred!r}")
    aval = get_aval(pred)
    if aval.shape != ():
        raise _where(TypeError, f"cond: the predicate must be a scalar, got {aval.str_short()}")
    if aval.dtype.kind not in "biu":
        raise _where(
            TypeError,
            f"cond: the predicate must be a boolean or integer scalar, got {aval.str_short()}",
        )
    if aval.dtype.kind != "b":
        pred = lax.ne(pred, 0)
    index = _to_index(pred)
    return _bind_branches("cond", ("false_fun", "true_fun"), index, [false_fun, true_fun], operands)


def switch(index: Any, branches: Sequence[Callable[..., Any]], *operands: Any) -> Any:
    """``branches[index](*operands)``, with ``index`` clamped into ``[0, len(branches) - 1]``,
    staged as one ``cond`` primitive.

    Example::

        >>> switch(i, [lambda x: x + 1, lambda x: x * 2, jnp.sin], x)
    """
    funs = list(branches)
    if not funs:
        raise _where(ValueError, "switch: branches must be a non-empty sequence of callables")
    for k, f in enumerate(funs):
        check_callable("switch", f"branches[{k}]", f)
    aval = get_aval(index)
    if aval.shape != () or aval.dtype.kind not in "iu":
        raise _where(TypeError, f"switch: index must be an integer scalar, got {aval.str_short()}")
    if len(funs) == 1:
        return funs[0](*operands)
    index = lax.clamp(0, _to_index(index), len(funs) - 1)
    names = tuple(f"branches[{k}]" for k in range(len(funs)))
    return _bind_branches("switch", names, index, funs, operands)


def _to_index(x: Any) -> Any:
    return cast(x, _INDEX_AVAL)


def _where(exc: type[Exception], msg: str) -> Exception:
    where = user_location()
    return exc(f"{msg}{' ' + where if where else ''}")


def _bind_branches(
    api: str,
    names: Sequence[str],
    index: Any,
    funs: Sequence[Callable[..., Any]],
    operands: tuple[Any, ...],
) -> Any:
    ops_flat, in_tree = tree_flatten(operands)
    in_avals = shaped_avals(ops_flat)
    traced = [trace_fun(f, in_tree, in_avals) for f in funs]
    first = traced[0]
    for name, t in zip(names[1:], traced[1:], strict=True):
        if t.out_tree != first.out_tree or not all(
            typematch(a, b) for a, b in zip(first.out_avals, t.out_avals, strict=True)
        ):
            raise _where(
                TypeError,
                f"{api}: the branches must return the same pytree structure and types, but\n"
                f"  {names[0]} returns {type_tree(first.out_tree, first.out_avals)}\n"
                f"  {name} returns {type_tree(t.out_tree, t.out_avals)}\n",
            )
    branches, consts = join_consts(traced)
    outs = bind(cond_p, index, *consts, *ops_flat, branches=tuple(branches))
    return tree_unflatten(first.out_tree, outs)


# --- evaluation and typing ---------------------------------------------------------------------


def _cond_impl(index: Any, *args: Any, branches: tuple[ClosedJaxpr, ...]) -> list[Any]:
    i = int(np.clip(np.asarray(index), 0, len(branches) - 1))
    return branches[i](*args)


impl_rules[cond_p] = _cond_impl


def joined_out_avals(branches: Sequence[ClosedJaxpr]) -> list[ShapedArray]:
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
    shown = ", ".join(a.str_short() for a in avals)
    out0 = branches[0].out_avals
    for k, b in enumerate(branches):
        b_in = b.in_avals
        if len(b_in) != len(avals) or not all(map(typematch, b_in, avals)):
            got = ", ".join(a.str_short() for a in b_in)
            raise TypeError(f"cond: branch {k} takes ({got}) but the operands are ({shown})")
        b_out = b.out_avals
        if len(b_out) != len(out0) or not all(map(typematch, b_out, out0)):
            raise TypeError(
                f"cond: branch {k} returns ({', '.join(a.str_short() for a in b_out)}) but "
                f"branch 0 returns ({', '.join(a.str_short() for a in out0)})"
            )
    return joined_out_avals(branches)


pp_rules[cond_p] = pp_control_eqn


abstract_eval_rules[cond_p] = _cond_abstract_eval
