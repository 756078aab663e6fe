"""``mj.scipy.stats.t``: Student's t distribution with ``df`` degrees of freedom."""

from __future__ import annotations

import math

from mj.scipy.special import gammaln
from mj.scipy.stats._args import promote_args_inexact
from mj_core import lax
from mj_core.extend import Array, ArrayLike

__all__ = ["logpdf", "pdf"]


def logpdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    x, df, loc, scale = promote_args_inexact("t.logpdf", x, df, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    half_df = lax.div(df, 2.0)
    half_df_plus_half = lax.add(half_df, 0.5)
    log_norm = lax.div(lax.log(lax.mul(lax.mul(lax.mul(scale, scale), math.pi), df)), 2.0)
    normalizer = lax.sub(lax.add(gammaln(half_df), log_norm), gammaln(half_df_plus_half))
    quadratic = lax.div(lax.mul(z, z), df)
    return lax.neg(lax.add(normalizer, lax.mul(half_df_plus_half, lax.log1p(quadratic))))


def pdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    return lax.exp(logpdf(x, df, loc, scale))
