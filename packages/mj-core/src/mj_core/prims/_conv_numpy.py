"""The NumPy computation behind ``conv_general_dilated``'s impl rule
(:mod:`mj_core.prims.convolution`), in the canonical layout ``lhs = (N, C, *S)``,
``rhs = (O, I, *K)``: dilate and pad the input, then one strided window view of it (no copy)
and one batched matmul per feature or batch group.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

__all__ = ["canonical_conv", "dilate_and_pad", "dilate_dim"]


def dilate_dim(size: int, dilation: int) -> int:
    """The size of a dimension after inserting ``dilation - 1`` zeros between elements."""
    return 0 if size == 0 else 1 + dilation * (size - 1)


def dilate_and_pad(
    x: np.ndarray, lhs_dilation: Sequence[int], padding: Sequence[tuple[int, int]]
) -> np.ndarray:
    """``x = (N, C, *S)`` with zeros inserted between spatial elements, then padded (a
    negative pad crops)."""
    if any(d != 1 for d in lhs_dilation):
        dilated_shape = (
            *x.shape[:2],
            *(dilate_dim(s, d) for s, d in zip(x.shape[2:], lhs_dilation, strict=True)),
        )
        dilated = np.zeros(dilated_shape, x.dtype)
        every: tuple[slice, ...] = tuple(slice(None, None, d) for d in lhs_dilation)
        dilated[(slice(None), slice(None), *every)] = x
        x = dilated
    if any(lo != 0 or hi != 0 for lo, hi in padding):
        widths = [(0, 0), (0, 0), *((max(lo, 0), max(hi, 0)) for lo, hi in padding)]
        x = np.pad(x, widths)
        crop = tuple(
            slice(max(-lo, 0), size - max(-hi, 0))
            for (lo, hi), size in zip(padding, x.shape[2:], strict=True)
        )
        x = x[(slice(None), slice(None), *crop)]
    return x


def canonical_conv(
    x: np.ndarray,
    w: np.ndarray,
    out_shape: tuple[int, ...],
    window_strides: Sequence[int],
    rhs_dilation: Sequence[int],
    feature_group_count: int,
    batch_group_count: int,
) -> np.ndarray:
    """The convolution of padded ``x = (N, C, *S)`` with ``w = (O, I, *K)``: one strided
    window view of ``x`` (no copy) and one batched matmul per group."""
    nsp = x.ndim - 2
    if 0 in out_shape or 0 in w.shape or 0 in x.shape:
        return np.zeros(out_shape, x.dtype)
    window = tuple(dilate_dim(k, d) for k, d in zip(w.shape[2:], rhs_dilation, strict=True))
    patches = sliding_window_view(x, window, axis=tuple(range(2, 2 + nsp)))
    patches = patches[
        (
            slice(None),
            slice(None),
            *(slice(None, None, s) for s in window_strides),
            *(slice(None, None, d) for d in rhs_dilation),
        )
    ]  # (N, C, *S', *K)
    spatial_out = patches.shape[2 : 2 + nsp]
    n, c = x.shape[:2]
    o, i = w.shape[:2]
    groups = feature_group_count * batch_group_count  # at most one of them is > 1
    ksize = math.prod(w.shape[2:])
    npix = math.prod(spatial_out)
    if batch_group_count > 1:  # lhs batch split (group, N'): group g meets kernels g
        grouped = np.reshape(patches, (groups, n // groups, c, npix, ksize))
    else:  # lhs features split (group, I)
        grouped = np.reshape(patches, (n, groups, i, npix, ksize))
        grouped = np.moveaxis(grouped, 1, 0)  # (G, N, I, P, K)
    nb = grouped.shape[1]
    cols = np.reshape(np.transpose(grouped, (0, 1, 3, 2, 4)), (groups, nb * npix, i * ksize))
    kernels = np.reshape(w, (groups, o // groups, i * ksize))
    out = np.matmul(cols, np.transpose(kernels, (0, 2, 1)))  # (G, N'*P, Og)
    out = np.reshape(out, (groups, nb, *spatial_out, o // groups))
    out = np.moveaxis(out, -1, 1)  # (G, Og, N', *S')
    out = np.reshape(np.moveaxis(out, 2, 0), (nb, o, *spatial_out))
    return out
