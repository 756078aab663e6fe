"""JVP and transpose rules for the elementwise primitives (and ``nextafter``, which has no
derivative).

Derivative coefficients are computed from the primals (known values during linearize, so
they are evaluated eagerly), and each tangent contribution is one ``mul``/``div`` of the
tangent by such a coefficient: the staged linear program stays as small as it can be.
Operands broadcast and promote, so contributions are fitted to the output
(:func:`~mj_autodiff._tangents.fit_tangent`) and cotangents are brought back to each operand
with :func:`~mj_autodiff._transpose.unbroadcast`. Each registration records the primitive's
derivative kind (:mod:`mj_autodiff._derivatives`), from which eager reverse mode takes its VJP.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from mj_autodiff._derivatives import (
    Bilinear,
    Linear,
    defjvp,
    defjvp2,
    defjvp_zero,
    derivative_kinds,
)
from mj_autodiff._jvp import jvp_rules
from mj_autodiff._tangents import Zero, fit_tangent, shape_dtype
from mj_autodiff._transpose import Operand, UndefPrimal, transpose_rules, unbroadcast
from mj_core import lax
from mj_core.dtypes import dtype_of
from mj_core.errors import user_line_suffix, user_location
from mj_core.extend import Array, ArrayLike
from mj_core.prims.elementwise import (
    abs_p,
    acos_p,
    add_p,
    and_p,
    asin_p,
    atan2_p,
    atan_p,
    ceil_p,
    clamp_p,
    cos_p,
    cosh_p,
    div_p,
    eq_p,
    erf_p,
    exp_p,
    expm1_p,
    floor_p,
    greater_equal_p,
    greater_p,
    integer_pow_p,
    is_finite_p,
    less_equal_p,
    less_p,
    log1p_p,
    log_p,
    logistic_p,
    max_p,
    min_p,
    mul_p,
    ne_p,
    neg_p,
    nextafter_p,
    not_p,
    or_p,
    pow_p,
    rem_p,
    round_p,
    rsqrt_p,
    select_n_p,
    shift_left_p,
    shift_right_arithmetic_p,
    shift_right_logical_p,
    sign_p,
    sin_p,
    sinh_p,
    sqrt_p,
    sub_p,
    tan_p,
    tanh_p,
    threefry2x32_p,
    xor_p,
)

# --- zero-derivative primitives ---------------------------------------------------------------
for _prim in (
    sign_p,
    floor_p,
    ceil_p,
    round_p,
    is_finite_p,
    not_p,
    and_p,
    or_p,
    xor_p,
    shift_left_p,
    shift_right_logical_p,
    shift_right_arithmetic_p,
    eq_p,
    ne_p,
    less_p,
    less_equal_p,
    greater_p,
    greater_equal_p,
    threefry2x32_p,  # uint32 in, uint32 out: only zero (float0) tangents
):
    defjvp_zero(_prim)


# --- unary ------------------------------------------------------------------------------------
def _sin_jvp(g: ArrayLike, x: ArrayLike) -> Array:
    # coefficient first, like Autodidax's `cos(x) * x_dot`: jvp jaxprs print as the tutorial's
    return lax.mul(lax.cos(x), g)


defjvp(sin_p, _sin_jvp)


def _cos_jvp(g: ArrayLike, x: ArrayLike) -> Array:
    return lax.mul(lax.neg(lax.sin(x)), g)


defjvp(cos_p, _cos_jvp)


def _tan_jvp(g: ArrayLike, ans: ArrayLike, x: ArrayLike) -> Array:
    return lax.mul(g, lax.add(1, lax.mul(ans, ans)))


defjvp2(tan_p, _tan_jvp)


def _asin_jvp(g: ArrayLike, x: ArrayLike) -> Array:
    return lax.mul(g, lax.rsqrt(lax.sub(1, lax.mul(x, x))))


defjvp(asin_p, _asin_jvp)


def _acos_jvp(g: ArrayLike, x: ArrayLike) -> Array:
    return lax.mul(g, lax.neg(lax.rsqrt(lax.sub(1, lax.mul(x, x)))))


defjvp(acos_p, _acos_jvp)


def _atan_jvp(g: ArrayLike, x: ArrayLike) -> Array:
    return lax.div(g, lax.add(1, lax.mul(x, x)))


defjvp(atan_p, _atan_jvp)


def _sinh_jvp(g: ArrayLike, x: ArrayLike) -> Array:
    return lax.mul(g, lax.cosh(x))


defjvp(sinh_p, _sinh_jvp)


def _cosh_jvp(g: ArrayLike, x: ArrayLike) -> Array:
    return lax.mul(g, lax.sinh(x))


defjvp(cosh_p, _cosh_jvp)


def _tanh_jvp(g: ArrayLike, ans: ArrayLike, x: ArrayLike) -> Array:
    """JAX's ``(g + g * ans) * (1 - ans)``: reverse mode saves ``ans`` and ``1 - ans``."""
    return lax.mul(lax.add(g, lax.mul(g, ans)), lax.sub(1, ans))


