"""``with_sharding_constraint``: pin the layout of an intermediate value inside ``jit``.

The ``sharding_constraint`` primitive is the identity on values; its ``sharding`` param tells
XLA's SPMD partitioner how the value must be laid out there (lowered, as JAX does, to an
``sdy.sharding_constraint``, or a ``custom_call @Sharding`` carrying ``mhlo.sharding`` in a
program GSPMD partitions). It is linear (its JVP and transpose
constrain the tangent and cotangent the same way); under ``vmap`` the batch dimension is left
unsplit. Outside ``jit`` it lays the value out as asked (``device_put``).
"""

from __future__ import annotations

from typing import Any

from mj_autodiff.extend import deflinear
from mj_batch.extend import Dims, RuleResult, Vals, vmap_rules
from mj_core import Primitive, ShapedArray, bind1, get_aval, impl_rules, raise_to_shaped
from mj_core.extend import abstract_eval_rules
from mj_core.tree_util import tree_flatten, tree_unflatten
from mj_xla._device_put import device_put
from mj_xla._jaxlib import Value, hlo, ir
from mj_xla._lowering import Avals, LoweringContext, Values, aval_to_ir_type, lowering_rules
from mj_xla._sharding import (
    NamedSharding,
    PartitionSpec,
    Sharding,
    broadcast_prefix,
    current_mesh,
)
from mj_xla._shardy import sharding_constraint as shardy_constraint
from mj_xla._shardy import tensor_sharding

__all__ = ["reshard", "sharding_constraint_p", "with_sharding_constraint"]

sharding_constraint_p = Primitive("sharding_constraint")


def with_sharding_constraint(x: Any, shardings: Any) -> Any:
    """``x`` (a pytree of arrays), laid out by ``shardings`` (a sharding for every leaf, or a
    pytree prefix of ``x`` of them): inside ``jit`` a constraint XLA's partitioner obeys."""
    leaves, tree = tree_flatten(x)
    per_leaf = broadcast_prefix(shardings, tree, "with_sharding_constraint")
    outs = [
        leaf if s is None else bind1(sharding_constraint_p, leaf, sharding=s)
        for leaf, s in zip(leaves, per_leaf, strict=True)
    ]
    return tree_unflatten(tree, outs)


def reshard(xs: Any, out_shardings: Any) -> Any:
    """``xs`` (a pytree of arrays) laid out by ``out_shardings`` (a sharding or a
    ``PartitionSpec`` for every leaf, or a pytree prefix of ``xs`` of them), as JAX's
    ``jax.sharding.reshard``: outside ``jit`` the arrays are moved (``device_put``), inside a
    constraint XLA's partitioner obeys. A ``PartitionSpec`` names axes of the mesh
    :func:`~mj_xla.set_mesh` set."""
    leaves, tree = tree_flatten(xs)
    per_leaf = broadcast_prefix(out_shardings, tree, "reshard", _is_sharding_or_spec)
    outs = []
    for leaf, s in zip(leaves, per_leaf, strict=True):
        if isinstance(s, PartitionSpec):
            mesh = current_mesh()
            if mesh is None:
                raise ValueError(
                    f"reshard: the PartitionSpec {s} needs a mesh: set one with "
                    "mj.set_mesh(mesh), or pass a NamedSharding"
                )
            s = NamedSharding(mesh, s)
        if not isinstance(s, Sharding):
            raise TypeError(f"reshard: expected a Sharding or PartitionSpec, got {s!r}")
        if isinstance(s, NamedSharding):  # the spec spelled out to the rank, as JAX's
            s = _padded(s, get_aval(leaf).ndim)
        outs.append(bind1(sharding_constraint_p, leaf, sharding=s))
    return tree_unflatten(tree, outs)


def _padded(sharding: NamedSharding, ndim: int) -> NamedSharding:
    """``sharding`` with its spec given an entry (``None``) for every dimension of a rank
    ``ndim`` array."""
    spec = sharding.spec
    if len(spec) >= ndim:
        return sharding
    return NamedSharding(sharding.mesh, PartitionSpec(*spec, *(None,) * (ndim - len(spec))))


def _is_sharding_or_spec(s: Any) -> bool:
    return isinstance(s, Sharding | PartitionSpec)


def _impl(x: Any, *, sharding: Sharding) -> list[Any]:
    return [device_put(x, sharding)]


impl_rules[sharding_constraint_p] = _impl


def _abstract_eval(aval: ShapedArray, *, sharding: Sharding) -> list[ShapedArray]:
    sharding.hlo_sharding(aval.ndim)  # checks the spec fits the rank
    return [raise_to_shaped(aval)]


abstract_eval_rules[sharding_constraint_p] = _abstract_eval


def _transpose(ct: Any, *, sharding: Sharding) -> list[Any]:
    return [bind1(sharding_constraint_p, ct, sharding=sharding)]


deflinear(sharding_constraint_p, _transpose)


def _vmap(axis_size: int, vals_in: Vals, dims_in: Dims, *, sharding: Sharding) -> RuleResult:
    (x,), (bdim,) = vals_in, dims_in
    if isinstance(sharding, NamedSharding) and isinstance(bdim, int):
        spec = list(sharding.spec) + [None] * max(0, bdim - len(sharding.spec))
        spec.insert(bdim, None)
        sharding = NamedSharding(sharding.mesh, PartitionSpec(*spec))
    return [bind1(sharding_constraint_p, x, sharding=sharding)], [bdim]


vmap_rules[sharding_constraint_p] = _vmap


def sharding_custom_call(x: Value, aval: ShapedArray, sharding: str, target: str) -> Value:
    """``custom_call @target(x)`` with ``mhlo.sharding = sharding`` (an ``HloSharding``'s
    text): how JAX spells layout changes for XLA's partitioner (``Sharding``,
    ``SPMDFullToShardShape``, ``SPMDShardToFullShape``)."""
    op = hlo.CustomCallOp(
        [aval_to_ir_type(aval)], [x], call_target_name=target, backend_config=ir.StringAttr.get("")
    )
    op.attributes["mhlo.sharding"] = ir.StringAttr.get(sharding)
    result: Value = op.results[0]
    return result


def _lowering(
    ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values, *, sharding: Sharding
) -> list[Value]:
    ndim = avals_in[0].ndim
    if ctx.shardy is not None and isinstance(sharding, NamedSharding):
        attr = tensor_sharding(sharding, ndim, ctx.shardy.devices)
        return [shardy_constraint(in_vals[0], attr)]
    text = str(sharding.hlo_sharding(ndim))
    return [sharding_custom_call(in_vals[0], avals_out[0], text, "Sharding")]


lowering_rules[sharding_constraint_p] = _lowering
