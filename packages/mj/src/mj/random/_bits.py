"""The core of ``mj.random``: argument checks, keys, raw bits and the basic samplers.

``mj.random`` re-exports the public names; the other sampler modules build on the private
helpers here (``_uniform``, ``_normal_real``, the argument checks), which is why they live in a
module of their own rather than in ``mj.random`` itself.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from mj import _prng
from mj._special import erf_inv
from mj_core import lax
from mj_core.avals import ShapedArray, get_aval, is_array
from mj_core.dtypes import is_integer
from mj_core.errors import user_location
from mj_core.prims.elementwise import to_inexact_dtype

Array = Any
Shape = Sequence[int]

_F64 = np.dtype(np.float64)
_I64 = np.dtype(np.int64)


def _error(api: str, message: str) -> str:
    where = user_location()
    return f"mj.random.{api}: {message}{' (' + where + ')' if where else ''}"


def _aval(api: str, what: str, x: Any) -> ShapedArray:
    if not is_array(x):
        raise TypeError(_error(api, f"{what} must be an array or scalar, got {type(x).__name__}"))
    return get_aval(x)


def _check_key(api: str, key: Any) -> Array:
    aval = _aval(api, "the key", key)
    if aval.shape != (2,) or aval.dtype != np.uint32:
        hint = " Use mj.vmap to apply it to a batch of keys." if aval.shape[-1:] == (2,) else ""
        raise TypeError(
            _error(
                api,
                "expected a single PRNG key (uint32[2], from PRNGKey, key, split or fold_in), "
                f"got {aval.str_short()}.{hint}",
            )
        )
    return key


def _shape(api: str, shape: Shape | int) -> tuple[int, ...]:
    dims = (shape,) if isinstance(shape, int | np.integer) else tuple(shape)
    try:
        out = tuple(_operator_index(d) for d in dims)
    except TypeError as err:
        raise TypeError(_error(api, f"shape must be a tuple of ints, got {shape!r}")) from err
    if any(d < 0 for d in out):
        raise ValueError(_error(api, f"shape must be non-negative, got {out}"))
    return out


def _operator_index(d: Any) -> int:
    """``d.__index__()``: a concrete integer (a traced one raises ConcretizationError)."""
    return int(d.__index__())


def _check_param_shapes(api: str, shape: tuple[int, ...], *param_shapes: tuple[int, ...]) -> None:
    try:
        broadcast = np.broadcast_shapes(shape, *param_shapes)
    except ValueError:
        broadcast = None
    if broadcast != shape:
        shown = ", ".join(str(s) for s in param_shapes)
        raise ValueError(
            _error(
                api,
                f"parameter shapes ({shown}) must broadcast to the requested shape {shape}",
            )
        )


def _float_dtype(api: str, dtype: Any) -> np.dtype[Any]:
    dt = _F64 if dtype is None else np.dtype(dtype)
    if dt.kind != "f":
        raise ValueError(_error(api, f"dtype must be a floating-point dtype, got {dt.name}"))
    return dt


def _convert(x: Array, dtype: np.dtype[Any]) -> Array:
    if isinstance(x, int | float | np.ndarray | np.generic):
        return np.asarray(x, dtype)  # a constant: convert now, not in the jaxpr
    aval = get_aval(x)
    if aval.dtype == dtype and not aval.weak_type:
        return x
    return lax.convert_element_type(x, dtype)


# --- keys -------------------------------------------------------------------------------------


def PRNGKey(seed: int | Array) -> Array:  # noqa: N802  (JAX's name)
    """A key from an integer seed: ``uint32[2]`` holding the seed's high and low 32 bits.

    Arguments:
        seed: a Python int or an integer scalar array (may be traced).

    Returns:
        The key, e.g. ``PRNGKey(0)`` is ``[0, 0]`` and ``PRNGKey(2**32 + 5)`` is ``[1, 5]``.
    """
    if isinstance(seed, bool):
        raise TypeError(_error("PRNGKey", "the seed must be an integer, got bool"))
    if isinstance(seed, int):
        if not -(2**63) <= seed < 2**64:
            raise OverflowError(_error("PRNGKey", f"seed {seed} does not fit in 64 bits"))
        seed = np.int64(seed) if seed < 2**63 else np.uint64(seed)
    _aval("PRNGKey", "the seed", seed)
    try:
        return _prng.seed(seed)
    except TypeError as err:
        raise TypeError(_error("PRNGKey", str(err).removeprefix("PRNGKey: "))) from None


key = PRNGKey


def key_data(keys: Array) -> Array:
    """The raw ``uint32`` data of keys; mj's keys are already raw data, so this is identity."""
    return keys


def split(key: Array, num: int | Shape = 2) -> Array:
    """Split a key into ``num`` new independent keys (shape ``(num, 2)``; a tuple ``num``
    gives shape ``num + (2,)``). Unpack them: ``key, subkey = split(key)``."""
    _check_key("split", key)
    return _prng.split(key, _shape("split", num))


