"""Batching rule of ``conv_general_dilated``: fold the vmapped axis into a dimension the
convolution already loops over, run one convolution, and split it back out.

* lhs batched only: the batch axis joins lhs's batch dim N (major part); with batch groups it
  goes inside each group, so groups stay outermost.
* rhs batched only: the batch axis joins the kernel's output features O, so the output has
  ``batch x O`` features; with groups it goes inside each group.
* both batched: each example becomes one feature group (or one more batch group): lhs folds
  the axis into its features C (or its batch N), rhs into its output features O.
"""

from __future__ import annotations

from typing import Any

from mj_batch._batching import (
    Dims,
    RuleResult,
    Vals,
    dtype_of,
    first_mapped,
    not_mapped,
    shape_of,
    vmap_rules,
)
from mj_core import ShapedArray, bind1, lax
from mj_core import abstract_eval_rules as out_aval_rules
from mj_core.prims.convolution import conv_general_dilated_p, reshape_axis_into, reshape_axis_out_of

__all__: list[str] = []


def _unbatched_aval(x: Any, bdim: Any) -> ShapedArray:
    shape = list(shape_of(x))
    if bdim is not not_mapped:
        del shape[bdim]
    return ShapedArray(tuple(shape), dtype_of(x))


def _conv_general_dilated_vmap(
    axis_size: int, vals_in: Vals, dims_in: Dims, **params: Any
) -> RuleResult:
    (lhs, rhs), (lhs_bdim, rhs_bdim) = vals_in, dims_in
    lhs_spec, rhs_spec, out_spec = params["dimension_numbers"]
    feature_groups = params["feature_group_count"]
    batch_groups = params["batch_group_count"]
    if axis_size == 0:  # nothing to fold into: the result is empty anyway
        (aval,) = out_aval_rules[conv_general_dilated_p](
            _unbatched_aval(lhs, lhs_bdim), _unbatched_aval(rhs, rhs_bdim), **params
        )
        return [lax.full((0, *aval.shape), 0, aval.dtype)], [0]

    def conv(new_lhs: Any, new_rhs: Any, feature_count: int, batch_count: int) -> Any:
        return bind1(
            conv_general_dilated_p,
            new_lhs,
            new_rhs,
            **{**params, "feature_group_count": feature_count, "batch_group_count": batch_count},
        )

    if lhs_bdim is not_mapped and rhs_bdim is not_mapped:
        return [conv(lhs, rhs, feature_groups, batch_groups)], [not_mapped]
    if lhs_bdim is not not_mapped and rhs_bdim is not not_mapped:
        if batch_groups > 1:
            new_lhs = reshape_axis_into(lhs_bdim, lhs_spec[0], lhs)
            batch_groups *= axis_size
        else:
            new_lhs = reshape_axis_into(lhs_bdim, lhs_spec[1], lhs)
            feature_groups *= axis_size
        new_rhs = reshape_axis_into(rhs_bdim, rhs_spec[0], rhs)
        out = conv(new_lhs, new_rhs, feature_groups, batch_groups)
        return [reshape_axis_out_of(out_spec[1], axis_size, out)], [out_spec[1]]

    if lhs_bdim is not not_mapped:
        if batch_groups == 1:
            new_lhs = reshape_axis_into(lhs_bdim, lhs_spec[0], lhs)
        else:  # (B, G*N) -> (G, B*N): the lhs batch groups must stay outermost
            new_lhs = reshape_axis_out_of(
                lhs_spec[0] + int(lhs_bdim <= lhs_spec[0]), batch_groups, lhs
            )
            new_lhs = reshape_axis_into(
                lhs_bdim + int(lhs_spec[0] < lhs_bdim), lhs_spec[0] + 1, new_lhs
            )
            new_lhs = reshape_axis_into(lhs_spec[0], lhs_spec[0], new_lhs)
        out = conv(new_lhs, rhs, feature_groups, batch_groups)
        return [reshape_axis_out_of(out_spec[0], axis_size, out)], [out_spec[0]]

    rhs_bdim = first_mapped(dims_in)  # the kernel is the only batched operand
    if feature_groups == 1 and batch_groups == 1:
        new_rhs = reshape_axis_into(rhs_bdim, rhs_spec[0], rhs)
        out = conv(lhs, new_rhs, feature_groups, batch_groups)
        return [reshape_axis_out_of(out_spec[1], axis_size, out)], [out_spec[1]]
    # (B, G*O) -> (G, B*O) for the kernel, and the output's (G, B, O) -> (B, G*O)
    groups = max(feature_groups, batch_groups)
    new_rhs = reshape_axis_out_of(rhs_spec[0] + int(rhs_bdim <= rhs_spec[0]), groups, rhs)
    new_rhs = reshape_axis_into(rhs_bdim + int(rhs_spec[0] < rhs_bdim), rhs_spec[0] + 1, new_rhs)
    new_rhs = reshape_axis_into(rhs_spec[0], rhs_spec[0], new_rhs)
    out = conv(lhs, new_rhs, feature_groups, batch_groups)
    out = reshape_axis_out_of(out_spec[1], groups, out)
    out = reshape_axis_out_of(out_spec[1] + 1, axis_size, out)
    out = reshape_axis_into(out_spec[1], out_spec[1] + 1, out)
    return [out], [out_spec[1]]


vmap_rules[conv_general_dilated_p] = _conv_general_dilated_vmap
