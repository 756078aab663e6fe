"""lax-style wrappers: one thin function per primitive, ``bind`` underneath.

These are the operations transformations see. They follow ``jax.lax`` names and signatures
(array operands positional, metadata as keywords), except that elementwise operations
broadcast and promote like NumPy (see :mod:`mj_core.prims.elementwise`).
"""

from __future__ import annotations

from typing import Any

from mj_core.prims import elementwise as ew
from mj_core.trace import bind1

Array = Any

def neg(x: Array) -> Array:
    return bind1(ew.neg_p, x)

def sin(x: Array) -> Array:
    return bind1(ew.sin_p, x)

def cos(x: Array) -> Array:
    return bind1(ew.cos_p, x)

def tan(x: Array) -> Array:
    return bind1(ew.tan_p, x)

def asin(x: Array) -> Array:
    return bind1(ew.asin_p, x)

def acos(x: Array) -> Array:
    return bind1(ew.acos_p, x)

def atan(x: Array) -> Array:
    return bind1(ew.atan_p, x)

def sinh(x: Array) -> Array:
    return bind1(ew.sinh_p, x)

def cosh(x: Array) -> Array:
    return bind1(ew.cosh_p, x)

def tanh(x: Array) -> Array:
    return bind1(ew.tanh_p, x)

def exp(x: Array) -> Array:
    return bind1(ew.exp_p, x)

def log(x: Array) -> Array:
    return bind1(ew.log_p, x)

def log1p(x: Array) -> Array:
    return bind1(ew.log1p_p, x)

def expm1(x: Array) -> Array:
    return bind1(ew.expm1_p, x)

def logistic(x: Array) -> Array:
    return bind1(ew.logistic_p, x)

def sqrt(x: Array) -> Array:
    return bind1(ew.sqrt_p, x)

def rsqrt(x: Array) -> Array:
    return bind1(ew.rsqrt_p, x)

def abs(x: Array) -> Array:
    return bind1(ew.abs_p, x)

def sign(x: Array) -> Array:
    return bind1(ew.sign_p, x)

def floor(x: Array) -> Array:
    return bind1(ew.floor_p, x)

def ceil(x: Array) -> Array:
    return bind1(ew.ceil_p, x)

def is_finite(x: Array) -> Array:
    return bind1(ew.is_finite_p, x)

def erf(x: Array) -> Array:
    return bind1(ew.erf_p, x)

def bitwise_not(x: Array) -> Array:
    return bind1(ew.not_p, x)


def round(x: Array, rounding_method: int = 0) -> Array:  # noqa: A001
    """Round to integral values; ``rounding_method`` 0 rounds half away from zero (lax's
    default), 1 rounds half to even (NumPy's)."""
    return bind1(ew.round_p, x, rounding_method=int(rounding_method))


def integer_pow(x: Array, y: int) -> Array:
    return bind1(ew.integer_pow_p, x, y=int(y))

def add(x: Array, y: Array) -> Array:
    return bind1(ew.add_p, x, y)

def sub(x: Array, y: Array) -> Array:
    return bind1(ew.sub_p, x, y)

def mul(x: Array, y: Array) -> Array:
    return bind1(ew.mul_p, x, y)

def div(x: Array, y: Array) -> Array:
    return bind1(ew.div_p, x, y)

def rem(x: Array, y: Array) -> Array:
    return bind1(ew.rem_p, x, y)

def pow(x: Array, y: Array) -> Array:
    return bind1(ew.pow_p, x, y)

def max(x: Array, y: Array) -> Array:
    return bind1(ew.max_p, x, y)

def min(x: Array, y: Array) -> Array:
    return bind1(ew.min_p, x, y)

def atan2(x: Array, y: Array) -> Array:
    return bind1(ew.atan2_p, x, y)

def shift_left(x: Array, y: Array) -> Array:
    return bind1(ew.shift_left_p, x, y)

def shift_right_logical(x: Array, y: Array) -> Array:
    return bind1(ew.shift_right_logical_p, x, y)

def shift_right_arithmetic(x: Array, y: Array) -> Array:
    return bind1(ew.shift_right_arithmetic_p, x, y)

def eq(x: Array, y: Array) -> Array:
    return bind1(ew.eq_p, x, y)

def ne(x: Array, y: Array) -> Array:
    return bind1(ew.ne_p, x, y)

def less(x: Array, y: Array) -> Array:
    return bind1(ew.less_p, x, y)

def less_equal(x: Array, y: Array) -> Array:
    return bind1(ew.less_equal_p, x, y)

def greater(x: Array, y: Array) -> Array:
    return bind1(ew.greater_p, x, y)

def greater_equal(x: Array, y: Array) -> Array:
    return bind1(ew.greater_equal_p, x, y)

def bitwise_and(x: Array, y: Array) -> Array:
    return bind1(ew.and_p, x, y)


def bitwise_or(x: Array, y: Array) -> Array:
    return bind1(ew.or_p, x, y)


def bitwise_xor(x: Array, y: Array) -> Array:
    return bind1(ew.xor_p, x, y)


# jax.lax spellings
lt = less
le = less_equal
gt = greater
ge = greater_equal


def select_n(which: Array, *cases: Array) -> Array:
    """``cases[which]`` elementwise; a bool ``which`` picks ``cases[1]`` where True."""
    return bind1(ew.select_n_p, which, *cases)


def select(pred: Array, on_true: Array, on_false: Array) -> Array:
    return bind1(ew.select_n_p, pred, on_false, on_true)


def clamp(min: Array, x: Array, max: Array) -> Array:  # noqa: A002
    return bind1(ew.clamp_p, min, x, max)
