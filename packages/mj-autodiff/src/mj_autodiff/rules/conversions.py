"""JVP and transpose rules for the dtype conversions.

``convert_element_type`` is linear (a tangent converts like its primal, and the cotangent
converts back to the operand's dtype); a conversion to an integer or boolean dtype has a zero
tangent. ``bitcast_convert_type`` reinterprets bits, so its derivative is zero.
``reduce_precision`` is treated as linear, as JAX does: tangents and cotangents are rounded the
same way. ``copy`` is linear too: tangents and cotangents are copied (JAX's ``deflinear``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mj_autodiff._derivatives import Linear, defjvp_zero, derivative_kinds
from mj_autodiff._jvp import jvp_rules
from mj_autodiff._tangents import Zero, tangent_aval_of
from mj_autodiff._transpose import UndefPrimal, transpose_rules
from mj_core import bind, bind1
from mj_core.dtypes import is_inexact
from mj_core.prims.conversions import (
    bitcast_convert_type_p,
    convert_element_type_p,
    copy_p,
    dce_sink_p,
    reduce_precision_p,
)


def _convert_element_type_jvp(
    primals: list[Any], tangents: list[Any], *, new_dtype: np.dtype[Any], weak_type: bool
) -> tuple[list[Any], list[Any]]:
    (x,), (t,) = primals, tangents
    ans = bind1(convert_element_type_p, x, new_dtype=new_dtype, weak_type=weak_type)
    if type(t) is Zero or not is_inexact(np.dtype(new_dtype)):
        return [ans], [Zero(tangent_aval_of(ans))]
    t_out = bind1(convert_element_type_p, t, new_dtype=new_dtype, weak_type=weak_type)
    return [ans], [t_out]


def _convert_element_type_transpose(
    cts: list[Any], x: UndefPrimal, *, new_dtype: np.dtype[Any], weak_type: bool
) -> list[Any]:
    aval = x.aval
    return [bind1(convert_element_type_p, cts[0], new_dtype=aval.dtype, weak_type=aval.weak_type)]


jvp_rules[convert_element_type_p] = _convert_element_type_jvp
transpose_rules[convert_element_type_p] = _convert_element_type_transpose
derivative_kinds[convert_element_type_p] = Linear()

defjvp_zero(bitcast_convert_type_p)


def _reduce_precision_jvp(
    primals: list[Any], tangents: list[Any], *, exponent_bits: int, mantissa_bits: int
) -> tuple[list[Any], list[Any]]:
    (x,), (t,) = primals, tangents
    params = {"exponent_bits": exponent_bits, "mantissa_bits": mantissa_bits}
    ans = bind1(reduce_precision_p, x, **params)
    if type(t) is Zero:
        return [ans], [Zero(tangent_aval_of(ans))]
    return [ans], [bind1(reduce_precision_p, t, **params)]


def _reduce_precision_transpose(
    cts: list[Any], x: UndefPrimal, *, exponent_bits: int, mantissa_bits: int
) -> list[Any]:
    params = {"exponent_bits": exponent_bits, "mantissa_bits": mantissa_bits}
    return [bind1(reduce_precision_p, cts[0], **params)]


jvp_rules[reduce_precision_p] = _reduce_precision_jvp
transpose_rules[reduce_precision_p] = _reduce_precision_transpose
derivative_kinds[reduce_precision_p] = Linear()


def _copy_jvp(primals: list[Any], tangents: list[Any]) -> tuple[list[Any], list[Any]]:
    (x,), (t,) = primals, tangents
    ans = bind1(copy_p, x)
    if type(t) is Zero:
        return [ans], [Zero(tangent_aval_of(ans))]
    return [ans], [bind1(copy_p, t)]


def _copy_transpose(cts: list[Any], x: UndefPrimal) -> list[Any]:
    return [bind1(copy_p, cts[0])]


def _dce_sink_jvp(
    primals: list[Any], tangents: list[Any], *, prevent_mlir_dce: bool
) -> tuple[list[Any], list[Any]]:
    """JAX's (``ad.deflinear``): a sink of the primal and one of the tangent, when nonzero."""
    (x,), (t,) = primals, tangents
    bind(dce_sink_p, x, prevent_mlir_dce=prevent_mlir_dce)
    if type(t) is not Zero:
        bind(dce_sink_p, t, prevent_mlir_dce=prevent_mlir_dce)
    return [], []


def _dce_sink_transpose(cts: list[Any], x: UndefPrimal, *, prevent_mlir_dce: bool) -> list[Any]:
    """No cotangent reaches the operand (JAX's transpose, ``lambda _, **__: []``)."""
    return [Zero(x.aval)]


jvp_rules[dce_sink_p] = _dce_sink_jvp
transpose_rules[dce_sink_p] = _dce_sink_transpose
jvp_rules[copy_p] = _copy_jvp
transpose_rules[copy_p] = _copy_transpose
derivative_kinds[copy_p] = Linear()
