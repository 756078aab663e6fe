"""``mj.scipy.stats.poisson``: the Poisson distribution (``-inf``/0 off the integers)."""

from __future__ import annotations

import math

import mj_core.numpy as mnp
from mj.scipy.special import gammaincc, gammaln, xlogy
from mj.scipy.stats._args import promote_args_inexact
from mj_core import lax
from mj_core.extend import Array, ArrayLike

__all__ = ["cdf", "logpmf", "pmf"]


def logpmf(k: ArrayLike, mu: ArrayLike, loc: ArrayLike = 0) -> Array:
    k, mu, loc = promote_args_inexact("poisson.logpmf", k, mu, loc)
    x = lax.sub(k, loc)
    log_probs = lax.sub(lax.sub(xlogy(x, mu), gammaln(lax.add(x, 1.0))), mu)
    off_support = lax.bitwise_or(lax.lt(x, 0.0), lax.ne(x, lax.round(x)))
    return mnp.where(off_support, -math.inf, log_probs)


def pmf(k: ArrayLike, mu: ArrayLike, loc: ArrayLike = 0) -> Array:
    return lax.exp(logpmf(k, mu, loc))


def cdf(k: ArrayLike, mu: ArrayLike, loc: ArrayLike = 0) -> Array:
    """``Q(floor(k - loc) + 1, mu)``: the probability of at most ``k - loc`` events; 0 below
    ``loc``."""
    k, mu, loc = promote_args_inexact("poisson.cdf", k, mu, loc)
    x = lax.sub(k, loc)
    p = gammaincc(lax.floor(lax.add(x, 1.0)), mu)
    return mnp.where(lax.lt(x, 0.0), mnp.zeros_like(p), p)
