"""JVP rules of the special-function primitives (``lgamma``, ``digamma``, ``erfc``,
``erf_inv``), with JAX's derivatives.

``digamma``'s derivative is the trigamma function, which mj has no primitive for; it is
composed here from core operations (recurrence up to 10, asymptotic series, reflection for
``x <= 0``), so it differentiates, batches and compiles like anything else.
"""

from __future__ import annotations

import math
from typing import Any

from mj_autodiff._jvp import defjvp, defjvp2
from mj_core import lax, lax_special
from mj_core.prims import special as sp

Array = Any

_TRIGAMMA_SHIFT = 10
# B_2k for k = 1..7: trigamma(t) ~ 1/t + 1/(2 t^2) + sum_k B_2k / t^(2k + 1)
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6)


def _trigamma_positive(y: Array) -> Array:
    total = lax.integer_pow(y, -2)
    for k in range(1, _TRIGAMMA_SHIFT):
        total = lax.add(total, lax.integer_pow(lax.add(y, float(k)), -2))
    t = lax.add(y, float(_TRIGAMMA_SHIFT))
    u = lax.integer_pow(t, -2)
    series = _BERNOULLI[-1]
    for b in _BERNOULLI[-2::-1]:
        series = lax.add(lax.mul(series, u), b)
    inv = lax.div(1.0, t)
    asymptotic = lax.add(lax.add(inv, lax.mul(0.5, u)), lax.mul(lax.mul(inv, u), series))
    return lax.add(total, asymptotic)


def trigamma(x: Array) -> Array:
    """``d^2/dx^2 log(Gamma(x))`` on the real line (``+inf`` at the poles)."""
    positive = lax.gt(x, 0.0)
    y = lax.select(positive, x, lax.sub(1.0, x))
    value = _trigamma_positive(y)
    sin_pi_x = lax.sin(lax.mul(math.pi, x))
    reflected = lax.sub(lax.div(math.pi**2, lax.mul(sin_pi_x, sin_pi_x)), value)
    return lax.select(positive, value, reflected)


def _lgamma_jvp(g: Array, x: Array) -> Array:
    return lax.mul(g, lax_special.digamma(x))


defjvp(sp.lgamma_p, _lgamma_jvp)


def _digamma_jvp(g: Array, x: Array) -> Array:
    return lax.mul(g, trigamma(x))


defjvp(sp.digamma_p, _digamma_jvp)

_MINUS_TWO_OVER_SQRT_PI = -2.0 / math.sqrt(math.pi)


def _erfc_jvp(g: Array, x: Array) -> Array:
    return lax.mul(g, lax.mul(_MINUS_TWO_OVER_SQRT_PI, lax.exp(lax.neg(lax.mul(x, x)))))


defjvp(sp.erfc_p, _erfc_jvp)

_SQRT_PI_OVER_TWO = math.sqrt(math.pi) / 2.0


def _erf_inv_jvp(g: Array, ans: Array, x: Array) -> Array:
    return lax.mul(g, lax.mul(_SQRT_PI_OVER_TWO, lax.exp(lax.mul(ans, ans))))


defjvp2(sp.erf_inv_p, _erf_inv_jvp)
