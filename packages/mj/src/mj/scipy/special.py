"""``mj.scipy.special``: SciPy's special functions with JAX's semantics and derivatives.

Built from mj primitives (``lgamma``, ``digamma``, ``erf``, ``erfc``, ``erf_inv``, ``log`` ...),
so they differentiate, batch and compile like everything else. ``xlogy``, ``xlog1py``,
``entr`` and ``log_ndtr`` carry JAX's custom derivatives (finite where the naive formula
would give ``0 * inf``).
"""

from __future__ import annotations

import math
import operator

import numpy as np

import mj_core.numpy as mnp
from mj import nn as _nn
from mj.nn import logsumexp as logsumexp
from mj.scipy._sph_harm import sph_harm_y as sph_harm_y
from mj_autodiff import custom_jvp
from mj_core import get_aval, lax
from mj_core.dtypes import is_float
from mj_core.errors import user_line_suffix
from mj_core.extend import (
    AnyArray,
    Array,
    ArrayLike,
    check_ranks,
    const_like,
    promote_inexact,
)

__all__ = [
    "bernoulli",
    "bessel_jn",
    "beta",
    "betainc",
    "betaln",
    "boxcox",
    "boxcox1p",
    "comb",
    "dawsn",
    "digamma",
    "entr",
    "erf",
    "erfc",
    "erfcx",
    "erfinv",
    "exp1",
    "expi",
    "expit",
    "expn",
    "factorial",
    "fresnel",
    "gamma",
    "gammainc",
    "gammaincc",
    "gammaln",
    "gammasgn",
    "hyp1f1",
    "hyp2f1",
    "i0",
    "i0e",
    "i1",
    "i1e",
    "kl_div",
    "log_ndtr",
    "log_softmax",
    "loggamma",
    "logit",
    "logsumexp",
    "multigammaln",
    "ndtr",
    "ndtri",
    "owens_t",
    "poch",
    "polygamma",
    "rel_entr",
    "sici",
    "softmax",
    "spence",
    "sph_harm_y",
    "wofz",
    "xlog1py",
    "xlogy",
    "zeta",
]


_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


def _inexact(name: str, x: ArrayLike) -> AnyArray:
    (x,) = promote_inexact(x)
    if not is_float(get_aval(x).dtype):
        raise TypeError(
            f"{name} requires a real operand, got {get_aval(x).dtype.name}{user_line_suffix()}"
        )
    return x


def _float32_or_64(x: ArrayLike, docstring: bool = True) -> AnyArray:
    """``x`` for JAX's ``ndtr``/``ndtri``/``log_ndtr``: float32 or float64 only (no promotion:
    an integer is a TypeError in JAX's words), as a strong array (JAX's ``jnp.asarray`` and
    constants of its dtype: the result is never weak)."""
    dtype = get_aval(x).dtype
    if dtype not in (np.float32, np.float64):
        see = ", see docstring for supported types" if docstring else ""
        raise TypeError(f"x.dtype={dtype} is not supported{see}.{user_line_suffix()}")
    return lax.convert_element_type(x, dtype)


def _reals(name: str, *args: ArrayLike) -> list[Array]:
    """``args`` promoted to one inexact dtype, which must be real (like JAX's
    ``promote_args_inexact`` followed by the primitive's dtype check)."""
    out = promote_inexact(*args)
    dtype = get_aval(out[0]).dtype
    if not is_float(dtype):
        raise TypeError(f"{name} requires real operands, got {dtype.name}{user_line_suffix()}")
    return out


def erf(x: ArrayLike) -> Array:
    """The error function ``2/sqrt(pi) * integral_0^x exp(-t**2) dt`` (integers and bools in
    JAX's float: the primitive takes floats only)."""
    return lax.erf(*promote_inexact(x))


def erfinv(x: ArrayLike) -> Array:
    """The inverse of :func:`erf` on ``(-1, 1)`` (integers and bools in JAX's float)."""
    return lax.erf_inv(*promote_inexact(x))


def erfc(x: ArrayLike) -> Array:
    """``1 - erf(x)``, without the cancellation for large ``x``."""
    return lax.erfc(_inexact("erfc", x))


def gammaln(x: ArrayLike) -> Array:
    """``log(|Gamma(x)|)``; ``+inf`` at ``0, -1, -2, ...``."""
    return lax.lgamma(_inexact("gammaln", x))


