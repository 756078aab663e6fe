"""JVP and transpose rules of ``fft`` (linear in its operand), following JAX's
``_fft_transpose_rule``: the DFT matrix is symmetric, so ``FFT``/``IFFT`` transpose to
themselves; ``RFFT`` transposes as its naive form ``FFT(complex(x))[..., :n//2+1]`` does;
``IRFFT`` transposes to a masked, scaled ``RFFT``, conjugated (JAX's complex convention)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mj_autodiff._derivatives import deflinear2
from mj_autodiff._tangents import shape_dtype
from mj_autodiff._transpose import UndefPrimal
from mj_core import lax
from mj_core.extend import Array, ArrayLike
from mj_core.prims.fft import FftType, fft_p


def _rfft_transpose(ct: ArrayLike, lengths: tuple[int, ...]) -> Array:
    shape, _ = shape_dtype(ct)
    n = lengths[-1]
    # transpose of the slice to n // 2 + 1: zero-pad back to n
    config = [(0, 0, 0)] * (len(shape) - 1) + [(0, n - shape[-1], 0)]
    full = lax.pad(ct, 0.0, config)
    # transpose of FFT is FFT; transpose of the real -> complex conversion is the real part
    return lax.real(lax.fft(full, FftType.FFT, lengths))


def _irfft_transpose(ct: ArrayLike, lengths: tuple[int, ...]) -> Array:
    x = lax.fft(ct, FftType.RFFT, lengths)
    shape, dtype = shape_dtype(x)
    n = shape[-1]
    odd = lengths[-1] % 2
    # the Hermitian-duplicated bins (all but the first and, for even n, the last) count twice
    mask = np.full((n,), 2.0, dtype)
    mask[0] = 1.0
    if not odd:
        mask[-1] = 1.0
    out = lax.mul(x, mask / math.prod(lengths))
    return lax.conj(out)


def _fft_transpose(
    ct: ArrayLike, x: UndefPrimal, *, fft_type: FftType, fft_lengths: tuple[int, ...]
) -> list[Any]:
    if fft_type == FftType.RFFT:
        return [_rfft_transpose(ct, fft_lengths)]
    if fft_type == FftType.IRFFT:
        return [_irfft_transpose(ct, fft_lengths)]
    return [lax.fft(ct, fft_type, fft_lengths)]


deflinear2(fft_p, _fft_transpose)
