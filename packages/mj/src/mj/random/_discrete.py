"""Discrete samplers of ``mj.random`` read directly off uniform draws or random bits:
``bernoulli``, ``categorical`` (the Gumbel-max trick), ``randint``, ``permutation``,
``rademacher`` and ``geometric``, each with JAX 0.10.2's key use and arithmetic. The
count-valued rejection samplers are in :mod:`mj.random._counts`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

import mj.numpy as mnp
from mj.random import _threefry
from mj.random._args import (
    Shape,
    _aval,
    _check_key,
    _check_param_shapes,
    _const,
    _convert,
    _default_float,
    _default_int,
    _error,
    _operator_index,
    _params_shape,
    _shape,
)
from mj.random._bits import _gumbel, _uniform
from mj_core import get_aval, lax
from mj_core.dtypes import canonical_dtype, is_integer
from mj_core.extend import AnyArray, Array, ArrayLike, DTypeLike
from mj_core.prims.elementwise import to_inexact_dtype

__all__ = [
    "bernoulli",
    "categorical",
    "geometric",
    "permutation",
    "rademacher",
    "randint",
]


def bernoulli(key: ArrayLike, p: float | ArrayLike = 0.5, shape: Shape | None = None) -> Array:
    """Booleans that are True with probability ``p`` (shape defaults to ``p``'s shape)."""
    key = _check_key("bernoulli", key)
    p_aval = _aval("bernoulli", "p", p)
    if p_aval.dtype.kind != "f":
        raise TypeError(
            _error("bernoulli", f"p must have a floating-point dtype, got {p_aval.dtype.name}")
        )
    if shape is None:
        shp = p_aval.shape
    else:
        shp = _shape("bernoulli", shape)
        _check_param_shapes("bernoulli", shp, p_aval.shape)
    u = _uniform(key, shp, p_aval.dtype, 0.0, 1.0)
    return lax.lt(u, p)


def categorical(
    key: ArrayLike, logits: ArrayLike, axis: int = -1, shape: Shape | None = None
) -> Array:
    """Sample category indices from ``softmax(logits, axis)`` with the Gumbel-max trick.

    The result has ``logits``' shape without ``axis`` (or ``shape``, which must end with it).
    """
    key = _check_key("categorical", key)
    aval = _aval("categorical", "logits", logits)
    ndim = len(aval.shape)
    if not -ndim <= axis < ndim:
        raise ValueError(_error("categorical", f"axis {axis} is out of range for {aval.shape}"))
    axis = axis % ndim
    batch_shape = aval.shape[:axis] + aval.shape[axis + 1 :]
    shp = batch_shape if shape is None else _shape("categorical", shape)
    _check_param_shapes("categorical", shp, batch_shape)
    dtype = to_inexact_dtype(aval.dtype)
    logits = _convert(logits, dtype)
    prefix = shp[: len(shp) - len(batch_shape)]
    sample_shape = (*prefix, *aval.shape)
    noise = _gumbel(key, sample_shape, dtype)
    if prefix:
        dims = tuple(range(len(prefix), len(sample_shape)))
        logits = lax.broadcast_in_dim(logits, sample_shape, dims)
    return lax.argmax(lax.add(noise, logits), len(prefix) + axis, _default_int())


def randint(
    key: ArrayLike,
    shape: Shape,
    minval: int | ArrayLike,
    maxval: int | ArrayLike,
    dtype: DTypeLike | None = None,
) -> Array:
    """Uniform integers in ``[minval, maxval)`` (default dtype int64).

    Like JAX, draws twice the dtype's bits and reduces them modulo the range, so the bias for
    ranges that are not powers of two is negligible.
    """
    key = _check_key("randint", key)
    dt = _default_int() if dtype is None else canonical_dtype(dtype)
    if not is_integer(dt):
        raise TypeError(_error("randint", f"dtype must be an integer dtype, got {dt.name}"))
    shp = _shape("randint", shape)
    lo_aval = _aval("randint", "minval", minval)
    hi_aval = _aval("randint", "maxval", maxval)
    _check_param_shapes("randint", shp, lo_aval.shape, hi_aval.shape)
    if dt.itemsize < 4:  # sample in 32 bits to keep the bias small, then narrow
        info = np.iinfo(dt)
        i32 = np.dtype(np.int32)
        lo = lax.clamp(int(info.min), _to_int(minval, i32), int(info.max))
        hi = lax.clamp(int(info.min), _to_int(maxval, i32), int(info.max) + 1)
        return lax.convert_element_type(_randint(key, shp, lo, hi, i32), dt)
    return _randint(key, shp, _to_int(minval, None), _to_int(maxval, None), dt)


def _to_int(x: AnyArray, dtype: np.dtype[Any] | None) -> AnyArray:
    """``x`` as a strong integer array (floats are truncated, Python ints become int64)."""
    aval = get_aval(x)
    target = dtype or (aval.dtype if is_integer(aval.dtype) else _default_int())
    if isinstance(x, int):
        return np.asarray(x, target)
    return _convert(x, target)


def _clip_to(x: AnyArray, dtype: np.dtype[Any]) -> AnyArray:
    """Convert integer ``x`` to ``dtype``, saturating instead of wrapping."""
    src = np.iinfo(get_aval(x).dtype)
    dst = np.iinfo(dtype)
    lo = np.asarray(max(src.min, dst.min), get_aval(x).dtype)
    hi = np.asarray(min(src.max, dst.max), get_aval(x).dtype)
    return _convert(lax.clamp(lo, x, hi), dtype)


def _randint(
    key: ArrayLike,
    shape: tuple[int, ...],
    minval: ArrayLike,
    maxval: ArrayLike,
    dtype: np.dtype[Any],
) -> Array:
    dtype_max = _clip_to(np.asarray(np.iinfo(dtype).max, dtype), get_aval(maxval).dtype)
    maxval_out_of_range = lax.gt(maxval, dtype_max)
    minval = _clip_to(minval, dtype)
    maxval = _clip_to(maxval, dtype)
    nbits = dtype.itemsize * 8
    k1, k2 = _threefry.unstack_keys(_threefry.split(key, (2,)))
    higher = _threefry.random_bits(k1, nbits, shape)
    lower = _threefry.random_bits(k2, nbits, shape)
    unsigned = np.dtype(f"uint{nbits}")
    span = lax.convert_element_type(lax.sub(maxval, minval), unsigned)
    one = np.asarray(1, unsigned)
    # span = 1 when maxval <= minval (always return minval); one more when maxval overflows.
    span = lax.select(lax.le(maxval, minval), one, span)
    span = lax.select(
        lax.bitwise_and(maxval_out_of_range, lax.gt(maxval, minval)), lax.add(span, one), span
    )
    # (hi * 2**nbits + lo) mod span, without overflow: 2**nbits mod span from its square root.
    multiplier = lax.rem(np.asarray(2 ** (nbits // 2), unsigned), span)
    multiplier = lax.rem(lax.mul(multiplier, multiplier), span)
    offset = lax.add(lax.mul(lax.rem(higher, span), multiplier), lax.rem(lower, span))
    offset = lax.rem(offset, span)
    return lax.add(minval, lax.convert_element_type(offset, dtype))


def permutation(
    key: AnyArray, x: int | AnyArray, axis: int = 0, independent: bool = False
) -> AnyArray:
    """A random permutation of ``range(x)`` (for an int ``x``) or of ``x`` along ``axis``.

    With ``independent=True`` every slice along ``axis`` is shuffled on its own.
    """
    return _permutation(_check_key("permutation", key), x, axis, independent)


def _permutation(key: AnyArray, x: int | AnyArray, axis: int, independent: bool) -> AnyArray:
    aval = _aval("permutation", "x", x)
    if not aval.shape:
        if not is_integer(aval.dtype):
            raise TypeError(_error("permutation", "x must be an integer or an array"))
        n = _operator_index(x)
        return _shuffle(key, lax.iota(_default_int(), n), 0)
    ndim = len(aval.shape)
    if not -ndim <= axis < ndim:
        raise ValueError(_error("permutation", f"axis {axis} is out of range for {aval.shape}"))
    axis = axis % ndim
    if independent or ndim == 1:
        return _shuffle(key, x, axis)
    order = _shuffle(key, lax.iota(_default_int(), aval.shape[axis]), 0)
    return _take_along(x, order, axis)


def _take_along(x: ArrayLike, order: ArrayLike, axis: int) -> Array:
    """``x`` with its slices along ``axis`` reordered by the index vector ``order``: sort the
    (stable, unique) positions of ``order`` and carry ``x`` along."""
    shape = get_aval(x).shape
    inverse = lax.sort((order, lax.iota(_default_int(), shape[axis])), num_keys=1)[1]
    keys = lax.broadcast_in_dim(inverse, shape, (axis,))
    return lax.sort((keys, x), dimension=axis, num_keys=1)[1]


def _shuffle(key: AnyArray, x: AnyArray, axis: int) -> AnyArray:
    """Sort by fresh random 32-bit keys, repeated often enough that key collisions (which
    would bias a single round) become negligible: the scheme JAX and TensorFlow use."""
    size = get_aval(x).size
    rounds = math.ceil(3 * math.log(max(1, size)) / math.log(np.iinfo(np.uint32).max))
    for _ in range(rounds):
        key, subkey = _threefry.unstack_keys(_threefry.split(key, (2,)))
        sort_keys = _threefry.random_bits(subkey, 32, get_aval(x).shape)
        x = lax.sort((sort_keys, x), dimension=axis, num_keys=1)[1]
    return x


def rademacher(key: ArrayLike, shape: Shape = (), dtype: DTypeLike | None = None) -> Array:
    """Random signs: -1 or +1 with equal probability (default dtype int64)."""
    key = _check_key("rademacher", key)
    dt = _default_int() if dtype is None else canonical_dtype(dtype)
    if not (is_integer(dt) or dt.kind in "fc"):
        raise TypeError(_error("rademacher", f"dtype must be numeric, got {dt.name}"))
    return _rademacher(key, _shape("rademacher", shape), dt)


def _rademacher(key: ArrayLike, shape: tuple[int, ...], dtype: np.dtype[Any]) -> Array:
    # JAX: bernoulli(key, 0.5) with a float64 p (64-bit mode), as 2 * b - 1.
    heads = lax.lt(_uniform(key, shape, _default_float(), 0.0, 1.0), _const(0.5, _default_float()))
    b = lax.convert_element_type(heads, dtype)
    return lax.sub(lax.mul(_const(2, dtype), b), _const(1, dtype))


def geometric(
    key: ArrayLike, p: float | ArrayLike, shape: Shape | None = None, dtype: DTypeLike | None = None
) -> Array:
    """Geometric samples: the number of Bernoulli(``p``) trials up to the first success
    (support ``1, 2, ...``; default dtype int64)."""
    key = _check_key("geometric", key)
    dt = _default_int() if dtype is None else canonical_dtype(dtype)
    if not is_integer(dt):
        raise ValueError(_error("geometric", f"dtype must be an integer dtype, got {dt.name}"))
    shp = _params_shape("geometric", shape, p)
    p_dtype = to_inexact_dtype(get_aval(p).dtype)
    u = _uniform(key, shp, p_dtype, 0.0, 1.0)
    one = _const(1.0, p_dtype)
    u = lax.select(lax.eq(u, _const(0.0, p_dtype)), lax.full_like(u, one), u)
    log_q = lax.log1p(lax.neg(_convert(p, p_dtype)))
    log_q = mnp.broadcast_to(log_q, shp)
    g = lax.add(lax.floor(lax.div(lax.log(u), log_q)), one)
    return lax.convert_element_type(g, dt)