def fold_in(key: Array, data: int | Array) -> Array:
    """A new key derived from ``key`` and the integer ``data`` (taken modulo 2**32), e.g. a
    step number or a device index: ``fold_in(key, i)`` gives a different key for every ``i``."""
    _check_key("fold_in", key)
    aval = _aval("fold_in", "data", data)
    if aval.shape:
        raise TypeError(
            _error("fold_in", f"data must be a scalar, got shape {aval.shape}; use mj.vmap")
        )
    if not (is_integer(aval.dtype) or aval.dtype == np.bool_):
        raise TypeError(_error("fold_in", f"data must be an integer, got {aval.dtype.name}"))
    if isinstance(data, int):
        data = np.uint32(data % 2**32)
    return _prng.fold_in(key, data)


# --- bits and uniform floats ------------------------------------------------------------------


def bits(key: Array, shape: Shape = (), dtype: Any = None) -> Array:
    """Uniformly random unsigned integers (default ``uint64``) of the given shape."""
    _check_key("bits", key)
    dt = np.dtype(np.uint64) if dtype is None else np.dtype(dtype)
    if dt.kind != "u":
        raise ValueError(_error("bits", f"dtype must be an unsigned integer dtype, got {dt.name}"))
    return _prng.random_bits(key, dt.itemsize * 8, _shape("bits", shape))


def _uniform(key: Array, shape: tuple[int, ...], dtype: np.dtype[Any], lo: Any, hi: Any) -> Array:
    finfo = np.finfo(dtype)
    nbits, nmant = finfo.bits, finfo.nmant
    rng_bits = max(nbits, 8) if nmant >= 8 else 8
    uint = np.dtype(f"uint{nbits}")
    raw = _prng.random_bits(key, rng_bits, shape)
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


def uniform(
    key: Array,
    shape: Shape = (),
    dtype: Any = None,
    minval: float | Array = 0.0,
    maxval: float | Array = 1.0,
) -> Array:
    """Uniform floats in ``[minval, maxval)`` (default dtype float64).

    Arguments:
        key: a PRNG key.
        shape: the result shape; ``minval``/``maxval`` must broadcast to it.
        dtype: a floating-point dtype.
        minval: the lower bound (inclusive), a scalar or an array.
        maxval: the upper bound (exclusive), a scalar or an array.
    """
    _check_key("uniform", key)
    dt = _float_dtype("uniform", dtype)
    shp = _shape("uniform", shape)
    lo = _aval("uniform", "minval", minval)
    hi = _aval("uniform", "maxval", maxval)
    _check_param_shapes("uniform", shp, lo.shape, hi.shape)
    return _uniform(key, shp, dt, minval, maxval)


def normal(key: Array, shape: Shape = (), dtype: Any = None) -> Array:
    """Standard normal samples (default dtype float64; complex dtypes give circular samples
    with unit variance)."""
    _check_key("normal", key)
    shp = _shape("normal", shape)
    dt = _F64 if dtype is None else np.dtype(dtype)
    if dt.kind == "c":
        real = np.dtype(f"float{dt.itemsize * 4}")
        k_re, k_im = _prng.unstack_keys(_prng.split(key, (2,)))
        re = lax.convert_element_type(_normal_real(k_re, shp, real), dt)
        im = lax.convert_element_type(_normal_real(k_im, shp, real), dt)
        return lax.div(lax.add(re, lax.mul(im, np.asarray(1j, dt))), np.asarray(np.sqrt(2), dt))
    if dt.kind != "f":
        raise ValueError(_error("normal", f"dtype must be a float or complex dtype, got {dt}"))
    return _normal_real(key, shp, dt)


def _normal_real(key: Array, shape: tuple[int, ...], dtype: np.dtype[Any]) -> Array:
    lo = np.nextafter(np.asarray(-1.0, dtype), np.asarray(0.0, dtype))
    u = _uniform(key, shape, dtype, lo, np.asarray(1.0, dtype))
    return lax.mul(np.asarray(np.sqrt(2), dtype), erf_inv(u))


def bernoulli(key: Array, p: float | Array = 0.5, shape: Shape | None = None) -> Array:
    """Booleans that are True with probability ``p`` (shape defaults to ``p``'s shape)."""
    _check_key("bernoulli", key)
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


def gumbel(key: Array, shape: Shape = (), dtype: Any = None) -> Array:
    """Standard Gumbel samples ``-log(-log(u))`` (default dtype float64)."""
    _check_key("gumbel", key)
    return _gumbel(key, _shape("gumbel", shape), _float_dtype("gumbel", dtype))