def digamma(x: ArrayLike) -> Array:
    """``d/dx log(Gamma(x))``; NaN at ``0, -1, -2, ...``."""
    return lax.digamma(_inexact("digamma", x))


def expit(x: ArrayLike) -> Array:
    """The logistic sigmoid ``1 / (1 + exp(-x))``, computed without overflow (integers and
    bools in JAX's float)."""
    return lax.logistic(*promote_inexact(x))


def logit(p: ArrayLike) -> Array:
    """The inverse of :func:`expit`: ``log(p / (1 - p))``; bools and integers promote to
    float first, as JAX's (``-p`` of a uint8 would wrap around)."""
    (p,) = promote_inexact(p)
    return lax.sub(lax.log(p), lax.log1p(lax.neg(p)))


@custom_jvp
def xlogy(x: ArrayLike, y: ArrayLike) -> Array:
    """``x * log(y)``, and 0 where ``x == 0`` (also at ``y == 0``) unless ``y`` is NaN."""
    check_ranks("xlogy", x, y)
    x, y = promote_inexact(x, y)
    keep = lax.bitwise_or(lax.ne(x, 0.0), lax.ne(y, y))  # a NaN y stays NaN, as SciPy's
    return mnp.where(keep, lax.mul(x, lax.log(y)), mnp.zeros_like(x))


@xlogy.defjvp
def _xlogy_jvp(
    primals: tuple[ArrayLike, ArrayLike], tangents: tuple[ArrayLike, ArrayLike]
) -> tuple[Array, Array]:
    x, y = primals
    x_dot, y_dot = tangents
    out = xlogy(x, y)
    dot = lax.add(lax.mul(x_dot, lax.log(y)), lax.div(lax.mul(y_dot, x), y))
    return out, lax.convert_element_type(dot, get_aval(out).dtype)


@custom_jvp
def xlog1py(x: ArrayLike, y: ArrayLike) -> Array:
    """``x * log1p(y)``, and 0 where ``x == 0`` (also at ``y == -1``) unless ``y`` is NaN."""
    check_ranks("xlog1py", x, y)
    x, y = promote_inexact(x, y)
    keep = lax.bitwise_or(lax.ne(x, 0.0), lax.ne(y, y))  # a NaN y stays NaN, as SciPy's
    return mnp.where(keep, lax.mul(x, lax.log1p(y)), mnp.zeros_like(x))


@xlog1py.defjvp
def _xlog1py_jvp(
    primals: tuple[ArrayLike, ArrayLike], tangents: tuple[ArrayLike, ArrayLike]
) -> tuple[Array, Array]:
    x, y = primals
    x_dot, y_dot = tangents
    out = xlog1py(x, y)
    dot = lax.add(lax.mul(x_dot, lax.log1p(y)), lax.div(lax.mul(y_dot, x), lax.add(y, 1.0)))
    return out, lax.convert_element_type(dot, get_aval(out).dtype)


@custom_jvp
def _xlogx(x: ArrayLike) -> AnyArray:
    return xlogy(x, x)


@_xlogx.defjvp
def _xlogx_jvp(primals: tuple[ArrayLike], tangents: tuple[ArrayLike]) -> tuple[Array, Array]:
    (x,), (x_dot,) = primals, tangents
    return _xlogx(x), lax.mul(x_dot, lax.add(lax.log(x), 1.0))


def entr(x: ArrayLike) -> Array:
    """The elementwise entropy ``-x log(x)``: 0 at 0, ``-inf`` for ``x < 0``."""
    x = _inexact("entr", x)
    return mnp.where(lax.lt(x, 0.0), -math.inf, lax.neg(_xlogx(x)))


def ndtr(x: ArrayLike) -> Array:
    """The standard normal CDF, via ``erf`` near 0 and ``erfc`` in the tails."""
    x = _float32_or_64(x)
    half_sqrt_2 = 0.5 * math.sqrt(2.0)
    w = lax.mul(x, half_sqrt_2)
    z = lax.abs(w)
    tails = mnp.where(lax.gt(w, 0.0), lax.sub(2.0, lax.erfc(z)), lax.erfc(z))
    y = mnp.where(lax.lt(z, half_sqrt_2), lax.add(1.0, lax.erf(w)), tails)
    return lax.mul(0.5, y)