defjvp2(tanh_p, _tanh_jvp)


def _exp_jvp(g: ArrayLike, ans: ArrayLike, x: ArrayLike) -> Array:
    return lax.mul(g, ans)


defjvp2(exp_p, _exp_jvp)


def _log_jvp(g: ArrayLike, x: ArrayLike) -> Array:
    return lax.div(g, x)


defjvp(log_p, _log_jvp)


def _log1p_jvp(g: ArrayLike, x: ArrayLike) -> Array:
    return lax.div(g, lax.add(1, x))


defjvp(log1p_p, _log1p_jvp)


def _expm1_jvp(g: ArrayLike, ans: ArrayLike, x: ArrayLike) -> Array:
    return lax.mul(g, lax.add(ans, 1))


defjvp2(expm1_p, _expm1_jvp)


def _logistic_jvp(g: ArrayLike, ans: ArrayLike, x: ArrayLike) -> Array:
    return lax.mul(g, lax.mul(ans, lax.sub(1, ans)))


defjvp2(logistic_p, _logistic_jvp)


def _sqrt_jvp(g: ArrayLike, ans: ArrayLike, x: ArrayLike) -> Array:
    return lax.div(g, lax.mul(2, ans))


defjvp2(sqrt_p, _sqrt_jvp)


def _rsqrt_jvp(g: ArrayLike, ans: ArrayLike, x: ArrayLike) -> Array:
    return lax.mul(g, lax.mul(-0.5, lax.div(ans, x)))


defjvp2(rsqrt_p, _rsqrt_jvp)

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _erf_jvp(g: ArrayLike, x: ArrayLike) -> Array:
    return lax.mul(g, lax.mul(_TWO_OVER_SQRT_PI, lax.exp(lax.neg(lax.mul(x, x)))))


defjvp(erf_p, _erf_jvp)


def _abs_jvp(g: ArrayLike, x: ArrayLike) -> Array:
    if shape_dtype(x)[1].kind == "c":
        # JAX's rule: Re(g * conj(x) / |x|), with |x| = 0 replaced by 1 (derivative 0 there)
        ans = lax.abs(x)
        safe = lax.select_n(lax.eq(ans, 0), ans, 1)
        return lax.real(lax.mul(g, lax.div(lax.conj(x), lax.complex(safe, 0.0))))
    # JAX's rule: g where x >= 0, else -g (so the derivative at 0, and at -0.0, is +1)
    return lax.select_n(lax.ge(x, 0), lax.neg(g), g)


defjvp(abs_p, _abs_jvp, real_only=True)  # the complex formula is not complex-linear in g


def _integer_pow_jvp(g: ArrayLike, x: ArrayLike, *, y: int) -> ArrayLike:
    if y == 0:
        return lax.mul(g, 0)
    if y == 1:
        return g
    coeff = lax.mul(y, x if y == 2 else lax.integer_pow(x, y - 1))
    return lax.mul(g, coeff)


defjvp(integer_pow_p, _integer_pow_jvp)


# --- linear unary: neg ------------------------------------------------------------------------
def _neg_jvp(primals: list[Any], tangents: list[Any]) -> tuple[list[Any], list[Any]]:
    (x,), (t,) = primals, tangents
    return [lax.neg(x)], [t if type(t) is Zero else lax.neg(t)]


def _neg_transpose(cts: list[Any], x: UndefPrimal) -> list[Any]:
    return [lax.neg(cts[0])]


