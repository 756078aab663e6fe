"""The reduction monoids as StableHLO: each reduction name (``"sum"``, ``"max"``, ...) is a
scalar binary op for the body region of a ``reduce``, ``reduce_window`` or ``scatter`` and an
identity (``mj_core.prims.reductions.reduction_identity``) for its init value. Reductions,
windowed reductions, scatters and the linear-algebra rules all build their regions here."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mj_core import ShapedArray
from mj_core.prims import reductions as rd
from mj_xla._jaxlib import Value, hlo, ir, ir_tensor_type
from mj_xla._lowering import ir_constant

__all__ = ["reduce_op", "set_combiner"]

Binary = Callable[[Value, Value], Value]


def _replace(current: Value, update: Value) -> Value:
    return update


def _combiner(name: str, dtype: np.dtype[Any]) -> Binary:
    """The binary op of reduction ``name`` on ``dtype`` (max/min on bool are or/and);
    ``"replace"`` is the overwriting scatter's."""
    is_bool = dtype == np.bool_
    ops: dict[str, Binary] = {
        "sum": hlo.add,
        "prod": hlo.multiply,
        "max": hlo.or_ if is_bool else hlo.maximum,
        "min": hlo.and_ if is_bool else hlo.minimum,
        "and": hlo.and_,
        "or": hlo.or_,
        "replace": _replace,
    }
    return ops[name]


def set_combiner(region: ir.Region, name: str, dtype: np.dtype[Any]) -> None:
    """Fill the body ``region`` of a reduce/reduce_window/scatter op with the scalar binary
    op ``name`` (see :func:`_combiner`) on ``dtype``."""
    scalar = ir_tensor_type((), dtype)
    block = region.blocks.append(scalar, scalar)
    with ir.InsertionPoint(block):
        hlo.return_([_combiner(name, dtype)(*block.arguments)])


def reduce_op(x: Value, aval: ShapedArray, axes: Sequence[int], name: str) -> Value:
    """One ``stablehlo.reduce`` of ``x`` over ``axes`` with reduction ``name``'s op."""
    dtype = aval.dtype
    out_shape = [d for i, d in enumerate(aval.shape) if i not in axes]
    init = ir_constant(rd.reduction_identity(name, dtype), dtype)
    op = hlo.ReduceOp([ir_tensor_type(out_shape, dtype)], [x], [init], list(axes))
    set_combiner(op.body, name, dtype)
    return op.result
