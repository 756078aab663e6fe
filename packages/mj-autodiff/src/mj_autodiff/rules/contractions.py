"""JVP and transpose rules for ``dot_general`` (bilinear).

The transpose w.r.t. one operand is another ``dot_general`` of the cotangent with the other
operand, contracting the output dims that came from the other operand, followed by a
``transpose`` putting the result's dims back in the operand's order.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from mj_autodiff._derivatives import Bilinear, defjvp, derivative_kinds
from mj_autodiff._tangents import Tangent, shape_dtype, shaped_aval_of
from mj_autodiff._transpose import Operand, UndefPrimal, operand_aval, transpose_rules
from mj_core import Primitive, ShapedArray, bind1, lax
from mj_core.extend import Array, ArrayLike, DTypeLike
from mj_core.prims.contractions import PrecisionLike, dot_general_p
from mj_core.prims.structural import transpose_p

DimensionNumbers = tuple[
    tuple[tuple[int, ...], tuple[int, ...]], tuple[tuple[int, ...], tuple[int, ...]]
]


def _dot_jvp_lhs(g: ArrayLike, x: ArrayLike, y: ArrayLike, **params: object) -> Array:
    out: Array = bind1(dot_general_p, g, y, **params)
    return out


def _dot_jvp_rhs(g: ArrayLike, x: ArrayLike, y: ArrayLike, **params: object) -> Array:
    out: Array = bind1(dot_general_p, x, g, **params)
    return out


defjvp(dot_general_p, _dot_jvp_lhs, _dot_jvp_rhs)


def _free_dims(ndim: int, contract: Sequence[int], batch: Sequence[int]) -> list[int]:
    used = set(contract) | set(batch)
    return [d for d in range(ndim) if d not in used]


@functools.lru_cache(maxsize=256)
def _transpose_geometry(
    dimension_numbers: DimensionNumbers, x_ndim: int, y_ndim: int, swap_ans: bool
) -> tuple[DimensionNumbers, tuple[int, ...] | None]:
    """The ``dot_general`` dimension numbers of ``ct . y`` and the permutation putting its
    result in x's dim order (``None`` when it already is): pure functions of the shapes'
    ranks, cached because a training loop asks for the same few every step."""
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    x_free = _free_dims(x_ndim, x_contract, x_batch)
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
    perm = tuple(int(i) for i in np.argsort([*x_batch, *x_free, *x_contract_in_y_order]))
    return dims, None if perm == tuple(range(x_ndim)) else perm


def _transpose_lhs(
    ct: ArrayLike,
    x_aval: ShapedArray,
    y: ArrayLike,
    dimension_numbers: DimensionNumbers,
    precision: PrecisionLike,
    preferred_element_type: DTypeLike | None,
    swap_ans: bool,
) -> Array:
    """Cotangent of the lhs ``x`` of ``dot_general(x, y)`` (or of the rhs, when the operands
    were swapped: ``swap_ans`` says the output has y's free dims before x's)."""
    y_ndim = len(shape_dtype(y)[0])
    dims, perm = _transpose_geometry(dimension_numbers, x_aval.ndim, y_ndim, swap_ans)
    out: Array = bind1(
        dot_general_p,
        ct,
        y,
        dimension_numbers=dims,
        precision=precision,
        preferred_element_type=preferred_element_type,
    )
    if perm is not None:
        out = bind1(transpose_p, out, permutation=perm)
    if shape_dtype(out)[1] != x_aval.dtype:
        out = lax.convert_element_type(out, x_aval.dtype)
    return out


def _dot_general_transpose(
    cts: list[Any],
    x: Operand,
    y: Operand,
    *,
    dimension_numbers: DimensionNumbers,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
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
    assert type(y) is UndefPrimal  # one operand at least is the linear one
    ct_y = _transpose_lhs(ct, y.aval, x, swapped, precision, preferred_element_type, True)
    return [None, ct_y]


@functools.lru_cache(maxsize=256)
def _rhs_direct_dims(
    dimension_numbers: DimensionNumbers, x_ndim: int, y_ndim: int
) -> DimensionNumbers | None:
    """Dimension numbers contracting ``x`` with the output cotangent straight into the rhs
    cotangent's layout (``x^T @ ct`` for a matmul), or ``None`` when that contraction's
    result would need a transpose to get there."""
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    x_free = _free_dims(x_ndim, x_contract, x_batch)
    y_free = _free_dims(y_ndim, y_contract, y_batch)
    out_dims = [
        *y_batch,
        *(y_contract[x_contract.index(d)] for d in sorted(x_contract)),
        *y_free,
    ]
    if out_dims != list(range(y_ndim)):
        return None
    n_batch = len(x_batch)
    ct_x_free = tuple(range(n_batch, n_batch + len(x_free)))
    return ((tuple(x_free), ct_x_free), (tuple(x_batch), tuple(range(n_batch))))


def _dot_general_vjp(
    prim: Primitive,
    ct: Tangent,
    ans: ArrayLike | None,
    vals: list[Any],
    wants: list[bool],
    params: dict[str, Any],
) -> list[Any]:
    """Eager reverse mode's rule: the transpose rule's lhs cotangent, and a rhs cotangent
    computed directly in its layout where possible (no trailing ``transpose``). The tape
    keeps a differentiated operand as an ``UndefPrimal`` when it is the only one."""
    x, y = vals
    ct_x = ct_y = None
    if wants[0]:
        x_undef = x if type(x) is UndefPrimal else UndefPrimal(shaped_aval_of(x))
        ct_x = _dot_general_transpose([ct], x_undef, y, **params)[0]
    if wants[1]:  # then x is a value
        y_aval = operand_aval(y)
        dims = _rhs_direct_dims(params["dimension_numbers"], len(shape_dtype(x)[0]), y_aval.ndim)
        if dims is None:
            ct_y = _dot_general_transpose([ct], x, UndefPrimal(y_aval), **params)[1]
        else:
            ct_y = bind1(
                dot_general_p,
                x,
                ct,
                dimension_numbers=dims,
                precision=params["precision"],
                preferred_element_type=params["preferred_element_type"],
            )
            if shape_dtype(ct_y)[1] != y_aval.dtype:
                ct_y = lax.convert_element_type(ct_y, y_aval.dtype)
    return [ct_x, ct_y]


transpose_rules[dot_general_p] = _dot_general_transpose
derivative_kinds[dot_general_p] = Bilinear(vjp=_dot_general_vjp)
