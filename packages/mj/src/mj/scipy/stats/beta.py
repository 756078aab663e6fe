"""``mj.scipy.stats.beta``: the beta distribution with shapes ``a``, ``b`` on
``[loc, loc + scale]``."""

from __future__ import annotations

import math

import mj_core.numpy as mnp
from mj.scipy.special import betainc, betaln, xlog1py, xlogy
from mj.scipy.stats._args import promote_args_inexact
from mj_core import lax
from mj_core.extend import Array, ArrayLike

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(
    x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1
) -> Array:
    x, a, b, loc, scale = promote_args_inexact("beta.logpdf", x, a, b, loc, scale)
    y = lax.div(lax.sub(x, loc), scale)
    log_linear = lax.add(xlogy(lax.sub(a, 1.0), y), xlog1py(lax.sub(b, 1.0), lax.neg(y)))
    log_probs = lax.sub(lax.sub(log_linear, betaln(a, b)), lax.log(scale))
    outside = lax.bitwise_or(lax.gt(y, 1.0), lax.lt(y, 0.0))
    invalid = lax.bitwise_or(
        lax.bitwise_or(lax.le(a, 0.0), lax.le(b, 0.0)), lax.le(scale, 0.0)
    )  # as JAX: NaN for non-positive shapes or scale
    return mnp.where(invalid, math.nan, mnp.where(outside, -math.inf, log_probs))


def pdf(
    x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1
) -> Array:
    return lax.exp(logpdf(x, a, b, loc, scale))


def _standardised(
    name: str, x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike, scale: ArrayLike
) -> list[Array]:
    """``[(x - loc) / scale`` clamped to ``[0, 1]``, ``a``, ``b]`` in one inexact dtype."""
    x, a, b, loc, scale = promote_args_inexact(name, x, a, b, loc, scale)
    return [lax.clamp(0.0, lax.div(lax.sub(x, loc), scale), 1.0), a, b]


def cdf(
    x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1
) -> Array:
    """``I_y(a, b)`` at the standardised point ``y`` (clamped to ``[0, 1]``)."""
    y, a, b = _standardised("beta.cdf", x, a, b, loc, scale)
    return betainc(a, b, y)


def logcdf(
    x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1
) -> Array:
    return lax.log(cdf(x, a, b, loc, scale))


def sf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """``I_{1-y}(b, a)``, without the cancellation of ``1 - cdf``."""
    y, a, b = _standardised("beta.sf", x, a, b, loc, scale)
    return betainc(b, a, lax.sub(1.0, y))


def logsf(
    x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1
) -> Array:
    return lax.log(sf(x, a, b, loc, scale))
