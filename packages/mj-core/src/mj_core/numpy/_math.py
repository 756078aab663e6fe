"""Elementwise math with NumPy names, broadcasting and JAX's type promotion.

lax never promotes, so each binary function promotes its operands on JAX's lattice before its
primitive (``binds(prim, promote)``: eager operands of one dtype still go straight to the
primitive's NumPy ufunc, with no extra Python frame); so does each float-valued unary one,
which converts an integer or bool operand to JAX's float first (``mnp.sin``: ``binds(sin_p,
_inexact(lax.sin))``; ``lax.sin`` refuses integers, as ``jax.lax.sin``). The rest adapt lax
semantics to NumPy's (true division of integers, floor division and ``mod`` with the
divisor's sign, ...).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any, SupportsIndex

import ml_dtypes
import numpy as np

from mj_core import lax
from mj_core._array_views import array_views
from mj_core._primitive import Primitive
from mj_core._shapes import shape_of
from mj_core._trace import Tracer, binds
from mj_core._typing import Array, ArrayLike
from mj_core.dtypes import default_float_dtype, is_float, is_inexact
from mj_core.errors import user_line_suffix
from mj_core.numpy._creation import asarray
from mj_core.numpy._inverse_hyperbolic import arccosh, arcsinh, arctanh
from mj_core.numpy._promotion import (
    check_ranks,
    const_like,
    convert,
    dtype_weak,
    lax_operands,
    lax_operands_inexact,
    lax_pair,
    promote,
    promote_inexact,
    promote_numeric,
    promoted_dtype,
    strong_const,
)
from mj_core.prims._operands import bind1, unchanged
from mj_core.prims.elementwise import (
    acos_p,
    add_p,
    and_p,
    asin_p,
    atan2_p,
    atan_p,
    category_kind,
    cos_p,
    cosh_p,
    eq_p,
    exp_p,
    expm1_p,
    greater_equal_p,
    greater_p,
    less_equal_p,
    less_p,
    log1p_p,
    log_p,
    max_p,
    min_p,
    mul_p,
    ne_p,
    or_p,
    sin_p,
    sinh_p,
    sqrt_p,
    sub_p,
    tan_p,
    tanh_p,
    xor_p,
)

__all__ = [
    "abs",
    "absolute",
    "add",
    "angle",
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctan2",
    "arctanh",
    "around",
    "bitwise_and",
    "bitwise_invert",
    "bitwise_not",
    "bitwise_or",
    "bitwise_xor",
    "cbrt",
    "ceil",
    "clip",
    "conj",
    "conjugate",
    "copysign",
    "cos",
    "cosh",
    "deg2rad",
    "degrees",
    "divide",
    "equal",
    "exp",
    "exp2",
    "expm1",
    "fabs",
    "floor",
    "floor_divide",
    "fmax",
    "fmin",
    "fmod",
    "greater",
    "greater_equal",
    "heaviside",
    "hypot",
    "imag",
    "invert",
    "isclose",
    "iscomplexobj",
    "isfinite",
    "isinf",
    "isnan",
    "left_shift",
    "less",
    "less_equal",
    "log",
    "log1p",
    "log2",
    "log10",
    "logaddexp",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "maximum",
    "minimum",
    "mod",
    "multiply",
    "nan_to_num",
    "negative",
    "not_equal",
    "positive",
    "power",
    "rad2deg",
    "radians",
    "real",
    "reciprocal",
    "remainder",
    "right_shift",
    "rint",
    "round",
    "sign",
    "signbit",
    "sin",
    "sinh",
    "sqrt",
    "square",
    "subtract",
    "tan",
    "tanh",
    "true_divide",
    "trunc",
    "where",
]


# --- unary, float-valued: integers and bools to JAX's float first (promote_inexact), as
# jax.numpy does: the primitive takes floats and complex numbers only. A float operand goes
# straight to the primitive's ufunc (``binds``' shortcut), the conversion costs it nothing.
def _inexact(op: Callable[[ArrayLike], Array]) -> Callable[[ArrayLike], Array]:
    """The NumPy-level slow path of a float-valued primitive: convert, then its lax wrapper
    ``op`` (which binds it, after its own ufunc shortcut: ``mnp.sin`` of an int32 array
    computes the converted float32 array as ``lax.sin`` does, not through ``bind``)."""

    def numpy(x: ArrayLike) -> Array:
        return op(*promote_inexact(x))

    return numpy


@binds(sin_p, _inexact(lax.sin))
def sin(x: ArrayLike) -> Array:
    """Elementwise sine."""


@binds(cos_p, _inexact(lax.cos))
def cos(x: ArrayLike) -> Array:
    """Elementwise cosine."""


@binds(tan_p, _inexact(lax.tan))
def tan(x: ArrayLike) -> Array:
    """Elementwise tangent."""


@binds(asin_p, _inexact(lax.asin))
def arcsin(x: ArrayLike) -> Array:
    """Elementwise arc sine."""


@binds(acos_p, _inexact(lax.acos))
def arccos(x: ArrayLike) -> Array:
    """Elementwise arc cosine."""


@binds(atan_p, _inexact(lax.atan))
def arctan(x: ArrayLike) -> Array:
    """Elementwise arc tangent."""


@binds(sinh_p, _inexact(lax.sinh))
def sinh(x: ArrayLike) -> Array:
    """Elementwise hyperbolic sine."""


@binds(cosh_p, _inexact(lax.cosh))
def cosh(x: ArrayLike) -> Array:
    """Elementwise hyperbolic cosine."""


@binds(tanh_p, _inexact(lax.tanh))
def tanh(x: ArrayLike) -> Array:
    """Elementwise hyperbolic tangent."""


@binds(exp_p, _inexact(lax.exp))
def exp(x: ArrayLike) -> Array:
    """Elementwise exponential: ``e ** x``."""


@binds(log_p, _inexact(lax.log))
def log(x: ArrayLike) -> Array:
    """Elementwise natural logarithm."""


@binds(log1p_p, _inexact(lax.log1p))
def log1p(x: ArrayLike) -> Array:
    """Elementwise ``log(1 + x)``, accurate for small ``x``."""


@binds(expm1_p, _inexact(lax.expm1))
def expm1(x: ArrayLike) -> Array:
    """Elementwise ``exp(x) - 1``, accurate for small ``x``."""


@binds(sqrt_p, _inexact(lax.sqrt))
def sqrt(x: ArrayLike) -> Array:
    """Elementwise square root."""


# --- unary: the lax wrappers themselves (fast eager path) -----------------------------------
negative = lax.neg
sign = lax.sign
bitwise_not = lax.bitwise_not
invert = lax.bitwise_not
bitwise_invert = lax.bitwise_not


# --- binary: lax's primitives after promotion on JAX's lattice (fast eager path too) ---------
def _promoting(
    prim: Primitive, name: str, inexact: bool = False
) -> Callable[[Array, Array], Array]:
    """The NumPy-level slow path of ``prim`` (the function ``name``): check ranks, promote,
    then bind."""
    operands = lax_operands_inexact if inexact else lax_operands

    def numpy(x: ArrayLike, y: ArrayLike) -> Array:
        check_ranks(name, x, y)
        return bind1(prim, *operands(x, y))

    return numpy


def _boolean_as(prim: Primitive, logical: Primitive, name: str) -> Callable[[Array, Array], Array]:
    """NumPy's ``+``/``*`` of two bools is logical or/and (lax's arithmetic refuses bools)."""

    def numpy(x: ArrayLike, y: ArrayLike) -> Array:
        check_ranks(name, x, y)
        x, y, dtype = lax_pair(x, y)
        return bind1(logical if dtype.kind == "b" else prim, x, y)

    return numpy


@binds(add_p, _boolean_as(add_p, or_p, "add"))
def add(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise ``x + y``, broadcasting and promoting on JAX's lattice (bools: or)."""


