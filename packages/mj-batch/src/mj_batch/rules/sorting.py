"""Batching rule of ``sort``: every operand gets its batch axis at one common dim (sort's
operands must have matching shapes) and the sorted dimension shifts past it."""

from __future__ import annotations

from mj_batch._batching import Dims, RuleResult, Vals, match_batch_dims, shift_axis, vmap_rules
from mj_core import bind
from mj_core.prims.sorting import sort_p

__all__: list[str] = []


def _sort_vmap(
    axis_size: int,
    vals_in: Vals,
    dims_in: Dims,
    *,
    dimension: int,
    is_stable: bool,
    num_keys: int,
) -> RuleResult:
    operands, bdim = match_batch_dims(axis_size, vals_in, dims_in)
    outs = bind(
        sort_p,
        *operands,
        dimension=shift_axis(dimension, bdim),
        is_stable=is_stable,
        num_keys=num_keys,
    )
    return outs, [bdim] * len(outs)


vmap_rules[sort_p] = _sort_vmap
