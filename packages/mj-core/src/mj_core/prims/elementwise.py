"""Elementwise primitives: unary and n-ary operations with NumPy broadcasting.

Operands broadcast like NumPy and promote with :func:`mj_core.dtypes.result_type` (NEP 50,
weak Python scalars). Each primitive has an :class:`ElementwiseSpec` saying which dtype kinds
it accepts and how its output dtype follows from the promoted input dtype; impl rules here and
the abstract-eval rules in mj-ir both derive results from that one spec through
:func:`elementwise_out_aval`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from mj_core.avals import ShapedArray
from mj_core.dtypes import result_type
from mj_core.primitive import Primitive, impl_rules
from mj_core.shapes import broadcast_shapes

__all__ = [
    "ElementwiseSpec",
    "elementwise_out_aval",
    "elementwise_specs",
    "to_inexact_dtype",
]

DType = np.dtype[Any]


def to_inexact_dtype(dtype: DType) -> DType:
    """The float dtype NumPy's ufuncs compute an integer/bool input in (int8 -> float16,
    int16 -> float32, int32/int64 -> float64); inexact dtypes are kept."""
    if dtype.kind in "fc":
        return dtype
    return np.promote_types(dtype, np.float16)


def _same(dtype: DType) -> DType:
    return dtype


def _boolean(dtype: DType) -> DType:
    return np.dtype(np.bool_)


class ElementwiseSpec(NamedTuple):
    """What an elementwise primitive accepts and returns.

    ``kinds``: NumPy dtype kinds accepted (``"biufc"`` = all). ``out_dtype``: maps the promoted
    input dtype to the output dtype. ``first_operand_is_selector``: the first operand (e.g.
    ``select_n``'s predicate) is excluded from promotion.
    """

    nin: int  # -1: variadic
    kinds: str
    out_dtype: Callable[[DType], DType]
    first_operand_is_selector: bool = False


elementwise_specs: dict[Primitive, ElementwiseSpec] = {}

_KIND_NAMES = {"b": "bool", "i": "int", "u": "uint", "f": "float", "c": "complex"}


def elementwise_out_aval(prim: Primitive, avals: Sequence[ShapedArray]) -> ShapedArray:
    """Output aval of elementwise ``prim`` on ``avals``: the single source of truth."""
    spec = elementwise_specs[prim]
    shape = broadcast_shapes(prim.name, *(a.shape for a in avals))
    operands = avals[1:] if spec.first_operand_is_selector else avals
    dtype, weak = result_type(*((a.dtype, a.weak_type) for a in operands))
    if dtype.kind not in spec.kinds:
        allowed = "/".join(_KIND_NAMES[k] for k in spec.kinds)
        shown = ", ".join(a.str_short() for a in avals)
        raise TypeError(f"{prim.name} requires {allowed} operands, got ({shown})")
    if spec.first_operand_is_selector:
        which = avals[0].dtype
        if which.kind not in "biu":
            raise TypeError(f"{prim.name}: selector must be bool or integer, got {which.name}")
    out = spec.out_dtype(dtype)
    return ShapedArray(shape, out, weak and out.kind == dtype.kind)


def _define(
    name: str,
    nin: int,
    kinds: str,
    out_dtype: Callable[[DType], DType],
    impl: Callable[..., Any],
    *,
    first_operand_is_selector: bool = False,
) -> Primitive:
    prim = Primitive(name)
    elementwise_specs[prim] = ElementwiseSpec(nin, kinds, out_dtype, first_operand_is_selector)

    impl_rules[prim] = _impl_rule(name, nin, impl)
    prim.eager1 = impl
    return prim


def _impl_rule(name: str, nin: int, impl: Callable[..., Any]) -> Callable[..., list[Any]]:
    """``impl`` returning a one-element list; unary and binary rules take their operands
    directly (no ``*args`` tuple on the eager hot path)."""

    def unary(x: Any) -> list[Any]:
        return [impl(x)]

    def binary(x: Any, y: Any) -> list[Any]:
        return [impl(x, y)]

    def nary(*args: Any) -> list[Any]:
        return [impl(*args)]

    rule = unary if nin == 1 else binary if nin == 2 else nary
    rule.__name__ = rule.__qualname__ = f"{name}_impl"
    return rule


# --- unary: float-valued (integer/bool inputs compute in a float dtype, like NumPy) ----------
ALL = "biufc"
NUM = "iufc"
REAL = "biuf"


def _logistic(x: Any) -> Any:
    x = np.asarray(x, to_inexact_dtype(np.result_type(x)))  # bool/int inputs: no `-` on bool
    e = np.exp(-np.abs(x))
    return np.where(np.greater_equal(x, 0), 1 / (1 + e), e / (1 + e)).astype(
        np.result_type(e), copy=False
    )[()]


_erf_object = np.frompyfunc(math.erf, 1, 1)


def _erf(x: Any) -> Any:
    dtype = to_inexact_dtype(np.result_type(x))
    if dtype.kind == "c":
        raise TypeError("erf is not defined for complex inputs")
    return np.asarray(_erf_object(x), dtype=dtype)[()]


def _rsqrt(x: Any) -> Any:
    return np.reciprocal(np.sqrt(x))


def _log1p(x: Any) -> Any:
    """NumPy's complex log1p is ``log(1 + z)``, which loses the digits of a small ``z`` (XLA's
    does not): near 0 the real part is ``log|1 + z| = log1p(x (2 + x) + y^2) / 2``."""
    if np.result_type(x).kind != "c":
        return np.log1p(x)
    x = np.asarray(x)
    re, im = x.real, x.imag
    with np.errstate(all="ignore"):
        near = 0.5 * np.log1p(re * (2 + re) + im * im) + 1j * np.arctan2(im, 1 + re)
        out = np.where(np.abs(x) < 0.5, near, np.log(1 + x))
    return out.astype(x.dtype, copy=False)[()]


sin_p = _define("sin", 1, ALL, to_inexact_dtype, np.sin)
cos_p = _define("cos", 1, ALL, to_inexact_dtype, np.cos)
tan_p = _define("tan", 1, ALL, to_inexact_dtype, np.tan)
asin_p = _define("asin", 1, ALL, to_inexact_dtype, np.arcsin)
acos_p = _define("acos", 1, ALL, to_inexact_dtype, np.arccos)
atan_p = _define("atan", 1, ALL, to_inexact_dtype, np.arctan)
sinh_p = _define("sinh", 1, ALL, to_inexact_dtype, np.sinh)
cosh_p = _define("cosh", 1, ALL, to_inexact_dtype, np.cosh)
tanh_p = _define("tanh", 1, ALL, to_inexact_dtype, np.tanh)
exp_p = _define("exp", 1, ALL, to_inexact_dtype, np.exp)
log_p = _define("log", 1, ALL, to_inexact_dtype, np.log)
log1p_p = _define("log1p", 1, ALL, to_inexact_dtype, _log1p)
expm1_p = _define("expm1", 1, ALL, to_inexact_dtype, np.expm1)
logistic_p = _define("logistic", 1, REAL, to_inexact_dtype, _logistic)
sqrt_p = _define("sqrt", 1, ALL, to_inexact_dtype, np.sqrt)
rsqrt_p = _define("rsqrt", 1, ALL, to_inexact_dtype, _rsqrt)
erf_p = _define("erf", 1, REAL, to_inexact_dtype, _erf)

# --- unary: dtype-preserving ----------------------------------------------------------------


def _abs(x: Any) -> Any:
    return np.abs(x)


def _abs_dtype(dtype: DType) -> DType:
    return (
        np.dtype(np.float32 if dtype == np.complex64 else np.float64)
        if dtype.kind == "c"
        else dtype
    )


neg_p = _define("neg", 1, NUM, _same, np.negative)
abs_p = _define("abs", 1, NUM, _abs_dtype, _abs)
sign_p = _define("sign", 1, NUM, _same, np.sign)
floor_p = _define("floor", 1, "iuf", _same, np.floor)
ceil_p = _define("ceil", 1, "iuf", _same, np.ceil)
is_finite_p = _define("is_finite", 1, "iuf", _boolean, np.isfinite)
not_p = _define("not", 1, "biu", _same, np.invert)


def _round_impl(x: Any, *, rounding_method: int = 0) -> list[Any]:
    if np.result_type(x).kind in "iu":
        return [x]
    if rounding_method == 1:
        return [np.round(x)]
    return [np.copysign(np.floor(np.abs(x) + np.asarray(0.5, np.result_type(x))), x)]


round_p = Primitive("round")
elementwise_specs[round_p] = ElementwiseSpec(1, "iuf", _same)
impl_rules[round_p] = _round_impl


def _integer_pow_impl(x: Any, *, y: int) -> list[Any]:
    if y >= 0 or np.result_type(x).kind not in "iu":
        return [np.power(x, y)]
    return [np.power(np.asarray(x, np.float64), y)]


integer_pow_p = Primitive("integer_pow")
elementwise_specs[integer_pow_p] = ElementwiseSpec(1, NUM, _same)
impl_rules[integer_pow_p] = _integer_pow_impl

# --- binary -----------------------------------------------------------------------------------


def _int_div(x: Any, y: Any) -> Any:
    if np.result_type(x, y).kind in "iu":
        q = np.floor_divide(x, y)
        return q + ((np.remainder(x, y) != 0) & ((np.sign(x) * np.sign(y)) < 0))
    return np.true_divide(x, y)


def _shift_bits(x: Any) -> int:
    return np.result_type(x).itemsize * 8


def _shift_left(x: Any, y: Any) -> Any:
    return np.where(np.less(y, _shift_bits(x)) & np.greater_equal(y, 0), np.left_shift(x, y), 0)[()]


def _shift_right_logical(x: Any, y: Any) -> Any:
    dtype = np.result_type(x, y)
    unsigned = np.dtype(f"u{dtype.itemsize}")
    ux = np.asarray(x, dtype).view(unsigned)
    shifted = np.right_shift(ux, np.asarray(y, dtype).astype(unsigned))
    out = np.where(np.less(y, _shift_bits(ux)) & np.greater_equal(y, 0), shifted, 0)
    return out.astype(unsigned).view(dtype)[()]


def _shift_right_arithmetic(x: Any, y: Any) -> Any:
    bits = _shift_bits(np.result_type(x, y))
    # Shifting by >= bits fills with the sign bit (XLA); a Python-int shift stays weak.
    clipped = min(max(y, 0), bits - 1) if type(y) is int else np.clip(y, 0, bits - 1)
    return np.right_shift(x, clipped)


def _pow(x: Any, y: Any) -> Any:
    return np.power(x, y)


add_p = _define("add", 2, NUM, _same, np.add)
sub_p = _define("sub", 2, NUM, _same, np.subtract)
mul_p = _define("mul", 2, NUM, _same, np.multiply)
div_p = _define("div", 2, NUM, _same, _int_div)
rem_p = _define("rem", 2, "iuf", _same, np.fmod)
pow_p = _define("pow", 2, NUM, _same, _pow)
max_p = _define("max", 2, "biuf", _same, np.maximum)
min_p = _define("min", 2, "biuf", _same, np.minimum)
atan2_p = _define("atan2", 2, REAL, to_inexact_dtype, np.arctan2)
and_p = _define("and", 2, "biu", _same, np.bitwise_and)
or_p = _define("or", 2, "biu", _same, np.bitwise_or)
xor_p = _define("xor", 2, "biu", _same, np.bitwise_xor)
shift_left_p = _define("shift_left", 2, "iu", _same, _shift_left)
shift_right_logical_p = _define("shift_right_logical", 2, "iu", _same, _shift_right_logical)
shift_right_arithmetic_p = _define(
    "shift_right_arithmetic", 2, "iu", _same, _shift_right_arithmetic
)
eq_p = _define("eq", 2, ALL, _boolean, np.equal)
ne_p = _define("ne", 2, ALL, _boolean, np.not_equal)
less_p = _define("less", 2, REAL, _boolean, np.less)
less_equal_p = _define("less_equal", 2, REAL, _boolean, np.less_equal)
greater_p = _define("greater", 2, REAL, _boolean, np.greater)
greater_equal_p = _define("greater_equal", 2, REAL, _boolean, np.greater_equal)

# --- n-ary ----------------------------------------------------------------------------------


def _select_n(which: Any, *cases: Any) -> Any:
    if np.result_type(which) == np.bool_:
        if len(cases) != 2:
            raise TypeError(f"select_n with a bool selector needs 2 cases, got {len(cases)}")
        return np.where(which, cases[1], cases[0])
    return np.choose(which, np.broadcast_arrays(*cases), mode="clip")


def _clamp(lo: Any, x: Any, hi: Any) -> Any:
    return np.minimum(np.maximum(x, lo), hi)


select_n_p = _define("select_n", -1, ALL, _same, _select_n, first_operand_is_selector=True)
clamp_p = _define("clamp", 3, "iuf", _same, _clamp)

__all__ += sorted(name for name in globals() if name.endswith("_p"))
