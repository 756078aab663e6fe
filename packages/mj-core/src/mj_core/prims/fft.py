"""``fft``: fast Fourier transforms over the trailing ``len(fft_lengths)`` dimensions.

Params as ``jax.lax.fft_p``: ``fft_type`` (:class:`FftType`: complex-to-complex ``FFT`` and
``IFFT``, real-to-complex ``RFFT``, complex-to-real ``IRFFT``) and ``fft_lengths`` (the
logical sizes of the transformed dimensions). Results keep the operand precision: NumPy's
``np.fft`` computes in complex128, so complex64/float32 results are cast back, as XLA's are.

The lax wrapper ``fft`` (``fft_type`` by name or value) follows the rules; ``__all__`` is the
family's primitives and lax API.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from mj_core._avals import ShapedArray
from mj_core._primitive import Primitive, abstract_eval_rules, impl_rules
from mj_core._shapes import aval_error, int_tuple
from mj_core._typing import Array, ArrayLike
from mj_core.dtypes import dtype_of
from mj_core.prims._operands import bind1, check_operands
from mj_core.prims.complex import complex_dtype, real_dtype
from mj_core.prims.conversions import convert_element_type

__all__ = [
    "FftType",
    "fft",
    "fft_p",
]


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


@abstract_eval_rules.register(fft_p)
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


# --- lax wrappers ----------------------------------------------------------------------------
def fft(x: ArrayLike, fft_type: FftType | str, fft_lengths: Sequence[int]) -> Array:
    """The FFT of ``x`` over its trailing ``len(fft_lengths)`` dims, as ``jax.lax.fft``:
    ``x`` is first converted to the complex (``RFFT``: inexact) dtype the transform needs."""
    if isinstance(fft_type, str):
        names = {t.name: t for t in FftType}
        if fft_type.upper() not in names:
            raise ValueError(f"fft: unknown fft_type {fft_type!r}; expected one of {list(names)}")
        typ = names[fft_type.upper()]
    else:
        typ = FftType(fft_type)
    dtype = dtype_of(x)
    # bool and integer inputs compute in float64, as NumPy's np.fft does (JAX: float32 for
    # integers of up to 32 bits; mj follows NumPy for integer -> float, DESIGN.md section 2)
    inexact = dtype if dtype.kind in "fc" else np.dtype(np.float64)
    if typ == FftType.RFFT:
        if dtype.kind == "c":
            raise ValueError("fft: only real valued inputs are supported for RFFT")
        new = inexact
    else:
        new = complex_dtype(inexact)
    x = convert_element_type(x, new)
    lengths = int_tuple("fft", "fft_lengths", fft_lengths)
    if not lengths:
        return x
    return bind1(fft_p, x, fft_type=typ, fft_lengths=lengths)
