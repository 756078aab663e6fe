"""The derivative of a Gamma(``a``) sample with respect to ``a`` (JAX's ``random_gamma_grad``).

A sample ``x`` is differentiated implicitly through its CDF, ``P(a, x) = u`` held fixed
(Figurnov et al., "Implicit reparameterization gradients", 2018):
``dx/da = -(dP/da) / (dP/dx)``. ``dP/da`` comes from the power series of the regularized
incomplete gamma function for ``x <= max(1, a)`` and from its continued fraction otherwise,
each differentiated term by term, exactly as JAX 0.10.2 (and XLA) evaluate it, so the
gradients of ``gamma``, ``beta``, ``dirichlet``, ... match JAX's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import mj.numpy as mnp
from mj_control import while_loop
from mj_core import lax
from mj_core.avals import get_aval
from mj_core.lax_special import digamma, lgamma

__all__ = ["random_gamma_grad"]

Array = Any


def _c(value: float, dtype: np.dtype[Any]) -> Array:
    return np.asarray(value, dtype)


def _series(x: Array, a: Array, enabled: Array) -> Array:
    """``dx/da`` from the series ``P(a, x) = ax / a * sum_n x**n / ((a+1)...(a+n))``."""
    dt = get_aval(a).dtype
    eps = _c(np.finfo(dt).eps, dt)

    def body(v: tuple[Array, ...]) -> tuple[Array, ...]:
        on, r, c, ans, xv, dc_da, dans_da = v
        r2 = lax.add(r, _c(1.0, dt))
        dc_da2 = lax.sub(lax.mul(dc_da, lax.div(xv, r2)), lax.div(lax.mul(c, xv), lax.mul(r2, r2)))
        dans_da2 = lax.add(dans_da, dc_da2)
        c2 = lax.mul(c, lax.div(xv, r2))
        ans2 = lax.add(ans, c2)
        more = lax.bitwise_and(on, lax.gt(lax.abs(lax.div(dc_da2, dans_da2)), eps))
        new = (r2, c2, ans2, xv, dc_da2, dans_da2)
        return (more, *(lax.select(on, n, o) for n, o in zip(new, v[1:], strict=True)))

    ones, zeros = mnp.ones_like(a), mnp.zeros_like(a)
    init = (enabled, a, ones, ones, x, zeros, zeros)
    out = while_loop(lambda v: mnp.any(v[0]), body, init)
    ans, dans_da = out[3], out[6]
    dlogax_da = lax.sub(lax.log(x), digamma(lax.add(a, _c(1.0, dt))))
    return lax.div(lax.mul(lax.neg(lax.add(dans_da, lax.mul(ans, dlogax_da))), x), a)


def _continued_fraction(x: Array, a: Array, enabled: Array) -> Array:
    """``dx/da`` from the continued fraction of ``Q(a, x) = 1 - P(a, x)`` (Cephes' igamc)."""
    dt = get_aval(a).dtype
    eps = _c(np.finfo(dt).eps, dt)
    one = _c(1.0, dt)

    def body(v: tuple[Array, ...]) -> tuple[Array, ...]:
        (on, ans, y, z, c, pkm1, qkm1, pkm2, qkm2, dpkm2, dqkm2, dpkm1, dqkm1, dans) = v
        c = lax.add(c, one)
        y2 = lax.add(y, one)
        z2 = lax.add(z, _c(2.0, dt))
        yc = lax.mul(y2, c)
        pk = lax.sub(lax.mul(pkm1, z2), lax.mul(pkm2, yc))
        qk = lax.sub(lax.mul(qkm1, z2), lax.mul(qkm2, yc))
        nonzero = lax.ne(qk, _c(0.0, dt))
        r = lax.div(pk, qk)
        ans2 = lax.select(nonzero, r, ans)
        dpk = lax.add(
            lax.sub(lax.sub(lax.mul(dpkm1, z2), pkm1), lax.mul(dpkm2, yc)), lax.mul(pkm2, c)
        )
        dqk = lax.add(
            lax.sub(lax.sub(lax.mul(dqkm1, z2), qkm1), lax.mul(dqkm2, yc)), lax.mul(qkm2, c)
        )
        dans2 = lax.select(nonzero, lax.div(lax.sub(dpk, lax.mul(ans2, dqk)), qk), dans)
        change = lax.select(nonzero, lax.abs(lax.sub(dans2, dans)), mnp.ones_like(dans))
        # shift the recurrences, rescaling all of them when they grow too large
        rescale = lax.gt(lax.abs(pk), lax.div(one, eps))
        shifted = (pk, qk, pkm1, qkm1, dpkm1, dqkm1, dpk, dqk)  # as (pkm1, qkm1, pkm2, ...)
        scaled = [lax.select(rescale, lax.mul(w, eps), w) for w in shifted]
        more = lax.bitwise_and(on, lax.gt(change, eps))
        new = (ans2, y2, z2)
        kept = [lax.select(on, n, o) for n, o in zip(new, v[1:4], strict=True)]
        recurrences = [lax.select(on, n, o) for n, o in zip(scaled, v[5:13], strict=True)]
        return (more, *kept, c, *recurrences, lax.select(on, dans2, dans))

    y = lax.sub(one, a)
    z = lax.add(lax.add(x, y), one)
    pkm1 = lax.add(x, one)
    qkm1 = lax.mul(z, x)
    ans = lax.div(pkm1, qkm1)
    zeros = mnp.zeros_like(x)
    dqkm1 = lax.neg(x)
    dans = lax.div(lax.sub(zeros, lax.mul(ans, dqkm1)), qkm1)
    init = (
        enabled, ans, y, z, _c(0.0, dt),
        pkm1, qkm1, mnp.ones_like(x), x, zeros, zeros, zeros, dqkm1, dans,
    )  # fmt: skip
    out = while_loop(
        lambda v: lax.bitwise_and(lax.lt(v[4], _c(2000.0, dt)), mnp.any(v[0])), body, init
    )
    ans, dans = out[1], out[13]
    dlogax_da = lax.sub(lax.log(x), digamma(a))
    return lax.neg(lax.mul(lax.add(dans, lax.mul(ans, dlogax_da)), x))


def random_gamma_grad(a: Array, x: Array) -> Array:
    """``d x / d a`` for Gamma(``a``) samples ``x`` (same shape and float dtype)."""
    dt = get_aval(a).dtype
    zero = _c(0.0, dt)
    is_nan = lax.bitwise_or(lax.ne(a, a), lax.ne(x, x))
    x_is_zero = lax.eq(x, zero)
    domain_error = lax.bitwise_or(lax.lt(x, zero), lax.le(a, zero))
    use_cf = lax.bitwise_and(lax.gt(x, _c(1.0, dt)), lax.gt(x, a))
    log_ax = lax.sub(lax.sub(lax.mul(a, lax.log(x)), x), lgamma(a))
    underflow = lax.lt(log_ax, _c(-np.log(np.finfo(dt).max), dt))
    skip = lax.bitwise_or(
        lax.bitwise_or(x_is_zero, domain_error), lax.bitwise_or(underflow, is_nan)
    )
    enabled = lax.bitwise_not(skip)
    out = lax.select(
        use_cf,
        lax.neg(_continued_fraction(x, a, lax.bitwise_and(enabled, use_cf))),
        _series(x, a, lax.bitwise_and(enabled, lax.bitwise_not(use_cf))),
    )
    out = lax.select(x_is_zero, mnp.zeros_like(out), out)
    return lax.select(lax.bitwise_or(domain_error, is_nan), mnp.full_like(a, np.nan), out)
