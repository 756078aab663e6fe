"""JVP rules of the special-function primitives, with JAX's derivatives.

* ``lgamma``, ``digamma``, ``erfc``, ``erf_inv``: closed forms. ``digamma``'s derivative is
  the trigamma function, which mj has no primitive for; it is composed here from core
  operations (recurrence up to 10, asymptotic series, reflection for ``x <= 0``), so it
  differentiates, batches and compiles like anything else.
* ``bessel_i0e``, ``bessel_i1e``: ``i0e' = i1e - sign(x) i0e`` and
  ``i1e' = i0e - i1e (sign(x) + 1/x)``, with the limit 1/2 at ``x = 0``.
* ``igamma``, ``igammac``: with respect to ``x`` the closed form
  ``dP/dx = x^(a-1) e^-x / Gamma(a) = -dQ/dx``; with respect to ``a`` the ``igamma_grad_a``
  primitive, as JAX's (``dQ/da = -dP/da``). ``igamma_grad_a`` itself has no derivative, as
  in JAX.
* ``regularized_incomplete_beta``: with respect to ``x`` the beta density
  ``x^(a-1) (1-x)^(b-1) / B(a, b)``; JAX has no derivative with respect to ``a`` or ``b``
  and raises, and so does mj (an error that is both a ``ValueError``, as JAX's, and a
  ``NotImplementedError``).
"""

from __future__ import annotations

import math

from mj_autodiff._derivatives import defjvp, defjvp2
from mj_autodiff._jvp import jvp_rules
from mj_autodiff._tangents import shape_dtype
from mj_autodiff.rules.elementwise import undifferentiable
from mj_core import lax
from mj_core.dtypes import float_info
from mj_core.errors import MJError, user_line_suffix
from mj_core.extend import AnyArray, Array, ArrayLike
from mj_core.prims.special import (
    bessel_i0e_p,
    bessel_i1e_p,
    digamma_p,
    erf_inv_p,
    erfc_p,
    igamma_grad_a_p,
    igamma_p,
    igammac_p,
    lgamma_p,
    regularized_incomplete_beta_p,
)

# --- lgamma, digamma, erfc, erf_inv -----------------------------------------------------------
_TRIGAMMA_SHIFT = 10
# B_2k for k = 1..7: trigamma(t) ~ 1/t + 1/(2 t^2) + sum_k B_2k / t^(2k + 1)
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6)


def _trigamma_positive(y: ArrayLike) -> Array:
    total = lax.integer_pow(y, -2)
    for k in range(1, _TRIGAMMA_SHIFT):
        total = lax.add(total, lax.integer_pow(lax.add(y, float(k)), -2))
    t = lax.add(y, float(_TRIGAMMA_SHIFT))
    u = lax.integer_pow(t, -2)
    series: AnyArray = _BERNOULLI[-1]
    for b in _BERNOULLI[-2::-1]:
        series = lax.add(lax.mul(series, u), b)
    inv = lax.div(1.0, t)
    asymptotic = lax.add(lax.add(inv, lax.mul(0.5, u)), lax.mul(lax.mul(inv, u), series))
    return lax.add(total, asymptotic)


def trigamma(x: ArrayLike) -> Array:
    """``d^2/dx^2 log(Gamma(x))`` on the real line (``+inf`` at the poles)."""
    positive = lax.gt(x, 0.0)
    y = lax.select(positive, x, lax.sub(1.0, x))
    value = _trigamma_positive(y)
    sin_pi_x = lax.sin(lax.mul(math.pi, x))
    reflected = lax.sub(lax.div(math.pi**2, lax.mul(sin_pi_x, sin_pi_x)), value)
    return lax.select(positive, value, reflected)


def _lgamma_jvp(g: ArrayLike, x: ArrayLike) -> Array:
    return lax.mul(g, lax.digamma(x))


defjvp(lgamma_p, _lgamma_jvp)


def _digamma_jvp(g: ArrayLike, x: ArrayLike) -> Array:
    return lax.mul(g, trigamma(x))


defjvp(digamma_p, _digamma_jvp)

_MINUS_TWO_OVER_SQRT_PI = -2.0 / math.sqrt(math.pi)


