"""``mj.scipy.stats.laplace``: the Laplace (double exponential) distribution."""

from __future__ import annotations

import mj_core.numpy as mnp
from mj.scipy.stats._args import promote_args_inexact
from mj_core import lax
from mj_core.extend import Array, ArrayLike

__all__ = ["cdf", "logpdf", "pdf"]


def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = promote_args_inexact("laplace.logpdf", x, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    return lax.neg(lax.add(lax.log(lax.mul(2.0, scale)), lax.abs(z)))


def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return lax.exp(logpdf(x, loc, scale))


def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, loc, scale = promote_args_inexact("laplace.cdf", x, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    below = lax.mul(0.5, lax.exp(z))
    above = lax.sub(1.0, lax.mul(0.5, lax.exp(lax.neg(z))))
    return mnp.where(lax.le(z, 0.0), below, above)
