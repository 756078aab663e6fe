"""``mj.numpy.fft``: NumPy's discrete Fourier transforms, as ``jax.numpy.fft``.

Every transform moves its axes to the end (XLA transforms trailing dimensions), crops or
zero-pads them to the requested sizes ``s``/``n`` and applies ``mj.lax.fft``; more than three
axes are done as a chain of transforms of at most three. Dtypes follow JAX: float32 and
complex64 inputs give complex64 (NumPy would give complex128), integers compute in float64.
``norm`` is ``"backward"`` (the default), ``"ortho"`` or ``"forward"``.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from mj.numpy._manipulation import roll
from mj_core import lax
from mj_core import numpy as mnp
from mj_core.extend import Array, ArrayLike, DTypeLike, Shape
from mj_core.prims.fft import FftType

__all__ = [
    "fft",
    "fft2",
    "fftfreq",
    "fftn",
    "fftshift",
    "hfft",
    "ifft",
    "ifft2",
    "ifftn",
    "ifftshift",
    "ihfft",
    "irfft",
    "irfft2",
    "irfftn",
    "rfft",
    "rfft2",
    "rfftfreq",
    "rfftn",
]


def _norm_factor(func_name: str, sizes: Shape, norm: str) -> float:
    """What the unnormalised (``"backward"``) result is multiplied by for ``norm``."""
    if norm == "backward":
        return 1.0
    total = float(math.prod(sizes))
    inverse = func_name.startswith("i")
    if norm == "ortho":
        return math.sqrt(total) if inverse else 1 / math.sqrt(total)
    if norm == "forward":
        return total if inverse else 1 / total
    raise ValueError(f'Invalid norm value {norm}; should be "backward","ortho" or "forward".')


def _resize(arr: Array, axes: tuple[int, ...], sizes: Sequence[int]) -> Array:
    """``arr`` cropped or zero-padded at the end of each of ``axes`` to ``sizes``."""
    shape = tuple(arr.shape)
    limits = list(shape)
    padding = [(0, 0, 0)] * len(shape)
    for axis, size in zip(axes, sizes, strict=True):
        limits[axis] = min(shape[axis], size)
        padding[axis] = (0, max(0, size - shape[axis]), 0)
    if tuple(limits) != shape:
        arr = lax.slice(arr, (0,) * len(shape), tuple(limits))
    if any(hi for _, hi, _ in padding):
        arr = lax.pad(arr, 0, padding)
    return arr


def _fft_trailing(arr: Array, fft_type: FftType, sizes: Shape) -> Array:
    """``lax.fft`` over the trailing ``len(sizes)`` axes; more than 3 as a chain (XLA does at
    most 3 at once), with 2 + 2 for 4 axes."""
    if len(sizes) <= 3:
        return lax.fft(arr, fft_type, tuple(sizes))
    n = 2 if len(sizes) == 4 else 3
    ndim = arr.ndim
    src = tuple(range(ndim - len(sizes), ndim - n))
    dst = tuple(range(ndim - len(sizes) + n, ndim))
    if fft_type in (FftType.RFFT, FftType.FFT):
        arr = lax.fft(arr, fft_type, tuple(sizes)[-n:])
        arr = mnp.moveaxis(arr, src, dst)
        arr = _fft_trailing(arr, FftType.FFT, sizes[:-n])
        return mnp.moveaxis(arr, dst, src)
    arr = mnp.moveaxis(arr, src, dst)
    arr = _fft_trailing(arr, FftType.IFFT, sizes[:-n])
    arr = mnp.moveaxis(arr, dst, src)
    return lax.fft(arr, fft_type, tuple(sizes)[-n:])


def _fft_core(
    func_name: str,
    fft_type: FftType,
    a: ArrayLike,
    s: Shape | None,
    axes: Sequence[int] | None,
    norm: str | None,
) -> Array:
    full_name = f"mj.numpy.fft.{func_name}"
    arr = mnp.asarray(a)
    ndim = arr.ndim
    if s is not None:
        s = tuple(operator.index(i) for i in s)
        if any(i < 0 for i in s):
            raise ValueError(f"{full_name}: Shape should be non-negative, got s={s}.")
    if s is not None and axes is not None and len(s) != len(axes):
        raise ValueError(
            f"{full_name}: Shape and axes have different lengths (s={s}, axes={axes})."
        )
    if axes is None:
        picked = tuple(range(ndim) if s is None else range(ndim - len(s), ndim))
        moved = False
    else:
        picked = tuple(operator.index(ax) for ax in axes)
        moved = True
    canonical = tuple(ax % ndim if -ndim <= ax < ndim else ax for ax in picked)
    if any(not 0 <= ax < ndim for ax in canonical):
        raise ValueError(f"{full_name}: axes {picked} out of range for an array of rank {ndim}.")
    if len(set(canonical)) != len(canonical):
        raise ValueError(f"{full_name} does not support repeated axes. Got axes {picked}.")
    trailing = tuple(range(ndim - len(canonical), ndim))
    if moved:
        arr = mnp.moveaxis(arr, canonical, trailing)
    if s is not None:
        sizes = list(s)
        if fft_type == FftType.IRFFT:
            sizes[-1] = sizes[-1] // 2 + 1
        arr = _resize(arr, trailing, sizes)
    else:
        s = tuple(arr.shape[ax] for ax in trailing)
        if fft_type == FftType.IRFFT and trailing:
            s = (*s[:-1], max(0, 2 * (s[-1] - 1)))
    out = _fft_trailing(arr, fft_type, s)
    if norm is not None:
        factor = _norm_factor(func_name, s, norm)
        if factor != 1.0:
            out = lax.mul(out, factor)
    if moved:
        out = mnp.moveaxis(out, trailing, canonical)
    return out


def _check_one_axis(func_name: str, axis: object) -> None:
    if isinstance(axis, list | tuple):
        raise ValueError(
            f"mj.numpy.fft.{func_name} does not support multiple axes. Please use "
            f"mj.numpy.fft.{func_name}n. Got axis = {axis!r}."
        )


def _fft_core_1d(
    func_name: str, fft_type: FftType, a: ArrayLike, n: int | None, axis: int, norm: str | None
) -> Array:
    _check_one_axis(func_name, axis)
    return _fft_core(func_name, fft_type, a, None if n is None else [n], [axis], norm)


def _fft_core_2d(
    func_name: str,
    fft_type: FftType,
    a: ArrayLike,
    s: Shape | None,
    axes: Sequence[int],
    norm: str | None,
) -> Array:
    if len(axes) != 2:
        raise ValueError(f"mj.numpy.fft.{func_name} only supports 2 axes. Got axes = {axes!r}.")
    return _fft_core(func_name, fft_type, a, s, axes, norm)


# --- one-dimensional ------------------------------------------------------------------------------
def fft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """The 1-D discrete Fourier transform along ``axis`` (``n``: crop/zero-pad to ``n``)."""
    return _fft_core_1d("fft", FftType.FFT, a, n, axis, norm)


def ifft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """The 1-D inverse discrete Fourier transform along ``axis``."""
    return _fft_core_1d("ifft", FftType.IFFT, a, n, axis, norm)


def rfft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """The 1-D transform of a real input: the ``n // 2 + 1`` non-negative frequencies."""
    return _fft_core_1d("rfft", FftType.RFFT, a, n, axis, norm)


