"""The reduction monoids as StableHLO: each reduction name (``"sum"``, ``"max"``, ...) is a
scalar binary op for the body region of a ``reduce``, ``reduce_window`` or ``scatter`` and an
identity (``mj_core.prims.reductions.reduction_identity``) for its init value. Reductions,
windowed reductions, scatters and the linear-algebra rules all build their regions here."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mj_core import ShapedArray
from mj_core.dtypes import float_info
from mj_core.prims.reductions import reduction_identity
from mj_xla._jaxlib import Value, hlo, ir, ir_tensor_type
from mj_xla._lowering import compare, ir_constant

__all__ = ["lexicographic_extremum", "reduce_op", "set_combiner"]

Binary = Callable[[Value, Value], Value]


def _replace(current: Value, update: Value) -> Value:
    return update


def lexicographic_extremum(direction: str, dtype: np.dtype[Any]) -> Binary:
    """Complex max (``"GT"``) or min (``"LT"``) as JAX lowers it (``mlir._minmax_hlo``): ``x``
    where its real part wins, or its imaginary part when the real parts are equal, else
    ``y`` (StableHLO's maximum/minimum order no complex numbers)."""
    part = float_info(dtype).dtype

    def pick(x: Value, y: Value) -> Value:
        rx, ry = hlo.real(x), hlo.real(y)
        real_eq = compare(rx, ry, "EQ", part)
        which = hlo.select(
            real_eq,
            compare(hlo.imag(x), hlo.imag(y), direction, part),
            compare(rx, ry, direction, part),
        )
        return hlo.select(which, x, y)

    return pick


def _combiner(name: str, dtype: np.dtype[Any]) -> Binary:
    """The binary op of reduction ``name`` on ``dtype`` (max/min on bool are or/and, on
    complex numbers :func:`lexicographic_extremum`); ``"replace"`` is the overwriting
    scatter's."""
    is_bool = dtype == np.bool_
    if dtype.kind == "c" and name in ("max", "min"):
        return lexicographic_extremum("GT" if name == "max" else "LT", dtype)
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
    init = ir_constant(reduction_identity(name, dtype), dtype)
    op = hlo.ReduceOp([ir_tensor_type(out_shape, dtype)], [x], [init], list(axes))
    set_combiner(op.body, name, dtype)
    return op.result
