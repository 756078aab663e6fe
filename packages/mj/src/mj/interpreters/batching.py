"""``mj.interpreters.batching``: JAX's batching registries (``jax.interpreters.batching``)
over ``mj_batch.extend.vmap_rules``.

mj's rule is ``rule(axis_size, vals_in, dims_in, **params) -> (vals_out, dims_out)`` with
``mj_batch.not_mapped`` for an unbatched value; JAX's are

* ``primitive_batchers[p] = rule``: ``rule(args, dims, **params) -> (out, dim)`` (single
  values unless ``p.multiple_results``);
* ``axis_primitive_batchers[p] = rule``: ``rule(axis_size, axis_name, trace, args, dims,
  **params)`` (``trace`` is ``None``, as JAX's compatibility shim passes it);
* ``fancy_primitive_batchers[p] = rule``: ``rule(axis_data, args, dims, **params)`` with
  ``axis_data.size`` / ``axis_data.name``.

In JAX's spelling an unbatched dim is ``None`` (JAX's ``not_mapped``, exported here as
:data:`not_mapped`); the adapters translate it to and from ``mj_batch.not_mapped``, and a rule
may return either. As in JAX, a rule is not called when no operand is batched.

``register_vmappable`` / ``unregister_vmappable`` (a custom type that vmap maps with specs of
its own) are ``mj_batch.extend``'s.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mj._rule_views import RuleView, multiple_results
from mj_batch import not_mapped as _mj_not_mapped
from mj_batch.extend import broadcast_batched, vmap_rules
from mj_batch.extend import defbroadcasting as defbroadcasting
from mj_batch.extend import defvectorized as defvectorized
from mj_batch.extend import moveaxis as _mj_moveaxis
from mj_batch.extend import register_vmappable as register_vmappable
from mj_batch.extend import unregister_vmappable as unregister_vmappable
from mj_core import Primitive, bind
from mj_core.extend import batching_frame

__all__ = [
    "AxisData",
    "axis_primitive_batchers",
    "bdim_at_front",
    "broadcast",
    "defbroadcasting",
    "defvectorized",
    "fancy_primitive_batchers",
    "moveaxis",
    "not_mapped",
    "primitive_batchers",
    "register_vmappable",
    "unregister_vmappable",
]

Rule = Callable[..., Any]

not_mapped = None
"""The batch dim of an unbatched value in JAX's spelling (``None``, as JAX's own
``batching.not_mapped``). mj's tables use ``mj_batch.not_mapped``; the adapters translate."""


@dataclass(frozen=True)
class AxisData:
    """What JAX hands a ``fancy_primitive_batchers`` rule about the mapped axis."""

    name: Any
    size: int
    spmd_name: Any = None
    explicit_mesh_axis: Any = None


def _jax_dim(d: object) -> Any:
    return None if d is _mj_not_mapped else d


def _mj_dim(d: object) -> Any:
    return _mj_not_mapped if d is None or d is _mj_not_mapped else d


def _axis_name() -> Any:
    frame = batching_frame()
    return None if frame is None else frame.name


def _adapter(
    prim: Primitive, call: Callable[[int, list[Any], list[Any], dict[str, Any]], Any]
) -> Rule:
    """An mj vmap rule calling a JAX rule through ``call(axis_size, vals, jax_dims, params)``
    and translating its result."""
    multiple = multiple_results(prim)

    def vmap_rule(
        axis_size: int, vals_in: list[Any], dims_in: list[Any], **params: object
    ) -> tuple[list[Any], list[Any]]:
        dims = [_jax_dim(d) for d in dims_in]
        if all(d is None for d in dims):
            outs = bind(prim, *vals_in, **params)
            return outs, [_mj_not_mapped] * len(outs)
        out, out_dims = call(axis_size, list(vals_in), dims, params)
        if not multiple:
            return [out], [_mj_dim(out_dims)]
        outs = list(out)
        if not isinstance(out_dims, Sequence):  # one dim for every output
            out_dims = [out_dims] * len(outs)
        return outs, [_mj_dim(d) for d in out_dims]

    return vmap_rule


def _batcher_to_mj(prim: Primitive, rule: Rule) -> Rule:
    return _adapter(prim, lambda size, vals, dims, params: rule(vals, dims, **params))


