"""The typing rules of the non-elementwise primitives: one table, one source of truth.

``out_aval_rules[p](*avals, **params) -> list[ShapedArray]`` gives the output types of ``p``
from its operands' types, raising ``TypeError`` (naming the primitive and the operand types)
for operands or params it does not accept, and ``ValueError`` for out-of-range axes. mj-ir's
abstract-eval rules are these functions; the impl rules call :func:`check_operands` first, so
eager evaluation rejects exactly what tracing rejects and returns exactly the typed dtype.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mj_core.avals import ShapedArray, get_aval
from mj_core.dtypes import result_type
from mj_core.eager_array import EagerArray
from mj_core.primitive import Primitive, RuleTable
from mj_core.shapes import aval_error

__all__ = ["check_operands", "common_dtype", "out_aval_rules", "shaped_aval"]

out_aval_rules = RuleTable("out_aval_rules", "shape/dtype", "mj_core.prims.out_avals")


def shaped_aval(x: Any) -> ShapedArray:
    """The ``ShapedArray`` of a concrete operand, cheaply for NumPy arrays."""
    if type(x) is np.ndarray or type(x) is EagerArray:
        return ShapedArray(x.shape, x.dtype)
    aval = get_aval(x)
    return ShapedArray(aval.shape, aval.dtype, aval.weak_type)


#: Typing results of NumPy-array operands, by signature. Impl rules type-check every eager
#: call, and eager loops (a gradient step, a per-example batch) repeat a few signatures, so a
#: lookup replaces rebuilding the avals and rerunning the rule. Errors are never cached.
_CHECKED: dict[tuple[Any, ...], tuple[Any, ...]] = {}
_CHECKED_LIMIT = 4096


def check_operands(prim: Primitive, args: Sequence[Any], params: dict[str, Any]) -> list[Any]:
    """Run ``prim``'s typing rule on concrete ``args`` (impl rules call this first)."""
    key: tuple[Any, ...] | None = (prim, *params.items())
    for a in args:
        t = type(a)
        if t is not np.ndarray and t is not EagerArray:  # scalars, other types: no cache
            key = None
            break
        key += (a.shape, a.dtype)  # type: ignore[operator]
    if key is not None:
        try:
            cached = _CHECKED.get(key)
        except TypeError:  # an unhashable param (a list): type-check every call
            key = None
        else:
            if cached is not None:
                return list(cached)
    out = out_aval_rules[prim](*[shaped_aval(a) for a in args], **params)
    if key is not None:
        if len(_CHECKED) >= _CHECKED_LIMIT:
            _CHECKED.clear()
        _CHECKED[key] = tuple(out)
    return out  # type: ignore[no-any-return]


def common_dtype(prim_name: str, avals: Sequence[ShapedArray]) -> tuple[np.dtype[Any], bool]:
    """The one dtype non-elementwise operands must share.

    Strong operands must agree exactly; a weak operand (a Python scalar) adopts the strong
    dtype when NEP 50 promotion would keep it (an ``int32`` array padded with ``0`` is fine,
    padded with ``0.5`` is an error rather than a silent truncation).
    """
    strong = {a.dtype for a in avals if not a.weak_type}
    if len(strong) > 1:
        raise aval_error(prim_name, "operands must have the same dtype", avals)
    dtype, weak = result_type(*((a.dtype, a.weak_type) for a in avals))
    if strong and dtype not in strong:
        raise aval_error(
            prim_name, "a Python scalar operand cannot be converted to the array dtype", avals
        )
    return dtype, weak
