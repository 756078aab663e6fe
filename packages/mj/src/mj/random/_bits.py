"""The base samplers of ``mj.random``: raw random ``bits``, and the ``uniform``, ``normal`` and
``gumbel`` floats made from them.

Every other sampler draws through the private ``_uniform`` (JAX's mantissa trick: random bits
under the exponent of 1.0), ``_normal_real`` or ``_gumbel`` here, so it consumes the key
exactly as JAX does. ``normal`` needs ``erf_inv``, the core primitive that evaluates the same
piecewise polynomials as XLA's ``ErfInv``, so it reproduces ``jax.random.normal`` sample for
sample.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mj.random import _threefry
from mj.random._args import (
    Shape,
    _aval,
    _check_key,
    _check_param_shapes,
    _compiled,
    _convert,
    _default_float,
    _error,
    _finfo,
    _float_dtype,
    _shape,
)
from mj_core import lax
from mj_core.dtypes import canonical_dtype, is_float
from mj_core.extend import Array, ArrayLike, DTypeLike
from mj_core.lax import erf_inv

__all__ = ["bits", "gumbel", "normal", "uniform"]


def bits(key: ArrayLike, shape: Shape = (), dtype: DTypeLike | None = None) -> Array:
    """Uniformly random unsigned integers (default ``uint64``) of the given shape."""
    key = _check_key("bits", key)
    dt = canonical_dtype(np.uint64) if dtype is None else canonical_dtype(dtype)
    if dt.kind != "u":
        raise ValueError(
            _error("bits", f"dtype argument to `bits` must be an unsigned int dtype, got {dt.name}")
        )
    return _threefry.random_bits(key, dt.itemsize * 8, _shape("bits", shape))


def _uniform(
    key: ArrayLike, shape: tuple[int, ...], dtype: np.dtype[Any], lo: Any, hi: Any
) -> Array:
    finfo = _finfo(dtype)
    nbits, nmant = finfo.bits, finfo.nmant
    rng_bits = max(nbits, 8) if nmant >= 8 else 8
    uint = np.dtype(f"uint{nbits}")
    raw = _threefry.random_bits(key, rng_bits, shape)
    if rng_bits != nbits:
        raw = lax.convert_element_type(raw, uint)
    # Random mantissa under the exponent of 1.0 gives a float in [1, 2); shift to [0, 1).
    mantissa = lax.shift_right_logical(raw, np.asarray(rng_bits - nmant, uint))
    one_bits = np.asarray(1.0, dtype).view(uint)
    floats = lax.sub(
        lax.bitcast_convert_type(lax.bitwise_or(mantissa, one_bits), dtype),
        np.asarray(1.0, dtype),
    )
    lo = _convert(lo, dtype)
    hi = _convert(hi, dtype)
    return lax.max(lo, lax.add(lax.mul(floats, lax.sub(hi, lo)), lo))


@_compiled
def uniform(
    key: ArrayLike,
    shape: Shape = (),
    dtype: DTypeLike | None = None,
    minval: float | ArrayLike = 0.0,
    maxval: float | ArrayLike = 1.0,
) -> Array:
    """Uniform floats in ``[minval, maxval)`` (default dtype float64).

    Arguments:
        key: a PRNG key.
        shape: the result shape; ``minval``/``maxval`` must broadcast to it.
        dtype: a floating-point dtype.
        minval: the lower bound (inclusive), a scalar or an array.
        maxval: the upper bound (exclusive), a scalar or an array.
    """
    key = _check_key("uniform", key)
    dt = _float_dtype("uniform", dtype)
    shp = _shape("uniform", shape)
    lo = _aval("uniform", "minval", minval)
    hi = _aval("uniform", "maxval", maxval)
    _check_param_shapes("uniform", shp, lo.shape, hi.shape)
    return _uniform(key, shp, dt, minval, maxval)


@_compiled
def normal(key: ArrayLike, shape: Shape = (), dtype: DTypeLike | None = None) -> Array:
    """Standard normal samples (default dtype float64; complex dtypes give circular samples
    with unit variance)."""
    key = _check_key("normal", key)
    shp = _shape("normal", shape)
    dt = _default_float() if dtype is None else canonical_dtype(dtype)
    if dt.kind == "c":
        real = np.dtype(f"float{dt.itemsize * 4}")
        k_re, k_im = _threefry.unstack_keys(_threefry.split(key, (2,)))
        re = lax.convert_element_type(_normal_real(k_re, shp, real), dt)
        im = lax.convert_element_type(_normal_real(k_im, shp, real), dt)
        return lax.div(lax.add(re, lax.mul(im, np.asarray(1j, dt))), np.asarray(np.sqrt(2), dt))
    if not is_float(dt):
        raise ValueError(_error("normal", f"dtype must be a float or complex dtype, got {dt}"))
    return _normal_real(key, shp, dt)


def _normal_real(key: ArrayLike, shape: tuple[int, ...], dtype: np.dtype[Any]) -> Array:
    lo = np.nextafter(np.asarray(-1.0, dtype), np.asarray(0.0, dtype))
    u = _uniform(key, shape, dtype, lo, np.asarray(1.0, dtype))
    return lax.mul(np.asarray(np.sqrt(2), dtype), erf_inv(u))


@_compiled
def gumbel(key: ArrayLike, shape: Shape = (), dtype: DTypeLike | None = None) -> Array:
    """Standard Gumbel samples ``-log(-log(u))`` (default dtype float64)."""
    key = _check_key("gumbel", key)
    return _gumbel(key, _shape("gumbel", shape), _float_dtype("gumbel", dtype))


def _gumbel(key: ArrayLike, shape: tuple[int, ...], dtype: np.dtype[Any]) -> Array:
    tiny = np.asarray(_finfo(dtype).tiny, dtype)
    u = _uniform(key, shape, dtype, tiny, np.asarray(1.0, dtype))
    return lax.neg(lax.log(lax.neg(lax.log(u))))
