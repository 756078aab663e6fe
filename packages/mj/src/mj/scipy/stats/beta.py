"""``mj.scipy.stats.beta``: the beta distribution with shapes ``a``, ``b`` on
``[loc, loc + scale]``."""

from __future__ import annotations

import math
from typing import Any

import mj_core.numpy as mnp
from mj.scipy.special import betaln, xlog1py, xlogy
from mj.scipy.stats._args import promote_args_inexact
from mj_core import lax

__all__ = ["logpdf", "pdf"]

Array = Any


def logpdf(x: Array, a: Array, b: Array, loc: Array = 0, scale: Array = 1) -> Array:
    x, a, b, loc, scale = promote_args_inexact("beta.logpdf", x, a, b, loc, scale)
    y = lax.div(lax.sub(x, loc), scale)
    log_linear = lax.add(xlogy(lax.sub(a, 1.0), y), xlog1py(lax.sub(b, 1.0), lax.neg(y)))
    log_probs = lax.sub(lax.sub(log_linear, betaln(a, b)), lax.log(scale))
    outside = lax.bitwise_or(lax.gt(y, 1.0), lax.lt(y, 0.0))
    return mnp.where(outside, -math.inf, log_probs)


def pdf(x: Array, a: Array, b: Array, loc: Array = 0, scale: Array = 1) -> Array:
    return lax.exp(logpdf(x, a, b, loc, scale))
