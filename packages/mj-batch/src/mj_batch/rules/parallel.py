"""Batching rules of the collectives: a named vmap computes them from its batch dimension.

A collective's rule gets the batch trace's axis (an ``AxisFrame``: name and size) where
other rules get the size. If the collective names that axis, the rule computes it across the
batch (``psum`` is a ``reduce_sum`` over the batch dimension, ``all_gather`` moves the batch
dimension into the value, ``ppermute`` permutes along it, ``axis_index`` is an ``iota``) and
binds whatever other names remain; otherwise the collective acts on each example alike, so
the rule binds it again on the whole batch, shifting positional axes past the batch
dimension. As in JAX, ``axis_index_groups`` over a vmapped axis is not implemented.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np

from mj_batch._batching import (
    Dims,
    RuleResult,
    Vals,
    broadcast_batched,
    move_batch_axis,
    moveaxis,
    not_mapped,
    shift_axis,
    vmap_rules,
)
from mj_core import lax
from mj_core import numpy as mnp
from mj_core.extend import AxisFrame, Primitive, axis_frame, names_of, shape_of
from mj_core.prims.parallel import (
    all_gather_p,
    all_to_all_p,
    axis_index_p,
    bind_collective,
    pmax_p,
    pmin_p,
    ppermute_p,
    psum_p,
    reduce_scatter_p,
)

__all__: list[str] = []


def _owns(frame: AxisFrame, axis_name: Any) -> bool:
    """Whether the collective's ``axis_name`` names the axis this trace batches (the
    innermost binding of the name: an inner vmap may shadow an outer one's name)."""
    name = frame.name
    return name is not None and name in names_of(axis_name) and axis_frame(name) is frame


def _no_groups(prim: Primitive, axis_index_groups: Any) -> None:
    if axis_index_groups is not None:
        raise NotImplementedError(
            f"{prim.name}: axis_index_groups is not supported over a vmapped axis (as in JAX)."
        )


def _groups(axis_index_groups: Any) -> dict[str, Any]:
    return {} if axis_index_groups is None else {"axis_index_groups": axis_index_groups}


def _rest(axis_name: Any, name: Hashable) -> Any:
    """``axis_name`` without ``name`` (as a param: a name, a tuple, or ``None`` if empty)."""
    rest = tuple(n for n in names_of(axis_name) if n != name)
    return None if not rest else rest[0] if len(rest) == 1 else rest


# --- psum, pmax, pmin -------------------------------------------------------------------------


def _reduction_rule(prim: Primitive) -> Any:
    reduce_batch = {psum_p: lax.reduce_sum, pmax_p: lax.reduce_max}.get(prim, lax.reduce_min)

    def rule(
        frame: AxisFrame,
        vals_in: Vals,
        dims_in: Dims,
        *,
        axis_name: Any,
        axis_index_groups: Any = None,
    ) -> RuleResult:
        params = {"axis_name": axis_name, **_groups(axis_index_groups)}
        if not _owns(frame, axis_name):
            return bind_collective(prim, *vals_in, **params), list(dims_in)
        _no_groups(prim, axis_index_groups)
        outs = []
        for x, d in zip(vals_in, dims_in, strict=True):
            if d is not_mapped:  # every example holds the same x
                outs.append(lax.mul(x, frame.size) if prim is psum_p else x)
            else:
                outs.append(reduce_batch(x, (d,)))
        rest = _rest(axis_name, frame.name)
        if rest is not None:
            outs = bind_collective(prim, *outs, axis_name=rest)
        return outs, [not_mapped] * len(outs)

    rule.__name__ = f"_{prim.name}_vmap"
    return rule


for _prim in (psum_p, pmax_p, pmin_p):
    vmap_rules[_prim] = _reduction_rule(_prim)


# --- all_gather, reduce_scatter, all_to_all ---------------------------------------------------


def _all_gather_vmap(frame: AxisFrame, vals_in: Vals, dims_in: Dims, **params: Any) -> RuleResult:
    (x,), (d,) = vals_in, dims_in
    dim, tiled = params["all_gather_dimension"], params["tiled"]
    if not _owns(frame, params["axis_name"]):
        if d is not_mapped:
            out_dim: Any = not_mapped
        else:
            if d <= dim:
                dim += 1
                out_dim = d
            else:
                out_dim = d if tiled else d + 1
        params = {**params, "all_gather_dimension": dim}
        return bind_collective(all_gather_p, x, **params), [out_dim]
    _no_groups(all_gather_p, params.get("axis_index_groups"))
    # A batched x: its batch axis is the gathered axis of every example.
    y = broadcast_batched(x, frame.size, dim) if d is not_mapped else moveaxis(x, d, dim)
    if tiled:
        shape = list(shape_of(y))
        shape[dim : dim + 2] = [shape[dim] * shape[dim + 1]]
        y = lax.reshape(y, tuple(shape))
    return [y], [not_mapped]


