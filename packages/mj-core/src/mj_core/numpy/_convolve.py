"""``convolve`` and ``correlate`` of 1-d arrays: one ``conv_general_dilated`` each, with the
output window (``full``/``same``/``valid``) chosen by the padding."""

from __future__ import annotations

import numpy as np

from mj_core import lax
from mj_core._typing import Array, ArrayLike, DTypeLike
from mj_core.numpy._math import conjugate
from mj_core.numpy._promotion import (
    check_arraylike,
    dtype_weak,
    promote,
    promote_inexact,
    shape_of,
)
from mj_core.prims.contractions import PrecisionLike

__all__ = ["convolve", "correlate"]


def _conv1d(
    x: ArrayLike,
    y: ArrayLike,
    mode: str,
    op: str,
    precision: PrecisionLike,
    preferred_element_type: DTypeLike | None,
) -> Array:
    if preferred_element_type is not None:
        preferred_element_type = np.dtype(preferred_element_type)
    check_arraylike(op, [x, y])
    if len(shape_of(x)) != 1 or len(shape_of(y)) != 1:
        raise ValueError(
            f"{op}() only supports 1-dimensional inputs, got shapes {shape_of(x)} and {shape_of(y)}"
        )
    # NumPy computes convolutions in floating point unless told otherwise
    x, y = promote_inexact(x, y) if preferred_element_type is None else promote(x, y)
    (nx,), (ny,) = shape_of(x), shape_of(y)
    if nx == 0 or ny == 0:
        raise ValueError(f"{op}: inputs cannot be empty, got shapes {(nx,)} and {(ny,)}.")
    reverse_out = False
    if op == "correlate":
        if dtype_weak(y)[0].kind == "c":
            y = conjugate(y)
        if nx < ny:
            x, y, reverse_out = y, x, True
    else:
        if nx < ny:
            x, y = y, x
        y = lax.rev(y, (0,))
    n = shape_of(y)[0]
    pads = {"valid": (0, 0), "same": (n // 2, n - n // 2 - 1), "full": (n - 1, n - 1)}
    if mode not in pads:
        raise ValueError(f"{op}: mode must be one of ['full', 'same', 'valid'], got {mode!r}")
    out = lax.conv_general_dilated(
        lax.reshape(x, (1, 1, shape_of(x)[0])),
        lax.reshape(y, (1, 1, n)),
        (1,),
        [pads[mode]],
        precision=precision,
        preferred_element_type=preferred_element_type,
    )
    out = lax.reshape(out, (shape_of(out)[2],))
    return lax.rev(out, (0,)) if reverse_out else out


def convolve(
    a: ArrayLike,
    v: ArrayLike,
    mode: str = "full",
    *,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
) -> Array:
    """NumPy ``convolve``: ``out[k] = sum_j a[j] v[k - j]`` (``mode`` full, same or valid)."""
    return _conv1d(a, v, mode, "convolve", precision, preferred_element_type)


def correlate(
    a: ArrayLike,
    v: ArrayLike,
    mode: str = "valid",
    *,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
) -> Array:
    """NumPy ``correlate``: ``out[k] = sum_j a[k + j] conj(v[j])`` (default mode valid)."""
    return _conv1d(a, v, mode, "correlate", precision, preferred_element_type)
