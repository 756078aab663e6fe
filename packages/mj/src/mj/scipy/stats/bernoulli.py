"""``mj.scipy.stats.bernoulli``: the Bernoulli distribution on ``{loc, loc + 1}``."""

from __future__ import annotations

import math

import mj_core.numpy as mnp
from mj.scipy.special import xlog1py, xlogy
from mj.scipy.stats._args import promote_args_inexact
from mj_core import lax
from mj_core.extend import Array, ArrayLike

__all__ = ["cdf", "logpmf", "pmf", "ppf"]


def logpmf(k: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    k, p, loc = promote_args_inexact("bernoulli.logpmf", k, p, loc)
    x = lax.sub(k, loc)
    log_probs = lax.add(xlogy(x, p), xlog1py(lax.sub(1.0, x), lax.neg(p)))
    return mnp.where(lax.bitwise_or(lax.lt(x, 0.0), lax.gt(x, 1.0)), -math.inf, log_probs)


def pmf(k: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    return lax.exp(logpmf(k, p, loc))


def cdf(k: ArrayLike, p: ArrayLike) -> Array:
    k, p = promote_args_inexact("bernoulli.cdf", k, p)
    inside = mnp.where(lax.lt(k, 1.0), lax.sub(1.0, p), 1.0)
    out = mnp.where(lax.lt(k, 0.0), 0.0, inside)
    return mnp.where(lax.bitwise_or(lax.lt(p, 0.0), lax.gt(p, 1.0)), math.nan, out)


def ppf(q: ArrayLike, p: ArrayLike) -> Array:
    q, p = promote_args_inexact("bernoulli.ppf", q, p)
    out = mnp.where(lax.le(q, lax.sub(1.0, p)), 0.0, 1.0)
    return mnp.where(lax.bitwise_or(lax.lt(q, 0.0), lax.gt(q, 1.0)), math.nan, out)
