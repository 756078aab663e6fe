"""Output shapes of convolutions and windowed reductions, as JAX's public helpers
(``lax.conv_shape_tuple``, ``conv_general_shape_tuple``, ``conv_transpose_shape_tuple``,
``reduce_window_shape_tuple``): layers and pooling code size their parameters with them
before any array exists. Pure integer arithmetic; no primitive is bound."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mj_core.convolution import (
    _conv_transpose_padding,
    conv_dimension_numbers,
    padtype_to_pads,
)

__all__ = [
    "conv_general_shape_tuple",
    "conv_shape_tuple",
    "conv_transpose_shape_tuple",
    "reduce_window_shape_tuple",
]

Shape = tuple[int, ...]


def _stride_dim(size: int, window: int, stride: int) -> int:
    """How many windows of ``window`` fit in ``size`` at step ``stride`` (0 if none)."""
    return max(0, (size - window) // stride + 1)


def _dilate(shape: Sequence[int], dilation: Sequence[int]) -> Shape:
    return tuple(0 if d == 0 else 1 + r * (d - 1) for d, r in zip(shape, dilation, strict=True))


def conv_shape_tuple(
    lhs_shape: Sequence[int],
    rhs_shape: Sequence[int],
    strides: Sequence[int],
    pads: str | Sequence[tuple[int, int]],
    batch_group_count: int = 1,
) -> Shape:
    """Output shape of a convolution with operands in ``NC...``/``OI...`` order."""
    if isinstance(pads, str):
        pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    if len(pads) != len(lhs_shape) - 2:
        raise TypeError(
            "Wrong number of explicit pads for convolution: expected "
            f"{len(lhs_shape) - 2}, got {len(pads)}."
        )
    padded = [d + lo + hi for d, (lo, hi) in zip(lhs_shape[2:], pads, strict=True)]
    if any(d < 0 for d in padded):
        raise ValueError(
            "Negative padding is larger than the size of the corresponding dimension: got "
            f"padding={list(pads)} for lhs_shape[2:]={tuple(lhs_shape[2:])}"
        )
    space = tuple(
        _stride_dim(d, k, s) for d, k, s in zip(padded, rhs_shape[2:], strides, strict=True)
    )
    batch = lhs_shape[0] // batch_group_count if batch_group_count > 1 else lhs_shape[0]
    return (int(batch), int(rhs_shape[0]), *space)


def _permuted(shape: Sequence[int], perm: Sequence[int]) -> Shape:
    return tuple(int(shape[i]) for i in perm)


def _unpermuted(shape: Sequence[int], perm: Sequence[int]) -> Shape:
    out = [0] * len(perm)
    for size, i in zip(shape, perm, strict=True):
        out[i] = size
    return tuple(out)


def conv_general_shape_tuple(
    lhs_shape: Sequence[int],
    rhs_shape: Sequence[int],
    window_strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    dimension_numbers: Any,
) -> Shape:
    """Output shape of ``conv_general_dilated`` (without dilation) for the layouts in
    ``dimension_numbers`` (``("NHWC", "HWIO", "NHWC")`` or a ``ConvDimensionNumbers``)."""
    lhs_spec, rhs_spec, out_spec = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    out = conv_shape_tuple(
        _permuted(lhs_shape, lhs_spec), _permuted(rhs_shape, rhs_spec), window_strides, padding
    )
    return _unpermuted(out, out_spec)


def conv_transpose_shape_tuple(
    lhs_shape: Sequence[int],
    rhs_shape: Sequence[int],
    window_strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    dimension_numbers: Any,
) -> Shape:
    """Output shape of ``conv_transpose`` for the layouts in ``dimension_numbers``."""
    lhs_spec, rhs_spec, out_spec = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    lhs, rhs = _permuted(lhs_shape, lhs_spec), _permuted(rhs_shape, rhs_spec)
    if isinstance(padding, str):
        padding = [
            _conv_transpose_padding(k, s, padding)
            for k, s in zip(rhs[2:], window_strides, strict=True)
        ]
    space = tuple(
        (i - 1) * s - k + 2 + sum(p)
        for i, k, s, p in zip(lhs[2:], rhs[2:], window_strides, padding, strict=True)
    )
    return _unpermuted((lhs[0], rhs[0], *space), out_spec)


def reduce_window_shape_tuple(
    operand_shape: Sequence[int],
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    padding: Sequence[tuple[int, int]],
    base_dilation: Sequence[int] | None = None,
    window_dilation: Sequence[int] | None = None,
) -> Shape:
    """Output shape of ``reduce_window`` (explicit ``(lo, hi)`` padding per dimension)."""
    if base_dilation is not None:
        operand_shape = _dilate(operand_shape, base_dilation)
    if window_dilation is not None:
        window_dimensions = _dilate(window_dimensions, window_dilation)
    padded = [d + lo + hi for d, (lo, hi) in zip(operand_shape, padding, strict=True)]
    return tuple(
        _stride_dim(d, w, s)
        for d, w, s in zip(padded, window_dimensions, window_strides, strict=True)
    )