jvp_rules[neg_p] = _neg_jvp
transpose_rules[neg_p] = _neg_transpose
derivative_kinds[neg_p] = Linear()


# --- add / sub --------------------------------------------------------------------------------
def _fit_from(t: ArrayLike, x: ArrayLike, ans: ArrayLike) -> ArrayLike:
    """Fit operand ``x``'s tangent ``t`` to the output ``ans``; checked on the primals, which
    are usually concrete arrays (cheaper to inspect than tracers)."""
    x_shape, x_dtype = shape_dtype(x)
    a_shape, a_dtype = shape_dtype(ans)
    if x_shape == a_shape and x_dtype == a_dtype:
        return t
    return fit_tangent(t, ans)


def _add_jvp(primals: list[Any], tangents: list[Any]) -> tuple[list[Any], list[Any]]:
    (x, y), (tx, ty) = primals, tangents
    ans = lax.add(x, y)
    if type(ty) is Zero:
        return [ans], [_fit_from(tx, x, ans)]
    if type(tx) is Zero:
        return [ans], [_fit_from(ty, y, ans)]
    return [ans], [fit_tangent(lax.add(tx, ty), ans)]


def _add_transpose(cts: list[Any], x: Operand, y: Operand) -> list[Any]:
    ct = cts[0]
    return [
        unbroadcast(ct, x.aval) if type(x) is UndefPrimal else None,
        unbroadcast(ct, y.aval) if type(y) is UndefPrimal else None,
    ]


jvp_rules[add_p] = _add_jvp
transpose_rules[add_p] = _add_transpose
derivative_kinds[add_p] = Linear()


def _sub_jvp(primals: list[Any], tangents: list[Any]) -> tuple[list[Any], list[Any]]:
    (x, y), (tx, ty) = primals, tangents
    ans = lax.sub(x, y)
    if type(ty) is Zero:
        return [ans], [_fit_from(tx, x, ans)]
    if type(tx) is Zero:
        return [ans], [_fit_from(lax.neg(ty), y, ans)]
    return [ans], [fit_tangent(lax.sub(tx, ty), ans)]


def _sub_transpose(cts: list[Any], x: Operand, y: Operand) -> list[Any]:
    ct = cts[0]
    return [
        unbroadcast(ct, x.aval) if type(x) is UndefPrimal else None,
        unbroadcast(lax.neg(ct), y.aval) if type(y) is UndefPrimal else None,
    ]


jvp_rules[sub_p] = _sub_jvp
transpose_rules[sub_p] = _sub_transpose
derivative_kinds[sub_p] = Linear()


# --- mul / div (bilinear / linear in the numerator) -------------------------------------------
# ``t * y`` already has the output's shape and dtype (mul broadcasts and promotes), so mul's
# rule needs no fitting.
def _mul_jvp(primals: list[Any], tangents: list[Any]) -> tuple[list[Any], list[Any]]:
    (x, y), (tx, ty) = primals, tangents
    ans = lax.mul(x, y)
    if type(ty) is Zero:
        return [ans], [lax.mul(tx, y)]
    if type(tx) is Zero:
        return [ans], [lax.mul(x, ty)]
    return [ans], [lax.add(lax.mul(tx, y), lax.mul(x, ty))]


def _nonlinear_error(prim: str) -> TypeError:
    where = user_location()
    return TypeError(
        f"{prim}: both operands are linear (tangent) values, so the product is not linear and "
        f"cannot be transposed{' (' + where + ')' if where else ''}. A custom JVP rule "
        "probably multiplies two tangents."
    )


def _mul_transpose(cts: list[Any], x: Operand, y: Operand) -> list[Any]:
    ct = cts[0]
    if type(x) is UndefPrimal:
        if type(y) is UndefPrimal:
            raise _nonlinear_error("mul")
        return [unbroadcast(lax.mul(ct, y), x.aval), None]
    assert type(y) is UndefPrimal  # one operand at least is the linear one
    return [None, unbroadcast(lax.mul(x, ct), y.aval)]


jvp_rules[mul_p] = _mul_jvp
transpose_rules[mul_p] = _mul_transpose
derivative_kinds[mul_p] = Bilinear()


