"""lax-style wrappers of the special-function primitives (``jax.lax.lgamma`` and friends).

One thin ``bind`` per primitive of :mod:`mj_core.prims.special`; ``mj.lax`` re-exports them
and ``mj.scipy.special`` builds ``gammaln``, ``digamma``, ``erfc``, ``erfinv`` and the
``ndtr`` family on them.
"""

from __future__ import annotations

from typing import Any

from mj_core.prims import special as sp
from mj_core.trace import bind1

__all__ = ["digamma", "erf_inv", "erfc", "lgamma"]

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
