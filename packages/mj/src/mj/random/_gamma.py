"""The gamma sampler and the distributions built on it (``mj.random``'s part).

``gamma`` is JAX 0.10.2's Marsaglia-Tsang rejection sampler: the key is split into one key per
element, and each element runs its own ``while_loop`` (vectorized with ``vmap``) with JAX's key
splitting, so a sample depends only on its key and ``a``, exactly as in JAX. ``loggamma``,
``beta``, ``dirichlet``, ``chisquare``, ``f``, ``t``, ``generalized_normal`` and ``ball`` follow
JAX's compositions. Samples are differentiable in the parameters as in JAX: the derivative of
a gamma sample in ``a`` is the implicit reparameterization one (``_random_gamma_grad``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import mj.numpy as mnp
from mj import _prng
from mj._random_base import (
    Array,
    Shape,
    _aval,
    _check_key,
    _check_param_shapes,
    _error,
    _float_dtype,
    _normal_real,
    _operator_index,
    _shape,
    _uniform,
)
from mj._random_gamma_grad import random_gamma_grad
from mj._random_transforms import (
    _check_castable,
    _const,
    _exponential,
    _float_param,
    _params_shape,
    _rademacher,
)
from mj_autodiff import custom_jvp
from mj_batch import vmap
from mj_control import while_loop
from mj_core import lax
from mj_core.avals import get_aval

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


def _split2(key: Array) -> tuple[Array, Array]:
    k1, k2 = _prng.unstack_keys(_prng.split(key, (2,)))
    return k1, k2


def _gamma_one(key: Array, alpha: Array, log_space: bool) -> Array:
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

    def rejected(state: tuple[Array, Array, Array, Array]) -> Array:
        _, x_sq, v, u = state
        squeeze = lax.ge(u, lax.sub(one, lax.mul(_const(0.0331, dtype), lax.mul(x_sq, x_sq))))
        bound = lax.add(
            lax.mul(x_sq, _const(0.5, dtype)), lax.mul(d, lax.add(lax.sub(one, v), lax.log(v)))
        )
        return lax.bitwise_and(squeeze, lax.ge(lax.log(u), bound))

    def next_candidate(state: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
        k, subkey = _split2(state[0])
        x = _normal_real(subkey, (), dtype)
        return k, x, lax.add(one, lax.mul(x, c))

    def propose(state: tuple[Array, Array, Array, Array]) -> tuple[Array, Array, Array, Array]:
        k, x_key, u_key = _prng.unstack_keys(_prng.split(state[0], (3,)))
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
    key: Array, a: Any, shape: tuple[int, ...], dtype: np.dtype[Any], log_space: bool
) -> Array:
    """``a`` broadcast to ``shape``; element ``i`` (row-major) uses ``split(key, size)[i]``."""
    a = _float_param("gamma", a, dtype, shape)
    return _SAMPLERS[log_space](key, a)


def _sample(key: Array, a: Array, log_space: bool) -> Array:
    shape = tuple(get_aval(a).shape)
    size = int(np.prod(shape))
    if size == 0:
        return mnp.zeros(shape, get_aval(a).dtype)
    keys = _prng.split(key, (size,))
    samples = vmap(lambda k, x: _gamma_one(k, x, log_space))(keys, lax.reshape(a, (size,)))
    return lax.reshape(samples, shape)


def _differentiable_sampler(log_space: bool) -> custom_jvp:
    """The sampler with JAX's implicit reparameterization derivative in ``a`` (the loop itself
    is not differentiable): ``d sample / d a`` from :func:`random_gamma_grad`."""
    sampler = custom_jvp(lambda key, a: _sample(key, a, log_space))

    def jvp(primals: tuple[Array, Array], tangents: tuple[Array, Array]) -> tuple[Array, Array]:
        key, a = primals
        out = sampler(key, a)
        if log_space:  # d log(x) = dx / x, with x = 0 (underflow) replaced by the tiniest float
            x = lax.exp(out)
            tiny = mnp.full_like(x, np.finfo(get_aval(x).dtype).tiny)
            x = lax.select(lax.eq(x, mnp.zeros_like(x)), tiny, x)
            grad = lax.div(random_gamma_grad(a, x), x)
        else:
            grad = random_gamma_grad(a, out)
        return out, lax.mul(tangents[1], grad)

    sampler.defjvp(jvp)
    return sampler


_SAMPLERS = {False: _differentiable_sampler(False), True: _differentiable_sampler(True)}


def gamma(key: Array, a: float | Array, shape: Shape | None = None, dtype: Any = None) -> Array:
    """Standard Gamma(``a``) samples (unit rate; shape defaults to ``a``'s shape)."""
    _check_key("gamma", key)
    dt = _float_dtype("gamma", dtype)
    return _gamma(key, a, _params_shape("gamma", shape, a), dt, log_space=False)


def loggamma(key: Array, a: float | Array, shape: Shape | None = None, dtype: Any = None) -> Array:
    """``log`` of Gamma(``a``) samples, computed in log space so that tiny ``a`` (whose samples
    underflow to 0) keep their precision: ``exp(loggamma(k, a))`` is ``gamma(k, a)``."""
    _check_key("loggamma", key)
    dt = _float_dtype("loggamma", dtype)
    return _gamma(key, a, _params_shape("loggamma", shape, a), dt, log_space=True)


def beta(
    key: Array, a: float | Array, b: float | Array, shape: Shape | None = None, dtype: Any = None
) -> Array:
    """Beta(``a``, ``b``) samples, ``Ga / (Ga + Gb)`` from two log-gamma draws."""
    _check_key("beta", key)
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


def dirichlet(key: Array, alpha: Array, shape: Shape | None = None, dtype: Any = None) -> Array:
    """Dirichlet(``alpha``) samples over ``alpha``'s last axis (normalized log-gamma draws);
    the result shape is ``shape + alpha.shape[-1:]``."""
    _check_key("dirichlet", key)
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


def _chisquare(key: Array, df: Any, shape: tuple[int, ...], dtype: np.dtype[Any]) -> Array:
    two = _const(2.0, dtype)
    half_df = lax.div(_float_param("chisquare", df, dtype, shape), two)
    return lax.mul(lax.exp(_gamma(key, half_df, shape, dtype, log_space=True)), two)


def chisquare(
    key: Array, df: float | Array, shape: Shape | None = None, dtype: Any = None
) -> Array:
    """Chi-square samples with ``df`` degrees of freedom: ``2 * Gamma(df / 2)``."""
    _check_key("chisquare", key)
    dt = _float_dtype("chisquare", dtype)
    shp = _params_shape("chisquare", shape, df)
    _check_castable("chisquare", dt, df)
    return _chisquare(key, df, shp, dt)


def f(
    key: Array,
    dfnum: float | Array,
    dfden: float | Array,
    shape: Shape | None = None,
    dtype: Any = None,
) -> Array:
    """F-distribution samples: the ratio of two scaled chi-square draws."""
    _check_key("f", key)
    dt = _float_dtype("f", dtype)
    shp = _params_shape("f", shape, dfnum, dfden)
    _check_castable("f", dt, dfnum, dfden)
    key_den, key_num = _split2(key)
    num = lax.div(_chisquare(key_num, dfnum, shp, dt), _float_param("f", dfnum, dt, shp))
    den = lax.div(_chisquare(key_den, dfden, shp, dt), _float_param("f", dfden, dt, shp))
    return lax.div(num, den)


def t(key: Array, df: float | Array, shape: Shape | None = None, dtype: Any = None) -> Array:
    """Student's t samples with ``df`` degrees of freedom: ``N * sqrt(df / 2 / Gamma(df / 2))``."""
    _check_key("t", key)
    dt = _float_dtype("t", dtype)
    shp = _params_shape("t", shape, df)
    _check_castable("t", dt, df)
    key_n, key_g = _split2(key)
    n = _normal_real(key_n, shp, dt)
    half_df = lax.div(_float_param("t", df, dt, shp), _const(2.0, dt))
    g = _gamma(key_g, half_df, shp, dt, log_space=False)
    return lax.mul(n, lax.sqrt(lax.div(half_df, g)))


def _generalized_normal(key: Array, p: Any, shape: tuple[int, ...], dtype: np.dtype[Any]) -> Array:
    key_g, key_r = _split2(key)
    inv_p = _reciprocal(p, dtype)
    g = _gamma(key_g, inv_p, shape, dtype, log_space=False)
    r = _rademacher(key_r, shape, dtype)
    return lax.mul(r, lax.pow(g, inv_p))


def _reciprocal(p: Any, dtype: np.dtype[Any]) -> Array:
    """``1 / p`` in the sample dtype (a Python ``p`` divides in double precision, as JAX)."""
    if isinstance(p, int | float):
        return np.asarray(1 / p, dtype)
    return lax.div(_const(1.0, dtype), _float_param("generalized_normal", p, dtype, ()))


def _check_scalar_p(api: str, p: Any) -> None:
    if _aval(api, "p", p).shape:
        raise ValueError(_error(api, f"p must be a scalar, got shape {get_aval(p).shape}"))


def generalized_normal(key: Array, p: float, shape: Shape = (), dtype: Any = None) -> Array:
    """Generalized normal samples (density ``∝ exp(-|x|**p)``): ``p = 2`` is a normal with
    variance 1/2, ``p = 1`` a Laplace."""
    _check_key("generalized_normal", key)
    dt = _float_dtype("generalized_normal", dtype)
    _check_scalar_p("generalized_normal", p)
    return _generalized_normal(key, p, _shape("generalized_normal", shape), dt)


def ball(key: Array, d: int, p: float = 2, shape: Shape = (), dtype: Any = None) -> Array:
    """Points uniform in the unit ``p``-norm ball of dimension ``d`` (result
    ``shape + (d,)``), from generalized normals and an exponential draw."""
    _check_key("ball", key)
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
