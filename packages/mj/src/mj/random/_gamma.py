"""The gamma sampler and the distributions built on it (``mj.random``'s part).

``gamma`` is JAX 0.10.2's Marsaglia-Tsang rejection sampler: the key is split into one key per
element, and each element runs its own ``while_loop`` (vectorized with ``vmap``) with JAX's key
splitting, so a sample depends only on its key and ``a``, exactly as in JAX. ``loggamma``,
``beta``, ``dirichlet``, ``chisquare``, ``f``, ``t``, ``generalized_normal`` and ``ball`` follow
JAX's compositions. Samples are differentiable in the parameters as in JAX: the derivative of
a gamma sample in ``a`` is the implicit reparameterization one (:func:`random_gamma_grad`,
at the end of this module).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import mj.numpy as mnp
from mj.random import _threefry
from mj.random._args import (
    Shape,
    _aval,
    _check_castable,
    _check_key,
    _check_param_shapes,
    _compiled,
    _const,
    _error,
    _float_dtype,
    _float_param,
    _operator_index,
    _params_shape,
    _shape,
)
from mj.random._bits import _normal_real, _uniform
from mj.random._continuous import _exponential
from mj.random._discrete import _rademacher
from mj_autodiff import custom_jvp
from mj_batch import vmap
from mj_control import while_loop
from mj_core import get_aval, lax
from mj_core.dtypes import float_info
from mj_core.extend import AnyArray, Array, ArrayLike, DTypeLike
from mj_core.lax import digamma, lgamma

__all__ = [
    "ball",
    "beta",
    "chisquare",
    "dirichlet",
    "f",
    "gamma",
    "generalized_normal",
    "loggamma",
    "t",
]


def _split2(key: ArrayLike) -> tuple[Array, Array]:
    k1, k2 = _threefry.unstack_keys(_threefry.split(key, (2,)))
    return k1, k2


def _gamma_one(key: ArrayLike, alpha: ArrayLike, log_space: bool) -> Array:
    """One Gamma(``alpha``) sample (scalar ``alpha``): Marsaglia and Tsang, "A simple method
    for generating gamma variables" (2000), with alpha < 1 boosted to alpha + 1 and corrected
    by ``u ** (1 / alpha)`` (in log space for ``loggamma``)."""
    dtype = get_aval(alpha).dtype
    zero, one = _const(0.0, dtype), _const(1.0, dtype)
    third = _const(1.0 / 3.0, dtype)
    boost_mask = lax.ge(alpha, one)
    alpha_boosted = lax.select(boost_mask, alpha, lax.add(alpha, one))
    d = lax.sub(alpha_boosted, third)
    c = lax.div(third, lax.sqrt(d))

    def rejected(state: tuple[ArrayLike, ArrayLike, ArrayLike, ArrayLike]) -> Array:
        _, x_sq, v, u = state
        squeeze = lax.ge(u, lax.sub(one, lax.mul(_const(0.0331, dtype), lax.mul(x_sq, x_sq))))
        bound = lax.add(
            lax.mul(x_sq, _const(0.5, dtype)), lax.mul(d, lax.add(lax.sub(one, v), lax.log(v)))
        )
        return lax.bitwise_and(squeeze, lax.ge(lax.log(u), bound))

    def next_candidate(
        state: tuple[ArrayLike, ArrayLike, ArrayLike],
    ) -> tuple[Array, Array, Array]:
        k, subkey = _split2(state[0])
        x = _normal_real(subkey, (), dtype)
        return k, x, lax.add(one, lax.mul(x, c))

    def propose(
        state: tuple[ArrayLike, ArrayLike, ArrayLike, ArrayLike],
    ) -> tuple[Array, Array, Array, Array]:
        k, x_key, u_key = _threefry.unstack_keys(_threefry.split(state[0], (3,)))
        init = (x_key, zero, _const(-1.0, dtype))
        _, x, v = while_loop(lambda s: lax.le(s[2], zero), next_candidate, init)
        u = _uniform(u_key, (), dtype, 0.0, 1.0)
        return k, lax.mul(x, x), lax.mul(lax.mul(v, v), v), u

    key, subkey = _split2(key)
    # (X, V, U) = (0, 1, 2) makes the first test reject, so the loop draws at least once.
    init = (key, zero, one, _const(2.0, dtype))
    v = while_loop(rejected, propose, init)[2]
    if log_space:
        log_u = lax.neg(_exponential(subkey, (), dtype))
        no_boost = lax.bitwise_or(boost_mask, lax.eq(log_u, zero))
        log_boost = lax.select(no_boost, zero, lax.mul(log_u, lax.div(one, alpha)))
        return lax.add(lax.add(lax.log(d), lax.log(v)), log_boost)
    u = lax.sub(one, _uniform(subkey, (), dtype, 0.0, 1.0))
    boost = lax.select(boost_mask, one, lax.pow(u, lax.div(one, alpha)))
    return lax.mul(lax.mul(d, v), boost)


def _gamma(
    key: AnyArray, a: Any, shape: tuple[int, ...], dtype: np.dtype[Any], log_space: bool
) -> AnyArray:
    """``a`` broadcast to ``shape``; element ``i`` (row-major) uses ``split(key, size)[i]``."""
    a = _float_param("gamma", a, dtype, shape)
    return _SAMPLERS[log_space](key, a)


def _sample(key: ArrayLike, a: ArrayLike, log_space: bool) -> Array:
    shape = tuple(get_aval(a).shape)
    size = int(np.prod(shape))
    if size == 0:
        return mnp.zeros(shape, get_aval(a).dtype)
    keys = _threefry.split(key, (size,))
    samples = vmap(lambda k, x: _gamma_one(k, x, log_space))(keys, lax.reshape(a, (size,)))
    return lax.reshape(samples, shape)


def _differentiable_sampler(log_space: bool) -> custom_jvp:
    """The sampler with JAX's implicit reparameterization derivative in ``a`` (the loop itself
    is not differentiable): ``d sample / d a`` from :func:`random_gamma_grad`."""
    sampler = custom_jvp(lambda key, a: _sample(key, a, log_space))

    def jvp(
        primals: tuple[ArrayLike, ArrayLike], tangents: tuple[ArrayLike, ArrayLike]
    ) -> tuple[Array, Array]:
        key, a = primals
        out = sampler(key, a)
        if log_space:  # d log(x) = dx / x, with x = 0 (underflow) replaced by the tiniest float
            x = lax.exp(out)
            tiny = mnp.full_like(x, float_info(get_aval(x).dtype).tiny)
            x = lax.select(lax.eq(x, mnp.zeros_like(x)), tiny, x)
            grad = lax.div(random_gamma_grad(a, x), x)
        else:
            grad = random_gamma_grad(a, out)
        return out, lax.mul(tangents[1], grad)

    sampler.defjvp(jvp)
    return sampler


_SAMPLERS = {False: _differentiable_sampler(False), True: _differentiable_sampler(True)}


@_compiled
def gamma(
    key: AnyArray, a: float | AnyArray, shape: Shape | None = None, dtype: DTypeLike | None = None
) -> AnyArray:
    """Standard Gamma(``a``) samples (unit rate; shape defaults to ``a``'s shape)."""
    key = _check_key("gamma", key)
    dt = _float_dtype("gamma", dtype)
    return _gamma(key, a, _params_shape("gamma", shape, a), dt, log_space=False)


@_compiled
def loggamma(
    key: AnyArray, a: float | AnyArray, shape: Shape | None = None, dtype: DTypeLike | None = None
) -> AnyArray:
    """``log`` of Gamma(``a``) samples, computed in log space so that tiny ``a`` (whose samples
    underflow to 0) keep their precision: ``exp(loggamma(k, a))`` is ``gamma(k, a)``."""
    key = _check_key("loggamma", key)
    dt = _float_dtype("loggamma", dtype)
    return _gamma(key, a, _params_shape("loggamma", shape, a), dt, log_space=True)


@_compiled
def beta(
    key: ArrayLike,
    a: float | ArrayLike,
    b: float | ArrayLike,
    shape: Shape | None = None,
    dtype: DTypeLike | None = None,
) -> Array:
    """Beta(``a``, ``b``) samples, ``Ga / (Ga + Gb)`` from two log-gamma draws."""
    key = _check_key("beta", key)
    dt = _float_dtype("beta", dtype)
    _check_castable("beta", dt, a, b)
    shp = _params_shape("beta", shape, a, b)
    key_a, key_b = _split2(key)
    log_ga = _gamma(key_a, a, shp, dt, log_space=True)
    log_gb = _gamma(key_b, b, shp, dt, log_space=True)
    log_max = lax.max(log_ga, log_gb)
    ga = lax.exp(lax.sub(log_ga, log_max))
    gb = lax.exp(lax.sub(log_gb, log_max))
    return lax.div(ga, lax.add(ga, gb))


@_compiled
def dirichlet(
    key: ArrayLike, alpha: ArrayLike, shape: Shape | None = None, dtype: DTypeLike | None = None
) -> Array:
    """Dirichlet(``alpha``) samples over ``alpha``'s last axis (normalized log-gamma draws);
    the result shape is ``shape + alpha.shape[-1:]``."""
    key = _check_key("dirichlet", key)
    dt = _float_dtype("dirichlet", dtype)
    aval = _aval("dirichlet", "alpha", alpha)
    if not aval.shape:
        raise ValueError(_error("dirichlet", "alpha must have at least one dimension, got ()"))
    batch = aval.shape[:-1]
    shp = batch if shape is None else _shape("dirichlet", shape)
    _check_param_shapes("dirichlet", shp, batch)
    log_g = _gamma(key, alpha, (*shp, aval.shape[-1]), dt, log_space=True)
    # softmax over the last axis, as JAX computes it
    shifted = lax.sub(log_g, mnp.max(log_g, axis=-1, keepdims=True))
    unnormalized = lax.exp(shifted)
    return lax.div(unnormalized, mnp.sum(unnormalized, axis=-1, keepdims=True))


def _chisquare(key: ArrayLike, df: Any, shape: tuple[int, ...], dtype: np.dtype[Any]) -> Array:
    two = _const(2.0, dtype)
    half_df = lax.div(_float_param("chisquare", df, dtype, shape), two)
    return lax.mul(lax.exp(_gamma(key, half_df, shape, dtype, log_space=True)), two)


@_compiled
def chisquare(
    key: ArrayLike,
    df: float | ArrayLike,
    shape: Shape | None = None,
    dtype: DTypeLike | None = None,
) -> Array:
    """Chi-square samples with ``df`` degrees of freedom: ``2 * Gamma(df / 2)``."""
    key = _check_key("chisquare", key)
    dt = _float_dtype("chisquare", dtype)
    shp = _params_shape("chisquare", shape, df)
    _check_castable("chisquare", dt, df)
    return _chisquare(key, df, shp, dt)


@_compiled
def f(
    key: ArrayLike,
    dfnum: float | ArrayLike,
    dfden: float | ArrayLike,
    shape: Shape | None = None,
    dtype: DTypeLike | None = None,
) -> Array:
    """F-distribution samples: the ratio of two scaled chi-square draws."""
    key = _check_key("f", key)
    dt = _float_dtype("f", dtype)
    shp = _params_shape("f", shape, dfnum, dfden)
    _check_castable("f", dt, dfnum, dfden)
    key_den, key_num = _split2(key)
    num = lax.div(_chisquare(key_num, dfnum, shp, dt), _float_param("f", dfnum, dt, shp))
    den = lax.div(_chisquare(key_den, dfden, shp, dt), _float_param("f", dfden, dt, shp))
    return lax.div(num, den)


@_compiled
def t(
    key: ArrayLike,
    df: float | ArrayLike,
    shape: Shape | None = None,
    dtype: DTypeLike | None = None,
) -> Array:
    """Student's t samples with ``df`` degrees of freedom: ``N * sqrt(df / 2 / Gamma(df / 2))``."""
    key = _check_key("t", key)
    dt = _float_dtype("t", dtype)
    shp = _params_shape("t", shape, df)
    _check_castable("t", dt, df)
    key_n, key_g = _split2(key)
    n = _normal_real(key_n, shp, dt)
    half_df = lax.div(_float_param("t", df, dt, shp), _const(2.0, dt))
    g = _gamma(key_g, half_df, shp, dt, log_space=False)
    return lax.mul(n, lax.sqrt(lax.div(half_df, g)))


def _generalized_normal(
    key: ArrayLike, p: Any, shape: tuple[int, ...], dtype: np.dtype[Any]
) -> Array:
    key_g, key_r = _split2(key)
    inv_p = _reciprocal(p, dtype)
    g = _gamma(key_g, inv_p, shape, dtype, log_space=False)
    r = _rademacher(key_r, shape, dtype)
    return lax.mul(r, lax.pow(g, inv_p))


def _reciprocal(p: Any, dtype: np.dtype[Any]) -> AnyArray:
    """``1 / p`` in the sample dtype (a Python ``p`` divides in double precision, as JAX)."""
    if isinstance(p, int | float):
        return np.asarray(1 / p, dtype)
    return lax.div(_const(1.0, dtype), _float_param("generalized_normal", p, dtype, ()))


def _check_scalar_p(api: str, p: Any) -> None:
    if _aval(api, "p", p).shape:
        raise ValueError(_error(api, f"p must be a scalar, got shape {get_aval(p).shape}"))


@_compiled
def generalized_normal(
    key: ArrayLike, p: float, shape: Shape = (), dtype: DTypeLike | None = None
) -> Array:
    """Generalized normal samples (density ``∝ exp(-|x|**p)``): ``p = 2`` is a normal with
    variance 1/2, ``p = 1`` a Laplace."""
    key = _check_key("generalized_normal", key)
    dt = _float_dtype("generalized_normal", dtype)
    _check_scalar_p("generalized_normal", p)
    return _generalized_normal(key, p, _shape("generalized_normal", shape), dt)


@_compiled
def ball(
    key: ArrayLike, d: int, p: float = 2, shape: Shape = (), dtype: DTypeLike | None = None
) -> Array:
    """Points uniform in the unit ``p``-norm ball of dimension ``d`` (result
    ``shape + (d,)``), from generalized normals and an exponential draw."""
    key = _check_key("ball", key)
    dt = _float_dtype("ball", dtype)
    _check_scalar_p("ball", p)
    try:
        dim = _operator_index(d)
    except (TypeError, AttributeError) as err:
        raise TypeError(_error("ball", f"d must be an integer, got {d!r}")) from err
    shp = _shape("ball", shape)
    k1, k2 = _split2(key)
    g = _generalized_normal(k1, p, (*shp, dim), dt)
    e = _exponential(k2, shp, dt)
    powered = lax.pow(lax.abs(g), _float_param("ball", p, dt, ()))
    radius = lax.pow(lax.add(mnp.sum(powered, axis=-1), e), _reciprocal(p, dt))
    return lax.div(g, lax.expand_dims(radius, (len(shp),)))


# --- the derivative of a sample in ``a`` (JAX's ``random_gamma_grad``) ----------------------
# A sample ``x`` is differentiated implicitly through its CDF, ``P(a, x) = u`` held fixed
# (Figurnov et al., "Implicit reparameterization gradients", 2018):
# ``dx/da = -(dP/da) / (dP/dx)``. ``dP/da`` comes from the power series of the regularized
# incomplete gamma function for ``x <= max(1, a)`` and from its continued fraction otherwise,
# each differentiated term by term, exactly as JAX 0.10.2 (and XLA) evaluate it, so the
# gradients of ``gamma``, ``beta``, ``dirichlet``, ... match JAX's.


def _c(value: float, dtype: np.dtype[Any]) -> AnyArray:
    return np.asarray(value, dtype)


def _series(x: ArrayLike, a: ArrayLike, enabled: ArrayLike) -> Array:
    """``dx/da`` from the series ``P(a, x) = ax / a * sum_n x**n / ((a+1)...(a+n))``."""
    dt = get_aval(a).dtype
    eps = _c(float_info(dt).eps, dt)

    def body(v: tuple[ArrayLike, ...]) -> tuple[Array, ...]:
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


def _continued_fraction(x: ArrayLike, a: ArrayLike, enabled: ArrayLike) -> Array:
    """``dx/da`` from the continued fraction of ``Q(a, x) = 1 - P(a, x)`` (Cephes' igamc)."""
    dt = get_aval(a).dtype
    eps = _c(float_info(dt).eps, dt)
    one = _c(1.0, dt)

    def body(v: tuple[ArrayLike, ...]) -> tuple[Array, ...]:
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


def random_gamma_grad(a: ArrayLike, x: ArrayLike) -> Array:
    """``d x / d a`` for Gamma(``a``) samples ``x`` (same shape and float dtype)."""
    dt = get_aval(a).dtype
    zero = _c(0.0, dt)
    is_nan = lax.bitwise_or(lax.ne(a, a), lax.ne(x, x))
    x_is_zero = lax.eq(x, zero)
    domain_error = lax.bitwise_or(lax.lt(x, zero), lax.le(a, zero))
    use_cf = lax.bitwise_and(lax.gt(x, _c(1.0, dt)), lax.gt(x, a))
    log_ax = lax.sub(lax.sub(lax.mul(a, lax.log(x)), x), lgamma(a))
    underflow = lax.lt(log_ax, _c(-np.log(float_info(dt).max), dt))
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
