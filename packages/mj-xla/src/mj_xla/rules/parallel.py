"""Lowering rules of the collectives: StableHLO's cross-replica operations.

``pmap`` compiles its function as one replica per device, so a collective over the pmap axis
is one StableHLO collective whose ``replica_groups`` (from :mod:`mj_xla._replicas`) list the
replicas reducing or exchanging together: ``all_reduce`` with a reduction region for
``psum``/``pmax``/``pmin``, ``all_gather``, ``reduce_scatter``, ``all_to_all``,
``collective_permute`` for ``ppermute`` (a replica no pair sends to gets zeros, as in JAX),
and ``replica_id`` for ``axis_index``. The untiled ``all_gather``/``psum_scatter`` add or
drop their size-1 axis around the tiled StableHLO op. An axis name may be a tuple of several
pmap (or mesh) axes: the groups are then the devices differing along all of them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from mj_core.extend import Primitive, ShapedArray
from mj_core.prims.parallel import (
    all_gather_p,
    all_to_all_p,
    axis_index_p,
    pmax_p,
    pmin_p,
    ppermute_p,
    psum_p,
    reduce_scatter_p,
)
from mj_xla._jaxlib import Value, hlo, ir, ir_tensor_type
from mj_xla._lowering import (
    Avals,
    LoweringContext,
    Values,
    aval_to_ir_type,
    lowering_rules,
)
from mj_xla._replicas import (
    axis_groups,
    channel_attrs,
    int64_attr,
    replica_groups,
    replica_index,
)

__all__: list[str] = []

Binary = Callable[[Value, Value], Value]


def _reducer(name: str, dtype: np.dtype[Any]) -> Binary:
    is_bool = dtype == np.bool_
    if name == "sum":
        return hlo.or_ if is_bool else hlo.add
    if name == "max":
        return hlo.or_ if is_bool else hlo.maximum
    return hlo.and_ if is_bool else hlo.minimum


def _set_region(region: Any, name: str, dtype: np.dtype[Any]) -> None:
    """Fill a collective's reduction region with the binary op of ``name`` on ``dtype``."""
    scalar = ir_tensor_type((), dtype)
    block = region.blocks.append(scalar, scalar)
    with ir.InsertionPoint(block):
        hlo.return_([_reducer(name, dtype)(block.arguments[0], block.arguments[1])])


def _all_reduce_rule(prim: Primitive, name: str) -> Any:
    def rule(
        ctx: LoweringContext,
        avals_in: Avals,
        avals_out: Avals,
        in_vals: Values,
        *,
        axis_name: Any,
        axis_index_groups: Any = None,
    ) -> list[Value]:
        groups = replica_groups(prim.name, axis_name, axis_index_groups)
        outs = []
        for x, aval in zip(in_vals, avals_in, strict=True):
            op = hlo.AllReduceOp([aval_to_ir_type(aval)], [x], groups, **channel_attrs())
            _set_region(op.regions[0], name, aval.dtype)
            outs.append(op.results[0])
        return outs

    rule.__name__ = f"_{prim.name}_lowering"
    return rule


lowering_rules[psum_p] = _all_reduce_rule(psum_p, "sum")
lowering_rules[pmax_p] = _all_reduce_rule(pmax_p, "max")
lowering_rules[pmin_p] = _all_reduce_rule(pmin_p, "min")


def _with_axis(aval: ShapedArray, dim: int, size: int) -> ir.RankedTensorType:
    shape = list(aval.shape)
    shape.insert(dim, size)
    return ir_tensor_type(shape, aval.dtype)


def _all_gather_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    all_gather_dimension: int,
    axis_name: Any,
    axis_size: int,
    tiled: bool,
    axis_index_groups: Any = None,
) -> list[Value]:
    groups = replica_groups("all_gather", axis_name, axis_index_groups)
    (x,), (aval,) = in_vals, avals_in
    if not tiled:  # gather blocks of one along a new axis
        x = hlo.reshape(_with_axis(aval, all_gather_dimension, 1), x)
    op = hlo.AllGatherOp(
        [aval_to_ir_type(avals_out[0])], [x], all_gather_dimension, groups, **channel_attrs()
    )
    return [op.results[0]]


lowering_rules[all_gather_p] = _all_gather_lowering


def _reduce_scatter_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    scatter_dimension: int,
    axis_name: Any,
    axis_size: int,
    tiled: bool,
    axis_index_groups: Any = None,
) -> list[Value]:
    groups = replica_groups("reduce_scatter", axis_name, axis_index_groups)
    (x,), (aval,), (out_aval,) = in_vals, avals_in, avals_out
    shape = list(aval.shape)
    shape[scatter_dimension] //= axis_size
    op = hlo.ReduceScatterOp(
        ir_tensor_type(shape, aval.dtype), x, scatter_dimension, groups, **channel_attrs()
    )
    _set_region(op.regions[0], "sum", aval.dtype)
    out: Value = op.result
    if not tiled:  # drop the scattered axis (now of size one)
        out = hlo.reshape(aval_to_ir_type(out_aval), out)
    return [out]


lowering_rules[reduce_scatter_p] = _reduce_scatter_lowering


def _all_to_all_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    split_axis: int,
    concat_axis: int,
    axis_name: Any,
    axis_size: int,
    axis_index_groups: Any = None,
) -> list[Value]:
    groups = replica_groups("all_to_all", axis_name, axis_index_groups)
    op = hlo.AllToAllOp(
        list(in_vals),
        split_axis,
        concat_axis,
        axis_size,
        groups,
        results=[aval_to_ir_type(avals_out[0])],
        **channel_attrs(global_ids=False),
    )
    return [op.results[0]]


lowering_rules[all_to_all_p] = _all_to_all_lowering


def _ppermute_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    axis_name: Any,
    perm: tuple[tuple[int, int], ...],
) -> list[Value]:
    # the pairs of every group, in replica ids (global device ids in a shard_map body)
    groups = axis_groups("ppermute", axis_name).tolist()
    op = hlo.CollectivePermuteOp(
        in_vals[0],
        int64_attr([(g[s], g[d]) for g in groups for s, d in perm]),
        results=[aval_to_ir_type(avals_out[0])],
        **channel_attrs(global_ids=False),
    )
    return [op.result]


lowering_rules[ppermute_p] = _ppermute_lowering


def _axis_index_lowering(
    ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values, *, axis_name: Any
) -> list[Value]:
    index = replica_index("axis_index", axis_name)
    return [hlo.convert(aval_to_ir_type(avals_out[0]), index)]


lowering_rules[axis_index_p] = _axis_index_lowering
