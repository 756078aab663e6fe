"""``mj.scipy.signal``: N-dimensional ``convolve`` and ``correlate`` with SciPy's modes.

Both are one ``conv_general_dilated`` (a single batch and feature dimension), so they
differentiate, batch and compile; the kernel is flipped for ``convolve`` and conjugated for
``correlate``. ``method`` is accepted as in SciPy/JAX (``"auto"``, ``"direct"``, ``"fft"``);
mj always computes directly, which agrees with the FFT method to rounding.
"""

from __future__ import annotations

import mj_core.numpy as mnp
from mj_core import lax
from mj_core.extend import Array, ArrayLike, promote_inexact
from mj_core.lax import PrecisionLike

__all__ = ["convolve", "correlate"]

_MODES = ("full", "same", "valid")


def _convolve_nd(
    in1: ArrayLike, in2: ArrayLike, mode: str, method: str, precision: PrecisionLike
) -> Array:
    if mode not in _MODES:
        raise ValueError(f"mode must be one of {list(_MODES)}")
    if method not in ("auto", "direct", "fft"):
        raise ValueError(f"Got {method=}; expected 'auto', 'fft', or 'direct'.")
    x1, x2 = promote_inexact(mnp.asarray(in1), mnp.asarray(in2))
    shape1, shape2 = mnp.shape(x1), mnp.shape(x2)
    if len(shape1) != len(shape2):
        raise ValueError("in1 and in2 must have the same number of dimensions")
    if mnp.size(x1) == 0 or mnp.size(x2) == 0:
        raise ValueError(
            f"zero-size arrays not supported in convolutions, got shapes {shape1} and {shape2}."
        )
    bigger1 = all(a >= b for a, b in zip(shape1, shape2, strict=True))
    bigger2 = all(a <= b for a, b in zip(shape1, shape2, strict=True))
    if not (bigger1 or bigger2):
        raise ValueError("One input must be smaller than the other in every dimension.")
    kernel_shape_for_same = shape2  # SciPy centres "same" output on in1
    if not bigger1:
        x1, x2 = x2, x1
    kernel = mnp.flip(x2)
    k_shape = mnp.shape(kernel)
    if mode == "valid":
        padding = [(0, 0)] * len(k_shape)
    elif mode == "same":
        padding = [
            (k - 1 - (o - 1) // 2, k - o + (o - 1) // 2)
            for k, o in zip(k_shape, kernel_shape_for_same, strict=True)
        ]
    else:
        padding = [(k - 1, k - 1) for k in k_shape]
    out = lax.conv_general_dilated(
        x1[None, None], kernel[None, None], (1,) * len(k_shape), padding, precision=precision
    )
    return out[0, 0]


def convolve(
    in1: ArrayLike,
    in2: ArrayLike,
    mode: str = "full",
    method: str = "auto",
    precision: PrecisionLike = None,
) -> Array:
    """The N-d convolution of ``in1`` and ``in2`` (one must be at least as large as the
    other in every dimension). ``mode``: ``"full"``, ``"same"`` (the size of ``in1``) or
    ``"valid"``."""
    return _convolve_nd(in1, in2, mode, method, precision)


def correlate(
    in1: ArrayLike,
    in2: ArrayLike,
    mode: str = "full",
    method: str = "auto",
    precision: PrecisionLike = None,
) -> Array:
    """The N-d cross-correlation: ``convolve(in1, flip(conj(in2)))``."""
    in2 = mnp.flip(mnp.conj(mnp.asarray(in2)))
    return _convolve_nd(in1, in2, mode, method, precision)
