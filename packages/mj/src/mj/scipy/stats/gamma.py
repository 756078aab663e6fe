"""``mj.scipy.stats.gamma``: the gamma distribution with shape ``a`` on ``[loc, inf)``."""

from __future__ import annotations

import math

import mj_core.numpy as mnp
from mj.scipy.special import gammainc, gammaincc, gammaln, xlogy
from mj.scipy.stats._args import promote_args_inexact
from mj_core import lax
from mj_core.extend import Array, ArrayLike

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, a, loc, scale = promote_args_inexact("gamma.logpdf", x, a, loc, scale)
    ok = lax.ge(x, loc)
    # off the support y is a dummy 1, so the gradient of the masked branch stays finite
    y = mnp.where(ok, lax.div(lax.sub(x, loc), scale), mnp.ones_like(x))
    log_linear_term = lax.sub(xlogy(lax.sub(a, 1.0), y), y)
    shape_terms = lax.add(gammaln(a), lax.log(scale))
    return mnp.where(ok, lax.sub(log_linear_term, shape_terms), -math.inf)


def pdf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return lax.exp(logpdf(x, a, loc, scale))


def cdf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``P(a, (x - loc) / scale)``, with the standardised point clamped to ``[0, inf]``."""
    x, a, loc, scale = promote_args_inexact("gamma.cdf", x, a, loc, scale)
    y = lax.clamp(0.0, lax.div(lax.sub(x, loc), scale), math.inf)
    return gammainc(a, y)


def logcdf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return lax.log(cdf(x, a, loc, scale))


def sf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``Q(a, (x - loc) / scale)``, and 1 below ``loc``."""
    x, a, loc, scale = promote_args_inexact("gamma.sf", x, a, loc, scale)
    y = lax.div(lax.sub(x, loc), scale)
    return mnp.where(lax.lt(y, 0.0), mnp.ones_like(y), gammaincc(a, y))


def logsf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return lax.log(sf(x, a, loc, scale))
