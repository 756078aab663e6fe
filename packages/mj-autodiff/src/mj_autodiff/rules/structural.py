"""JVP and transpose rules for the structural primitives.

All of them except ``iota`` are linear in their array operands: the JVP applies the primitive
to the tangents, and the transpose moves the cotangent back (``broadcast`` sums, ``slice``
pads, ``pad`` slices, ...).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mj_autodiff._derivatives import Linear, defjvp_zero, deflinear2, derivative_kinds
from mj_autodiff._jvp import jvp_rules
from mj_autodiff._tangents import Tangent, Zero, instantiate_zeros, shape_dtype, tangent_aval_of
from mj_autodiff._transpose import Operand, UndefPrimal, transpose_rules
from mj_core import bind, lax
from mj_core.extend import ArrayLike
from mj_core.prims.structural import (
    broadcast_p,
    concatenate_p,
    dynamic_slice_p,
    dynamic_update_slice_p,
    iota_p,
    optimization_barrier_p,
    pad_p,
    reshape_p,
    rev_p,
    slice_p,
    squeeze_p,
    transpose_p,
)


def _shape_of(x: Operand) -> tuple[int, ...]:
    """The shape of an operand that may be an ``UndefPrimal``."""
    if type(x) is UndefPrimal:
        return x.aval.shape
    return tuple(shape_dtype(x)[0])


def _zeros(shape: tuple[int, ...], like: ArrayLike) -> np.ndarray[Any, Any]:
    """A zero array of ``shape`` with the dtype of the cotangent ``like``."""
    return np.zeros(shape, shape_dtype(like)[1])


# --- broadcast --------------------------------------------------------------------------------
def _broadcast_transpose(
    ct: ArrayLike, x: UndefPrimal, *, shape: tuple[int, ...], broadcast_dimensions: tuple[int, ...]
) -> list[Any]:
    in_shape = x.aval.shape
    dims = set(broadcast_dimensions)
    stretched = [
        d for i, d in enumerate(broadcast_dimensions) if in_shape[i] == 1 and shape[d] != 1
    ]
    axes = tuple(sorted([d for d in range(len(shape)) if d not in dims] + stretched))
    out = lax.reduce_sum(ct, axes) if axes else ct
    return [lax.reshape(out, in_shape)]


deflinear2(broadcast_p, _broadcast_transpose)


# --- reshape / squeeze / transpose / rev ------------------------------------------------------
def _reshape_transpose(ct: ArrayLike, x: UndefPrimal, *, new_sizes: tuple[int, ...]) -> list[Any]:
    return [lax.reshape(ct, x.aval.shape)]


deflinear2(reshape_p, _reshape_transpose)


def _squeeze_transpose(ct: ArrayLike, x: UndefPrimal, *, dimensions: tuple[int, ...]) -> list[Any]:
    return [lax.reshape(ct, x.aval.shape)]


deflinear2(squeeze_p, _squeeze_transpose)


def _transpose_transpose(
    ct: ArrayLike, x: UndefPrimal, *, permutation: tuple[int, ...]
) -> list[Any]:
    return [lax.transpose(ct, tuple(int(i) for i in np.argsort(permutation)))]


deflinear2(transpose_p, _transpose_transpose)


def _rev_transpose(ct: ArrayLike, x: UndefPrimal, *, dimensions: tuple[int, ...]) -> list[Any]:
    return [lax.rev(ct, dimensions)]


deflinear2(rev_p, _rev_transpose)


# --- concatenate ------------------------------------------------------------------------------
def _concatenate_transpose(ct: ArrayLike, *xs: Operand, dimension: int) -> list[Any]:
    out: list[Any] = []
    ndim = len(_shape_of(xs[0]))
    start = 0
    for x in xs:
        size = _shape_of(x)[dimension]
        if type(x) is UndefPrimal:
            starts = [0] * ndim
            limits = list(shape_dtype(ct)[0])
            starts[dimension], limits[dimension] = start, start + size
            out.append(lax.slice(ct, starts, limits))
        else:
            out.append(None)
        start += size
    return out


deflinear2(concatenate_p, _concatenate_transpose)


# --- pad --------------------------------------------------------------------------------------
def _pad_transpose(
    ct: ArrayLike,
    x: Operand,
    padding_value: Operand,
    *,
    padding_config: tuple[tuple[int, int, int], ...],
) -> list[Any]:
    unpad = tuple((-lo, -hi, 0) for lo, hi, _ in padding_config)
    unpadded = lax.pad(ct, 0, unpad)
    shape = shape_dtype(unpadded)[0]
    ct_x = lax.slice(
        unpadded, [0] * len(shape), shape, [interior + 1 for _, _, interior in padding_config]
    )
    ct_pad = None
    if type(padding_value) is UndefPrimal:
        total = lax.reduce_sum(ct, tuple(range(len(shape))))
        ct_pad = lax.sub(total, lax.reduce_sum(ct_x, tuple(range(len(shape)))))
    return [ct_x if type(x) is UndefPrimal else None, ct_pad]


deflinear2(pad_p, _pad_transpose)


def _pad_jvp(
    primals: list[Any], tangents: list[Any], *, padding_config: tuple[tuple[int, int, int], ...]
) -> tuple[list[Any], list[Any]]:
    (x, padding_value), (tx, tp) = primals, tangents
    ans = lax.pad(x, padding_value, padding_config)
    if type(tx) is Zero and type(tp) is Zero:
        return [ans], [Zero(tangent_aval_of(ans))]
    # a Python-scalar padding value has no tangent; pad the tangent with a weak zero
    t_pad = 0 if type(tp) is Zero else tp
    return [ans], [lax.pad(instantiate_zeros(tx), t_pad, padding_config)]


jvp_rules[pad_p] = _pad_jvp


# --- slice ------------------------------------------------------------------------------------
def _slice_transpose(
    ct: ArrayLike,
    x: UndefPrimal,
    *,
    start_indices: tuple[int, ...],
    limit_indices: tuple[int, ...],
    strides: tuple[int, ...] | None,
) -> list[Any]:
    in_shape = x.aval.shape
    ct_shape = shape_dtype(ct)[0]
    if strides is None:
        config = [
            (lo, size - hi, 0)
            for lo, hi, size in zip(start_indices, limit_indices, in_shape, strict=True)
        ]
    else:
        config = []
        for lo, stride, n, size in zip(start_indices, strides, ct_shape, in_shape, strict=True):
            real_limit = lo + (0 if n == 0 else 1 + (n - 1) * stride)
            config.append((lo, size - real_limit, stride - 1))
    return [lax.pad(ct, 0, config)]


deflinear2(slice_p, _slice_transpose)


# --- dynamic_slice / dynamic_update_slice -----------------------------------------------------
def _dynamic_slice_jvp(
    primals: list[Any], tangents: list[Any], *, slice_sizes: tuple[int, ...]
) -> tuple[list[Any], list[Any]]:
    x, *starts = primals
    ans = lax.dynamic_slice(x, starts, slice_sizes)
    t = tangents[0]
    if type(t) is Zero:
        return [ans], [Zero(tangent_aval_of(ans))]
    return [ans], [lax.dynamic_slice(t, starts, slice_sizes)]


def _dynamic_slice_transpose(
    cts: list[Any], x: UndefPrimal, *starts: ArrayLike, slice_sizes: tuple[int, ...]
) -> list[Any]:
    ct = cts[0]
    zeros = _zeros(x.aval.shape, ct)
    return [lax.dynamic_update_slice(zeros, ct, starts), *([None] * len(starts))]


jvp_rules[dynamic_slice_p] = _dynamic_slice_jvp
transpose_rules[dynamic_slice_p] = _dynamic_slice_transpose
derivative_kinds[dynamic_slice_p] = Linear()  # in the arrays, not in the indices


def _dynamic_update_slice_jvp(
    primals: list[Any], tangents: list[Any]
) -> tuple[list[Any], list[Any]]:
    x, update, *starts = primals
    ans = lax.dynamic_update_slice(x, update, starts)
    tx, tu = tangents[0], tangents[1]
    if type(tx) is Zero and type(tu) is Zero:
        return [ans], [Zero(tangent_aval_of(ans))]
    t = lax.dynamic_update_slice(instantiate_zeros(tx), instantiate_zeros(tu), starts)
    return [ans], [t]


def _dynamic_update_slice_transpose(
    cts: list[Any], x: Operand, update: Operand, *starts: ArrayLike
) -> list[Any]:
    ct = cts[0]
    update_shape = _shape_of(update)
    ct_x = None
    if type(x) is UndefPrimal:
        ct_x = lax.dynamic_update_slice(ct, _zeros(update_shape, ct), starts)
    ct_update = None
    if type(update) is UndefPrimal:
        ct_update = lax.dynamic_slice(ct, starts, update_shape)
    return [ct_x, ct_update, *([None] * len(starts))]


jvp_rules[dynamic_update_slice_p] = _dynamic_update_slice_jvp
transpose_rules[dynamic_update_slice_p] = _dynamic_update_slice_transpose
derivative_kinds[dynamic_update_slice_p] = Linear()  # in the arrays, not in the indices


# --- iota (no operands: a constant) -----------------------------------------------------------
defjvp_zero(iota_p)


def _optimization_barrier_jvp(
    primals: list[ArrayLike], tangents: list[Tangent]
) -> tuple[list[ArrayLike], list[Tangent]]:
    """Primals and tangents each behind a barrier of their own, as JAX's."""
    return bind(optimization_barrier_p, *primals), bind(
        optimization_barrier_p, *[instantiate_zeros(t) for t in tangents]
    )


def _optimization_barrier_transpose(cts: list[Tangent], *xs: Operand) -> list[ArrayLike]:
    del xs
    return bind(optimization_barrier_p, *[instantiate_zeros(ct) for ct in cts])


jvp_rules[optimization_barrier_p] = _optimization_barrier_jvp
transpose_rules[optimization_barrier_p] = _optimization_barrier_transpose
derivative_kinds[optimization_barrier_p] = Linear()
