"""JVP and transpose rules for ``conv_general_dilated`` (bilinear in lhs and rhs).

Ignoring spatial dims, a convolution contracts ``[n, c] x [c, o] -> [n, o]``, so its
transposes are convolutions too, like a matmul's:

* w.r.t. lhs: the cotangent convolved with the spatially flipped kernel, its in/out feature
  roles swapped, ``lhs_dilation = window_strides`` (a strided conv's transpose is a dilated
  one) and ``window_strides = lhs_dilation``. Feature groups move from the kernel's output
  features to its input features; batch groups become feature groups, then move back into
  the batch dim of the result.
* w.r.t. rhs: lhs convolved with the cotangent, batch and feature dims swapped, so the
  forward conv's feature groups become batch groups and vice versa.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypedDict, TypeVar, Unpack

import numpy as np

from mj_autodiff._derivatives import Bilinear, defjvp, derivative_kinds
from mj_autodiff._tangents import shape_dtype, zeros_like_aval
from mj_autodiff._transpose import Operand, UndefPrimal, transpose_rules
from mj_core import ShapedArray, bind1, lax
from mj_core.extend import Array, ArrayLike
from mj_core.prims.contractions import Precision
from mj_core.prims.convolution import (
    ConvDimensionNumbers,
    conv_general_dilated_p,
    dilate_dim,
    reshape_axis_into,
    reshape_axis_out_of,
)

Pads = tuple[tuple[int, int], ...]
_A = TypeVar("_A", bound=ArrayLike)


class ConvParams(TypedDict):
    """The params of ``conv_general_dilated`` (its typing rule's keyword arguments)."""

    window_strides: tuple[int, ...]
    padding: Pads
    lhs_dilation: tuple[int, ...]
    rhs_dilation: tuple[int, ...]
    dimension_numbers: ConvDimensionNumbers
    feature_group_count: int
    batch_group_count: int
    precision: tuple[Precision, Precision] | None
    preferred_element_type: np.dtype[Any] | None


def _conv_jvp_lhs(g: ArrayLike, lhs: ArrayLike, rhs: ArrayLike, **params: object) -> Array:
    out: Array = bind1(conv_general_dilated_p, g, rhs, **params)
    return out


def _conv_jvp_rhs(g: ArrayLike, lhs: ArrayLike, rhs: ArrayLike, **params: object) -> Array:
    out: Array = bind1(conv_general_dilated_p, lhs, g, **params)
    return out


defjvp(conv_general_dilated_p, _conv_jvp_lhs, _conv_jvp_rhs)


def _swap_first_two(spec: Sequence[int]) -> tuple[int, ...]:
    return (spec[1], spec[0], *spec[2:])


def _dilated_dims(
    in_shape: Sequence[int],
    window: Sequence[int],
    out_shape: Sequence[int],
    params: Mapping[str, Any],
) -> list[tuple[int, int, int, int]]:
    """Per spatial dim of the forward conv: the lhs size after ``lhs_dilation``, the kernel
    size after ``rhs_dilation``, the output size after ``window_strides`` dilation (the
    transposes' view of it) and the low padding."""
    return [
        (dilate_dim(size, ld), dilate_dim(k, rd), dilate_dim(out, s), lo)
        for size, k, out, ld, rd, s, (lo, _) in zip(
            in_shape, window, out_shape, params["lhs_dilation"], params["rhs_dilation"],
            params["window_strides"], params["padding"], strict=True,
        )
    ]  # fmt: skip


def lhs_transpose_padding(
    in_shape: Sequence[int],
    window: Sequence[int],
    out_shape: Sequence[int],
    params: Mapping[str, Any],
) -> Pads:
    """Pads making the lhs-transpose conv's output exactly the lhs's spatial shape (also the
    transpose of ``reduce_window_sum``, a convolution with a kernel of ones)."""
    return tuple(
        (k - lo - 1, size - out + lo)
        for size, k, out, lo in _dilated_dims(in_shape, window, out_shape, params)
    )


def _rhs_transpose_padding(
    in_shape: Sequence[int],
    window: Sequence[int],
    out_shape: Sequence[int],
    params: Mapping[str, Any],
) -> Pads:
    """Pads making the rhs-transpose conv's output exactly the kernel's spatial shape."""
    return tuple(
        (lo, out - size + k - lo - 1)
        for size, k, out, lo in _dilated_dims(in_shape, window, out_shape, params)
    )


def _as_dtype(x: _A, dtype: np.dtype[Any]) -> _A | Array:
    return x if shape_dtype(x)[1] == dtype else lax.convert_element_type(x, dtype)


def _transpose_lhs(
    ct: ArrayLike, lhs_aval: ShapedArray, rhs: ArrayLike, params: ConvParams
) -> Array:
    lhs_spec, rhs_spec, out_spec = params["dimension_numbers"]
    feature_groups = params["feature_group_count"]
    batch_groups = params["batch_group_count"]
    rhs_shape = shape_dtype(rhs)[0]
    window = [rhs_shape[d] for d in rhs_spec[2:]]
    if feature_groups > 1 or batch_groups > 1:  # the groups move to the kernel's in-features
        groups = max(feature_groups, batch_groups)
        rhs = reshape_axis_out_of(rhs_spec[0], groups, rhs)
        rhs = reshape_axis_into(rhs_spec[0], rhs_spec[1], rhs)
        feature_groups = groups
    padding = lhs_transpose_padding(
        [lhs_aval.shape[d] for d in lhs_spec[2:]],
        window,
        [shape_dtype(ct)[0][d] for d in out_spec[2:]],
        params,
    )
    flipped = _as_dtype(lax.rev(rhs, rhs_spec[2:]), shape_dtype(ct)[1])
    out = lax.conv_general_dilated(
        ct,
        flipped,
        window_strides=params["lhs_dilation"],
        padding=padding,
        lhs_dilation=params["window_strides"],
        rhs_dilation=params["rhs_dilation"],
        dimension_numbers=ConvDimensionNumbers(out_spec, _swap_first_two(rhs_spec), lhs_spec),
        feature_group_count=feature_groups,
        batch_group_count=1,
        precision=params["precision"],
        preferred_element_type=params["preferred_element_type"],
    )
    out = _as_dtype(out, lhs_aval.dtype)
    if batch_groups > 1:  # the groups sit in the result's features: back into its batch
        out = reshape_axis_out_of(lhs_spec[1], batch_groups, out)
        out = reshape_axis_into(lhs_spec[1], lhs_spec[0], out)
    return out


def _transpose_rhs(
    ct: ArrayLike, lhs: ArrayLike, rhs_aval: ShapedArray, params: ConvParams
) -> Array | np.ndarray[Any, Any]:
    ct_shape, ct_dtype = shape_dtype(ct)
    if 0 in ct_shape:  # nothing flows back; avoids a degenerate conv with empty kernel dims
        return zeros_like_aval(ShapedArray(rhs_aval.shape, rhs_aval.dtype))
    lhs_spec, rhs_spec, out_spec = params["dimension_numbers"]
    # feature groups of the forward conv are batch groups of this one, and vice versa
    feature_groups = params["batch_group_count"]
    batch_groups = params["feature_group_count"]
    padding = _rhs_transpose_padding(
        [shape_dtype(lhs)[0][d] for d in lhs_spec[2:]],
        [rhs_aval.shape[d] for d in rhs_spec[2:]],
        [ct_shape[d] for d in out_spec[2:]],
        params,
    )
    out = lax.conv_general_dilated(
        _as_dtype(lhs, ct_dtype),
        ct,
        window_strides=params["rhs_dilation"],
        padding=padding,
        lhs_dilation=params["lhs_dilation"],
        rhs_dilation=params["window_strides"],
        dimension_numbers=ConvDimensionNumbers(
            _swap_first_two(lhs_spec), _swap_first_two(out_spec), _swap_first_two(rhs_spec)
        ),
        feature_group_count=feature_groups,
        batch_group_count=batch_groups,
        precision=params["precision"],
        preferred_element_type=params["preferred_element_type"],
    )
    return _as_dtype(out, rhs_aval.dtype)


def _conv_general_dilated_transpose(
    cts: list[Any], lhs: Operand, rhs: Operand, **params: Unpack[ConvParams]
) -> list[Any]:
    (ct,) = cts
    if type(lhs) is UndefPrimal:
        if type(rhs) is UndefPrimal:
            raise TypeError(
                "conv_general_dilated: both operands are linear (tangent) values, so the "
                "convolution is not linear and cannot be transposed."
            )
        return [_transpose_lhs(ct, lhs.aval, rhs, params), None]
    assert type(rhs) is UndefPrimal  # one operand at least is the linear one
    return [None, _transpose_rhs(ct, lhs, rhs.aval, params)]


transpose_rules[conv_general_dilated_p] = _conv_general_dilated_transpose
derivative_kinds[conv_general_dilated_p] = Bilinear()
