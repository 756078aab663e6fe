"""``mj.nn.initializers``: ``jax.nn.initializers`` for mj.

An initializer is a function ``init(key, shape, dtype=None)`` returning a fresh parameter
array; the builders (``normal(stddev)``, ``variance_scaling(scale, mode, distribution)``,
``glorot_uniform()``, ...) close over their hyper-parameters. Samples are drawn with
:mod:`mj.random` (Threefry, as JAX) in the same order and with the same arithmetic as
JAX 0.10.2, so the same key gives the same weights. The default dtype is float64, mj's
default float (JAX's with x64 enabled).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np

from mj import random
from mj.numpy import linalg as mla
from mj_core import lax, lax_linalg
from mj_core import numpy as cnp
from mj_core.dtypes import is_float
from mj_core.errors import user_line_suffix
from mj_core.extend import AnyArray, Array, ArrayLike, DTypeLike, Shape
from mj_core.lax import erf_inv

__all__ = [
    "Initializer",
    "constant",
    "delta_orthogonal",
    "glorot_normal",
    "glorot_uniform",
    "he_normal",
    "he_uniform",
    "kaiming_normal",
    "kaiming_uniform",
    "lecun_normal",
    "lecun_uniform",
    "normal",
    "ones",
    "orthogonal",
    "truncated_normal",
    "uniform",
    "variance_scaling",
    "xavier_normal",
    "xavier_uniform",
    "zeros",
]

Axes = int | Sequence[int]
Initializer = Callable[..., AnyArray]

_F64 = np.dtype(np.float64)


def _dtype(dtype: DTypeLike | None) -> np.dtype[Any]:
    return _F64 if dtype is None else np.dtype(dtype)


def _canonical_shape(name: str, shape: Shape) -> tuple[int, ...]:
    try:
        return tuple(int(d) for d in shape)
    except TypeError:
        raise TypeError(
            f"{name}: shape must be a sequence of integers, got {shape!r}{user_line_suffix()}"
        ) from None


def _no_sharding(name: str, out_sharding: object) -> None:
    if out_sharding is not None:
        raise NotImplementedError(
            f"{name}: out_sharding is not supported (mj runs on one device){user_line_suffix()}"
        )


def _scalar(value: Any, dtype: np.dtype[Any]) -> Array:
    """``jnp.array(value, dtype)``: a strongly typed 0-d array."""
    return lax.convert_element_type(cnp.asarray(value), dtype)


def zeros(
    key: ArrayLike, shape: Shape, dtype: DTypeLike | None = None, out_sharding: object = None
) -> Array:
    """An array of zeros (``key`` is unused)."""
    _no_sharding("zeros", out_sharding)
    return cnp.zeros(_canonical_shape("zeros", shape), _dtype(dtype))


def ones(
    key: ArrayLike, shape: Shape, dtype: DTypeLike | None = None, out_sharding: object = None
) -> Array:
    """An array of ones (``key`` is unused)."""
    _no_sharding("ones", out_sharding)
    return cnp.ones(_canonical_shape("ones", shape), _dtype(dtype))


def constant(value: ArrayLike, dtype: DTypeLike | None = None) -> Initializer:
    """An initializer filling arrays with ``value``."""

    def init(
        key: ArrayLike, shape: Shape, dtype: DTypeLike | None = dtype, out_sharding: object = None
    ) -> Array:
        _no_sharding("constant", out_sharding)
        return cnp.full(_canonical_shape("constant", shape), value, _dtype(dtype))

    return init


def uniform(scale: ArrayLike = 1e-2, dtype: DTypeLike | None = None) -> Initializer:
    """An initializer drawing uniformly from ``[0, scale)``."""

    def init(
        key: ArrayLike, shape: Shape, dtype: DTypeLike | None = dtype, out_sharding: object = None
    ) -> Array:
        _no_sharding("uniform", out_sharding)
        dt = _dtype(dtype)
        return lax.mul(random.uniform(key, shape, dt), _scalar(scale, dt))

    return init


def normal(stddev: object = 1e-2, dtype: DTypeLike | None = None) -> Initializer:
    """An initializer drawing from a centred normal distribution of deviation ``stddev``."""

    def init(
        key: ArrayLike, shape: Shape, dtype: DTypeLike | None = dtype, out_sharding: object = None
    ) -> Array:
        _no_sharding("normal", out_sharding)
        dt = _dtype(dtype)
        return lax.mul(random.normal(key, shape, dt), _scalar(stddev, dt))

    return init


def _truncated_normal(
    key: ArrayLike, lower: float, upper: float, shape: tuple[int, ...], dtype: np.dtype[Any]
) -> Array:
    """Standard normal samples restricted to ``(lower, upper)``, by inverting the CDF of a
    uniform draw between ``erf(lower/sqrt 2)`` and ``erf(upper/sqrt 2)`` (JAX's
    ``random.truncated_normal``)."""
    if not is_float(dtype):
        raise TypeError(f"truncated_normal: dtype must be a float dtype, got {dtype}")
    sqrt2 = np.asarray(np.sqrt(2), dtype)
    lo = np.asarray(lower, dtype)
    hi = np.asarray(upper, dtype)
    a = lax.erf(lax.div(lo, sqrt2))
    b = lax.erf(lax.div(hi, sqrt2))
    u = random.uniform(key, shape, dtype, minval=a, maxval=b)
    out = lax.mul(sqrt2, erf_inv(u))
    inside_lo = np.nextafter(lo, np.asarray(np.inf, dtype))
    inside_hi = np.nextafter(hi, np.asarray(-np.inf, dtype))
    return cnp.clip(out, inside_lo, inside_hi)


def truncated_normal(
    stddev: object = 1e-2, dtype: DTypeLike | None = None, lower: float = -2.0, upper: float = 2.0
) -> Initializer:
    """An initializer drawing from a normal distribution truncated to ``(lower, upper)`` and
    then scaled by ``stddev`` (the deviation of the untruncated distribution)."""

    def init(
        key: ArrayLike, shape: Shape, dtype: DTypeLike | None = dtype, out_sharding: object = None
    ) -> Array:
        _no_sharding("truncated_normal", out_sharding)
        dt = _dtype(dtype)
        shp = _canonical_shape("truncated_normal", shape)
        return lax.mul(_truncated_normal(key, lower, upper, shp, dt), _scalar(stddev, dt))

    return init


def _size(shape: tuple[int, ...], axes: Axes) -> int:
    if isinstance(axes, int):
        return shape[axes]
    return math.prod(shape[i] for i in axes)


def _compute_fans(
    shape: tuple[int, ...], in_axis: Axes, out_axis: Axes, batch_axis: Axes
) -> tuple[float, float]:
    """Effective input and output sizes: every axis not named is a receptive-field axis."""
    if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
        raise ValueError(
            f"Can't compute input and output sizes of a {len(shape)}-dimensional weights "
            "tensor with default in_axis. Must be at least 2D or specify in_axis explicitly."
            f" (variance_scaling, weight shape {shape}){user_line_suffix()}"
        )
    in_size = _size(shape, in_axis)
    out_size = _size(shape, out_axis)
    batch_size = _size(shape, batch_axis)
    receptive_field = math.prod(shape) / in_size / out_size / batch_size
    return in_size * receptive_field, out_size * receptive_field


def _real_dtype(dtype: np.dtype[Any]) -> np.dtype[Any]:
    return np.zeros((), dtype).real.dtype


def _complex_uniform(key: ArrayLike, shape: tuple[int, ...], dtype: np.dtype[Any]) -> Array:
    """Uniform samples on the unit-variance disk of the complex plane."""
    key_r, key_theta = random.split(key)
    real = _real_dtype(dtype)
    r = lax.convert_element_type(cnp.sqrt(lax.mul(2.0, random.uniform(key_r, shape, real))), dtype)
    theta = lax.mul(
        2 * np.pi, lax.convert_element_type(random.uniform(key_theta, shape, real), dtype)
    )
    return lax.mul(r, cnp.exp(lax.mul(1j, theta)))


def _complex_truncated_normal(
    key: ArrayLike, upper: float, shape: tuple[int, ...], dtype: np.dtype[Any]
) -> Array:
    """Circular complex normal samples with modulus truncated at ``upper``."""
    key_r, key_theta = random.split(key)
    real = _real_dtype(dtype)
    scale = lax.sub(1.0, cnp.exp(_scalar(-(upper**2), dtype)))
    t = lax.mul(scale, lax.convert_element_type(random.uniform(key_r, shape, real), dtype))
    r = cnp.sqrt(lax.neg(cnp.log(lax.sub(1.0, t))))
    theta = lax.mul(
        2 * np.pi, lax.convert_element_type(random.uniform(key_theta, shape, real), dtype)
    )
    return lax.mul(r, cnp.exp(lax.mul(1j, theta)))


_MODES = ("fan_in", "fan_out", "fan_avg", "fan_geo_avg")
_DISTRIBUTIONS = ("truncated_normal", "normal", "uniform")


def variance_scaling(
    scale: ArrayLike,
    mode: Literal["fan_in", "fan_out", "fan_avg", "fan_geo_avg"],
    distribution: Literal["truncated_normal", "normal", "uniform"],
    in_axis: Axes = -2,
    out_axis: Axes = -1,
    batch_axis: Axes = (),
    dtype: DTypeLike | None = None,
) -> Initializer:
    """An initializer whose samples have variance ``scale / n``, ``n`` the fan-in, fan-out,
    or their arithmetic (``fan_avg``) or geometric (``fan_geo_avg``) mean; drawn from a
    normal truncated at two deviations, a normal, or a uniform distribution (a disk for
    complex dtypes)."""
    if mode not in _MODES:
        raise ValueError(
            f"variance_scaling: invalid mode {mode!r}, expected one of {_MODES}{user_line_suffix()}"
        )
    if distribution not in _DISTRIBUTIONS:
        raise ValueError(
            f"variance_scaling: invalid distribution {distribution!r}, expected one of "
            f"{_DISTRIBUTIONS}{user_line_suffix()}"
        )

    def init(
        key: ArrayLike, shape: Shape, dtype: DTypeLike | None = dtype, out_sharding: object = None
    ) -> Array:
        _no_sharding("variance_scaling", out_sharding)
        dt = _dtype(dtype)
        shp = _canonical_shape("variance_scaling", shape)
        fan_in, fan_out = _compute_fans(shp, in_axis, out_axis, batch_axis)
        denominator = {
            "fan_in": fan_in,
            "fan_out": fan_out,
            "fan_avg": (fan_in + fan_out) / 2,
            "fan_geo_avg": (fan_in * fan_out) ** 0.5,
        }[mode]
        variance = _scalar(scale / denominator, dt)
        if distribution == "truncated_normal":
            if is_float(dt):
                stddev = lax.div(cnp.sqrt(variance), _scalar(0.87962566103423978, dt))
                return lax.mul(_truncated_normal(key, -2.0, 2.0, shp, dt), stddev)
            stddev = lax.div(cnp.sqrt(variance), _scalar(0.95311164380491208, dt))
            return lax.mul(_complex_truncated_normal(key, 2.0, shp, dt), stddev)
        if distribution == "normal":
            return lax.mul(random.normal(key, shp, dt), cnp.sqrt(variance))
        if is_float(dt):
            samples = random.uniform(key, shp, dt, -1.0)
            return lax.mul(samples, cnp.sqrt(lax.mul(3.0, variance)))
        return lax.mul(_complex_uniform(key, shp, dt), cnp.sqrt(variance))

    return init


def glorot_uniform(
    in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Axes = (), dtype: DTypeLike | None = None
) -> Initializer:
    """Glorot (Xavier) uniform: ``variance_scaling(1.0, 'fan_avg', 'uniform')``."""
    return variance_scaling(1.0, "fan_avg", "uniform", in_axis, out_axis, batch_axis, dtype)


def glorot_normal(
    in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Axes = (), dtype: DTypeLike | None = None
) -> Initializer:
    """Glorot (Xavier) normal: ``variance_scaling(1.0, 'fan_avg', 'truncated_normal')``."""
    return variance_scaling(
        1.0, "fan_avg", "truncated_normal", in_axis, out_axis, batch_axis, dtype
    )


def lecun_uniform(
    in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Axes = (), dtype: DTypeLike | None = None
) -> Initializer:
    """LeCun uniform: ``variance_scaling(1.0, 'fan_in', 'uniform')``."""
    return variance_scaling(1.0, "fan_in", "uniform", in_axis, out_axis, batch_axis, dtype)


def lecun_normal(
    in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Axes = (), dtype: DTypeLike | None = None
) -> Initializer:
    """LeCun normal: ``variance_scaling(1.0, 'fan_in', 'truncated_normal')``."""
    return variance_scaling(1.0, "fan_in", "truncated_normal", in_axis, out_axis, batch_axis, dtype)


def he_uniform(
    in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Axes = (), dtype: DTypeLike | None = None
) -> Initializer:
    """He (Kaiming) uniform: ``variance_scaling(2.0, 'fan_in', 'uniform')``."""
    return variance_scaling(2.0, "fan_in", "uniform", in_axis, out_axis, batch_axis, dtype)


def he_normal(
    in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Axes = (), dtype: DTypeLike | None = None
) -> Initializer:
    """He (Kaiming) normal: ``variance_scaling(2.0, 'fan_in', 'truncated_normal')``."""
    return variance_scaling(2.0, "fan_in", "truncated_normal", in_axis, out_axis, batch_axis, dtype)


xavier_uniform = glorot_uniform
xavier_normal = glorot_normal
kaiming_uniform = he_uniform
kaiming_normal = he_normal


def _orthogonal(key: ArrayLike, n: int, m: int, dtype: np.dtype[Any]) -> Array:
    """A uniformly distributed ``n x m`` matrix with orthonormal rows or columns: the ``Q`` of
    a Gaussian matrix with its columns' signs fixed by ``diag(R)`` (JAX's
    ``random.orthogonal``)."""
    z = random.normal(key, (max(n, m), min(n, m)), dtype)
    q, r = mla.qr(z)
    d = cnp.sign(lax_linalg.diagonal(r))
    x = lax.mul(q, cnp.expand_dims(d, -2))
    return cnp.transpose(x) if n < m else x


def orthogonal(
    scale: ArrayLike = 1.0, column_axis: int = -1, dtype: DTypeLike | None = None
) -> Initializer:
    """An initializer of (scaled) matrices with orthonormal columns along ``column_axis``
    (rows when there are fewer rows than columns); the other axes are flattened into rows."""

    def init(
        key: ArrayLike, shape: Shape, dtype: DTypeLike | None = dtype, out_sharding: object = None
    ) -> Array:
        _no_sharding("orthogonal", out_sharding)
        dt = _dtype(dtype)
        shp = _canonical_shape("orthogonal", shape)
        if len(shp) < 2:
            raise ValueError(
                f"orthogonal: needs a shape of at least 2 dimensions, got {shp}{user_line_suffix()}"
            )
        if any(d == 0 for d in shp):
            return cnp.zeros(shp, dt)
        n_cols = shp[column_axis]
        n_rows = math.prod(shp) // n_cols
        q = _orthogonal(key, n_rows, n_cols, dt)
        rest = tuple(np.delete(np.asarray(shp), column_axis))
        q = cnp.reshape(q, (*rest, n_cols))
        return lax.mul(_scalar(scale, dt), cnp.moveaxis(q, -1, column_axis))

    return init


def delta_orthogonal(
    scale: ArrayLike = 1.0, column_axis: int = -1, dtype: DTypeLike | None = None
) -> Initializer:
    """An initializer of convolution kernels (3-d, 4-d or 5-d: spatial dims, then in and out
    features) that are zero except at the spatial centre, where they hold an orthogonal
    ``in x out`` matrix (the delta-orthogonal initialization of Xiao et al. 2018, as JAX's)."""

    def init(
        key: ArrayLike, shape: Shape, dtype: DTypeLike | None = dtype, out_sharding: object = None
    ) -> Array:
        _no_sharding("delta_orthogonal", out_sharding)
        dt = _dtype(dtype)
        shp = _canonical_shape("delta_orthogonal", shape)
        if len(shp) not in (3, 4, 5):
            raise ValueError(
                "Delta orthogonal initializer requires a 3D, 4D or 5D shape, got "
                f"{shp}{user_line_suffix()}"
            )
        if shp[-1] < shp[-2]:
            raise ValueError(
                f"delta_orthogonal: `fan_in` ({shp[-2]}) must be less or equal than `fan_out` "
                f"({shp[-1]}){user_line_suffix()}"
            )
        matrix = orthogonal(scale=scale, column_axis=column_axis, dtype=dt)(key, shp[-2:])
        centre = tuple((k - 1) // 2 for k in shp[:-2])
        kernel: Array = cnp.zeros(shp, matrix.dtype).at[centre].set(matrix)
        return kernel

    return init
