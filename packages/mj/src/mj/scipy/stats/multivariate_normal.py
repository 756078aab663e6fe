"""``mj.scipy.stats.multivariate_normal``: the Gaussian with mean ``mean`` and covariance
``cov`` over the last axis of ``x`` (a scalar ``cov`` means ``cov * I``; a scalar ``mean``
a univariate normal of variance ``cov``), through the Cholesky factor as in JAX."""

from __future__ import annotations

import math

import mj.numpy as mnp
from mj_core import get_aval, lax, lax_linalg
from mj_core.errors import user_line_suffix
from mj_core.extend import Array, ArrayLike, promote_inexact

__all__ = ["logpdf", "pdf"]


_LOG_2PI = math.log(2 * math.pi)


def logpdf(x: ArrayLike, mean: ArrayLike, cov: ArrayLike, allow_singular: None = None) -> Array:
    """``-1/2 |L^-1 (x - mean)|^2 - n/2 log(2 pi) - sum(log(diag(L)))`` with ``cov = L L^T``."""
    if allow_singular is not None:
        raise NotImplementedError("allow_singular argument of multivariate_normal.logpdf")
    x, mean, cov = promote_inexact(x, mean, cov)
    mean_shape, cov_shape = get_aval(mean).shape, get_aval(cov).shape
    if not mean_shape:
        quadratic = lax.div(mnp.square(lax.sub(x, mean)), cov)
        return lax.sub(lax.mul(-0.5, quadratic), lax.mul(0.5, lax.add(_LOG_2PI, lax.log(cov))))
    n = mean_shape[-1]
    y = lax.sub(x, mean)
    if not cov_shape:
        quadratic = lax.div(mnp.sum(lax.mul(y, y), axis=-1), cov)
        return lax.sub(lax.mul(-0.5, quadratic), lax.mul(n / 2, lax.add(_LOG_2PI, lax.log(cov))))
    if len(cov_shape) < 2 or tuple(cov_shape[-2:]) != (n, n):
        raise ValueError(
            f"multivariate_normal.logpdf got incompatible shapes: mean {tuple(mean_shape)}, "
            f"cov {tuple(cov_shape)}{user_line_suffix()}"
        )
    factor = lax_linalg.cholesky(cov)
    batch = mnp.broadcast_shapes(tuple(cov_shape[:-2]), tuple(get_aval(y).shape[:-1]))
    factor = mnp.broadcast_to(factor, (*batch, n, n))
    y = mnp.broadcast_to(y, (*batch, n))
    z = lax_linalg.triangular_solve(factor, mnp.expand_dims(y, -1), left_side=True, lower=True)
    quadratic = mnp.sum(mnp.square(z[..., 0]), axis=-1)
    log_det = mnp.sum(lax.log(mnp.diagonal(factor, axis1=-2, axis2=-1)), axis=-1)
    return lax.sub(lax.sub(lax.mul(-0.5, quadratic), n / 2 * _LOG_2PI), log_det)


def pdf(x: ArrayLike, mean: ArrayLike, cov: ArrayLike) -> Array:
    return lax.exp(logpdf(x, mean, cov))
