"""Batching rule of the windowed reductions: the batch axis gets a window of size 1 (stride
1, no padding, no dilation), so one reduction covers every example."""

from __future__ import annotations

from typing import Any

from mj_batch._batching import Dims, RuleResult, Vals, vmap_rules
from mj_core.primitive import Primitive
from mj_core.prims import windowed as wr
from mj_core.trace import bind

__all__: list[str] = []


def _insert(values: tuple[Any, ...], bdim: int, value: Any) -> tuple[Any, ...]:
    return (*values[:bdim], value, *values[bdim:])


def _window_rule(prim: Primitive) -> Any:
    def rule(
        axis_size: int,
        vals_in: Vals,
        dims_in: Dims,
        *,
        window_dimensions: tuple[int, ...],
        window_strides: tuple[int, ...],
        padding: tuple[tuple[int, int], ...],
        base_dilation: tuple[int, ...],
        window_dilation: tuple[int, ...],
    ) -> RuleResult:
        (x,), (bdim,) = vals_in, dims_in
        assert isinstance(bdim, int)
        out = bind(
            prim,
            x,
            window_dimensions=_insert(window_dimensions, bdim, 1),
            window_strides=_insert(window_strides, bdim, 1),
            padding=_insert(padding, bdim, (0, 0)),
            base_dilation=_insert(base_dilation, bdim, 1),
            window_dilation=_insert(window_dilation, bdim, 1),
        )
        return out, [bdim]

    rule.__name__ = f"{prim.name}_vmap"
    return rule


for _prim in (wr.reduce_window_sum_p, wr.reduce_window_max_p, wr.reduce_window_min_p):
    vmap_rules[_prim] = _window_rule(_prim)
