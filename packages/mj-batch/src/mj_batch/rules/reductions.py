"""Batching rules of reductions, arg-reductions and cumulative ops: shift their axes past the
batch axis, which stays where it is."""

from __future__ import annotations

from typing import Any

from mj_batch._batching import (
    Dims,
    RuleResult,
    Vals,
    VmapRule,
    first_mapped,
    shift_axis,
    vmap_rules,
)
from mj_core import Primitive, bind
from mj_core.prims.reductions import (
    argmax_p,
    argmin_p,
    cummax_p,
    cummin_p,
    cumprod_p,
    cumsum_p,
    reduce_and_p,
    reduce_max_p,
    reduce_min_p,
    reduce_or_p,
    reduce_prod_p,
    reduce_sum_p,
)

__all__: list[str] = []


def _axes_reduction_rule(prim: Primitive) -> VmapRule:
    """Rule for a primitive reducing the per-example ``axes`` (``reduce_*``, ``argmax``...)."""

    def rule(
        axis_size: int, vals_in: Vals, dims_in: Dims, *, axes: tuple[int, ...], **params: Any
    ) -> RuleResult:
        (x,), bdim = vals_in, first_mapped(dims_in)
        new_axes = tuple(shift_axis(a, bdim) for a in axes)
        out_bdim = bdim - sum(a < bdim for a in axes)
        return bind(prim, x, axes=new_axes, **params), [out_bdim]

    rule.__name__ = f"{prim.name}_vmap"
    return rule


for _prim in (
    reduce_sum_p,
    reduce_max_p,
    reduce_min_p,
    reduce_prod_p,
    reduce_and_p,
    reduce_or_p,
    argmax_p,
    argmin_p,
):
    vmap_rules[_prim] = _axes_reduction_rule(_prim)


def _cumulative_rule(prim: Primitive) -> VmapRule:
    """Rule for a scan along one per-example ``axis`` (``cumsum`` and friends)."""

    def rule(
        axis_size: int, vals_in: Vals, dims_in: Dims, *, axis: int, reverse: bool
    ) -> RuleResult:
        (x,), bdim = vals_in, first_mapped(dims_in)
        return bind(prim, x, axis=shift_axis(axis, bdim), reverse=reverse), [bdim]

    rule.__name__ = f"{prim.name}_vmap"
    return rule


for _prim in (cumsum_p, cumprod_p, cummax_p, cummin_p):
    vmap_rules[_prim] = _cumulative_rule(_prim)