def _gumbel(key: Array, shape: tuple[int, ...], dtype: np.dtype[Any]) -> Array:
    tiny = np.asarray(np.finfo(dtype).tiny, dtype)
    u = _uniform(key, shape, dtype, tiny, np.asarray(1.0, dtype))
    return lax.neg(lax.log(lax.neg(lax.log(u))))


def categorical(key: Array, logits: Array, axis: int = -1, shape: Shape | None = None) -> Array:
    """Sample category indices from ``softmax(logits, axis)`` with the Gumbel-max trick.

    The result has ``logits``' shape without ``axis`` (or ``shape``, which must end with it).
    """
    _check_key("categorical", key)
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
    return lax.argmax(lax.add(noise, logits), len(prefix) + axis, _I64)


def randint(
    key: Array,
    shape: Shape,
    minval: int | Array,
    maxval: int | Array,
    dtype: Any = None,
) -> Array:
    """Uniform integers in ``[minval, maxval)`` (default dtype int64).

    Like JAX, draws twice the dtype's bits and reduces them modulo the range, so the bias for
    ranges that are not powers of two is negligible.
    """
    _check_key("randint", key)
    dt = _I64 if dtype is None else np.dtype(dtype)
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


def _to_int(x: Array, dtype: np.dtype[Any] | None) -> Array:
    """``x`` as a strong integer array (floats are truncated, Python ints become int64)."""
    aval = get_aval(x)
    target = dtype or (aval.dtype if is_integer(aval.dtype) else _I64)
    if isinstance(x, int):
        return np.asarray(x, target)
    return _convert(x, target)


def _clip_to(x: Array, dtype: np.dtype[Any]) -> Array:
    """Convert integer ``x`` to ``dtype``, saturating instead of wrapping."""
    src = np.iinfo(get_aval(x).dtype)
    dst = np.iinfo(dtype)
    lo = np.asarray(max(src.min, dst.min), get_aval(x).dtype)
    hi = np.asarray(min(src.max, dst.max), get_aval(x).dtype)
    return _convert(lax.clamp(lo, x, hi), dtype)


def _randint(
    key: Array, shape: tuple[int, ...], minval: Array, maxval: Array, dtype: np.dtype[Any]
) -> Array:
    dtype_max = _clip_to(np.asarray(np.iinfo(dtype).max, dtype), get_aval(maxval).dtype)
    maxval_out_of_range = lax.gt(maxval, dtype_max)
    minval = _clip_to(minval, dtype)
    maxval = _clip_to(maxval, dtype)
    nbits = dtype.itemsize * 8
    k1, k2 = _prng.unstack_keys(_prng.split(key, (2,)))
    higher = _prng.random_bits(k1, nbits, shape)
    lower = _prng.random_bits(k2, nbits, shape)
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


def permutation(key: Array, x: int | Array, axis: int = 0, independent: bool = False) -> Array:
    """A random permutation of ``range(x)`` (for an int ``x``) or of ``x`` along ``axis``.

    With ``independent=True`` every slice along ``axis`` is shuffled on its own.
    """
    _check_key("permutation", key)
    aval = _aval("permutation", "x", x)
    if not aval.shape:
        if not is_integer(aval.dtype):
            raise TypeError(_error("permutation", "x must be an integer or an array"))
        n = _operator_index(x)
        return _shuffle(key, lax.iota(_I64, n), 0)
    ndim = len(aval.shape)
    if not -ndim <= axis < ndim:
        raise ValueError(_error("permutation", f"axis {axis} is out of range for {aval.shape}"))
    axis = axis % ndim
    if independent or ndim == 1:
        return _shuffle(key, x, axis)
    order = _shuffle(key, lax.iota(_I64, aval.shape[axis]), 0)
    return _take_along(x, order, axis)


def _take_along(x: Array, order: Array, axis: int) -> Array:
    """``x`` with its slices along ``axis`` reordered by the index vector ``order``: sort the
    (stable, unique) positions of ``order`` and carry ``x`` along."""
    shape = get_aval(x).shape
    inverse = lax.sort((order, lax.iota(_I64, shape[axis])), num_keys=1)[1]
    keys = lax.broadcast_in_dim(inverse, shape, (axis,))
    return lax.sort((keys, x), dimension=axis, num_keys=1)[1]


def _shuffle(key: Array, x: Array, axis: int) -> Array:
    """Sort by fresh random 32-bit keys, repeated often enough that key collisions (which
    would bias a single round) become negligible: the scheme JAX and TensorFlow use."""
    size = get_aval(x).size
    rounds = math.ceil(3 * math.log(max(1, size)) / math.log(np.iinfo(np.uint32).max))
    for _ in range(rounds):
        key, subkey = _prng.unstack_keys(_prng.split(key, (2,)))
        sort_keys = _prng.random_bits(subkey, 32, get_aval(x).shape)
        x = lax.sort((sort_keys, x), dimension=axis, num_keys=1)[1]
    return x
