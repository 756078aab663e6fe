"""JVP rule for ``sort``: sort an iota along with the operands to learn the permutation, then
apply it to the tangents with a ``gather`` (whose transpose is a ``scatter_add``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from mj_autodiff._jvp import jvp_rules
from mj_autodiff._tangents import Zero, shape_dtype, tangent_aval_of
from mj_core import bind, bind1, lax
from mj_core.extend import Array, ArrayLike
from mj_core.prims.indexing import GatherDimensionNumbers, gather_p
from mj_core.prims.sorting import sort_p


def take_along_axis(x: ArrayLike, perm: ArrayLike, axis: int) -> Array:
    """``x`` reordered along ``axis`` by the integer array ``perm`` (same shape as ``x``)."""
    shape = tuple(shape_dtype(x)[0])
    if 0 in shape:  # nothing to reorder (a gather of size-1 slices needs non-empty dims)
        return lax.reshape(x, shape)
    ndim = len(shape)
    others = tuple(d for d in range(ndim) if d != axis)
    dn = GatherDimensionNumbers(
        offset_dims=(),
        collapsed_slice_dims=(axis,),
        start_index_map=(axis,),
        operand_batching_dims=others,
        start_indices_batching_dims=others,
    )
    indices = lax.reshape(perm, (*shape, 1))
    out: Array = bind1(
        gather_p,
        x,
        indices,
        dimension_numbers=dn,
        slice_sizes=(1,) * ndim,
        mode="promise_in_bounds",
        fill_value=None,
    )
    return out


def _sort_jvp(
    primals: list[Any], tangents: list[Any], *, dimension: int, is_stable: bool, num_keys: int
) -> tuple[list[Any], list[Any]]:
    shape = tuple(shape_dtype(primals[0])[0])
    iota = lax.broadcasted_iota(np.int64, shape, dimension)
    outs = bind(sort_p, *primals, iota, dimension=dimension, is_stable=is_stable, num_keys=num_keys)
    perm = outs[-1]
    primals_out = outs[:-1]
    tangents_out = [
        Zero(tangent_aval_of(p)) if type(t) is Zero else take_along_axis(t, perm, dimension)
        for p, t in zip(primals_out, tangents, strict=True)
    ]
    return primals_out, tangents_out


jvp_rules[sort_p] = _sort_jvp
