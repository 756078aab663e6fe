"""Samplers that are fixed transforms of uniform or normal draws (``mj.random``'s part).

Each follows JAX 0.10.2's formula operation for operation (same key use, same bounds of the
underlying uniform, same order of floating-point operations), so for a given key they give
JAX's samples: exponential, laplace, logistic, cauchy, lognormal, pareto, rayleigh,
weibull_min, wald, maxwell, double_sided_maxwell, triangular and truncated_normal.
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
    _compiled,
    _const,
    _convert,
    _default_int,
    _error,
    _finfo,
    _float_dtype,
    _float_param,
    _params_shape,
    _shape,
)
from mj.random._bits import _normal_real, _uniform
from mj.random._discrete import _rademacher
from mj_autodiff import stop_gradient
from mj_core import lax
from mj_core.extend import Array, ArrayLike, DTypeLike
from mj_core.lax import erf_inv, nextafter
from mj_core.prims.elementwise import to_inexact_dtype

__all__ = [
    "cauchy",
    "double_sided_maxwell",
    "exponential",
    "laplace",
    "logistic",
    "lognormal",
    "maxwell",
    "pareto",
    "rayleigh",
    "triangular",
    "truncated_normal",
    "wald",
    "weibull_min",
]


@_compiled
def exponential(key: ArrayLike, shape: Shape = (), dtype: DTypeLike | None = None) -> Array:
    """Standard exponential samples ``-log(1 - u)`` (default dtype float64)."""
    key = _check_key("exponential", key)
    return _exponential(key, _shape("exponential", shape), _float_dtype("exponential", dtype))


def _exponential(key: ArrayLike, shape: tuple[int, ...], dtype: np.dtype[Any]) -> Array:
    u = _uniform(key, shape, dtype, 0.0, 1.0)
    return lax.neg(lax.log1p(lax.neg(u)))  # 1 - u is in (0, 1], so the log is finite


@_compiled
def laplace(key: ArrayLike, shape: Shape = (), dtype: DTypeLike | None = None) -> Array:
    """Standard Laplace samples (density ``exp(-|x|) / 2``; default dtype float64)."""
    key = _check_key("laplace", key)
    dt = _float_dtype("laplace", dtype)
    lo = _const(-1.0 + float(_finfo(dt).epsneg), dt)
    u = _uniform(key, _shape("laplace", shape), dt, lo, _const(1.0, dt))
    return lax.mul(lax.sign(u), lax.log1p(lax.neg(lax.abs(u))))


@_compiled
def logistic(key: ArrayLike, shape: Shape = (), dtype: DTypeLike | None = None) -> Array:
    """Standard logistic samples ``log(u / (1 - u))`` (default dtype float64)."""
    key = _check_key("logistic", key)
    dt = _float_dtype("logistic", dtype)
    u = _uniform(key, _shape("logistic", shape), dt, _const(_finfo(dt).tiny, dt), 1.0)
    return lax.sub(lax.log(u), lax.log1p(lax.neg(u)))


@_compiled
def cauchy(key: ArrayLike, shape: Shape = (), dtype: DTypeLike | None = None) -> Array:
    """Standard Cauchy samples ``tan(pi (u - 1/2))`` (default dtype float64)."""
    key = _check_key("cauchy", key)
    dt = _float_dtype("cauchy", dtype)
    u = _uniform(key, _shape("cauchy", shape), dt, _const(_finfo(dt).eps, dt), 1.0)
    return lax.tan(lax.mul(_const(np.pi, dt), lax.sub(u, _const(0.5, dt))))


_SIGMA_ONE = np.float32(1)  # JAX's default sigma


@_compiled
def lognormal(
    key: ArrayLike,
    sigma: float | ArrayLike = _SIGMA_ONE,
    shape: Shape | None = None,
    dtype: DTypeLike | None = None,
) -> Array:
    """Log-normal samples ``exp(sigma * normal)`` (shape defaults to ``sigma``'s shape)."""
    key = _check_key("lognormal", key)
    dt = _float_dtype("lognormal", dtype)
    shp = _params_shape("lognormal", shape, sigma)
    _check_castable("lognormal", dt, sigma)
    scaled = lax.mul(_normal_real(key, shp, dt), _float_param("lognormal", sigma, dt, shp))
    return lax.exp(scaled)


@_compiled
def pareto(
    key: ArrayLike, b: float | ArrayLike, shape: Shape | None = None, dtype: DTypeLike | None = None
) -> Array:
    """Pareto samples with shape parameter ``b`` (support ``[1, inf)``): ``exp(E / b)``."""
    key = _check_key("pareto", key)
    dt = _float_dtype("pareto", dtype)
    shp = _params_shape("pareto", shape, b)
    _check_castable("pareto", dt, b)
    e = _exponential(key, shp, dt)
    return lax.exp(lax.div(e, _float_param("pareto", b, dt, shp)))


@_compiled
def rayleigh(
    key: ArrayLike,
    scale: float | ArrayLike,
    shape: Shape | None = None,
    dtype: DTypeLike | None = None,
) -> Array:
    """Rayleigh samples ``scale * sqrt(-2 log u)``."""
    key = _check_key("rayleigh", key)
    dt = _float_dtype("rayleigh", dtype)
    shp = _params_shape("rayleigh", shape, scale)
    _check_castable("rayleigh", dt, scale)
    u = _uniform(key, shp, dt, 0.0, 1.0)
    root = lax.sqrt(lax.mul(lax.log(u), _const(-2.0, dt)))
    return lax.mul(_float_param("rayleigh", scale, dt, shp), root)


@_compiled
def weibull_min(
    key: ArrayLike,
    scale: float | ArrayLike,
    concentration: float | ArrayLike,
    shape: Shape = (),
    dtype: DTypeLike | None = None,
) -> Array:
    """Weibull samples by the inverse CDF: ``scale * (-log(1 - u)) ** (1 / concentration)``.

    Like JAX, ``shape`` is the shape of the uniform draw; the parameters broadcast with it.
    """
    key = _check_key("weibull_min", key)
    dt = _float_dtype("weibull_min", dtype)
    shp = _shape("weibull_min", shape)
    scale_aval = _aval("weibull_min", "scale", scale)
    conc_aval = _aval("weibull_min", "concentration", concentration)
    try:
        out = tuple(np.broadcast_shapes(shp, scale_aval.shape, conc_aval.shape))
    except ValueError:
        msg = f"shape {shp}, scale {scale_aval.shape} and concentration {conc_aval.shape}"
        raise ValueError(_error("weibull_min", f"{msg} do not broadcast")) from None
    u = _uniform(key, shp, dt, 0.0, 1.0)
    # JAX applies the formula with NumPy promotion: a float64 parameter gives a float64 result
    for aval in (scale_aval, conc_aval):
        if not aval.weak_type:
            dt = np.promote_types(dt, to_inexact_dtype(aval.dtype))
    if isinstance(concentration, int | float):
        inv = _const(1.0 / concentration, dt)  # divided in double precision, as JAX does
    else:
        inv = lax.div(_const(1.0, dt), _float_param("weibull_min", concentration, dt, out))
    base = mnp.broadcast_to(_convert(lax.neg(lax.log1p(lax.neg(u))), dt), out)
    return lax.mul(lax.pow(base, inv), _float_param("weibull_min", scale, dt, out))


@_compiled
def wald(
    key: ArrayLike,
    mean: float | ArrayLike,
    shape: Shape | None = None,
    dtype: DTypeLike | None = None,
) -> Array:
    """Wald (inverse Gaussian) samples with the given ``mean`` (Michael-Schucany-Haas)."""
    key = _check_key("wald", key)
    dt = _float_dtype("wald", dtype)
    shp = _params_shape("wald", shape, mean)
    _check_castable("wald", dt, mean)
    k1, k2 = _threefry.unstack_keys(_threefry.split(key, (2,)))
    mu = _float_param("wald", mean, dt, shp)
    v = _normal_real(k1, shp, dt)
    z = _uniform(k2, shp, dt, 0.0, 1.0)
    y = lax.integer_pow(v, 2)
    y_sq = lax.integer_pow(y, 2)
    mu_sq = lax.integer_pow(mu, 2)
    root = lax.sqrt(lax.add(lax.mul(lax.mul(_const(4.0, dt), mu), y), lax.mul(mu_sq, y_sq)))
    half = _const(2.0, dt)
    x = lax.sub(lax.add(mu, lax.div(lax.mul(mu_sq, y), half)), lax.mul(lax.div(mu, half), root))
    return lax.select(lax.le(z, lax.div(mu, lax.add(mu, x))), x, lax.div(mu_sq, x))


@_compiled
def maxwell(key: ArrayLike, shape: Shape = (), dtype: DTypeLike | None = None) -> Array:
    """Maxwell samples: the length of a standard normal 3-vector."""
    key = _check_key("maxwell", key)
    return _maxwell(key, _shape("maxwell", shape), _float_dtype("maxwell", dtype))


def _maxwell(key: ArrayLike, shape: tuple[int, ...], dtype: np.dtype[Any]) -> Array:
    z = _normal_real(key, (*shape, 3), dtype)
    return lax.sqrt(mnp.sum(lax.mul(z, z), axis=-1))


@_compiled
def double_sided_maxwell(
    key: ArrayLike,
    loc: float | ArrayLike,
    scale: float | ArrayLike,
    shape: Shape = (),
    dtype: DTypeLike | None = None,
) -> Array:
    """Double-sided Maxwell samples ``loc + scale * sign * maxwell``.

    As in JAX, the result shape is ``shape + broadcast(loc, scale).shape`` when ``shape`` is
    given, and ``2 * broadcast(loc, scale).shape`` (the parameter shape twice) when it is ``()``.
    """
    key = _check_key("double_sided_maxwell", key)
    dt = _float_dtype("double_sided_maxwell", dtype)
    shp = _shape("double_sided_maxwell", shape)
    params = tuple(
        _aval("double_sided_maxwell", what, p).shape for what, p in (("loc", loc), ("scale", scale))
    )
    try:
        params_shape = tuple(np.broadcast_shapes(*params))
    except ValueError:
        msg = f"loc {params[0]} and scale {params[1]} do not broadcast"
        raise ValueError(_error("double_sided_maxwell", msg)) from None
    out = (shp or params_shape) + params_shape
    maxwell_key, sign_key = _threefry.unstack_keys(_threefry.split(key, (2,)))
    magnitude = _maxwell(maxwell_key, out, dt)
    sign = lax.convert_element_type(_rademacher(sign_key, out, _default_int()), dt)
    scaled = lax.mul(lax.mul(sign, magnitude), _float_param("double_sided_maxwell", scale, dt, out))
    return lax.add(scaled, _float_param("double_sided_maxwell", loc, dt, out))


@_compiled
def triangular(
    key: ArrayLike,
    left: float | ArrayLike,
    mode: float | ArrayLike,
    right: float | ArrayLike,
    shape: Shape | None = None,
    dtype: DTypeLike | None = None,
) -> Array:
    """Triangular samples on ``[left, right]`` with peak at ``mode``, by the inverse CDF."""
    key = _check_key("triangular", key)
    dt = _float_dtype("triangular", dtype)
    shp = _params_shape("triangular", shape, left, mode, right)
    _check_castable("triangular", dt, left, mode, right)
    lo = _float_param("triangular", left, dt, shp)
    hi = _float_param("triangular", right, dt, shp)
    peak = _float_param("triangular", mode, dt, shp)
    width = lax.sub(hi, lo)
    fc = lax.div(lax.sub(peak, lo), width)
    u = _uniform(key, shp, dt, 0.0, 1.0)
    out1 = lax.add(lo, lax.sqrt(lax.mul(lax.mul(u, width), lax.sub(peak, lo))))
    rest = lax.mul(lax.mul(lax.sub(_const(1.0, dt), u), width), lax.sub(hi, peak))
    out2 = lax.sub(hi, lax.sqrt(rest))
    return lax.select(lax.lt(u, fc), out1, out2)


@_compiled
def truncated_normal(
    key: ArrayLike,
    lower: float | ArrayLike,
    upper: float | ArrayLike,
    shape: Shape | None = None,
    dtype: DTypeLike | None = None,
) -> Array:
    """Standard normal samples conditioned on ``lower < x < upper`` (inverse CDF; the result
    is clamped into the open interval against rounding)."""
    key = _check_key("truncated_normal", key)
    dt = _float_dtype("truncated_normal", dtype)
    shp = _params_shape("truncated_normal", shape, lower, upper)
    sqrt2 = _const(np.sqrt(2), dt)
    lo = _convert(lower, dt)
    hi = _convert(upper, dt)
    a = lax.erf(lax.div(lo, sqrt2))
    b = lax.erf(lax.div(hi, sqrt2))
    u = _uniform(key, shp, dt, a, b)
    out = lax.mul(sqrt2, erf_inv(u))
    floor = nextafter(stop_gradient(lo), _const(np.inf, dt))
    ceiling = nextafter(stop_gradient(hi), _const(-np.inf, dt))
    return mnp.clip(out, floor, ceiling)