def _div_jvp_lhs(g: ArrayLike, x: ArrayLike, y: ArrayLike) -> Array:
    return lax.div(g, y)


def _div_jvp_rhs(g: ArrayLike, x: ArrayLike, y: ArrayLike) -> Array:
    """JAX's ``-g * x * y**-2``: reverse mode saves ``x`` and ``y**-2`` (for ``softmax``, the
    array ``exp(x - max)`` and two reduced values, as JAX's ``saved_residuals`` counts)."""
    return lax.mul(lax.mul(lax.neg(g), x), lax.integer_pow(y, -2))


defjvp(div_p, _div_jvp_lhs, _div_jvp_rhs)


def _div_transpose(cts: list[Any], x: UndefPrimal, y: Operand) -> list[Any]:
    if type(y) is UndefPrimal:
        raise _nonlinear_error("div (in its denominator)")
    return [unbroadcast(lax.div(cts[0], y), x.aval), None]


transpose_rules[div_p] = _div_transpose


# --- other binary -----------------------------------------------------------------------------
def _rem_jvp_lhs(g: ArrayLike, x: ArrayLike, y: ArrayLike) -> ArrayLike:
    return g


def _rem_jvp_rhs(g: ArrayLike, x: ArrayLike, y: ArrayLike) -> Array:
    q = lax.div(x, y)
    trunc = lax.mul(lax.sign(q), lax.floor(lax.abs(q)))
    return lax.mul(g, lax.neg(trunc))


defjvp(rem_p, _rem_jvp_lhs, _rem_jvp_rhs)


def _pow_jvp_lhs(g: ArrayLike, ans: ArrayLike, x: ArrayLike, y: ArrayLike) -> Array:
    """JAX's formula, term for term (so higher derivatives at ``x == 0`` have JAX's NaNs):
    ``y * x ** (y - 1)``; an integer exponent gives 0 where ``y == 0``, a float one does not
    (``x ** 1.0`` has a NaN second derivative at 0: ``0.0 * 0 ** -1.0``)."""
    if type(y) is int or (type(y) is not float and dtype_of(y).kind in "iub"):
        y_x = lax.convert_element_type(y, dtype_of(x))  # (JAX's result dtype)
        is_zero = lax.eq(y_x, lax.full_like(y_x, 0))
        y_safe = lax.select_n(is_zero, y_x, lax.full_like(y_x, 1))
        coeff = lax.mul(y_safe, lax.pow(x, lax.sub(y_x, lax.full_like(y_x, 1))))
        coeff = lax.select_n(is_zero, coeff, lax.full_like(coeff, 0))
    else:
        coeff = lax.mul(y, lax.pow(x, lax.sub(y, 1)))
    return lax.mul(g, coeff)


def _pow_jvp_rhs(g: ArrayLike, ans: ArrayLike, x: ArrayLike, y: ArrayLike) -> Array:
    # log(x) * x ** y, and 0 where x == 0 (the limit for y > 0)
    safe_x = lax.select_n(lax.eq(x, 0), x, 1)
    return lax.mul(g, lax.mul(lax.log(safe_x), ans))


defjvp2(pow_p, _pow_jvp_lhs, _pow_jvp_rhs)


def _balanced_share(g: ArrayLike, first: ArrayLike, x: ArrayLike, y: ArrayLike) -> Array:
    """``g`` times 1 where ``first`` holds, 0.5 where ``x == y`` (ties split the derivative,
    as JAX), 0 elsewhere: the share of the derivative that goes to ``x`` in max/min. The share
    is made in ``g``'s dtype when that differs from the weak constants' (float16 ``g``); a
    weak ``g`` keeps the product weak, as JAX's."""
    share = lax.select_n(lax.eq(x, y), lax.select_n(first, 0.0, 1.0), 0.5)
    if dtype_of(share) != dtype_of(g):
        share = lax.convert_element_type(share, dtype_of(g))
    return lax.mul(g, share)


def _max_jvp_lhs(g: ArrayLike, x: ArrayLike, y: ArrayLike) -> Array:
    return _balanced_share(g, lax.greater(x, y), x, y)


def _max_jvp_rhs(g: ArrayLike, x: ArrayLike, y: ArrayLike) -> Array:
    return _balanced_share(g, lax.greater(y, x), y, x)


