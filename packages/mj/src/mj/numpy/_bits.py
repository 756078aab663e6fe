"""``packbits``/``unpackbits``: booleans packed eight to a ``uint8`` and back, with shifts
and masks (no data-dependent shapes, so both trace)."""

from __future__ import annotations

import numpy as np

import mj_core.numpy as cnp
from mj_core import lax
from mj_core.extend import (
    Array,
    ArrayLike,
    canonicalize_axis,
    check_arraylike,
    static_int,
)

__all__ = ["packbits", "unpackbits"]


def _check_bitorder(name: str, bitorder: str) -> None:
    if bitorder not in ("little", "big"):
        raise ValueError(f"{name}: bitorder must be either 'little' or 'big', got {bitorder!r}")


def _bit_positions(bitorder: str) -> Array:
    """The shift of each of the 8 bits of a byte, most significant first for ``'big'``."""
    shifts = lax.iota(np.uint8, 8)
    return lax.rev(shifts, (0,)) if bitorder == "big" else shifts


def packbits(a: ArrayLike, axis: int | None = None, bitorder: str = "big") -> Array:
    """The truth values of ``a`` packed into ``uint8`` bytes along ``axis`` (``None``: the
    flattened array), padding the last byte with zero bits."""
    check_arraylike("packbits", [a])
    arr = cnp.asarray(a)
    if cnp.result_type(arr).kind not in "iub":
        raise TypeError(
            "packbits: expected an input array of integer or boolean data type, got "
            f"{cnp.result_type(arr)}"
        )
    _check_bitorder("packbits", bitorder)
    bits = lax.convert_element_type(lax.ne(arr, cnp.zeros_like(arr)), np.uint8)
    if axis is None:
        bits, axis = cnp.ravel(bits), 0
    axis = canonicalize_axis("packbits", axis, cnp.ndim(bits))
    bits = cnp.swapaxes(bits, axis, -1)
    shape = cnp.shape(bits)
    remainder = shape[-1] % 8
    if remainder:
        widths = [(0, 0, 0)] * (len(shape) - 1) + [(0, 8 - remainder, 0)]
        bits = lax.pad(bits, np.uint8(0), widths)
    bytes_ = cnp.reshape(bits, (*shape[:-1], -(-shape[-1] // 8), 8))
    # the shifted bits are disjoint, so their uint8 sum is their bitwise or
    packed = lax.reduce_sum(lax.shift_left(bytes_, _bit_positions(bitorder)), (len(shape),))
    return cnp.swapaxes(packed, axis, -1)


def unpackbits(
    a: ArrayLike, axis: int | None = None, count: int | None = None, bitorder: str = "big"
) -> Array:
    """The bits of the ``uint8`` array ``a`` as 0/1 ``uint8`` values along ``axis`` (``None``:
    the flattened array); ``count`` keeps that many bits (negative: drops them from the end,
    larger than available: pads with zeros)."""
    check_arraylike("unpackbits", [a])
    arr = cnp.asarray(a)
    if cnp.result_type(arr) != np.uint8:
        raise TypeError(
            "unpackbits: expected an input array of unsigned byte (uint8) data type, got "
            f"{cnp.result_type(arr)}"
        )
    _check_bitorder("unpackbits", bitorder)
    masks = lax.shift_left(np.uint8(1), _bit_positions(bitorder))
    if axis is None:
        arr, axis = cnp.ravel(arr), 0
    axis = canonicalize_axis("unpackbits", axis, cnp.ndim(arr))
    arr = cnp.swapaxes(arr, axis, -1)
    shape = cnp.shape(arr)
    bits = lax.ne(lax.bitwise_and(cnp.expand_dims(arr, -1), masks), np.uint8(0))
    bits = cnp.reshape(lax.convert_element_type(bits, np.uint8), (*shape[:-1], shape[-1] * 8))
    if count is not None:
        count = static_int("unpackbits", count, "count")
        available = shape[-1] * 8
        if count > available:
            widths = [(0, 0, 0)] * (len(shape) - 1) + [(0, count - available, 0)]
            bits = lax.pad(bits, np.uint8(0), widths)
        else:
            bits = bits[..., :count]
    return cnp.swapaxes(bits, axis, -1)
