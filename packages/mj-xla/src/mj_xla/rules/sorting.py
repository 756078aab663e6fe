"""Lowering rule of ``sort``: one ``stablehlo.sort`` whose comparator orders the first
``num_keys`` operands lexicographically, in NumPy's order."""

from __future__ import annotations

from typing import Any

import numpy as np

from mj_core.dtypes import is_float
from mj_core.prims.sorting import sort_p
from mj_xla._jaxlib import Value, hlo, ir, ir_tensor_type
from mj_xla._lowering import (
    Avals,
    LoweringContext,
    Values,
    aval_to_ir_type,
    compare,
    ir_constant,
    lowering_rules,
)

__all__: list[str] = []


@lowering_rules.register(sort_p)
def _sort_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    dimension: int,
    is_stable: bool,
    num_keys: int,
) -> list[Value]:
    """Lexicographic on the first ``num_keys`` operands; floats in NumPy's order (NaN last,
    -0 == +0), complex numbers by real part then imaginary part (XLA has no complex order)."""
    ndim = avals_in[0].ndim
    op = hlo.SortOp(
        [aval_to_ir_type(a) for a in avals_out],
        list(in_vals),
        dimension=dimension % ndim,
        is_stable=is_stable,
    )
    scalars = []
    for a in avals_in:
        scalars += [ir_tensor_type((), a.dtype)] * 2
    block = op.comparator.blocks.append(*scalars)
    args = list(block.arguments)
    with ir.InsertionPoint(block):
        keys: list[tuple[Value, Value, np.dtype[Any]]] = []
        for k in range(num_keys):
            dtype = avals_in[k].dtype
            left: Value = args[2 * k]
            right: Value = args[2 * k + 1]
            parts = [(left, right, dtype)]
            if dtype.kind == "c":
                part = np.dtype(np.float32 if dtype == np.complex64 else np.float64)
                parts = [
                    (hlo.real(left), hlo.real(right), part),
                    (hlo.imag(left), hlo.imag(right), part),
                ]
            keys += [(_canonical_key(x, t), _canonical_key(y, t), t) for x, y, t in parts]

        lhs, rhs, dtype = keys[-1]
        result = compare(lhs, rhs, "LT", dtype, total=True)
        for lhs, rhs, dtype in reversed(keys[:-1]):
            less = compare(lhs, rhs, "LT", dtype, total=True)
            equal = compare(lhs, rhs, "EQ", dtype, total=True)
            result = hlo.or_(less, hlo.and_(equal, result))
        hlo.return_([result])
    return list(op.results)


def _canonical_key(x: Value, dtype: np.dtype[Any]) -> Value:
    """-0.0 -> +0.0 and every NaN -> +NaN, so TOTALORDER matches NumPy's sort order."""
    if not is_float(dtype):  # (bfloat16 and the float8 types are floats too)
        return x
    zero = ir_constant(0, dtype)
    x = hlo.select(compare(x, zero, "EQ", dtype), zero, x)
    nan = ir_constant(np.nan, dtype)
    return hlo.select(compare(x, x, "NE", dtype), nan, x)