def ndtri(p: ArrayLike) -> Array:
    """The inverse of :func:`ndtr` (``-inf`` at 0, ``inf`` at 1, NaN outside ``[0, 1]``).

    Float32/float64 only, as JAX's; the conversion to a strong array is outside the custom
    derivative, so the gradient of a weak ``p`` is weak, as JAX's (which has no custom rule).
    """
    out: Array = _ndtri(_float32_or_64(p))
    return out


@custom_jvp
def _ndtri(p: ArrayLike) -> Array:
    """:func:`ndtri` of a float32/float64 ``p``.

    ``sqrt(2) erfinv(2p - 1)`` loses the tail (``2p - 1`` rounds to -1 below ``p ~ 1e-17``),
    so the lower half ``q = min(p, 1 - p)`` is solved for ``log_ndtr(x) = log(q)``: a rational
    start (Abramowitz & Stegun 26.2.23, error below 5e-4) and three Newton steps in log space,
    which is exact to rounding down to the smallest normal ``p``, like JAX's ``ndtri``.
    """
    upper = lax.gt(p, 0.5)
    q = mnp.where(upper, lax.sub(1.0, p), p)
    in_range = lax.bitwise_and(lax.gt(q, 0.0), lax.le(q, 0.5))
    safe_q = mnp.where(in_range, q, mnp.full_like(q, 0.25))
    log_q = lax.log(safe_q)
    t = lax.sqrt(lax.mul(-2.0, log_q))
    num = lax.add(2.515517, lax.mul(t, lax.add(0.802853, lax.mul(t, 0.010328))))
    den = lax.add(
        1.0, lax.mul(t, lax.add(1.432788, lax.mul(t, lax.add(0.189269, lax.mul(t, 0.001308)))))
    )
    x = lax.neg(lax.sub(t, lax.div(num, den)))
    for _ in range(3):
        log_cdf = log_ndtr(x)
        log_pdf = lax.sub(lax.mul(-0.5, lax.mul(x, x)), _HALF_LOG_2PI)
        x = lax.sub(x, lax.mul(lax.sub(log_cdf, log_q), lax.exp(lax.sub(log_cdf, log_pdf))))
    x = mnp.where(lax.eq(q, 0.5), mnp.zeros_like(x), mnp.where(upper, lax.neg(x), x))
    edge = mnp.where(
        lax.eq(p, 0.0),
        mnp.full_like(p, -math.inf),
        mnp.where(lax.eq(p, 1.0), mnp.full_like(p, math.inf), mnp.full_like(p, math.nan)),
    )
    return mnp.where(in_range, x, edge)


@_ndtri.defjvp
def _ndtri_jvp(primals: tuple[ArrayLike], tangents: tuple[ArrayLike]) -> tuple[Array, Array]:
    """``d ndtri / dp = 1 / pdf(ndtri(p))``, exactly rather than through the Newton steps."""
    (p,), (p_dot,) = primals, tangents
    x = _ndtri(p)
    inv_pdf = lax.exp(lax.add(lax.mul(0.5, lax.mul(x, x)), _HALF_LOG_2PI))
    return x, lax.mul(p_dot, inv_pdf)


def _log_ndtr_lower_series(x: ArrayLike) -> Array:
    """Asymptotic ``log(ndtr(x))`` for very negative ``x`` (where ``ndtr`` underflows)."""
    x2 = lax.mul(x, x)
    inv = lax.div(1.0, x2)
    total = mnp.ones_like(x)
    term = mnp.ones_like(x)
    for n in range(1, 9):
        term = lax.mul(term, lax.mul(-(2.0 * n - 1.0), inv))
        total = lax.add(total, term)
    head = lax.sub(lax.sub(lax.mul(-0.5, x2), lax.log(lax.neg(x))), _HALF_LOG_2PI)
    return lax.add(head, lax.log(total))


@custom_jvp
def log_ndtr(x: ArrayLike) -> Array:
    """``log(ndtr(x))``, accurate in both tails (series below -20, ``log1p`` above 8 in
    float64; -10 and 5 in float32, like JAX)."""
    x = _float32_or_64(x, docstring=False)
    lower, upper = (-20.0, 8.0) if get_aval(x).dtype.itemsize == 8 else (-10.0, 5.0)
    safe_low = mnp.minimum(x, lower)
    safe_mid = mnp.clip(x, lower, upper)
    safe_high = mnp.maximum(x, upper)
    high = lax.log1p(lax.neg(ndtr(lax.neg(safe_high))))
    middle = lax.log(ndtr(safe_mid))
    low = _log_ndtr_lower_series(safe_low)
    return mnp.where(lax.gt(x, upper), high, mnp.where(lax.gt(x, lower), middle, low))