def irfft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """The inverse of :func:`rfft`: a real signal of length ``n`` (default ``2 * (m - 1)``)."""
    return _fft_core_1d("irfft", FftType.IRFFT, a, n, axis, norm)


def hfft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """The (real) transform of a signal with Hermitian symmetry given by its first half.

    As ``jax.numpy.fft.hfft``: ``irfft(conj(a), n, norm=norm) * n``.
    """
    _check_one_axis("hfft", axis)
    conj_a = mnp.conjugate(mnp.asarray(a))
    nn = (conj_a.shape[axis] - 1) * 2 if n is None else n
    return lax.mul(_fft_core_1d("hfft", FftType.IRFFT, conj_a, n, axis, norm), nn)


def ihfft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """The inverse of :func:`hfft` for a real input: ``conj(rfft(a, n, norm=norm)) / n``."""
    _check_one_axis("ihfft", axis)
    arr = mnp.asarray(a)
    nn = arr.shape[axis] if n is None else n
    out = _fft_core_1d("ihfft", FftType.RFFT, arr, n, axis, norm)
    return lax.mul(mnp.conjugate(out), 1 / nn)


# --- two-dimensional ------------------------------------------------------------------------------
def fft2(
    a: ArrayLike, s: Shape | None = None, axes: Sequence[int] = (-2, -1), norm: str | None = None
) -> Array:
    """The 2-D discrete Fourier transform over ``axes``."""
    return _fft_core_2d("fft2", FftType.FFT, a, s, axes, norm)


def ifft2(
    a: ArrayLike, s: Shape | None = None, axes: Sequence[int] = (-2, -1), norm: str | None = None
) -> Array:
    """The 2-D inverse discrete Fourier transform over ``axes``."""
    return _fft_core_2d("ifft2", FftType.IFFT, a, s, axes, norm)


