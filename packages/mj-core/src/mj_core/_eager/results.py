"""What eager evaluation returns: each output viewed as a read-only :class:`EagerArray`.

:func:`as_eager` is the one place an impl rule's output (or a ufunc shortcut's) becomes an mj
array; its common case, a fresh NumPy array of a 32-bit-or-narrower dtype, costs a type test,
a C-level view and a flag. :func:`weak_outputs` marks the outputs JAX types weakly.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mj_core._avals import get_aval, raise_to_shaped
from mj_core._eager_array import (
    EagerArray,
    eager_result,
    eager_results,
    is_operand,
    weak_result,
)
from mj_core._primitive import Primitive, abstract_eval_rules

__all__ = ["as_eager", "weak_outputs"]

_ndarray = np.ndarray
_view = np.ndarray.view
# positional (its stub says keyword-only): a keyword argument costs each eager op ~100 ns
_setflags: Callable[[np.ndarray[Any, Any], bool], None] = np.ndarray.setflags  # type: ignore[assignment]


def as_eager(out: Any, operands: Sequence[Any] | None) -> Any:
    """``out``, one output of a primitive applied to ``operands``, as a read-only
    :class:`EagerArray` (see :func:`~mj_core._eager_array.eager_result`, whose common case
    this is): a writable operand, or a writable view of an operand's memory, is copied first,
    a 64-bit dtype narrowed unless ``enable_x64``, a NumPy scalar made a 0-d array. The plain
    array it views (its NumPy ``base``) is read-only too, so that eager evaluation may hand it
    to the impl rules as the EagerArray's data."""
    # (a view, or anything else, is eager_result's: a view of an operand is copied)
    if type(out) is _ndarray and out.base is None and out.itemsize < 8:
        if operands is not None and is_operand(out, operands):
            out = out.copy()  # a caller's writable array itself (a rule returned its operand)
        _setflags(out, False)  # read-only (its views too), as jax.Array's NumPy views
        return _view(out, EagerArray)
    return eager_result(out, operands)


def weak_outputs(
    primitive: Primitive, args: Sequence[Any], params: dict[str, Any], outs: Sequence[Any]
) -> list[Any]:
    """Eager outputs of ``primitive`` on operands that are all weakly typed (Python scalars,
    :class:`~mj_core._eager_array.WeakEagerArray`; bools aside), or of a conversion to a weak
    type: weak where its typing rule says so (``sqrt(2.0)`` is, ``sum(2.0)`` is not), as under
    ``jit``."""
    rule = abstract_eval_rules.get(primitive)
    if rule is None:
        return eager_results(list(outs), args)
    try:
        avals = rule(*[raise_to_shaped(get_aval(a)) for a in args], **params)
    except Exception:  # the impl rule accepted these: its typing rule has the last word
        return eager_results(list(outs), args)
    return [
        weak_result(o) if av.weak_type else eager_result(o, args)
        for o, av in zip(outs, avals, strict=True)
    ]