@binds(sub_p, _promoting(sub_p, "subtract"))
def subtract(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise ``x - y``."""


@binds(mul_p, _boolean_as(mul_p, and_p, "multiply"))
def multiply(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise ``x * y`` (bools: and)."""


def _lexicographic(prim: Primitive, name: str) -> Callable[[Array, Array], Array]:
    """NumPy's order of complex numbers (real parts, then imaginary parts) for comparisons,
    as ``jax.numpy`` builds it: lax compares only reals."""

    def numpy(x: ArrayLike, y: ArrayLike) -> Array:
        check_ranks(name, x, y)
        x, y = lax_operands(x, y)
        if dtype_weak(x)[0].kind != "c" and dtype_weak(y)[0].kind != "c":
            return bind1(prim, x, y)
        x, y = promote(x, y)  # (a weak complex scalar made an array for real/imag)
        rx, ry, ix, iy = lax.real(x), lax.real(y), lax.imag(x), lax.imag(y)
        return lax.select(lax.eq(rx, ry), bind1(prim, ix, iy), bind1(prim, rx, ry))

    return numpy


@binds(max_p, _promoting(max_p, "maximum"))
def maximum(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise maximum (NaN-propagating; complex numbers in lax's lexicographic order)."""


@binds(min_p, _promoting(min_p, "minimum"))
def minimum(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise minimum (as :func:`maximum`)."""


@binds(atan2_p, _promoting(atan2_p, "arctan2", inexact=True))
def arctan2(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise arc tangent of ``x / y`` in the quadrant of ``(y, x)``."""


@binds(eq_p, _promoting(eq_p, "equal"))
def equal(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise ``x == y``."""


@binds(ne_p, _promoting(ne_p, "not_equal"))
def not_equal(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise ``x != y``."""


@binds(less_p, _lexicographic(less_p, "less"))
def less(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise ``x < y``."""


@binds(less_equal_p, _lexicographic(less_equal_p, "less_equal"))
def less_equal(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise ``x <= y``."""


@binds(greater_p, _lexicographic(greater_p, "greater"))
def greater(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise ``x > y``."""


@binds(greater_equal_p, _lexicographic(greater_equal_p, "greater_equal"))
def greater_equal(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise ``x >= y``."""


@binds(and_p, _promoting(and_p, "bitwise_and"))
def bitwise_and(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise bitwise AND (logical AND for bool)."""


@binds(or_p, _promoting(or_p, "bitwise_or"))
def bitwise_or(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise bitwise OR (logical OR for bool)."""


@binds(xor_p, _promoting(xor_p, "bitwise_xor"))
def bitwise_xor(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise bitwise XOR (logical XOR for bool)."""


def left_shift(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise ``x << y`` (bools shift as int32, as in JAX)."""
    check_ranks("left_shift", x, y)
    return lax.shift_left(*promote_numeric(x, y))


def fmod(x: ArrayLike, y: ArrayLike) -> Array:
    """C's ``fmod`` (lax ``rem``); an integer ``fmod`` by zero is 0, as in JAX. Bools are
    computed as int32, and as in JAX their division by zero is XLA's (``x``)."""
    check_ranks("fmod", x, y)
    integral = promoted_dtype(x, y)[0].kind in "iu"
    x, y = promote_numeric(x, y)
    dtype, weak = dtype_weak(y)
    if integral:
        y = lax.select(lax.eq(y, 0), convert(1, dtype, weak), y)
    return lax.rem(x, y)


def positive(x: ArrayLike) -> Array:
    return unchanged(x)


def absolute(x: ArrayLike) -> Array:
    """``|x|``; unsigned (``uint4`` too) and bool inputs are returned unchanged, like NumPy."""
    dtype, _ = dtype_weak(x)
    return unchanged(x) if category_kind(dtype) in "ub" else lax.abs(x)


abs = absolute


def fabs(x: ArrayLike) -> Array:
    """``|x|`` in an inexact dtype (JAX: ints and bools promote to float); real only."""
    (x,) = promote_inexact(x)
    if dtype_weak(x)[0].kind == "c":
        raise TypeError(f"ufunc 'fabs' does not support complex dtypes{user_line_suffix()}")
    return lax.abs(x)


def square(x: ArrayLike) -> Array:
    """``x * x``; a bool squares as int32, as in JAX. A complex ``a+bj`` squares as JAX's
    lowering (``chlo.square``) does: ``(a-b)(a+b) + 2abj``, with a zero real part where
    ``|a| == |b|``, so ``(inf+1e30j)**2`` is ``inf+infj`` (``x * x`` gives ``nan+infj``)."""
    (x,) = promote_numeric(x)
    if dtype_weak(x)[0].kind != "c":
        return lax.integer_pow(x, 2)
    a, b = lax.real(x), lax.imag(x)
    zero = lax.bitwise_and(lax.is_finite(a), lax.eq(lax.abs(a), lax.abs(b)))
    re = lax.select(zero, lax.zeros_like_array(a), lax.mul(lax.sub(a, b), lax.add(a, b)))
    ab = lax.mul(a, b)
    return lax.complex(re, lax.add(ab, ab))


def reciprocal(x: ArrayLike) -> Array:
    """``1 / x``; integers and bools promote to float first (JAX; NumPy truncates)."""
    (x,) = promote_inexact(x)
    return lax.integer_pow(x, -1)


def true_divide(x: ArrayLike, y: ArrayLike) -> Array:
    """``x / y``; integers and bools are divided in NumPy's float dtype (int32 -> float64)."""
    check_ranks("true_divide", x, y)
    x, y = promote_inexact(x, y)
    return lax.div(x, y)


divide = true_divide


def floor_divide(x: ArrayLike, y: ArrayLike) -> Array:
    """``x // y``: rounds toward minus infinity (lax ``div`` truncates toward zero). JAX's
    algorithm, whose division by zero follows XLA's (``-5 // 0`` and ``5 // 0`` are -2).
    Bools divide as int32."""
    check_ranks("floor_divide", x, y)
    x, y = promote_numeric(x, y)
    dtype, _ = dtype_weak(x)
    if dtype.kind == "u":
        return lax.div(x, y)
    if dtype.kind == "i":
        q = lax.div(x, y)
        fix = lax.bitwise_and(lax.ne(lax.sign(x), lax.sign(y)), lax.ne(lax.rem(x, y), 0))
        return lax.select(fix, lax.sub(q, 1), q)  # (a Python 1, as JAX's: q stays weak)
    if dtype.kind == "c":
        raise TypeError("floor_divide: complex operands are not supported")
    return _float_floor_divide(x, y)


def _float_floor_divide(x: ArrayLike, y: ArrayLike) -> Array:
    """CPython's ``float_divmod`` quotient (as JAX): ``(x - mod) / y`` is exact where
    ``floor(x / y)`` rounds at the division, then corrected by one where the signs differ."""
    mod = lax.rem(x, y)
    q = lax.div(lax.select(lax.eq(y, 0), x, lax.sub(x, mod)), y)
    fix = lax.bitwise_and(lax.ne(mod, 0), lax.ne(lax.sign(y), lax.sign(mod)))
    return lax.round(lax.select(fix, lax.sub(q, 1), q))


def remainder(x: ArrayLike, y: ArrayLike) -> Array:
    """``x % y`` with the sign of ``y`` (NumPy's ``mod``; lax ``rem`` is C's ``fmod``). An
    integer remainder by zero is 0, as in JAX; bools are computed as int32."""
    check_ranks("remainder", x, y)
    x, y = promote_numeric(x, y)
    dtype, weak = dtype_weak(y)
    if dtype.kind in "iu":
        y = lax.select(lax.eq(y, 0), convert(1, dtype, weak), y)
    r = lax.rem(x, y)
    fix = lax.bitwise_and(lax.ne(r, 0), lax.ne(lax.less(r, 0), lax.less(y, 0)))
    return lax.select(fix, lax.add(r, y), r)


mod = remainder


def power(x: ArrayLike, y: ArrayLike) -> Array:
    """``x ** y`` with JAX's algorithm: a concrete integer exponent uses ``integer_pow``
    (exact, differentiable at 0, and an integer to a negative power is refused); integers to
    traced integer powers multiply by repeated squaring over the exponent's low 6 bits."""
    if not isinstance(y, Tracer) and isinstance(y, SupportsIndex):
        try:
            n = operator.index(y)
        except TypeError:
            pass
        else:
            (x,) = promote_numeric(x)  # (a bool base is JAX's int32, also with x64)
            return lax.integer_pow(x, n)
    check_ranks("power", x, y)
    dtype, weak = promoted_dtype(x, y)
    if dtype.kind in "fc" and dtype_weak(y)[0].kind in "iu":
        # a traced integer exponent stays one, as JAX's: pow's derivative in x is then 0
        # where y == 0, where a float y gives 0 * x ** -1 = NaN at x == 0
        return lax.pow(convert(x, dtype, weak), y)
    if dtype.kind in "iub":
        return _pow_int_int(*promote_numeric(x, y))
    x, y = promote(x, y)
    return lax.pow(x, y)


def _pow_int_int(x: ArrayLike, y: ArrayLike) -> Array:
    """JAX's ``_pow_int_int``: six squarings (any larger exponent overflows for ``|x| > 1``),
    from JAX's strong constants 0 and 1 of the exponent's dtype, so the result is strong
    (``jit(power)(2, 3)`` is a strong int32, as in JAX)."""
    zero, one = strong_const(y, 0), strong_const(y, 1)
    acc = lax.select(lax.bitwise_and(lax.eq(x, zero), lax.ne(y, zero)), zero, one)
    for _ in range(6):
        acc = lax.select(lax.ne(lax.bitwise_and(y, one), 0), lax.mul(acc, x), acc)
        x = lax.mul(x, x)
        y = lax.shift_right_logical(y, one)
    return acc


def exp2(x: ArrayLike) -> Array:
    """``exp(x ln 2)``, as JAX lowers it (``pow(2, x)`` turns ``inf`` into ``inf+nanj``)."""
    (x,) = promote_inexact(x)
    return lax.exp(lax.mul(x, math.log(2.0)))


def _log_base(x: ArrayLike, base: float) -> Array:
    """``log(x) / log(base)`` in ``x``'s dtype; a complex log is divided part by part, since a
    complex division turns ``log(0) = -inf+0j`` into ``-inf+nanj``."""
    (x,) = promote_inexact(x)
    r = lax.log(x)
    dtype, _ = dtype_weak(x)
    # a constant of the (real) dtype, strong as JAX's ``log(_constant_like(x, base))``: the
    # result is not weak even for a Python scalar ``x``
    ln_base = np.asarray(math.log(base), lax.real(r).dtype if dtype.kind == "c" else dtype)
    if dtype.kind == "c":
        return lax.complex(lax.div(lax.real(r), ln_base), lax.div(lax.imag(r), ln_base))
    return lax.div(r, ln_base)


def log2(x: ArrayLike) -> Array:
    return _log_base(x, 2.0)


def log10(x: ArrayLike) -> Array:
    return _log_base(x, 10.0)


def cbrt(x: ArrayLike) -> Array:
    (x,) = promote_inexact(x)
    return lax.mul(lax.sign(x), lax.pow(lax.abs(x), 1.0 / 3.0))


def deg2rad(x: ArrayLike) -> Array:
    (x,) = promote_inexact(x)
    return lax.mul(x, np.pi / 180.0)


def rad2deg(x: ArrayLike) -> Array:
    (x,) = promote_inexact(x)
    return lax.mul(x, 180.0 / np.pi)


radians = deg2rad
degrees = rad2deg


def hypot(x: ArrayLike, y: ArrayLike) -> Array:
    """``sqrt(x**2 + y**2)`` as JAX computes it: scaled by the larger magnitude (no overflow),
    and ``inf`` wherever either is infinite, even against a NaN."""
    check_ranks("hypot", x, y)
    if dtype_weak(x)[0].kind == "c" or dtype_weak(y)[0].kind == "c":
        raise ValueError(
            "jnp.hypot is not well defined for complex-valued inputs. Please convert to real "
            "values first, such as by using abs(x)"
        )
    x, y = promote_inexact(x, y)
    x, y = lax.abs(x), lax.abs(y)
    inf = lax.bitwise_or(lax.eq(x, strong_const(x, np.inf)), lax.eq(y, strong_const(y, np.inf)))
    big, small = lax.max(x, y), lax.min(x, y)
    zero = lax.eq(big, 0)
    ratio = lax.div(small, lax.select(zero, 1.0, big))
    out = lax.select(zero, big, lax.mul(big, lax.sqrt(lax.add(1, lax.mul(ratio, ratio)))))
    # JAX's lax._const: strong for a weak array (``hypot(0.5, int32_array)`` is strong)
    return lax.select(inf, const_like(out, np.inf), out)


def logaddexp(x: ArrayLike, y: ArrayLike) -> Array:
    """``log(exp(x) + exp(y))`` without overflow."""
    check_ranks("logaddexp", x, y)
    x, y = promote_inexact(x, y)
    delta = lax.sub(x, y)
    nan = lax.ne(delta, delta)  # a NaN input, or two equal infinities: the answer is x + y
    if dtype_weak(delta)[0].kind == "c":  # JAX's: the imaginary part wrapped into [-pi, pi]
        amax = lax.max(x, y)  # (complex numbers in lax's order)
        gap = lax.sub(lax.add(x, y), lax.mul(amax, lax.full_like(amax, 2)))
        out = lax.add(amax, lax.log1p(lax.exp(gap)))
        return lax.complex(lax.real(out), wrap_between(lax.imag(out), np.pi))
    big, gap = logaddexp_parts(x, y, nan)
    return lax.select(nan, lax.add(x, y), lax.add(big, lax.log1p(lax.exp(gap))))


def wrap_between(x: ArrayLike, a: float) -> Array:
    """``x`` wrapped into ``[-a, a]`` (JAX's ``_wrap_between``: complex ``logaddexp``'s phase)."""
    r = lax.rem(lax.add(x, a), 2 * a)
    return lax.sub(lax.select(lax.lt(r, 0.0), lax.add(r, 2 * a), r), a)


def logaddexp_parts(x: ArrayLike, y: ArrayLike, nan: ArrayLike) -> tuple[Array, Array]:
    """``(max, min - max)`` of real ``x`` and ``y`` for ``logaddexp``: ``max + log1p(exp(min -
    max))``. The two are picked by select, not by max/min: each choice is the exact function
    near any point, ties included, so derivatives of every order are the closed form's, as
    JAX's custom JVP gives them (max's balanced tie would give only the first). The gap is the
    constant 0 at equal infinities (``x + y`` is the answer there), so that ``inf - inf`` puts
    no NaN into the gradient through the dropped branch; a NaN input keeps its NaN gradient."""
    first = lax.ge(x, y)
    big, small = lax.select(first, x, y), lax.select(first, y, x)
    same_inf = lax.bitwise_and(lax.eq(x, y), nan)
    return big, lax.select(same_inf, lax.full_like(big, 0), lax.sub(small, big))


def copysign(x: ArrayLike, y: ArrayLike) -> Array:
    check_ranks("copysign", x, y)
    x, y = promote_inexact(x, y)
    return lax.select(signbit(y), lax.neg(lax.abs(x)), lax.abs(x))


def signbit(x: ArrayLike) -> Array:
    dtype, _ = dtype_weak(x)
    if is_float(dtype):  # the sign bit itself, as JAX: set for -0.0 and for a negative NaN
        x = lax.convert_element_type(x, dtype)
        bits = np.dtype(f"int{8 * dtype_weak(x)[0].itemsize}")
        return lax.less(lax.bitcast_convert_type(x, bits), np.zeros((), bits))
    if dtype.kind == "b":  # JAX: a bool has no sign bit set (a strong False, weak bool or not)
        return lax.full_like(x, False, np.bool_)
    return lax.less(x, strong_const(x, 0))  # (JAX's strong zero: a strong bool)


def heaviside(x1: ArrayLike, x2: ArrayLike) -> Array:
    """0 where ``x1 < 0``, 1 where ``x1 > 0``, ``x2`` where ``x1 == 0``, and a NaN ``x1``
    stays NaN (JAX's order of tests)."""
    x1, x2 = promote_inexact(x1, x2)
    at_zero = lax.select(lax.ne(x1, x1), x1, x2)
    zero, one = const_like(x1, 0), const_like(x1, 1)  # (JAX's: strong for a weak array x1)
    return lax.select(lax.less(x1, zero), zero, lax.select(lax.greater(x1, zero), one, at_zero))


def fmax(x: ArrayLike, y: ArrayLike) -> Array:
    """Maximum ignoring NaNs (NaN only where both are NaN); JAX's ``where(x > y | isnan(y), x,
    y)`` (complex numbers in NumPy's order), so a tie of signed zeros gives ``y``."""
    x, y = promote(x, y)
    return lax.select(lax.bitwise_or(greater(x, y), lax.ne(y, y)), x, y)


def fmin(x: ArrayLike, y: ArrayLike) -> Array:
    """Minimum ignoring NaNs (NaN only where both are NaN); JAX's ``where(x < y | isnan(y), x,
    y)``."""
    x, y = promote(x, y)
    return lax.select(lax.bitwise_or(less(x, y), lax.ne(y, y)), x, y)


def right_shift(x: ArrayLike, y: ArrayLike) -> Array:
    """Arithmetic shift for signed integers, logical for unsigned (like NumPy); bools shift
    as int32."""
    check_ranks("right_shift", x, y)
    x, y = promote_numeric(x, y)
    dtype, _ = promoted_dtype(x, y)
    if dtype.kind == "u":
        return lax.shift_right_logical(x, y)
    return lax.shift_right_arithmetic(x, y)


def isnan(x: ArrayLike) -> Array:
    """``x != x``, for every dtype as in JAX: a weak bool for a weak ``x`` (``isnan(2)``)."""
    return lax.ne(x, x)


def isinf(x: ArrayLike) -> Array:
    dtype, _ = dtype_weak(x)
    if is_inexact(dtype):
        magnitude = lax.abs(x)  # compared with JAX's strong infinity: a strong bool
        return lax.eq(magnitude, strong_const(magnitude, np.inf))
    return lax.full_like(x, False, np.bool_)


def isclose(
    a: ArrayLike, b: ArrayLike, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> Array:
    """``|a - b| <= atol + rtol * |b|`` elementwise (infinities equal only to themselves)."""
    check_ranks("isclose", a, b)
    if type(a) in array_views or type(b) in array_views:  # typed keys: equal, as JAX's
        return lax.eq(a, b)
    a, b = promote_inexact(a, b)
    close = lax.less_equal(lax.abs(lax.sub(a, b)), lax.add(atol, lax.mul(rtol, lax.abs(b))))
    both_inf = lax.bitwise_and(lax.eq(a, b), isinf(a))
    out = lax.bitwise_or(lax.bitwise_and(close, isfinite(b)), both_inf)
    if equal_nan:
        out = lax.bitwise_or(out, lax.bitwise_and(isnan(a), isnan(b)))
    return out


def _to_bool(x: ArrayLike) -> ArrayLike:
    """JAX's ``_to_bool``: ``x != 0`` against ``lax._const(x, 0)`` (a weak bool only for a weak
    scalar ``x``)."""
    dtype, _ = dtype_weak(x)
    return x if dtype.kind == "b" else lax.ne(x, const_like(x, 0))


def logical_and(x: ArrayLike, y: ArrayLike) -> Array:
    check_ranks("logical_and", x, y)  # promoted first, as JAX's (two weak bools: strong)
    return lax.bitwise_and(*map(_to_bool, promote(x, y)))


def logical_or(x: ArrayLike, y: ArrayLike) -> Array:
    check_ranks("logical_or", x, y)
    return lax.bitwise_or(*map(_to_bool, promote(x, y)))


def logical_xor(x: ArrayLike, y: ArrayLike) -> Array:
    check_ranks("logical_xor", x, y)
    return lax.bitwise_xor(*map(_to_bool, promote(x, y)))


def logical_not(x: ArrayLike) -> Array:
    return lax.bitwise_not(_to_bool(x))


def trunc(x: ArrayLike) -> Array:
    dtype, _ = dtype_weak(x)
    if dtype.kind in "iub":
        return unchanged(x)
    return lax.select(lax.less(x, 0), lax.ceil(x), lax.floor(x))


def round(x: ArrayLike, decimals: int = 0) -> Array:
    """Round half to even (NumPy's rule) to ``decimals`` decimal places."""
    dtype, _ = dtype_weak(x)
    if dtype.kind == "b":  # JAX's refusal (NumPy's finfo of bool, in its words)
        raise ValueError(f"data type <class 'numpy.bool'> not inexact{user_line_suffix()}")
    if dtype.kind in "iu":
        return unchanged(x)
    if dtype.kind == "c":  # part by part, as JAX (lax.round takes no complex)
        return lax.complex(round(lax.real(x), decimals), round(lax.imag(x), decimals))
    if decimals == 0:
        return lax.round(x, 1)
    factor = 10.0**decimals
    return lax.div(lax.round(lax.mul(x, factor), 1), factor)


around = round


def rint(x: ArrayLike) -> Array:
    """Round half to even; bools and integers become the default float, as in JAX."""
    dtype, _ = dtype_weak(x)
    if dtype.kind in "biu":
        return lax.convert_element_type(x, default_float_dtype())
    if dtype.kind == "c":  # part by part, as JAX
        return lax.complex(lax.round(lax.real(x), 1), lax.round(lax.imag(x), 1))
    (x,) = promote_inexact(x)
    return lax.round(x, 1)


def floor(x: ArrayLike) -> Array:
    """Round down; bools and integers are returned as they are (JAX's rule)."""
    return unchanged(x) if dtype_weak(x)[0].kind in "biu" else lax.floor(x)


def ceil(x: ArrayLike) -> Array:
    """Round up; bools and integers are returned as they are (JAX's rule)."""
    return unchanged(x) if dtype_weak(x)[0].kind in "biu" else lax.ceil(x)


def isfinite(x: ArrayLike) -> Array:
    """Neither infinite nor NaN: a complex number when both parts are, a bool or an integer
    always (JAX's rule: ``lax.is_finite`` takes floats only)."""
    kind = dtype_weak(x)[0].kind
    if kind == "c":
        return lax.bitwise_and(lax.is_finite(lax.real(x)), lax.is_finite(lax.imag(x)))
    if kind in "biu":
        return lax.full_like(x, True, np.bool_)
    return lax.is_finite(x)


def iscomplexobj(x: ArrayLike) -> bool:
    """True if ``x`` has a complex dtype (a Python ``complex`` included). As JAX's, decided by
    type: ``None``, strings and real scalars are not complex, and anything with a ``dtype``
    (an array, a ``ShapeDtypeStruct``) is judged by it."""
    if isinstance(x, complex | np.complexfloating):
        return True
    if x is None or isinstance(x, bool | int | float | str | np.generic):
        return False
    dtype = getattr(x, "dtype", None)
    if isinstance(dtype, np.dtype):
        return dtype.kind == "c"
    try:
        return dtype_weak(x)[0].kind == "c"
    except TypeError:  # a nested sequence (JAX makes an array of it; its leaves may be traced)
        return dtype_weak(asarray(x))[0].kind == "c"


def real(x: ArrayLike) -> Array:
    """The real part of ``x`` (``x`` itself for a real input, like NumPy and JAX)."""
    return lax.real(x) if iscomplexobj(x) else unchanged(x)


def imag(x: ArrayLike) -> Array:
    """The imaginary part of ``x`` (zeros of ``x``'s dtype for a real input)."""
    return lax.imag(x) if iscomplexobj(x) else lax.full_like(x, 0)


def conjugate(x: ArrayLike) -> Array:
    """The complex conjugate of ``x`` (``x`` itself for a real input)."""
    return lax.conj(x) if iscomplexobj(x) else unchanged(x)


conj = conjugate


def angle(z: ArrayLike, deg: bool = False) -> Array:
    """The counterclockwise angle of ``z`` from the positive real axis, in radians (or degrees
    with ``deg=True``). Like JAX, integer inputs and real scalars give float64."""
    re, im = real(z), imag(z)
    dtype, _ = dtype_weak(re)
    if not is_float(dtype) or (is_float(dtype_weak(z)[0]) and len(shape_of(z)) == 0):
        re = lax.convert_element_type(re, np.float64)
        im = lax.convert_element_type(im, np.float64)
    out = lax.atan2(im, re)
    return rad2deg(out) if deg else out


def where(condition: ArrayLike, x: ArrayLike | None = None, y: ArrayLike | None = None) -> Array:
    """``x`` where ``condition`` is true, else ``y`` (broadcast and promoted together)."""
    if x is None or y is None:
        raise TypeError("where: the one-argument form (nonzero) is not supported; pass x and y")
    return lax.select(_to_bool(condition), *lax_operands(x, y))


def _is_complex(x: ArrayLike) -> bool:
    try:
        return dtype_weak(x)[0].kind == "c"
    except TypeError:  # not an array: refused by the operation itself
        return False


def clip(
    a: ArrayLike,
    a_min: ArrayLike | None = None,
    a_max: ArrayLike | None = None,
    *,
    min: ArrayLike | None = None,
    max: ArrayLike | None = None,
) -> Array:
    """Limit ``a`` to ``[a_min, a_max]`` (either bound may be None); bounds promote with ``a``
    as in :func:`maximum` (JAX's ``clip(uint8, 0, 300)`` takes 300 as a uint8)."""
    lo = a_min if min is None else min
    hi = a_max if max is None else max
    if any(b is not None and _is_complex(b) for b in (a, lo, hi)):
        raise ValueError(
            "Clip received a complex value either through the input or the min/max keywords. "
            "Complex values have no ordering and cannot be clipped. Please convert to a real "
            "value or array by taking the real or imaginary components via "
            "jax.numpy.real/imag respectively."
        )
    if lo is not None:
        a = maximum(lo, a)
    if hi is not None:
        a = minimum(hi, a)
    return unchanged(a)


def nan_to_num(
    x: ArrayLike,
    copy: bool = True,
    nan: float = 0.0,
    posinf: float | None = None,
    neginf: float | None = None,
) -> Array:
    """Replace NaN by ``nan`` and infinities by the dtype's largest finite values."""
    dtype, _ = dtype_weak(x)
    if not is_inexact(dtype):
        return unchanged(x)
    if dtype.kind == "c":  # each part on its own, as JAX
        parts = (nan_to_num(part, copy, nan, posinf, neginf) for part in (real(x), imag(x)))
        return lax.complex(*parts)
    finfo: Any = ml_dtypes.finfo  # (NumPy's finfo does not know bfloat16 or the float8 types)
    info = finfo(dtype)
    hi = info.max if posinf is None else posinf
    lo = info.min if neginf is None else neginf
    # the replacements are arrays of ``dtype`` (strong, as JAX's ``asarray(nan, dtype)``), put
    # in by ``where``, which converts a weak ``x`` to them (so its gradient is weak again)
    x = where(lax.ne(x, x), lax.full_like(x, nan, dtype), x)
    x = where(lax.eq(x, np.inf), lax.full_like(x, hi, dtype), x)
    return where(lax.eq(x, -np.inf), lax.full_like(x, lo, dtype), x)
