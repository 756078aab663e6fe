"""Batching rule of the windowed reductions: the batch axis gets a window of size 1 (stride
1, no padding, no dilation), so one reduction covers every example."""

from __future__ import annotations

from typing import Any

from mj_batch._batching import Dims, RuleResult, Vals, first_mapped, vmap_rules
from mj_core import Primitive, bind
from mj_core.prims.windowed import reduce_window_max_p, reduce_window_min_p, reduce_window_sum_p

__all__: list[str] = []


#: What each param holds for the inserted batch dimension: a window of one element.
_BATCH_DIM_ENTRY: dict[str, Any] = {
    "window_dimensions": 1,
    "window_strides": 1,
    "padding": (0, 0),
    "base_dilation": 1,
    "window_dilation": 1,
}


def _window_rule(prim: Primitive) -> Any:
    def rule(axis_size: int, vals_in: Vals, dims_in: Dims, **params: Any) -> RuleResult:
        (x,), bdim = vals_in, first_mapped(dims_in)
        batched = {
            name: (*value[:bdim], _BATCH_DIM_ENTRY[name], *value[bdim:])
            for name, value in params.items()
        }
        return bind(prim, x, **batched), [bdim]

    rule.__name__ = f"{prim.name}_vmap"
    return rule


for _prim in (reduce_window_sum_p, reduce_window_max_p, reduce_window_min_p):
    vmap_rules[_prim] = _window_rule(_prim)
