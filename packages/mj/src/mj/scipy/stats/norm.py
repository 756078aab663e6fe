"""``mj.scipy.stats.norm``: the normal distribution (``loc`` mean, ``scale`` std)."""

from __future__ import annotations

import math

from mj.scipy.special import log_ndtr, ndtr, ndtri
from mj.scipy.stats._args import promote_args_inexact
from mj_core import lax
from mj_core.extend import AnyArray, Array, ArrayLike

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = promote_args_inexact("norm.logpdf", x, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    log_normalizer = lax.add(lax.log(scale), 0.5 * math.log(2 * math.pi))
    return lax.sub(lax.mul(-0.5, lax.mul(z, z)), log_normalizer)


def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return lax.exp(logpdf(x, loc, scale))


def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = promote_args_inexact("norm.cdf", x, loc, scale)
    return ndtr(lax.div(lax.sub(x, loc), scale))


def logcdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> AnyArray:
    x, loc, scale = promote_args_inexact("norm.logcdf", x, loc, scale)
    return log_ndtr(lax.div(lax.sub(x, loc), scale))


def sf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = promote_args_inexact("norm.sf", x, loc, scale)
    return cdf(lax.neg(x), lax.neg(loc), scale)


def logsf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> AnyArray:
    x, loc, scale = promote_args_inexact("norm.logsf", x, loc, scale)
    return logcdf(lax.neg(x), lax.neg(loc), scale)


def ppf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    q, loc, scale = promote_args_inexact("norm.ppf", q, loc, scale)
    return lax.add(lax.mul(ndtri(q), scale), loc)


def isf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return ppf(lax.sub(1.0, q), loc, scale)
