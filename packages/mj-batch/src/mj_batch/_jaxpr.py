"""``vmap_jaxpr``: batch a closed jaxpr into a new closed jaxpr.

Higher-order primitives (``xla_call``, ``cond``, ``while``, ``scan``) carry jaxprs in their
params; their batching rules batch those jaxprs with this function and bind the primitive on
the batched operands. Results are cached (bounded), so batching the same jaxpr the same way
again, e.g. on every call of ``vmap(jit(f))``, does not retrace it. Inside a named vmap's
rule the jaxpr is batched along that named axis (:func:`inherited_axis_name`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from mj_batch._batching import BatchDim, move_batch_axis, not_mapped, unmapped_aval
from mj_batch._vmap import batch_flat
from mj_core import bind
from mj_core.extend import batching_frame, bind_collective, collective_prims, on_x64_change
from mj_ir import ClosedJaxpr, Var, jaxpr_as_fun
from mj_ir.extend import trace_to_closed_jaxpr

__all__ = ["clear_vmap_jaxpr_cache", "inherited_axis_name", "vmap_jaxpr"]


def _canonical_dims(
    closed_jaxpr: ClosedJaxpr, bdims_in: Sequence[BatchDim | None]
) -> tuple[BatchDim, ...]:
    avals = closed_jaxpr.in_avals
    if len(bdims_in) != len(avals):
        raise ValueError(
            f"vmap_jaxpr: {len(bdims_in)} batch dims for a jaxpr with {len(avals)} inputs"
        )
    dims: list[BatchDim] = []
    for aval, d in zip(avals, bdims_in, strict=True):
        if d is None or d is not_mapped:
            dims.append(not_mapped)
            continue
        rank = aval.ndim + 1
        if not -rank <= d < rank:
            raise ValueError(
                f"vmap_jaxpr: batch dim {d} is out of range for an input of type "
                f"{aval.str_short()} (rank {rank} with the batch axis)"
            )
        dims.append(d % rank)
    return tuple(dims)


def vmap_jaxpr(
    closed_jaxpr: ClosedJaxpr,
    axis_size: int,
    bdims_in: Sequence[BatchDim | None],
    *,
    instantiate: bool | Sequence[bool] = False,
) -> tuple[ClosedJaxpr, list[BatchDim]]:
    """Batch ``closed_jaxpr``: input ``i`` gets a batch axis of size ``axis_size`` at
    ``bdims_in[i]`` (``not_mapped`` for an unbatched input).

    Returns the batched jaxpr (same number of inputs and outputs, consts kept as consts) and
    the batch dim of each output: where it naturally ended up, or ``not_mapped`` for an
    output that does not depend on a batched input. ``instantiate`` (one bool, or one per
    output) forces outputs to be batched at dim 0, as control flow needs for outputs that
    must agree across branches or iterations.
    """
    n_out = len(closed_jaxpr.jaxpr.outs)
    force = (instantiate,) * n_out if isinstance(instantiate, bool) else tuple(instantiate)
    if len(force) != n_out:
        raise ValueError(
            f"vmap_jaxpr: instantiate has {len(force)} entries for a jaxpr with {n_out} outputs"
        )
    dims = _canonical_dims(closed_jaxpr, bdims_in)
    axis_name = inherited_axis_name(axis_size)
    batched, out_dims = _vmap_jaxpr_cached(closed_jaxpr, axis_size, dims, force, axis_name)
    return batched, list(out_dims)


def inherited_axis_name(axis_size: int) -> Hashable | None:
    """The axis name a jaxpr batched now inherits: that of the named vmap whose rule is
    running (a rule batching a nested jaxpr, e.g. ``jit``'s or ``cond``'s, batches its own
    axis, so collectives inside the jaxpr act over it)."""
    frame = batching_frame()
    return frame.name if frame is not None and frame.size == axis_size else None


def _binding_collectives(closed_jaxpr: ClosedJaxpr) -> Callable[..., list[Any]]:
    """``jaxpr_as_fun`` for a jaxpr batched along a named axis: its collectives are bound
    with ``bind_collective``, so one with only constant operands (``axis_index`` has none)
    still reaches the batch trace owning its axis rather than the trace staging the result."""
    jaxpr = closed_jaxpr.jaxpr

    def fun(*args: Any) -> list[Any]:
        env: dict[Var, Any] = dict(
            zip(jaxpr.in_binders, [*closed_jaxpr.consts, *args], strict=True)
        )
        for eqn in jaxpr.eqns:
            in_vals = [env[x] if type(x) is Var else x.val for x in eqn.inputs]  # type: ignore[union-attr]
            bind_eqn = bind_collective if eqn.primitive in collective_prims else bind
            outs = bind_eqn(eqn.primitive, *in_vals, **eqn.params)
            env.update(zip(eqn.out_binders, outs, strict=True))
        return [env[x] if type(x) is Var else x.val for x in jaxpr.outs]  # type: ignore[union-attr]

    return fun


@functools.lru_cache(maxsize=256)
def _vmap_jaxpr_cached(
    closed_jaxpr: ClosedJaxpr,
    axis_size: int,
    bdims_in: tuple[BatchDim, ...],
    force: tuple[bool, ...],
    axis_name: Hashable | None,
) -> tuple[ClosedJaxpr, tuple[BatchDim, ...]]:
    in_avals = [
        unmapped_aval(axis_size, d, aval)
        for aval, d in zip(closed_jaxpr.in_avals, bdims_in, strict=True)
    ]
    out_dims: list[BatchDim] = []
    fun = jaxpr_as_fun(closed_jaxpr) if axis_name is None else _binding_collectives(closed_jaxpr)

    def batched(*args: Any) -> list[Any]:
        outs, dims = batch_flat(fun, axis_size, bdims_in, args, axis_name)
        for k, forced in enumerate(force):
            if forced and dims[k] != 0:
                outs[k] = move_batch_axis(axis_size, dims[k], 0, outs[k])
                dims[k] = 0
        out_dims[:] = dims
        return outs

    new_jaxpr = trace_to_closed_jaxpr(batched, in_avals)
    return new_jaxpr, tuple(out_dims)


def clear_vmap_jaxpr_cache() -> None:
    """Forget every batched jaxpr (``mj_xla.clear_caches`` drops them with its own caches)."""
    _vmap_jaxpr_cached.cache_clear()


on_x64_change(lambda _: _vmap_jaxpr_cached.cache_clear())  # values it creates take the mode's types
