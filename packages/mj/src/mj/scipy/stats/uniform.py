"""``mj.scipy.stats.uniform``: the uniform distribution on ``[loc, loc + scale]``."""

from __future__ import annotations

import math

import mj_core.numpy as mnp
from mj.scipy.stats._args import promote_args_inexact
from mj_core import lax
from mj_core.extend import Array, ArrayLike

__all__ = ["cdf", "logpdf", "pdf", "ppf"]


def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = promote_args_inexact("uniform.logpdf", x, loc, scale)
    log_probs = lax.neg(lax.log(scale))
    outside = lax.bitwise_or(lax.gt(x, lax.add(loc, scale)), lax.lt(x, loc))
    return mnp.where(outside, -math.inf, log_probs)


def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return lax.exp(logpdf(x, loc, scale))


def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = promote_args_inexact("uniform.cdf", x, loc, scale)
    return mnp.clip(lax.div(lax.sub(x, loc), scale), 0.0, 1.0)


def ppf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    q, loc, scale = promote_args_inexact("uniform.ppf", q, loc, scale)
    outside = lax.bitwise_or(lax.lt(q, 0.0), lax.gt(q, 1.0))
    return mnp.where(outside, math.nan, lax.add(loc, lax.mul(q, scale)))