defjvp(max_p, _max_jvp_lhs, _max_jvp_rhs)


def _min_jvp_lhs(g: ArrayLike, x: ArrayLike, y: ArrayLike) -> Array:
    return _balanced_share(g, lax.less(x, y), x, y)


def _min_jvp_rhs(g: ArrayLike, x: ArrayLike, y: ArrayLike) -> Array:
    return _balanced_share(g, lax.less(y, x), y, x)


defjvp(min_p, _min_jvp_lhs, _min_jvp_rhs)


def _atan2_jvp_lhs(g: ArrayLike, x: ArrayLike, y: ArrayLike) -> Array:
    return lax.mul(g, lax.div(y, lax.add(lax.mul(x, x), lax.mul(y, y))))


def _atan2_jvp_rhs(g: ArrayLike, x: ArrayLike, y: ArrayLike) -> Array:
    return lax.mul(g, lax.neg(lax.div(x, lax.add(lax.mul(x, x), lax.mul(y, y)))))


defjvp(atan2_p, _atan2_jvp_lhs, _atan2_jvp_rhs)


# --- n-ary ------------------------------------------------------------------------------------
def _where(mask: ArrayLike, g: ArrayLike) -> Array:
    """``g`` where ``mask``, else 0: a select, as JAX's clamp rule, not a multiply by the
    mask, so a masked-out cotangent that is infinite (a log at a clamped edge) gives 0, not
    ``inf * 0 = nan``."""
    return lax.select_n(mask, 0, g)


def _clamp_jvp_lo(g: ArrayLike, lo: ArrayLike, x: ArrayLike, hi: ArrayLike) -> Array:
    return _where(lax.bitwise_and(lax.greater(lo, x), lax.less(lo, hi)), g)


def _clamp_jvp_x(g: ArrayLike, lo: ArrayLike, x: ArrayLike, hi: ArrayLike) -> Array:
    return _where(lax.bitwise_and(lax.greater(x, lo), lax.less(x, hi)), g)


def _clamp_jvp_hi(g: ArrayLike, lo: ArrayLike, x: ArrayLike, hi: ArrayLike) -> Array:
    return _where(lax.less(hi, x), g)


defjvp(clamp_p, _clamp_jvp_lo, _clamp_jvp_x, _clamp_jvp_hi)


def _select_n_jvp(primals: list[Any], tangents: list[Any]) -> tuple[list[Any], list[Any]]:
    which, *cases = primals
    ans = lax.select_n(which, *cases)
    # a zero case tangent is a weak scalar 0: it broadcasts, and an integer case (whose
    # tangent is float0) takes the dtype of the others
    case_tangents = [0 if type(t) is Zero else t for t in tangents[1:]]
    return [ans], [fit_tangent(lax.select_n(which, *case_tangents), ans)]


def _select_n_transpose(cts: list[Any], which: Operand, *cases: Operand) -> list[Any]:
    if type(which) is UndefPrimal:
        raise TypeError("select_n: the selector cannot be a linear (tangent) value.")
    ct = cts[0]
    out: list[Any] = [None]
    for i, case in enumerate(cases):
        if type(case) is not UndefPrimal:
            out.append(None)
            continue
        picks = [ct if j == i else 0 for j in range(len(cases))]
        out.append(unbroadcast(lax.select_n(which, *picks), case.aval))
    return out


jvp_rules[select_n_p] = _select_n_jvp
transpose_rules[select_n_p] = _select_n_transpose
derivative_kinds[select_n_p] = Linear()  # in its cases (the selector is an integer or bool)


# --- nextafter --------------------------------------------------------------------------------
def undifferentiable(name: str) -> Callable[[list[Any], list[Any]], tuple[list[Any], list[Any]]]:
    """The jvp rule of a primitive JAX has no derivative for (differentiating it is an
    error there): it raises JAX's NotImplementedError, naming the primitive."""

    def rule(primals: list[Any], tangents: list[Any]) -> tuple[list[Any], list[Any]]:
        raise NotImplementedError(
            f"Differentiation rule for '{name}' not implemented (as in JAX){user_line_suffix()}"
        )

    return rule


jvp_rules[nextafter_p] = undifferentiable("nextafter")
