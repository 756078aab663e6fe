"""Batching rule of ``dot_general``: no data movement, only new dimension numbers.

Both operands batched: the two batch axes become a new leading pair of dot batch dimensions
(the output's batch axis is 0). One operand batched: its batch axis is simply one more free
axis, and the output's batch axis is wherever that free axis lands.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mj_batch._batching import (
    Dims,
    RuleResult,
    Vals,
    first_mapped,
    not_mapped,
    shape_of,
    shift_axis,
    vmap_rules,
)
from mj_core import bind1
from mj_core.extend import DTypeLike
from mj_core.prims.contractions import dot_general_p

__all__: list[str] = []


def _free_axes(ndim: int, contract: Sequence[int], batch: Sequence[int]) -> list[int]:
    used = set(contract) | set(batch)
    return [i for i in range(ndim) if i not in used]


def _dot_general_vmap(
    axis_size: int,
    vals_in: Vals,
    dims_in: Dims,
    *,
    dimension_numbers: Any,
    precision: Any = None,
    preferred_element_type: DTypeLike | None = None,
) -> RuleResult:
    (x, y), (xb, yb) = vals_in, dims_in
    (lc, rc), (lb, rb) = dimension_numbers
    if xb is not not_mapped:
        lc = tuple(shift_axis(a, xb) for a in lc)
        lb = tuple(shift_axis(a, xb) for a in lb)
    if yb is not not_mapped:
        rc = tuple(shift_axis(a, yb) for a in rc)
        rb = tuple(shift_axis(a, yb) for a in rb)
    if xb is not not_mapped and yb is not not_mapped:
        lb, rb = (xb, *lb), (yb, *rb)
        out_bdim = 0
    elif xb is not not_mapped:
        out_bdim = len(lb) + _free_axes(len(shape_of(x)), lc, lb).index(xb)
    else:
        yb = first_mapped(dims_in)  # y is the only batched operand
        n_lhs_free = len(_free_axes(len(shape_of(x)), lc, lb))
        out_bdim = len(lb) + n_lhs_free + _free_axes(len(shape_of(y)), rc, rb).index(yb)
    out = bind1(
        dot_general_p,
        x,
        y,
        dimension_numbers=((tuple(lc), tuple(rc)), (tuple(lb), tuple(rb))),
        precision=precision,
        preferred_element_type=preferred_element_type,
    )
    return [out], [out_bdim]


vmap_rules[dot_general_p] = _dot_general_vmap
