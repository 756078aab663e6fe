"""lax-style wrappers of the special-function primitives (``jax.lax.lgamma`` and friends).

One thin ``bind`` per primitive of :mod:`mj_core.prims.special`; ``mj.lax`` re-exports them
and ``mj.scipy.special`` builds ``gammaln``, ``digamma``, ``erfc``, ``erfinv`` and the
``ndtr`` family on them.
"""

from __future__ import annotations

from typing import Any

from mj_core.prims import bessel, incomplete_beta, incomplete_gamma
from mj_core.prims import nextafter as nextafter_module
from mj_core.prims import special as sp
from mj_core.trace import bind1

__all__ = [
    "bessel_i0e",
    "bessel_i1e",
    "betainc",
    "digamma",
    "erf_inv",
    "erfc",
    "igamma",
    "igammac",
    "lgamma",
    "nextafter",
]

Array = Any


def lgamma(x: Array) -> Array:
    """Elementwise ``log(|Gamma(x)|)``; ``+inf`` at the poles ``0, -1, -2, ...``."""
    return bind1(sp.lgamma_p, x)


def digamma(x: Array) -> Array:
    """Elementwise ``d/dx log(Gamma(x))``; NaN at the poles ``0, -1, -2, ...``."""
    return bind1(sp.digamma_p, x)


def erfc(x: Array) -> Array:
    """Elementwise complementary error function ``1 - erf(x)``, accurate for large ``x``."""
    return bind1(sp.erfc_p, x)


def erf_inv(x: Array) -> Array:
    """Elementwise inverse error function: ``erf(erf_inv(x)) == x`` on ``(-1, 1)``,
    ``+-inf`` at ``+-1`` and NaN outside ``[-1, 1]``."""
    return bind1(sp.erf_inv_p, x)


def igamma(a: Array, x: Array) -> Array:
    """Elementwise regularized lower incomplete gamma function ``P(a, x)``."""
    return bind1(incomplete_gamma.igamma_p, a, x)


def igammac(a: Array, x: Array) -> Array:
    """Elementwise regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``."""
    return bind1(incomplete_gamma.igammac_p, a, x)


def bessel_i0e(x: Array) -> Array:
    """Elementwise exponentially scaled modified Bessel function ``exp(-|x|) I0(x)``."""
    return bind1(bessel.bessel_i0e_p, x)


def bessel_i1e(x: Array) -> Array:
    """Elementwise exponentially scaled modified Bessel function ``exp(-|x|) I1(x)``."""
    return bind1(bessel.bessel_i1e_p, x)


def betainc(a: Array, b: Array, x: Array) -> Array:
    """Elementwise regularized incomplete beta function ``I_x(a, b)``."""
    return bind1(incomplete_beta.regularized_incomplete_beta_p, a, b, x)


def nextafter(x1: Array, x2: Array) -> Array:
    """Elementwise next representable float after ``x1`` in the direction of ``x2``."""
    return bind1(nextafter_module.nextafter_p, x1, x2)
