"""``conv_general_dilated``: XLA's N-d convolution with strides, padding, input (lhs) and
kernel (rhs) dilation, and feature/batch grouping.

Params are already resolved (the ``mj_core.lax`` wrappers turn ``"SAME"`` and dimension
strings into numbers): ``padding`` is one ``(lo, hi)`` pair per spatial dimension (negative
values crop), and ``dimension_numbers`` is a :class:`ConvDimensionNumbers` saying where the
batch, feature and spatial dimensions of lhs, rhs and output are. In the canonical order
``lhs = (N, C, *S)``, ``rhs = (O, I, *K)``, ``out = (N', O, *S')``, the output is

``out[n, g*Og + o, *p] = sum_{i, *k} lhs_padded[n, g*I + i, *(p*stride + k*rhs_dilation)]
* rhs[g*Og + o, i, *k]``

with ``g`` the feature group (or, for batch groups, ``n`` running over one group of the lhs
batch: ``lhs[g*N' + n]``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from mj_core.avals import ShapedArray
from mj_core.primitive import Primitive, impl_rules
from mj_core.prims.out_avals import check_operands, common_dtype, out_aval_rules
from mj_core.shapes import aval_error

__all__ = ["ConvDimensionNumbers", "conv_general_dilated_p", "dilate_dim"]

_NAME = "conv_general_dilated"


class ConvDimensionNumbers(NamedTuple):
    """Where the dimensions of a convolution's operands and output are.

    ``lhs_spec`` and ``out_spec`` are ``(batch dim, feature dim, *spatial dims)``;
    ``rhs_spec`` is ``(out feature dim, in feature dim, *spatial dims)``. Spatial dims are
    listed in the same (kernel) order in all three.
    """

    lhs_spec: tuple[int, ...]
    rhs_spec: tuple[int, ...]
    out_spec: tuple[int, ...]


conv_general_dilated_p = Primitive(_NAME)


def dilate_dim(size: int, dilation: int) -> int:
    """The size of a dimension after inserting ``dilation - 1`` zeros between elements."""
    return 0 if size == 0 else 1 + dilation * (size - 1)


def _check_params(
    avals: tuple[ShapedArray, ShapedArray],
    window_strides: Sequence[int],
    padding: Sequence[tuple[int, int]],
    lhs_dilation: Sequence[int],
    rhs_dilation: Sequence[int],
    dimension_numbers: ConvDimensionNumbers,
) -> None:
    lhs, rhs = avals
    if lhs.ndim != rhs.ndim:
        raise aval_error(_NAME, "lhs and rhs must have the same rank", avals)
    if lhs.ndim < 2:
        raise aval_error(_NAME, "operands must have rank >= 2 (batch and feature dims)", avals)
    if not isinstance(dimension_numbers, ConvDimensionNumbers):
        raise aval_error(
            _NAME,
            f"dimension_numbers must be a ConvDimensionNumbers, got {dimension_numbers!r}",
            avals,
        )
    for name, spec in zip(("lhs_spec", "rhs_spec", "out_spec"), dimension_numbers, strict=True):
        if sorted(spec) != list(range(lhs.ndim)):
            raise aval_error(
                _NAME,
                f"dimension_numbers.{name}={tuple(spec)} must be a permutation of "
                f"range({lhs.ndim})",
                avals,
            )
    nspatial = lhs.ndim - 2
    for name, value in (
        ("window_strides", window_strides),
        ("padding", padding),
        ("lhs_dilation", lhs_dilation),
        ("rhs_dilation", rhs_dilation),
    ):
        if len(value) != nspatial:
            raise aval_error(
                _NAME,
                f"{name}={tuple(value)} must have one entry per spatial dimension ({nspatial})",
                avals,
            )
    for name, value in (
        ("window_strides", window_strides),
        ("lhs_dilation", lhs_dilation),
        ("rhs_dilation", rhs_dilation),
    ):
        if any(v < 1 for v in value):
            raise aval_error(_NAME, f"{name}={tuple(value)} must be positive", avals)


def _check_groups(
    avals: tuple[ShapedArray, ShapedArray],
    lhs_shape: tuple[int, ...],
    rhs_shape: tuple[int, ...],
    feature_group_count: int,
    batch_group_count: int,
) -> None:
    """Group counts against the canonical-order shapes ``(N, C, ...)`` and ``(O, I, ...)``."""
    n, c = lhs_shape[:2]
    o, i = rhs_shape[:2]
    if feature_group_count < 1 or batch_group_count < 1:
        raise aval_error(
            _NAME,
            f"feature_group_count={feature_group_count} and batch_group_count="
            f"{batch_group_count} must be positive integers",
            avals,
        )
    if feature_group_count > 1 and batch_group_count > 1:
        raise aval_error(
            _NAME,
            f"at most one of feature_group_count={feature_group_count} and "
            f"batch_group_count={batch_group_count} may be > 1",
            avals,
        )
    if c % feature_group_count or c // feature_group_count != i:
        raise aval_error(
            _NAME,
            f"lhs feature dimension size {c} divided by feature_group_count="
            f"{feature_group_count} must equal the rhs input feature dimension size {i}",
            avals,
        )
    for count, what in ((feature_group_count, "feature"), (batch_group_count, "batch")):
        if o % count:
            raise aval_error(
                _NAME,
                f"rhs output feature dimension size {o} must be a multiple of "
                f"{what}_group_count={count}",
                avals,
            )
    if n % batch_group_count:
        raise aval_error(
            _NAME,
            f"batch_group_count={batch_group_count} must divide the lhs batch dimension size {n}",
            avals,
        )


@out_aval_rules.register(conv_general_dilated_p)
def _conv_general_dilated_avals(
    lhs: ShapedArray,
    rhs: ShapedArray,
    *,
    window_strides: tuple[int, ...],
    padding: tuple[tuple[int, int], ...],
    lhs_dilation: tuple[int, ...],
    rhs_dilation: tuple[int, ...],
    dimension_numbers: ConvDimensionNumbers,
    feature_group_count: int,
    batch_group_count: int,
    precision: Any = None,
    preferred_element_type: np.dtype[Any] | None = None,
) -> list[ShapedArray]:
    avals = (lhs, rhs)
    _check_params(avals, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers)
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    lhs_shape = tuple(lhs.shape[d] for d in lhs_spec)
    rhs_shape = tuple(rhs.shape[d] for d in rhs_spec)
    _check_groups(avals, lhs_shape, rhs_shape, feature_group_count, batch_group_count)
    dtype, weak = common_dtype(_NAME, avals)
    if preferred_element_type is not None:
        dtype, weak = np.dtype(preferred_element_type), False
    spatial = []
    for size, k, (lo, hi), s, ld, rd in zip(
        lhs_shape[2:],
        rhs_shape[2:],
        padding,
        window_strides,
        lhs_dilation,
        rhs_dilation,
        strict=True,
    ):
        padded = dilate_dim(size, ld) + lo + hi
        if padded < 0:
            raise aval_error(
                _NAME,
                f"negative padding {(lo, hi)} is larger than the dilated spatial size "
                f"{dilate_dim(size, ld)}",
                avals,
            )
        spatial.append(max(0, (padded - dilate_dim(k, rd)) // s + 1))
    canonical = (lhs_shape[0] // batch_group_count, rhs_shape[0], *spatial)
    shape = tuple(canonical[list(out_spec).index(d)] for d in range(len(canonical)))
    return [ShapedArray(shape, dtype, weak)]


def _dilate_and_pad(
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


def _canonical_conv(
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


@impl_rules.register(conv_general_dilated_p)
def _conv_general_dilated_impl(lhs: Any, rhs: Any, **params: Any) -> list[Any]:
    """The params are those of :func:`_conv_general_dilated_avals`, which checks them."""
    (out,) = check_operands(conv_general_dilated_p, (lhs, rhs), params)
    lhs_spec, rhs_spec, out_spec = params["dimension_numbers"]
    # bool convolutions are logical (and, or), like XLA's: count in integers, then test
    compute = np.dtype(np.int64) if out.dtype == np.bool_ else out.dtype
    x = np.transpose(np.asarray(lhs, compute), lhs_spec)
    w = np.transpose(np.asarray(rhs, compute), rhs_spec)
    x = _dilate_and_pad(x, params["lhs_dilation"], params["padding"])
    canonical_shape = tuple(out.shape[d] for d in out_spec)
    result = _canonical_conv(
        x,
        w,
        canonical_shape,
        params["window_strides"],
        params["rhs_dilation"],
        params["feature_group_count"],
        params["batch_group_count"],
    )
    result = np.ascontiguousarray(np.transpose(result, np.argsort(out_spec)))
    return [np.asarray(result, out.dtype) if compute != out.dtype else result]
