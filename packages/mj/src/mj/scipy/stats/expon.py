"""``mj.scipy.stats.expon``: the exponential distribution on ``[loc, inf)``."""

from __future__ import annotations

import math

import mj_core.numpy as mnp
from mj.scipy.stats._args import promote_args_inexact
from mj_core import lax
from mj_core.extend import Array, ArrayLike

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = promote_args_inexact("expon.logpdf", x, loc, scale)
    log_probs = lax.sub(lax.neg(lax.div(lax.sub(x, loc), scale)), lax.log(scale))
    return mnp.where(lax.lt(x, loc), -math.inf, log_probs)


def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return lax.exp(logpdf(x, loc, scale))


def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = promote_args_inexact("expon.cdf", x, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    return mnp.where(lax.lt(x, loc), 0.0, lax.neg(lax.expm1(lax.neg(z))))


def logcdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return lax.log(cdf(x, loc, scale))


def logsf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = promote_args_inexact("expon.logsf", x, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    return mnp.where(lax.lt(x, loc), 0.0, lax.neg(z))


def sf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return lax.exp(logsf(x, loc, scale))


def ppf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    q, loc, scale = promote_args_inexact("expon.ppf", q, loc, scale)
    out = lax.add(lax.mul(lax.neg(lax.log1p(lax.neg(q))), scale), loc)
    return mnp.where(lax.bitwise_or(lax.lt(q, 0.0), lax.gt(q, 1.0)), math.nan, out)