def _erfc_jvp(g: ArrayLike, x: ArrayLike) -> Array:
    return lax.mul(g, lax.mul(_MINUS_TWO_OVER_SQRT_PI, lax.exp(lax.neg(lax.mul(x, x)))))


defjvp(erfc_p, _erfc_jvp)

_SQRT_PI_OVER_TWO = math.sqrt(math.pi) / 2.0


def _erf_inv_jvp(g: ArrayLike, ans: ArrayLike, x: ArrayLike) -> Array:
    return lax.mul(g, lax.mul(_SQRT_PI_OVER_TWO, lax.exp(lax.mul(ans, ans))))


defjvp2(erf_inv_p, _erf_inv_jvp)


# --- bessel -----------------------------------------------------------------------------------
def _i0e_jvp(g: ArrayLike, y: ArrayLike, x: ArrayLike) -> Array:
    return lax.mul(g, lax.sub(lax.bessel_i1e(x), lax.mul(lax.sign(x), y)))


defjvp2(bessel_i0e_p, _i0e_jvp)


def _i1e_jvp(g: ArrayLike, y: ArrayLike, x: ArrayLike) -> Array:
    _, dtype = shape_dtype(y)
    eps = float(float_info(dtype).eps)
    not_tiny = lax.gt(lax.abs(x), eps)
    safe_x = lax.select(not_tiny, x, lax.full_like(x, eps))
    slope = lax.sub(
        lax.bessel_i0e(safe_x),
        lax.mul(y, lax.add(lax.sign(safe_x), lax.div(1.0, safe_x))),
    )
    return lax.mul(g, lax.select(not_tiny, slope, lax.full_like(slope, 0.5)))


defjvp2(bessel_i1e_p, _i1e_jvp)


# --- incomplete gamma -------------------------------------------------------------------------
def _gamma_density(a: ArrayLike, x: ArrayLike) -> Array:
    """``x^(a-1) e^-x / Gamma(a)``: the gamma(a) density."""
    log_density = lax.sub(lax.sub(lax.mul(lax.sub(a, 1.0), lax.log(x)), x), lax.lgamma(a))
    return lax.exp(log_density)


def _igamma_grad_a(g: ArrayLike, a: ArrayLike, x: ArrayLike) -> Array:
    return lax.mul(g, lax.igamma_grad_a(a, x))


def _igammac_grad_a(g: ArrayLike, a: ArrayLike, x: ArrayLike) -> Array:
    return lax.neg(lax.mul(g, lax.igamma_grad_a(a, x)))


def _igamma_grad_x(g: ArrayLike, a: ArrayLike, x: ArrayLike) -> Array:
    return lax.mul(g, _gamma_density(a, x))


def _igammac_grad_x(g: ArrayLike, a: ArrayLike, x: ArrayLike) -> Array:
    return lax.neg(lax.mul(g, _gamma_density(a, x)))


defjvp(igamma_p, _igamma_grad_a, _igamma_grad_x)
defjvp(igammac_p, _igammac_grad_a, _igammac_grad_x)
jvp_rules[igamma_grad_a_p] = undifferentiable("igamma_grad_a")


# --- incomplete beta --------------------------------------------------------------------------
class BetaincGradError(MJError, ValueError, NotImplementedError):
    """A tangent reached ``betainc``'s ``a`` or ``b``: JAX 0.10.2 has no such derivative."""


def _betainc_grad_ab(g: ArrayLike, a: ArrayLike, b: ArrayLike, x: ArrayLike) -> Array:
    raise BetaincGradError(
        "betainc: differentiation with respect to a and b is not supported (as in JAX); "
        f"only x may carry a tangent{user_line_suffix()}"
    )


def _betainc_grad_x(g: ArrayLike, a: ArrayLike, b: ArrayLike, x: ArrayLike) -> Array:
    log_beta = lax.sub(lax.add(lax.lgamma(a), lax.lgamma(b)), lax.lgamma(lax.add(a, b)))
    log_density = lax.sub(
        lax.add(
            lax.mul(lax.sub(b, 1.0), lax.log1p(lax.neg(x))), lax.mul(lax.sub(a, 1.0), lax.log(x))
        ),
        log_beta,
    )
    return lax.mul(lax.exp(log_density), g)


defjvp(regularized_incomplete_beta_p, _betainc_grad_ab, _betainc_grad_ab, _betainc_grad_x)