@log_ndtr.defjvp
def _log_ndtr_jvp(primals: tuple[ArrayLike], tangents: tuple[ArrayLike]) -> tuple[Array, Array]:
    (x,), (t,) = primals, tangents
    ans = log_ndtr(x)
    log_pdf = lax.sub(lax.mul(-0.5, lax.mul(x, x)), _HALF_LOG_2PI)
    return ans, lax.mul(t, lax.exp(lax.sub(log_pdf, ans)))


def _algdiv(a: Array, b: Array) -> Array:
    """``gammaln(b) - gammaln(a + b)`` for ``b >= 8``, ``a <= b`` without cancellation (SciPy's and
    JAX's ``algdiv``: Stirling's series for the difference of the two log-gammas)."""
    c0, c1, c2 = 0.0833333333333333, -0.00277777777760991, 0.00079365066682539
    c3, c4, c5 = -0.00059520293135187, 0.000837308034031215, -0.00165322962780713
    h = a / b
    x = c = h / (1 + h)
    d = b + (a - 0.5)
    x2 = x * x
    s3 = 1.0 + (x + x2)
    s5 = 1.0 + (x + x2 * s3)
    s7 = 1.0 + (x + x2 * s5)
    s9 = 1.0 + (x + x2 * s7)
    s11 = 1.0 + (x + x2 * s9)
    t = (1.0 / b) ** 2
    w = ((((c5 * s11 * t + c4 * s9) * t + c3 * s7) * t + c2 * s5) * t + c1 * s3) * t + c0
    w = w * (c / b)
    u = d * lax.log1p(a / b)
    v = a * (lax.log(b) - 1.0)
    return mnp.where(u <= v, (w - v) - u, (w - u) - v)


def betaln(a: ArrayLike, b: ArrayLike) -> Array:
    """``log(|B(a, b)|) = gammaln(a) + gammaln(b) - gammaln(a + b)``; as JAX's, the larger
    argument's two log-gammas combine through ``algdiv`` when it is at least 8, so
    ``betaln(x, 1) == -log(x)`` holds for huge ``x``."""
    a, b = promote_inexact(a, b)
    a, b = mnp.minimum(a, b), mnp.maximum(a, b)
    small_b = gammaln(a) + (gammaln(b) - gammaln(a + b))
    large_b = gammaln(a) + _algdiv(a, b)
    return mnp.where(b < 8, small_b, large_b)


def multigammaln(a: ArrayLike, d: int) -> Array:
    """The log of the multivariate gamma function of dimension ``d`` (a static int)."""
    try:
        d = operator.index(d)
    except TypeError:
        raise TypeError(
            f"multigammaln: d must be a concrete int, got {d!r}{user_line_suffix()}"
        ) from None
    if d < 1:
        raise ValueError(f"multigammaln: d must be positive, got {d}{user_line_suffix()}")
    a = _inexact("multigammaln", a)
    constant = lax.mul(0.25 * d * (d - 1) * math.log(math.pi), mnp.ones_like(a))
    # summed by a reduction, as JAX's: the result is strong even for a Python float ``a``
    terms = mnp.stack([gammaln(lax.sub(a, 0.5 * i)) for i in range(d)], axis=-1)
    return lax.add(mnp.sum(terms, axis=-1), constant)


def gammainc(a: ArrayLike, x: ArrayLike) -> Array:
    """The regularized lower incomplete gamma function ``P(a, x)`` (``lax.igamma``)."""
    return lax.igamma(*_reals("gammainc", a, x))


