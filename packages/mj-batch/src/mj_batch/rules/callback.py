"""Batching rules of the host callbacks, with JAX 0.10.2's semantics.

``debug_callback`` runs once per example, in order, each time on that example's values (so
``vmap`` of ``debug.print`` prints one line per example). ``pure_callback`` follows its
``vmap_method``: ``"sequential"`` (and ``"sequential_unrolled"``) call the callback once per
example and stack the results; ``"expand_dims"`` calls it once with every batch dim moved to
the front and unbatched operands given a size-1 leading axis; ``"broadcast_all"`` does the
same but broadcasts unbatched operands to the full batch. Without a ``vmap_method`` there is
no batching rule, and ``vmap`` raises, as in JAX.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mj_batch._batching import Dims, RuleResult, Vals, move_batch_axis, not_mapped, vmap_rules
from mj_core import ShapedArray, bind, lax
from mj_core.errors import user_line_suffix
from mj_core.prims.callback import VMAP_METHODS, HostCallback, debug_callback_p, pure_callback_p

__all__: list[str] = []


def _example(vals: Vals, dims: Dims, i: int) -> list[Any]:
    """The operands of example ``i``: batched operands indexed at ``i`` along their batch dim."""
    return [
        v if d is not_mapped else lax.index_in_dim(v, i, d, keepdims=False)
        for v, d in zip(vals, dims, strict=True)
    ]


@vmap_rules.register(debug_callback_p)
def debug_callback_vmap(
    axis_size: int, vals_in: Vals, dims_in: Dims, *, callback: HostCallback
) -> RuleResult:
    for i in range(axis_size):
        bind(debug_callback_p, *_example(vals_in, dims_in, i), callback=callback)
    return [], []


@vmap_rules.register(pure_callback_p)
def pure_callback_vmap(
    axis_size: int,
    vals_in: Vals,
    dims_in: Dims,
    *,
    callback: HostCallback,
    result_avals: tuple[ShapedArray, ...],
    vmap_method: str | None,
) -> RuleResult:
    if vmap_method in ("sequential", "sequential_unrolled"):
        if axis_size == 0:
            return [np.zeros((0, *a.shape), a.dtype) for a in result_avals], [0] * len(result_avals)
        per_example = [
            bind(
                pure_callback_p,
                *_example(vals_in, dims_in, i),
                callback=callback,
                result_avals=result_avals,
                vmap_method=vmap_method,
            )
            for i in range(axis_size)
        ]
        outs = [
            lax.concatenate([lax.expand_dims(ex[k], (0,)) for ex in per_example], 0)
            for k in range(len(result_avals))
        ]
        return outs, [0] * len(outs)
    if vmap_method in ("expand_dims", "broadcast_all"):
        args = []
        for v, d in zip(vals_in, dims_in, strict=True):
            if d is not_mapped and vmap_method == "expand_dims":
                args.append(lax.expand_dims(v, (0,)))
            else:
                args.append(move_batch_axis(axis_size, d, 0, v))
        batched_avals = tuple(
            ShapedArray((axis_size, *a.shape), a.dtype, a.weak_type) for a in result_avals
        )
        outs = bind(
            pure_callback_p,
            *args,
            callback=callback,
            result_avals=batched_avals,
            vmap_method=vmap_method,
        )
        return outs, [0] * len(outs)
    raise NotImplementedError(
        "vmap of pure_callback needs vmap_method to be one of "
        f"{', '.join(repr(m) for m in VMAP_METHODS)}; got vmap_method={vmap_method!r}"
        f"{user_line_suffix()}"
    )