def rfft2(
    a: ArrayLike, s: Shape | None = None, axes: Sequence[int] = (-2, -1), norm: str | None = None
) -> Array:
    """The 2-D transform of a real input (the last axis halved, as :func:`rfft`)."""
    return _fft_core_2d("rfft2", FftType.RFFT, a, s, axes, norm)


def irfft2(
    a: ArrayLike, s: Shape | None = None, axes: Sequence[int] = (-2, -1), norm: str | None = None
) -> Array:
    """The inverse of :func:`rfft2`."""
    return _fft_core_2d("irfft2", FftType.IRFFT, a, s, axes, norm)


# --- n-dimensional --------------------------------------------------------------------------------
def fftn(
    a: ArrayLike, s: Shape | None = None, axes: Sequence[int] | None = None, norm: str | None = None
) -> Array:
    """The N-D discrete Fourier transform (all axes, or the last ``len(s)``, by default)."""
    return _fft_core("fftn", FftType.FFT, a, s, axes, norm)


def ifftn(
    a: ArrayLike, s: Shape | None = None, axes: Sequence[int] | None = None, norm: str | None = None
) -> Array:
    """The N-D inverse discrete Fourier transform."""
    return _fft_core("ifftn", FftType.IFFT, a, s, axes, norm)


def rfftn(
    a: ArrayLike, s: Shape | None = None, axes: Sequence[int] | None = None, norm: str | None = None
) -> Array:
    """The N-D transform of a real input (the last axis halved, as :func:`rfft`)."""
    return _fft_core("rfftn", FftType.RFFT, a, s, axes, norm)


def irfftn(
    a: ArrayLike, s: Shape | None = None, axes: Sequence[int] | None = None, norm: str | None = None
) -> Array:
    """The inverse of :func:`rfftn`."""
    return _fft_core("irfftn", FftType.IRFFT, a, s, axes, norm)


# --- frequencies and shifts -----------------------------------------------------------------------
def _check_freq_args(func_name: str, n: object, d: object) -> None:
    if isinstance(n, list | tuple):
        raise ValueError(
            f"The n argument of mj.numpy.fft.{func_name} only takes an int. Got n = {list(n)}."
        )
    if isinstance(d, list | tuple):
        raise ValueError(
            f"The d argument of mj.numpy.fft.{func_name} only takes a single value. "
            f"Got d = {list(d)}."
        )


def _scaled(k: np.ndarray[Any, Any], n: int, d: ArrayLike, dtype: np.dtype[Any]) -> Array:
    return lax.div(k, lax.convert_element_type(lax.mul(d, n), dtype))


def fftfreq(n: int, d: ArrayLike = 1.0, *, dtype: DTypeLike | None = None) -> Array:
    """The sample frequencies of :func:`fft` for window length ``n`` and sample spacing ``d``:
    ``[0, 1, ..., (n-1)//2, -(n//2), ..., -1] / (d * n)``."""
    _check_freq_args("fftfreq", n, d)
    dt = np.dtype(np.float64 if dtype is None else dtype)
    k = np.concatenate([np.arange(0, (n - 1) // 2 + 1), np.arange(-(n // 2), 0)]).astype(dt)
    return _scaled(k, n, d, dt)


def rfftfreq(n: int, d: ArrayLike = 1.0, *, dtype: DTypeLike | None = None) -> Array:
    """The sample frequencies of :func:`rfft`: ``[0, 1, ..., n//2] / (d * n)``."""
    _check_freq_args("rfftfreq", n, d)
    dt = np.dtype(np.float64 if dtype is None else dtype)
    return _scaled(np.arange(0, n // 2 + 1).astype(dt), n, d, dt)


def _shift(x: ArrayLike, axes: int | Sequence[int] | None, sign: int) -> Array:
    arr = mnp.asarray(x)
    shape = arr.shape
    if axes is None:
        axes = tuple(range(arr.ndim))
        shift: int | list[int] = [sign * (dim // 2) for dim in shape]
    elif isinstance(axes, int):
        shift = sign * (shape[axes] // 2)
    else:
        shift = [sign * (shape[ax] // 2) for ax in axes]
    return roll(arr, shift, axes)


def fftshift(x: ArrayLike, axes: int | Sequence[int] | None = None) -> Array:
    """``x`` with the zero-frequency term moved to the centre of ``axes`` (all by default)."""
    return _shift(x, axes, 1)


def ifftshift(x: ArrayLike, axes: int | Sequence[int] | None = None) -> Array:
    """The inverse of :func:`fftshift`."""
    return _shift(x, axes, -1)