def gammaincc(a: ArrayLike, x: ArrayLike) -> Array:
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``."""
    return lax.igammac(*_reals("gammaincc", a, x))


def betainc(a: ArrayLike, b: ArrayLike, x: ArrayLike) -> Array:
    """The regularized incomplete beta function ``I_x(a, b)``; differentiable in ``x`` only,
    as in JAX."""
    a, b, x = promote_inexact(a, b, x)
    dtype = get_aval(x).dtype
    if dtype.kind == "c":
        raise ValueError(f"betainc does not support complex-valued inputs{user_line_suffix()}")
    return lax.betainc(a, b, x)


def i0e(x: ArrayLike) -> Array:
    """The exponentially scaled modified Bessel function of order 0, ``exp(-|x|) I0(x)``."""
    return lax.bessel_i0e(_inexact("i0e", x))


def i1e(x: ArrayLike) -> Array:
    """The exponentially scaled modified Bessel function of order 1, ``exp(-|x|) I1(x)``."""
    return lax.bessel_i1e(_inexact("i1e", x))


def i0(x: ArrayLike) -> Array:
    """The modified Bessel function of order 0, ``exp(|x|) i0e(x)`` (overflows past
    ``|x| ~ 713`` in float64, like JAX's)."""
    x = _inexact("i0", x)
    return lax.mul(lax.exp(lax.abs(x)), lax.bessel_i0e(x))


def i1(x: ArrayLike) -> Array:
    """The modified Bessel function of order 1, ``exp(|x|) i1e(x)``."""
    x = _inexact("i1", x)
    return lax.mul(lax.exp(lax.abs(x)), lax.bessel_i1e(x))


# --- the gamma function and its relatives: sign and magnitude through gammaln -------------------


def gammasgn(x: ArrayLike) -> Array:
    """The sign of ``Gamma(x)``: 1 for ``x > 0`` and ``+0``, ``-1`` for ``-0`` and on the
    intervals ``(-1, 0)``, ``(-3, -2)``, ...; NaN at the poles ``-1, -2, ...``, at ``-inf``
    and for NaN."""
    x = _inexact("gammasgn", x)
    floor_x = lax.floor(x)
    half = lax.mul(floor_x, 0.5)
    odd = lax.ne(half, lax.floor(half))  # floor(x) is odd: Gamma < 0 left of 0
    negative_zero = lax.bitwise_and(lax.eq(x, 0.0), lax.lt(lax.div(1.0, x), 0.0))
    sign = mnp.where(lax.bitwise_or(negative_zero, lax.bitwise_and(lax.lt(x, 0.0), odd)), -1.0, 1.0)
    pole = lax.bitwise_and(lax.lt(x, 0.0), lax.eq(x, floor_x))  # -1, -2, ..., -inf
    return mnp.where(lax.bitwise_or(pole, lax.ne(x, x)), math.nan, lax.convert_element_type(
        sign, get_aval(x).dtype
    ))  # fmt: skip


def gamma(x: ArrayLike) -> Array:
    """``Gamma(x)`` as ``gammasgn(x) * exp(gammaln(x))`` (JAX's formula): ``+-inf`` at
    ``+-0``, NaN at the negative integers, ``inf`` past ``~171.6`` in float64."""
    (z,) = promote_inexact(x)
    if np.issubdtype(get_aval(z).dtype, np.complexfloating):
        from mj.scipy._complex_gamma import complex_gamma

        return complex_gamma(z)  # type: ignore[no-any-return]
    x = _inexact("gamma", x)
    # NumPy-level product, as JAX's ``sign * exp(gammaln(x))``: the weak factor is converted
    # to the strong sign's dtype, so the gradient of a Python float is weak
    return mnp.multiply(gammasgn(x), lax.exp(gammaln(x)))


def beta(a: ArrayLike, b: ArrayLike) -> Array:
    """The beta function ``Gamma(a) Gamma(b) / Gamma(a + b)``, as the signs of the three
    gammas times ``exp(betaln(a, b))`` (JAX's formula: NaN where one argument is a pole)."""
    a, b = _reals("beta", a, b)
    sign = lax.mul(lax.mul(gammasgn(a), gammasgn(b)), gammasgn(lax.add(a, b)))
    return lax.mul(sign, lax.exp(betaln(a, b)))


# B_2j / (2j)!: the Euler-Maclaurin coefficients of the zeta tail.
_EULER_MACLAURIN = (
    1 / 12, -1 / 720, 1 / 30240, -1 / 1209600, 1 / 47900160, -691 / 1307674368000,
    1 / 74724249600, -3617 / 10670622842880000, 43867 / 5109094217170944000,
    -174611 / 802857662698291200000, 77683 / 14101100039391805440000,
    -236364091 / 1693824136731743669452800000,
)  # fmt: skip


def zeta(x: ArrayLike, q: ArrayLike) -> Array:
    """The Hurwitz zeta function ``sum_k (q + k)**-x`` (``x > 1``): ``N`` terms summed
    directly, the rest by Euler-Maclaurin with ``M`` Bernoulli terms at ``q + N`` (N = 16,
    M = 12 in float64; 8 and 8 below), as JAX's ``zeta``. ``inf`` at ``x == 1`` and at the
    poles ``q = 0, -1, ...``; NaN for ``x < 1``. A ``q`` below about ``-N`` is out of reach
    of the direct sum (JAX's gives wrong values there too)."""
    x, q = _reals("zeta", x, q)
    wide = get_aval(x).dtype.itemsize >= 8
    n_direct, n_tail = (16, 12) if wide else (8, 8)
    total = mnp.zeros_like(q)
    for k in range(n_direct):
        total = lax.add(total, lax.pow(lax.add(q, float(k)), lax.neg(x)))
    b = lax.add(q, float(n_direct))
    one_minus_x = lax.sub(1.0, x)
    integral = lax.div(lax.pow(b, one_minus_x), lax.neg(one_minus_x))
    b_to_minus_x = lax.pow(b, lax.neg(x))
    inv_b2 = lax.div(1.0, lax.mul(b, b))
    term = lax.div(x, b)  # x (x+1) ... (x+2j-2) / b**(2j-1), for j = 1
    tail = mnp.full_like(q, 0.5)
    for j in range(n_tail):
        tail = lax.add(tail, lax.mul(_EULER_MACLAURIN[j], term))
        growth = lax.mul(lax.add(x, 2.0 * j + 1.0), lax.add(x, 2.0 * j + 2.0))
        term = lax.mul(term, lax.mul(growth, inv_b2))
    out = lax.add(lax.add(total, integral), lax.mul(b_to_minus_x, tail))
    return mnp.where(lax.lt(x, 1.0), math.nan, mnp.where(lax.eq(x, 1.0), math.inf, out))


def polygamma(n: ArrayLike, x: ArrayLike) -> Array:
    """The ``n``-th derivative of ``digamma``: ``digamma`` for ``n == 0``, else
    ``(-1)**(n+1) n! zeta(n + 1, x)``; NaN for negative ``n``. ``n`` must be an integer
    array (as in JAX); it is computed in ``x``'s dtype."""
    n_dtype = get_aval(n).dtype
    if n_dtype.kind not in "iu":
        raise ValueError(
            f"Argument `n` to polygamma must be of integer type. Got dtype {n_dtype}."
            f"{user_line_suffix()}"
        )
    x = _inexact("polygamma", x)
    n, x = promote_inexact(n, x)  # as JAX's promote_args_inexact: weak when both are
    n, x = mnp.broadcast_arrays(n, x)
    order = mnp.where(lax.gt(n, 0.0), n, mnp.ones_like(n))  # keeps the dropped branches finite
    half = lax.mul(order, 0.5)
    sign = mnp.where(lax.eq(half, lax.floor(half)), -1.0, 1.0)  # (-1)**(n+1), weak
    higher = lax.mul(
        lax.mul(sign, lax.exp(gammaln(lax.add(order, 1.0)))), zeta(lax.add(order, 1.0), x)
    )
    out = mnp.where(lax.eq(n, 0.0), digamma(x), higher)
    return mnp.where(lax.lt(n, 0.0), math.nan, out)


# --- combinatorics, divergences and transforms (scipy.special's, as jax.scipy.special) -----
def softmax(x: ArrayLike, /, *, axis: int | tuple[int, ...] | None = None) -> Array:
    """``exp(x) / sum(exp(x))`` over ``axis`` (all axes by default, as SciPy's)."""
    return _nn.softmax(x, axis=axis)


def log_softmax(x: ArrayLike, /, *, axis: int | tuple[int, ...] | None = None) -> Array:
    """``x - logsumexp(x)`` over ``axis`` (all axes by default, as SciPy's)."""
    return _nn.log_softmax(x, axis=axis)


def factorial(n: ArrayLike, exact: bool = False) -> Array:
    """``n!`` as a float, through the gamma function; 0 for negative ``n``."""
    if exact:
        raise NotImplementedError("factorial with exact=True")
    (n,) = _reals("factorial", n)
    return mnp.where(n < 0, 0, mnp.exp(lax.lgamma(n + 1)))


def comb(N: ArrayLike, k: ArrayLike, *, repetition: bool = False) -> Array:  # noqa: N803
    """The binomial coefficient ``N choose k`` as a float (with ``repetition``: choices of
    ``k`` of ``N`` kinds); 0 where ``N < 0``, ``k < 0`` or ``k > N``."""
    N, k = _reals("comb", N, k)  # noqa: N806
    if repetition:
        return mnp.where((k == 0) & (N >= 0), 1.0, comb(N + k - 1, k))
    valid = (k <= N) & (N >= 0) & (k >= 0)
    n, m = mnp.where(valid, N, 0.0), mnp.where(valid, k, 0.0)
    value = mnp.exp(gammaln(n + 1) - gammaln(m + 1) - gammaln(n + 1 - m))
    return mnp.where(valid, value, 0.0)


def rel_entr(p: ArrayLike, q: ArrayLike) -> Array:
    """``p log(p / q)`` for ``p, q > 0``, 0 for ``p == 0 <= q``, infinity otherwise."""
    p, q = _reals("rel_entr", p, q)
    both = (p > 0) & (q > 0)
    safe_p, safe_q = mnp.where(both, p, 1), mnp.where(both, q, 1)
    value = _xlogx(safe_p) - xlogy(safe_p, safe_q)
    zero = const_like(p, 0.0)  # JAX's lax._const: strong for a weak array p (int8_array, 2.5)
    return mnp.where(both, value, mnp.where((p == 0) & (q >= 0), zero, np.inf))


def kl_div(p: ArrayLike, q: ArrayLike) -> Array:
    """``rel_entr(p, q) - p + q``, the elementwise Kullback-Leibler divergence term."""
    p, q = _reals("kl_div", p, q)
    return rel_entr(p, q) - p + q


def loggamma(x: AnyArray) -> AnyArray:
    """The principal branch of log-gamma: ``gammaln`` for real ``x > 0``, NaN for other
    real ``x``; for complex ``x`` JAX's Lanczos approximation with SciPy's branch cut on the
    negative real axis (``nan+nanj`` at the poles)."""
    (z,) = promote_inexact(x)
    if np.issubdtype(get_aval(z).dtype, np.complexfloating):
        from mj.scipy._complex_gamma import complex_loggamma_scipy

        return complex_loggamma_scipy(z)
    x = _inexact("loggamma", x)
    return mnp.where(x > 0, lax.lgamma(x), np.nan)


def poch(z: ArrayLike, m: ArrayLike) -> Array:
    """The rising factorial ``gamma(z + m) / gamma(z)``; 1 where ``m == 0``."""
    z, m = _reals("poch", z, m)
    return mnp.where(m == 0.0, mnp.ones_like(z), gamma(z + m) / gamma(z))


def _boxcox(log_x: ArrayLike, lmbda: ArrayLike) -> Array:
    zero = lmbda == 0
    safe = mnp.where(zero, mnp.ones_like(lmbda), lmbda)
    return mnp.where(zero, log_x, mnp.expm1(safe * log_x) / safe)


def boxcox(x: ArrayLike, lmbda: ArrayLike) -> Array:
    """The Box-Cox transform: ``(x**lmbda - 1) / lmbda``, ``log(x)`` where ``lmbda == 0``."""
    x, lmbda = _reals("boxcox", x, lmbda)
    return _boxcox(mnp.log(x), lmbda)


def boxcox1p(x: ArrayLike, lmbda: ArrayLike) -> Array:
    """:func:`boxcox` of ``1 + x``, accurate for small ``x``."""
    x, lmbda = _reals("boxcox1p", x, lmbda)
    return _boxcox(mnp.log1p(x), lmbda)


# --- spence and bessel_jn (JAX's algorithms) ----------------------------------------------------
_SPENCE_A = (
    4.65128586073990045278e-5, 7.31589045238094711071e-3, 1.33847639578309018650e-1,
    8.79691311754530315341e-1, 2.71149851196553469920e0, 4.25697156008121755724e0,
    3.29771340985225106936e0, 1.00000000000000000126e0,
)  # fmt: skip
_SPENCE_B = (
    6.90990488912553276999e-4, 2.54043763932544379113e-2, 2.82974860602568089943e-1,
    1.41172597751831069617e0, 3.63800533345137075418e0, 5.03278880143316990390e0,
    3.54771340985225096217e0, 9.99999999999999998740e-1,
)  # fmt: skip


def _polyval(coeffs: tuple[float, ...], w: AnyArray) -> AnyArray:
    out = mnp.full_like(w, coeffs[0])
    for c in coeffs[1:]:
        out = out * w + c
    return out


def spence(x_in: ArrayLike) -> Array:
    """Spence's function (the dilogarithm ``-int_1^x log(t) / (t - 1) dt``) for real
    ``x >= 0`` (NaN for negative ``x``), float32/float64 only; Cephes' rational
    approximation, as JAX's."""
    x: Array = mnp.asarray(x_in)
    if x.dtype not in (np.float32, np.float64):
        raise TypeError(f"x.dtype={x.dtype} is not supported, see docstring for supported types.")
    x = lax.convert_element_type(x, x.dtype)  # strong, as JAX's constants of x's dtype make it
    special = (x < 0.0) | (x == 1.0) | (x == 0.0)
    xs = mnp.where(special, mnp.full_like(x, 0.5), x)  # a harmless point for the formula
    big = xs > 2.0
    xs = mnp.where(big, 1.0 / xs, xs)
    gt15, lt05 = xs > 1.5, xs < 0.5
    big = big | gt15
    w = mnp.where(gt15, 1.0 / xs - 1.0, mnp.where(lt05, -xs, xs - 1.0))
    y = -w * _polyval(_SPENCE_A, w) / _polyval(_SPENCE_B, w)
    y = mnp.where(lt05, math.pi**2 / 6.0 - mnp.log(xs) * mnp.log(1.0 - xs) - y, y)
    y = mnp.where(big, -0.5 * mnp.log(xs) ** 2 - y, y)
    out = mnp.where(x == 0.0, mnp.full_like(x, math.pi**2 / 6), y)
    out = mnp.where(x == 1.0, mnp.zeros_like(x), out)
    return mnp.where(x < 0.0, mnp.full_like(x, np.nan), out)


def bessel_jn(z_in: ArrayLike, *, v: int, n_iter: int = 50) -> Array:
    """Bessel functions of the first kind ``J_0(z) .. J_v(z)`` (stacked on a new leading
    axis) by Miller's backward recurrence over ``n_iter`` terms, as JAX's; real ``z`` only."""
    from mj_control import scan

    (z,) = promote_inexact(mnp.asarray(z_in))
    if np.issubdtype(z.dtype, np.complexfloating):
        raise ValueError("complex input not supported.")
    try:
        v = operator.index(v)
        n_iter = int(n_iter)
    except TypeError:
        raise TypeError(
            f"bessel_jn: v and n_iter must be concrete ints{user_line_suffix()}"
        ) from None

    def body(
        carry: tuple[AnyArray, AnyArray, AnyArray], k: AnyArray
    ) -> tuple[tuple[AnyArray, AnyArray, AnyArray], AnyArray]:
        f0, f1, bs = carry
        f = 2.0 * (k + 1.0) * f1 / z - f0
        bs = mnp.where(k % 2 == 0, bs + 2.0 * f, bs)
        return (f1, f, bs), f

    init = (mnp.zeros_like(z), mnp.full_like(z, 1e-16), mnp.zeros_like(z))
    ks = lax.iota(z.dtype, n_iter + 1)
    (_, _, bs), j_vals = scan(body, init, ks, reverse=True)
    return j_vals[: v + 1] / mnp.expand_dims(bs - j_vals[0], 0)  # type: ignore[no-any-return]


from mj.scipy._special_integrals import bernoulli as bernoulli  # noqa: E402
from mj.scipy._special_integrals import dawsn as dawsn  # noqa: E402
from mj.scipy._special_integrals import erfcx as erfcx  # noqa: E402
from mj.scipy._special_integrals import exp1 as exp1  # noqa: E402
from mj.scipy._special_integrals import expi as expi  # noqa: E402
from mj.scipy._special_integrals import expn as expn  # noqa: E402
from mj.scipy._special_integrals import fresnel as fresnel  # noqa: E402
from mj.scipy._special_integrals import hyp1f1 as hyp1f1  # noqa: E402
from mj.scipy._special_integrals import hyp2f1 as hyp2f1  # noqa: E402
from mj.scipy._special_integrals import owens_t as owens_t  # noqa: E402
from mj.scipy._special_integrals import sici as sici  # noqa: E402
from mj.scipy._special_integrals import wofz as wofz  # noqa: E402
