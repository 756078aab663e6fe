"""``mj.image``: image resampling, as ``jax.image`` (``resize``, ``scale_and_translate``).

Every method but nearest-neighbour is separable: along each resized dimension the output is
the input contracted with an ``[input size, output size]`` weight matrix, whose column ``j``
holds the kernel evaluated at the distances between output pixel ``j``'s centre (mapped back
into the input) and the input pixels' centres, normalised to sum to one. Pixels are
half-centred (pixel ``i`` sits at ``i + 0.5``). Downsampling with ``antialias`` widens the
kernel by the inverse scale, a low-pass filter. The weights are built from mj.numpy
operations, so resizing differentiates, batches and compiles like any other function.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import mj.numpy as mnp
from mj_core.errors import user_line_suffix
from mj_core.extend import Array, ArrayLike, shape_of, to_inexact_dtype
from mj_core.lax import PrecisionLike

__all__ = ["ResizeMethod", "resize", "scale_and_translate"]


class ResizeMethod(enum.Enum):
    """The resampling kernels (JAX's names and values)."""

    NEAREST = 0
    LINEAR = 1
    LANCZOS3 = 2
    LANCZOS5 = 3
    CUBIC = 4
    CUBIC_PYTORCH = 5
    AREA = 6

    @staticmethod
    def from_string(s: str) -> ResizeMethod:
        for method, names in _NAMES.items():
            if s in names:
                return method
        raise ValueError(f'Unknown resize method "{s}"')


_NAMES = {
    ResizeMethod.NEAREST: ("nearest",),
    ResizeMethod.LINEAR: ("linear", "bilinear", "trilinear", "triangle"),
    ResizeMethod.LANCZOS3: ("lanczos3",),
    ResizeMethod.LANCZOS5: ("lanczos5",),
    ResizeMethod.CUBIC: ("cubic", "bicubic", "tricubic"),
    ResizeMethod.CUBIC_PYTORCH: ("cubic-pytorch", "bicubic-pytorch"),
    ResizeMethod.AREA: ("area",),
}


def _triangle(x: ArrayLike) -> Array:
    return mnp.maximum(0, 1 - mnp.abs(x))


def _cubic(a: float) -> Callable[[Any], Any]:
    """The cubic convolution kernel with parameter ``a`` (Keys': -0.5, as Pillow and
    TensorFlow; OpenCV's and PyTorch's without antialiasing: -0.75)."""

    def kernel(x: Any) -> Any:
        near = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
        far = ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a
        return mnp.where(x >= 2.0, 0.0, mnp.where(x >= 1.0, far, near))

    return kernel


def _lanczos(radius: float) -> Callable[[Any], Any]:
    def kernel(x: Any) -> Any:
        y = radius * mnp.sin(np.pi * x) * mnp.sin(np.pi * x / radius)
        safe = mnp.where(x != 0, np.pi**2 * x**2, 1)
        out = mnp.where(x > 1e-3, y / safe, 1)  # sinc(x) sinc(x / r), 1 at 0
        return mnp.where(x > radius, 0.0, out)

    return kernel


#: Each method's kernel and its radius in input pixels (None: area overlap, no kernel).
_KERNELS: dict[ResizeMethod, tuple[int, Callable[[Any], Any] | None]] = {
    ResizeMethod.LINEAR: (1, _triangle),
    ResizeMethod.LANCZOS3: (3, _lanczos(3.0)),
    ResizeMethod.LANCZOS5: (5, _lanczos(5.0)),
    ResizeMethod.CUBIC: (2, _cubic(-0.5)),
    ResizeMethod.CUBIC_PYTORCH: (2, _cubic(-0.75)),
    ResizeMethod.AREA: (1, None),
}

_TINY = 1000.0 * float(np.finfo(np.float32).eps)  # a weight sum below this: no sample


def _normalized(weights: ArrayLike) -> Array:
    total = mnp.sum(weights, axis=0, keepdims=True)
    return mnp.where(mnp.abs(total) > _TINY, weights / mnp.where(total != 0, total, 1), 0)


def _weights(
    size_in: int,
    size_out: int,
    scale: Any,
    translation: Any,
    method: ResizeMethod,
    antialias: bool,
    edge_padding: bool,
) -> Any:
    """The ``[size_in, size_out]`` matrix taking a dimension of the input to the output's."""
    dtype = mnp.result_type(scale, translation)
    inv_scale = 1.0 / scale
    # output pixel centres, mapped back into input coordinates (shifted to pixel indices)
    centres = (mnp.arange(size_out, dtype=dtype) + 0.5) * inv_scale - translation * inv_scale
    centres = centres - 0.5
    radius, kernel = _KERNELS[method]
    if kernel is None:  # area: how much of each input pixel the output pixel covers
        left = mnp.arange(size_out, dtype=dtype) * inv_scale - translation * inv_scale
        starts = mnp.arange(size_in, dtype=dtype)
        overlap = mnp.minimum((left + inv_scale)[None, :], (starts + 1.0)[:, None]) - mnp.maximum(
            left[None, :], starts[:, None]
        )
        weights = mnp.maximum(0.0, overlap)
        k = 0
    else:
        k = radius if edge_padding else 0  # pixels beyond the edges, folded back onto them
        positions = mnp.arange(-k, size_in + k, dtype=dtype)
        widen = mnp.maximum(inv_scale, 1.0) if antialias else 1.0
        weights = kernel(mnp.abs(centres[None, :] - positions[:, None]) / widen)
    if edge_padding:
        rows = mnp.clip(mnp.arange(-k, size_in + k), 0, size_in - 1)
        cols = mnp.broadcast_to(mnp.arange(size_out), (size_in + 2 * k, size_out))
        folded = mnp.zeros((size_in, size_out), dtype=dtype)
        return _normalized(folded.at[rows[:, None], cols].add(weights))
    weights = _normalized(weights)
    inside = (centres >= -0.5) & (centres <= size_in - 0.5)  # samples off the image: 0
    return mnp.where(inside[None, :], weights, 0)


def _resample(
    image: Any,
    shape: Sequence[int],
    dims: Sequence[int],
    scales: Sequence[Any],
    translations: Sequence[Any],
    method: ResizeMethod,
    antialias: bool,
    precision: Any,
) -> Any:
    if method is ResizeMethod.CUBIC_PYTORCH and antialias:
        method = ResizeMethod.CUBIC  # PyTorch's antialiased cubic is Keys'
    if not dims:
        return image
    edge_padding = method is ResizeMethod.CUBIC_PYTORCH
    ndim = len(shape)
    operands: list[Any] = [image, list(range(ndim))]
    out_axes = list(range(ndim))
    for i, d in enumerate(dims):
        w = _weights(image.shape[d], shape[d], scales[i], translations[i], method, antialias,
                     edge_padding)  # fmt: skip
        operands += [w.astype(image.dtype), [d, ndim + i]]
        out_axes[d] = ndim + i
    return mnp.einsum(*operands, out_axes, precision=precision)


def _method(method: str | ResizeMethod) -> ResizeMethod:
    return ResizeMethod.from_string(method) if isinstance(method, str) else method


def _check_shape(api: str, image: ArrayLike, shape: Sequence[int]) -> tuple[int, ...]:
    shape = tuple(int(s) for s in shape)
    if len(shape) != len(shape_of(image)):
        raise ValueError(
            f"{api}: shape must have length equal to the number of dimensions of x; "
            f"{shape} vs {shape_of(image)}{user_line_suffix()}"
        )
    return shape


def _inexact(image: ArrayLike) -> Array:
    """``image`` as an array of an inexact dtype (integers of up to 32 bits: float32)."""
    x = mnp.asarray(image)
    return x.astype(to_inexact_dtype(x.dtype))


def scale_and_translate(
    image: ArrayLike,
    shape: Sequence[int],
    spatial_dims: Sequence[int],
    scale: ArrayLike,
    translation: ArrayLike,
    method: str | ResizeMethod,
    antialias: bool = True,
    precision: PrecisionLike = "highest",
) -> Any:
    """Resample ``image`` to ``shape``: input location ``x`` along ``spatial_dims[i]`` goes to
    ``x * scale[i] + translation[i]`` (pixel centres at ``i + 0.5``); output pixels whose
    sample falls outside the input are 0. ``method`` as :func:`resize` (not nearest)."""
    shape = _check_shape("scale_and_translate", image, shape)
    chosen = _method(method)
    if chosen is ResizeMethod.NEAREST:
        raise ValueError(
            "Nearest neighbor resampling is not currently supported for scale_and_translate."
        )
    dims = [d % len(shape) for d in spatial_dims]
    scale, translation = mnp.asarray(scale), mnp.asarray(translation)
    inexact = mnp.result_type(scale, translation, float)
    scale, translation = scale.astype(inexact), translation.astype(inexact)
    scales = [scale[i] for i in range(len(dims))]
    translations = [translation[i] for i in range(len(dims))]
    return _resample(
        _inexact(image), shape, dims, scales, translations, chosen, antialias, precision
    )


def _resize_nearest(image: Any, shape: Sequence[int]) -> Any:
    for d, (m, n) in enumerate(zip(shape_of(image), shape, strict=True)):
        if m != n:
            positions = (np.arange(n, dtype=np.float32) + 0.5) * np.float32(m) / np.float32(n)
            index: list[Any] = [slice(None)] * len(shape)
            index[d] = np.floor(positions).astype(np.int32)
            image = image[tuple(index)]
    return image


def resize(
    image: ArrayLike,
    shape: Sequence[int],
    method: str | ResizeMethod,
    antialias: bool = True,
    precision: PrecisionLike = "highest",
) -> Any:
    """``image`` resampled to ``shape`` (every dimension: leave batch and channel sizes as
    they are). ``method``: ``"nearest"``, ``"linear"`` (``"bilinear"``, ...), ``"cubic"``
    (Keys), ``"cubic-pytorch"``, ``"lanczos3"``, ``"lanczos5"``, ``"area"``, or a
    :class:`ResizeMethod`. ``antialias`` low-pass filters when downsampling."""
    shape = _check_shape("resize", image, shape)
    chosen = _method(method)
    if chosen is ResizeMethod.NEAREST:
        return _resize_nearest(mnp.asarray(image), shape)
    image = _inexact(image)
    dims = [d for d in range(len(shape)) if image.shape[d] != shape[d]]
    scales = [1.0 if shape[d] == 0 else shape[d] / image.shape[d] for d in dims]
    return _resample(image, shape, dims, scales, [0.0] * len(dims), chosen, antialias, precision)
