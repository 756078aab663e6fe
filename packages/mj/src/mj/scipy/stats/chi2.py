"""``mj.scipy.stats.chi2``: the chi-square distribution with ``df`` degrees of freedom, a
gamma distribution of shape ``df / 2`` and scale ``2 * scale``."""

from __future__ import annotations

import math

import mj_core.numpy as mnp
from mj.scipy.special import gammainc, gammaincc
from mj.scipy.stats._args import promote_args_inexact
from mj_core import lax
from mj_core.extend import Array, ArrayLike

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``(df/2 - 1) log(y) - y/2 - lgamma(df/2) - df/2 log(2) - log(scale)``; ``-inf`` below
    ``loc``."""
    x, df, loc, scale = promote_args_inexact("chi2.logpdf", x, df, loc, scale)
    y = lax.div(lax.sub(x, loc), scale)
    half_df = lax.div(df, 2.0)
    kernel = lax.sub(lax.mul(lax.sub(half_df, 1.0), lax.log(y)), lax.div(y, 2.0))
    normalizer = lax.neg(lax.add(lax.lgamma(half_df), lax.mul(half_df, math.log(2.0))))
    log_probs = lax.add(lax.sub(normalizer, lax.log(scale)), kernel)
    return mnp.where(lax.lt(x, loc), -math.inf, log_probs)


def pdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return lax.exp(logpdf(x, df, loc, scale))


def _gamma_point(
    name: str, x: ArrayLike, df: ArrayLike, loc: ArrayLike, scale: ArrayLike
) -> list[Array]:
    """``[df / 2, (x - loc) / (2 scale)]``, the point clamped to ``[0, inf]``."""
    x, df, loc, scale = promote_args_inexact(name, x, df, loc, scale)
    y = lax.clamp(0.0, lax.div(lax.sub(x, loc), lax.mul(scale, 2.0)), math.inf)
    return [lax.div(df, 2.0), y]


def cdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return gammainc(*_gamma_point("chi2.cdf", x, df, loc, scale))


def logcdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return lax.log(cdf(x, df, loc, scale))


def sf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return gammaincc(*_gamma_point("chi2.sf", x, df, loc, scale))


def logsf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return lax.log(sf(x, df, loc, scale))