vmap_rules[all_gather_p] = _all_gather_vmap


def _reduce_scatter_vmap(
    frame: AxisFrame, vals_in: Vals, dims_in: Dims, **params: Any
) -> RuleResult:
    (x,), (d,) = vals_in, dims_in
    dim, tiled = params["scatter_dimension"], params["tiled"]
    if not _owns(frame, params["axis_name"]):
        out_dim: Any = d
        if isinstance(d, int):
            dim = shift_axis(dim, d)
            if not tiled and dim < d:
                out_dim = d - 1
        params = {**params, "scatter_dimension": dim}
        return bind_collective(reduce_scatter_p, x, **params), [out_dim]
    _no_groups(reduce_scatter_p, params.get("axis_index_groups"))
    total = lax.mul(x, frame.size) if d is not_mapped else lax.reduce_sum(x, (d,))
    # Example i keeps block i of the total along the scatter dimension: that dimension (or
    # its leading part, when tiled) becomes the batch dimension.
    if tiled:
        shape = list(shape_of(total))
        shape[dim : dim + 1] = [frame.size, shape[dim] // frame.size]
        total = lax.reshape(total, tuple(shape))
    return [total], [dim]


vmap_rules[reduce_scatter_p] = _reduce_scatter_vmap


def _all_to_all_vmap(frame: AxisFrame, vals_in: Vals, dims_in: Dims, **params: Any) -> RuleResult:
    (x,), (d,) = vals_in, dims_in
    split_axis, concat_axis = params["split_axis"], params["concat_axis"]
    if not _owns(frame, params["axis_name"]):
        if isinstance(d, int):
            split_axis, concat_axis = shift_axis(split_axis, d), shift_axis(concat_axis, d)
        params = {**params, "split_axis": split_axis, "concat_axis": concat_axis}
        return bind_collective(all_to_all_p, x, **params), [d]
    _no_groups(all_to_all_p, params.get("axis_index_groups"))
    n = frame.size
    xs = move_batch_axis(n, d, 0, x)  # [j, *s]: example j's value
    s = list(shape_of(xs)[1:])
    k = s[split_axis] // n
    # Split the split axis into (i, k): example i receives block i of every example j.
    split = lax.reshape(xs, (n, *s[:split_axis], n, k, *s[split_axis + 1 :]))

    def axis_of(e: int) -> int:  # the axis of ``split`` holding example axis e (its k part)
        return 2 + e if e >= split_axis else 1 + e

    perm = [1 + split_axis]  # i: the new batch axis
    for e in range(len(s)):
        perm.extend([0, axis_of(e)] if e == concat_axis else [axis_of(e)])
    out_shape = list(s)
    out_shape[split_axis] = k
    out_shape[concat_axis] *= n
    y = lax.reshape(lax.transpose(split, perm), (n, *out_shape))
    return [y], [0]


vmap_rules[all_to_all_p] = _all_to_all_vmap


# --- ppermute, axis_index ---------------------------------------------------------------------


def _ppermute_vmap(
    frame: AxisFrame,
    vals_in: Vals,
    dims_in: Dims,
    *,
    axis_name: Any,
    perm: tuple[tuple[int, int], ...],
) -> RuleResult:
    (x,), (d,) = vals_in, dims_in
    if not _owns(frame, axis_name):
        (out,) = bind_collective(ppermute_p, x, axis_name=axis_name, perm=perm)
        return [out], [d]
    n = frame.size
    sources = np.zeros(n, np.int32)
    receives = np.zeros(n, bool)
    for src, dst in perm:
        sources[dst] = src
        receives[dst] = True
    if d is not_mapped and receives.all():
        return [x], [not_mapped]
    xs = move_batch_axis(n, d, 0, x)
    y = mnp.take(xs, sources, axis=0)
    if not receives.all():  # an example no pair sends to receives zeros
        mask = receives.reshape((n,) + (1,) * (len(shape_of(y)) - 1))
        y = mnp.where(mask, y, mnp.zeros_like(y))
    return [y], [0]


vmap_rules[ppermute_p] = _ppermute_vmap


def _axis_index_vmap(
    frame: AxisFrame, vals_in: Vals, dims_in: Dims, *, axis_name: Any
) -> RuleResult:
    if not _owns(frame, axis_name):
        return bind_collective(axis_index_p, axis_name=axis_name), [not_mapped]
    return [lax.iota(np.int32, frame.size)], [0]


vmap_rules[axis_index_p] = _axis_index_vmap
