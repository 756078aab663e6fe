"""JVP and transpose rules for ``dot_general`` (bilinear).

The transpose w.r.t. one operand is another ``dot_general`` of the cotangent with the other
operand, contracting the output dims that came from the other operand, followed by a
``transpose`` putting the result's dims back in the operand's order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mj_autodiff._jvp import defjvp
from mj_autodiff._tangents import shape_dtype
from mj_autodiff._transpose import UndefPrimal, transpose_rules
from mj_core import ShapedArray, bind1, lax
from mj_core.prims import contractions as ct_prims

Array = Any
DimensionNumbers = tuple[
    tuple[tuple[int, ...], tuple[int, ...]], tuple[tuple[int, ...], tuple[int, ...]]
]


def _dot_jvp_lhs(g: Array, x: Array, y: Array, **params: Any) -> Array:
    return bind1(ct_prims.dot_general_p, g, y, **params)


def _dot_jvp_rhs(g: Array, x: Array, y: Array, **params: Any) -> Array:
    return bind1(ct_prims.dot_general_p, x, g, **params)


defjvp(ct_prims.dot_general_p, _dot_jvp_lhs, _dot_jvp_rhs)


def _free_dims(ndim: int, contract: Sequence[int], batch: Sequence[int]) -> list[int]:
    used = set(contract) | set(batch)
    return [d for d in range(ndim) if d not in used]


def _transpose_lhs(
    ct: Array,
    x_aval: ShapedArray,
    y: Array,
    dimension_numbers: DimensionNumbers,
    precision: Any,
    preferred_element_type: Any,
    swap_ans: bool,
) -> Array:
    """Cotangent of the lhs ``x`` of ``dot_general(x, y)`` (or of the rhs, when the operands
    were swapped: ``swap_ans`` says the output has y's free dims before x's)."""
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    y_ndim = len(shape_dtype(y)[0])
    x_free = _free_dims(x_aval.ndim, x_contract, x_batch)
    y_free = _free_dims(y_ndim, y_contract, y_batch)
    n_batch = len(x_batch)
    if swap_ans:
        ct_y_dims = tuple(range(n_batch, n_batch + len(y_free)))
    else:
        ct_y_dims = tuple(range(n_batch + len(x_free), n_batch + len(x_free) + len(y_free)))
    ct_batch = tuple(range(n_batch))
    dims = ((ct_y_dims, tuple(y_free)), (ct_batch, tuple(y_batch)))
    # result dims: batch, x free (ct's remaining dims), x contracting dims (in y's order)
    x_contract_in_y_order = [x_contract[i] for i in np.argsort(y_contract)]
    out = lax.dot_general(ct, y, dims, precision, preferred_element_type)
    perm = np.argsort([*x_batch, *x_free, *x_contract_in_y_order])
    out = lax.transpose(out, tuple(int(i) for i in perm))
    if shape_dtype(out)[1] != x_aval.dtype:
        out = lax.convert_element_type(out, x_aval.dtype)
    return out


def _dot_general_transpose(
    cts: list[Any],
    x: Any,
    y: Any,
    *,
    dimension_numbers: DimensionNumbers,
    precision: Any = None,
    preferred_element_type: Any = None,
) -> list[Any]:
    ct = cts[0]
    if type(x) is UndefPrimal:
        if type(y) is UndefPrimal:
            raise TypeError(
                "dot_general: both operands are linear (tangent) values, so the product is not "
                "linear and cannot be transposed."
            )
        ct_x = _transpose_lhs(
            ct, x.aval, y, dimension_numbers, precision, preferred_element_type, False
        )
        return [ct_x, None]
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    swapped = ((y_contract, x_contract), (y_batch, x_batch))
    ct_y = _transpose_lhs(ct, y.aval, x, swapped, precision, preferred_element_type, True)
    return [None, ct_y]


transpose_rules[ct_prims.dot_general_p] = _dot_general_transpose
