"""Batching rules of the dtype conversions: ``convert_element_type``, ``reduce_precision``
and ``copy`` act on each element (batch dim unchanged); ``bitcast_convert_type`` too, except
that a wider dtype consumes the last axis, which therefore must not be the batch axis.
``dce_sink`` sinks the batched operand (JAX's rule returns its operand and binds nothing, so
a ``vmap`` loses the sink; mj keeps it, as the sink is there to keep the value alive)."""

from __future__ import annotations

from typing import Any

import numpy as np

from mj_batch._batching import (
    Dims,
    RuleResult,
    Vals,
    defvectorized,
    dtype_of,
    first_mapped,
    moveaxis,
    vmap_rules,
)
from mj_core import bind, bind1
from mj_core.prims.conversions import (
    bitcast_convert_type_p,
    convert_element_type_p,
    copy_p,
    dce_sink_p,
    reduce_precision_p,
)

__all__: list[str] = []

defvectorized(convert_element_type_p)
defvectorized(reduce_precision_p)
defvectorized(copy_p)


@vmap_rules.register(dce_sink_p)
def _dce_sink_vmap(
    axis_size: int, vals_in: Vals, dims_in: Dims, *, prevent_mlir_dce: bool
) -> RuleResult:
    bind(dce_sink_p, *vals_in, prevent_mlir_dce=prevent_mlir_dce)
    return [], []


def _bitcast_convert_type_vmap(
    axis_size: int, vals_in: Vals, dims_in: Dims, *, new_dtype: np.dtype[Any]
) -> RuleResult:
    (x,), bdim = vals_in, first_mapped(dims_in)
    if np.dtype(new_dtype).itemsize > dtype_of(x).itemsize and bdim == x.ndim - 1:
        x, bdim = moveaxis(x, bdim, 0), 0
    return [bind1(bitcast_convert_type_p, x, new_dtype=new_dtype)], [bdim]


vmap_rules[bitcast_convert_type_p] = _bitcast_convert_type_vmap
