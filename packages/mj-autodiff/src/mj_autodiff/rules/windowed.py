"""JVP and transpose rules of the windowed reductions.

``reduce_window_sum`` is linear; its transpose (JAX's) pads the cotangent as a transposed
convolution's input gradient (``window_strides - 1`` zeros between elements) and sums the
windows again, striding by ``base_dilation``.

``reduce_window_max``/``reduce_window_min`` pass on the tangent of the element each window
chose. JAX does this with a dedicated ``select_and_gather_add`` primitive; here every window
of the padded operand and tangent is gathered (static indices, so ``gather``'s own rules give
the transpose, a ``scatter_add``, and batching), the first maximum (minimum) of each window
is located with ``argmax`` (``argmin``), and its tangent kept.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from mj_autodiff._derivatives import defjvp2, deflinear2
from mj_autodiff._tangents import shape_dtype
from mj_autodiff._transpose import UndefPrimal
from mj_autodiff.rules.convolution import lhs_transpose_padding
from mj_core import bind1, lax
from mj_core.extend import Array, ArrayLike
from mj_core.prims.indexing import GatherDimensionNumbers
from mj_core.prims.reductions import reduction_identity
from mj_core.prims.windowed import (
    reduce_window_max_p,
    reduce_window_min_p,
    reduce_window_sum_p,
    window_padding_config,
)


def _reduce_window_sum_transpose(
    ct: ArrayLike,
    x: UndefPrimal,
    *,
    window_dimensions: tuple[int, ...],
    window_strides: tuple[int, ...],
    padding: tuple[tuple[int, int], ...],
    base_dilation: tuple[int, ...],
    window_dilation: tuple[int, ...],
) -> list[Array]:
    in_shape = x.aval.shape
    out_shape, _ = shape_dtype(ct)
    as_conv = {
        "lhs_dilation": base_dilation,
        "rhs_dilation": window_dilation,
        "window_strides": window_strides,
        "padding": padding,
    }
    pads = lhs_transpose_padding(in_shape, window_dimensions, out_shape, as_conv)
    config = [(lo, hi, s - 1) for (lo, hi), s in zip(pads, window_strides, strict=True)]
    padded = lax.pad(ct, lax.convert_element_type(0, x.aval.dtype), config)
    ones = (1,) * len(in_shape)
    result = bind1(
        reduce_window_sum_p,
        padded,
        window_dimensions=window_dimensions,
        window_strides=base_dilation,
        padding=((0, 0),) * len(in_shape),
        base_dilation=ones,
        window_dilation=window_dilation,
    )
    return [result]


deflinear2(reduce_window_sum_p, _reduce_window_sum_transpose)


def _window_indices(
    padded_shape: tuple[int, ...],
    out_shape: tuple[int, ...],
    window_dimensions: tuple[int, ...],
    window_strides: tuple[int, ...],
    window_dilation: tuple[int, ...],
) -> np.ndarray[Any, Any]:
    """``idx[*o, k]``: the position in the padded operand of element ``k`` (row-major over
    the window) of output ``o``'s window; shape ``(*out_shape, K, ndim)``."""
    ndim = len(padded_shape)
    starts = np.indices(out_shape).reshape(ndim, -1).T * np.asarray(window_strides)
    offsets = np.indices(window_dimensions).reshape(ndim, -1).T * np.asarray(window_dilation)
    idx = starts[:, None, :] + offsets[None, :, :]
    return np.ascontiguousarray(idx.reshape((*out_shape, offsets.shape[0], ndim)).astype(np.int64))


def _chooser_jvp(name: str) -> Callable[..., ArrayLike]:
    def tangent(
        g: ArrayLike,
        ans: ArrayLike,
        x: ArrayLike,
        *,
        window_dimensions: tuple[int, ...],
        window_strides: tuple[int, ...],
        padding: tuple[tuple[int, int], ...],
        base_dilation: tuple[int, ...],
        window_dilation: tuple[int, ...],
    ) -> ArrayLike:
        shape, dtype = shape_dtype(x)
        out_shape, _ = shape_dtype(ans)
        ndim = len(shape)
        if ndim == 0:
            return g
        config = window_padding_config(padding, base_dilation)
        identity = reduction_identity(name, dtype)
        xp = lax.pad(x, identity, config)
        gp = lax.pad(g, lax.convert_element_type(0, dtype), config)
        padded_shape, _ = shape_dtype(xp)
        idx = _window_indices(
            padded_shape, out_shape, window_dimensions, window_strides, window_dilation
        )
        dnums = GatherDimensionNumbers(
            offset_dims=(), collapsed_slice_dims=tuple(range(ndim)),
            start_index_map=tuple(range(ndim)),
        )  # fmt: skip
        ones = (1,) * ndim

        def windows(v: ArrayLike) -> Array:
            return lax.gather(v, idx, dnums, ones, mode="promise_in_bounds")

        axis = len(out_shape)
        choose = lax.argmax if name == "max" else lax.argmin
        chosen = choose(windows(xp), axis, np.int32)
        k = idx.shape[-2]
        position = lax.broadcasted_iota(np.int32, (*out_shape, k), axis)
        hit = lax.eq(position, lax.broadcast_in_dim(chosen, (*out_shape, k), tuple(range(axis))))
        picked = lax.select(hit, windows(gp), lax.full((*out_shape, k), 0, dtype))
        return lax.reduce_sum(picked, (axis,))

    tangent.__name__ = f"_reduce_window_{name}_jvp"
    return tangent


defjvp2(reduce_window_max_p, _chooser_jvp("max"))
defjvp2(reduce_window_min_p, _chooser_jvp("min"))