def _axis_batcher_to_mj(prim: Primitive, rule: Rule) -> Rule:
    return _adapter(
        prim, lambda size, vals, dims, params: rule(size, _axis_name(), None, vals, dims, **params)
    )


def _fancy_batcher_to_mj(prim: Primitive, rule: Rule) -> Rule:
    return _adapter(
        prim,
        lambda size, vals, dims, params: rule(AxisData(_axis_name(), size), vals, dims, **params),
    )


def _axis_size(args: Sequence[Any], dims: Sequence[Any]) -> int:
    for x, d in zip(args, dims, strict=True):
        if _jax_dim(d) is not None:
            return int(np.shape(x)[d])
    raise ValueError("batching rule called with no batched operand")


def _call_mj(
    prim: Primitive,
    rule: Rule,
    size: int,
    args: Sequence[Any],
    dims: Sequence[Any],
    params: dict[str, Any],
) -> Any:
    outs, out_dims = rule(size, list(args), [_mj_dim(d) for d in dims], **params)
    jax_dims = [_jax_dim(d) for d in out_dims]
    if multiple_results(prim):
        return outs, jax_dims
    return outs[0], jax_dims[0]


def _batcher_to_jax(prim: Primitive, rule: Rule) -> Rule:
    def batcher(args: Sequence[Any], dims: Sequence[Any], **params: object) -> Any:
        return _call_mj(prim, rule, _axis_size(args, dims), args, dims, params)

    return batcher


def _axis_batcher_to_jax(prim: Primitive, rule: Rule) -> Rule:
    def batcher(
        axis_size: int,
        axis_name: object,
        trace: object,
        args: Sequence[Any],
        dims: Sequence[Any],
        **params: object,
    ) -> Any:
        return _call_mj(prim, rule, axis_size, args, dims, params)

    return batcher


def _fancy_batcher_to_jax(prim: Primitive, rule: Rule) -> Rule:
    def batcher(axis_data: Any, args: Sequence[Any], dims: Sequence[Any], **params: Any) -> Any:
        return _call_mj(prim, rule, axis_data.size, args, dims, params)

    return batcher


primitive_batchers = RuleView("primitive_batchers", vmap_rules, _batcher_to_mj, _batcher_to_jax)
"""``primitive_batchers[p]``: ``p``'s batching rule as ``rule(args, dims, **params)``;
assigning registers it in ``mj_batch.extend.vmap_rules``."""

axis_primitive_batchers = RuleView(
    "axis_primitive_batchers", vmap_rules, _axis_batcher_to_mj, _axis_batcher_to_jax
)
"""``axis_primitive_batchers[p]``: as :data:`primitive_batchers`, with the rule also given
the axis size and name: ``rule(axis_size, axis_name, trace, args, dims, **params)``."""

fancy_primitive_batchers = RuleView(
    "fancy_primitive_batchers", vmap_rules, _fancy_batcher_to_mj, _fancy_batcher_to_jax
)
"""``fancy_primitive_batchers[p]``: ``rule(axis_data, args, dims, **params)``."""


# --- helpers JAX exposes ----------------------------------------------------------------------


def moveaxis(x: Any, src: int, dst: int) -> Any:
    """``x`` with axis ``src`` moved to ``dst`` (negative axes count from the end)."""
    ndim = len(np.shape(x))
    return _mj_moveaxis(x, src % ndim, dst % ndim)


def broadcast(x: Any, sz: int, axis: int, mesh_axis: Any = None) -> Any:
    """``sz`` copies of ``x`` stacked at ``axis`` (JAX's ``batching.broadcast``)."""
    ndim = len(np.shape(x)) + 1
    return broadcast_batched(x, sz, axis % ndim)


def bdim_at_front(x: Any, bdim: Any, size: int, mesh_axis: Any = None) -> Any:
    """``x`` batched at axis 0: its batch dim ``bdim`` moved to the front, or ``size``
    copies of it when it is unbatched (``bdim`` is ``None``)."""
    if _jax_dim(bdim) is None:
        return broadcast(x, size, 0)
    return moveaxis(x, bdim, 0)
