"""``mj.scipy.stats.dirichlet``: the Dirichlet distribution with concentrations ``alpha`` (a
vector of length K) over the probability simplex.

``x`` has the K components along its first axis (further axes are a batch, as in SciPy and
JAX); K - 1 components may be given, the last is then ``1 - sum``. Points off the simplex
(a component ``<= 0``, or a sum more than 1e-6 from 1) have log-density ``-inf``.
"""

from __future__ import annotations

import math

import mj_core.numpy as mnp
from mj.scipy.special import gammaln, xlogy
from mj.scipy.stats._args import promote_args_inexact
from mj_core import lax
from mj_core.errors import user_line_suffix
from mj_core.extend import Array, ArrayLike

__all__ = ["logpdf", "pdf"]


def _on_simplex(x: ArrayLike) -> Array:
    total = mnp.sum(x, axis=0)
    return lax.bitwise_and(
        mnp.all(lax.gt(x, 0.0), axis=0), lax.lt(lax.abs(lax.sub(total, 1.0)), 1e-6)
    )


def logpdf(x: ArrayLike, alpha: ArrayLike) -> Array:
    """``sum((alpha - 1) log x) - (sum(gammaln(alpha)) - gammaln(sum(alpha)))``."""
    x, alpha = promote_args_inexact("dirichlet.logpdf", x, alpha)
    x_shape, alpha_shape = mnp.shape(x), mnp.shape(alpha)
    if len(alpha_shape) != 1:
        raise ValueError(
            f"`alpha` must be one-dimensional; got alpha.shape={alpha_shape}{user_line_suffix()}"
        )
    if not x_shape or x_shape[0] not in (alpha_shape[0], alpha_shape[0] - 1):
        raise ValueError(
            "`x` must have either the same number of entries as `alpha` or one entry fewer; "
            f"got x.shape={x_shape}, alpha.shape={alpha_shape}{user_line_suffix()}"
        )
    if x_shape[0] != alpha_shape[0]:
        x = mnp.concatenate([x, lax.sub(1.0, mnp.sum(x, axis=0, keepdims=True))], axis=0)
    normalizer = lax.sub(mnp.sum(gammaln(alpha)), gammaln(mnp.sum(alpha)))
    alpha_b = lax.broadcast_in_dim(alpha, alpha_shape + (1,) * (len(x_shape) - 1), (0,))
    log_probs = lax.sub(mnp.sum(xlogy(lax.sub(alpha_b, 1.0), x), axis=0), normalizer)
    return mnp.where(_on_simplex(x), log_probs, -math.inf)


def pdf(x: ArrayLike, alpha: ArrayLike) -> Array:
    return lax.exp(logpdf(x, alpha))
