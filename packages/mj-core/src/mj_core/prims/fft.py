"""``fft``: fast Fourier transforms over the trailing ``len(fft_lengths)`` dimensions.

Params as ``jax.lax.fft_p``: ``fft_type`` (:class:`FftType`: complex-to-complex ``FFT`` and
``IFFT``, real-to-complex ``RFFT``, complex-to-real ``IRFFT``) and ``fft_lengths`` (the
logical sizes of the transformed dimensions). Results keep the operand precision: NumPy's
``np.fft`` computes in complex128, so complex64/float32 results are cast back, as XLA's are.
"""

from __future__ import annotations

import enum
import math
from typing import Any

import numpy as np

from mj_core.avals import ShapedArray
from mj_core.primitive import Primitive, impl_rules
from mj_core.prims.complex import complex_dtype, real_dtype
from mj_core.prims.out_avals import check_operands, out_aval_rules
from mj_core.shapes import aval_error

__all__ = ["FftType", "fft_p"]


class FftType(enum.IntEnum):
    """Which transform ``fft_p`` computes (the values of XLA's and JAX's ``FftType``)."""

    FFT = 0
    IFFT = 1
    RFFT = 2
    IRFFT = 3

    def __str__(self) -> str:  # jaxprs print ``fft_type=FFT``
        return self.name


fft_p = Primitive("fft")

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _length_error(x: ShapedArray, detail: str) -> TypeError:
    return aval_error("fft", detail, [x])


@out_aval_rules.register(fft_p)
def _fft_avals(
    x: ShapedArray, *, fft_type: FftType, fft_lengths: tuple[int, ...]
) -> list[ShapedArray]:
    lengths = tuple(fft_lengths)
    k = len(lengths)
    if not 1 <= k <= min(x.ndim, 3):
        raise _length_error(
            x, f"fft_lengths={lengths} must name between 1 and min(3, rank) trailing dimensions"
        )
    typ = FftType(fft_type)
    if typ == FftType.RFFT:
        if x.dtype not in _FLOATS:
            raise aval_error("fft", "RFFT requires a float32 or float64 operand", [x])
        if x.shape[-k:] != lengths:
            raise _length_error(x, f"RFFT trailing dimensions must equal fft_lengths={lengths}")
        shape = (*x.shape[:-k], *lengths[:-1], lengths[-1] // 2 + 1)
        return [ShapedArray(shape, complex_dtype(x.dtype), x.weak_type)]
    if x.dtype.kind != "c":
        raise aval_error("fft", f"{typ.name} requires a complex64 or complex128 operand", [x])
    if typ == FftType.IRFFT:
        if x.shape[-k:-1] != lengths[:-1] or x.shape[-1] != lengths[-1] // 2 + 1:
            raise _length_error(
                x,
                f"IRFFT trailing dimensions must be fft_lengths[:-1] and fft_lengths[-1] // 2 + 1 "
                f"for fft_lengths={lengths}",
            )
        shape = (*x.shape[:-k], *lengths)
        return [ShapedArray(shape, real_dtype(x.dtype), x.weak_type)]
    if x.shape[-k:] != lengths:
        raise _length_error(x, f"{typ.name} trailing dimensions must equal fft_lengths={lengths}")
    return [ShapedArray(x.shape, x.dtype, x.weak_type)]


@impl_rules.register(fft_p)
def _fft_impl(x: Any, *, fft_type: FftType, fft_lengths: tuple[int, ...]) -> list[Any]:
    (out,) = check_operands(fft_p, (x,), {"fft_type": fft_type, "fft_lengths": fft_lengths})
    lengths = tuple(fft_lengths)
    axes = tuple(range(-len(lengths), 0))
    typ = FftType(fft_type)
    if math.prod(out.shape) == 0:
        return [np.zeros(out.shape, out.dtype)]
    if typ == FftType.FFT:
        result: np.ndarray[Any, Any] = np.fft.fftn(x, s=lengths, axes=axes)
    elif typ == FftType.IFFT:
        result = np.fft.ifftn(x, s=lengths, axes=axes)
    elif typ == FftType.RFFT:
        result = np.fft.rfftn(x, s=lengths, axes=axes)
    else:
        result = np.fft.irfftn(x, s=lengths, axes=axes)
    return [np.asarray(result, out.dtype)]
