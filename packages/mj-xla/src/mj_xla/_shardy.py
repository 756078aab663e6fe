"""Shardy's annotations (the ``sdy`` dialect), as JAX 0.10.2 lowers shardings.

XLA partitions a program with Shardy, its current partitioner, when the program's shardings
are ``sdy.sharding`` attributes: each names its mesh inline (axis names and sizes, and the
devices' positions in the program's device assignment when the mesh lists them in another
order) and, per dimension, the mesh axes splitting it. ``with_sharding_constraint`` is an
``sdy.sharding_constraint`` and ``shard_map`` an ``sdy.manual_computation`` whose body is the
per-device program. Every program whose shardings are all spelled over meshes
(:class:`NamedSharding`) lowers this way; one holding a layout only an ``HloSharding`` says
(an output XLA chose, passed back in) is partitioned by GSPMD instead (:func:`shardy_layout`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from mj_ir import ClosedJaxpr, Jaxpr
from mj_xla._jaxlib import Value, ir, sdy
from mj_xla._sharding import Mesh, NamedSharding, PartitionSpec, Sharding

__all__ = ["ShardyLayout", "manual_computation", "shardy_layout", "tensor_sharding"]


class ShardyLayout:
    """A program's shardings in Shardy's terms: the program's ``devices`` (partition ``i``
    runs on ``devices[i]``) and a sharding per parameter and per result (``None``: XLA
    chooses)."""

    __slots__ = ("devices", "ins", "outs")

    def __init__(
        self,
        devices: Sequence[Any],
        ins: Sequence[NamedSharding | None],
        outs: Sequence[NamedSharding | None],
    ) -> None:
        self.devices = tuple(devices)
        self.ins = list(ins)
        self.outs = list(outs)


def _named_only(x: Any) -> bool:
    """Whether every sharding in ``x`` (params of a jaxpr's equations, nested) is spelled over
    a mesh."""
    if isinstance(x, Sharding):
        return isinstance(x, NamedSharding)
    if isinstance(x, ClosedJaxpr):
        return _named_only(x.jaxpr)
    if isinstance(x, Jaxpr):
        return all(_named_only(v) for eqn in x.eqns for v in eqn.params.values())
    if isinstance(x, tuple | list):
        return all(_named_only(v) for v in x)
    return True


def shardy_layout(
    jaxpr: Jaxpr,
    n_known: int,
    devices: Sequence[Any],
    mesh: Mesh | None,
    ins: Sequence[Sharding | None],
    outs: Sequence[Sharding | None],
) -> ShardyLayout | None:
    """The program's layout for Shardy, or ``None`` (GSPMD) for a program over one device or
    one with a sharding (an argument's, a result's or one inside) not spelled over a mesh of
    ``devices``, as ``HloSharding``-only layouts and pmap's replicas are not."""
    if mesh is None or len(devices) == 1 or set(mesh.flat_devices) != set(devices):
        return None  # (XLA does not partition one device's program: its sdy ops would stay)
    named_ins = [s for s in ins if s is None or isinstance(s, NamedSharding)]
    named_outs = [s for s in outs if s is None or isinstance(s, NamedSharding)]
    if len(named_ins) < len(ins) or len(named_outs) < len(outs) or not _named_only(jaxpr):
        return None
    given = [s for s in [*named_ins, *named_outs] if s is not None]
    if any(set(s.device_assignment) != set(devices) for s in given):
        return None
    replicated = NamedSharding(mesh, PartitionSpec())
    return ShardyLayout(devices, [replicated] * n_known + named_ins, named_outs)


def tensor_sharding(sharding: NamedSharding, ndim: int, devices: Sequence[Any]) -> ir.Attribute:
    """``#sdy.sharding<mesh<[...]>, [{axes of dim 0}, ...]>`` for an array of rank ``ndim``
    laid out by ``sharding`` in a program over ``devices``."""
    mesh = sharding.mesh
    flat = sharding.device_assignment
    order = list(devices)
    ids = [] if flat == tuple(order) else [order.index(d) for d in flat]
    mesh_attr = sdy.MeshAttr.get(
        [sdy.MeshAxisAttr.get(n, s) for n, s in zip(mesh.axis_names, mesh.axis_sizes, strict=True)],
        ids,
    )
    dims = [
        sdy.DimensionShardingAttr.get(
            [sdy.AxisRefAttr.get(a) for a in sharding.spec.axes_of(d)], is_closed=True
        )
        for d in range(ndim)
    ]
    attr: ir.Attribute = sdy.TensorShardingAttr.get(
        mesh_attr, dims, replicated_axes=[], unreduced_axes=[]
    )
    return attr


def sharding_constraint(x: Value, attr: ir.Attribute) -> Value:
    """``sdy.sharding_constraint``: ``x`` laid out by ``attr`` at this point."""
    out: Value = sdy.sharding_constraint(x, attr)
    return out


def manual_computation(
    operands: Sequence[Value],
    in_attrs: Sequence[ir.Attribute],
    out_attrs: Sequence[ir.Attribute],
    out_types: Sequence[ir.Type],
    block_types: Sequence[ir.Type],
    manual_axes: Sequence[str],
    body: Callable[[list[Value]], list[Value]],
) -> list[Value]:
    """``sdy.manual_computation``: ``body`` runs on each device's blocks of ``operands``
    (laid out by ``in_attrs``, of types ``block_types``) and its per-device results form
    global arrays laid out by ``out_attrs``."""
    op = sdy.ManualComputationOp(
        list(out_types),
        list(operands),
        sdy.TensorShardingPerValueAttr.get(list(in_attrs)),
        sdy.TensorShardingPerValueAttr.get(list(out_attrs)),
        sdy.ManualAxesAttr.get([ir.StringAttr.get(a) for a in manual_axes]),
    )
    block = ir.Block.create_at_start(op.body, list(block_types))
    with ir.InsertionPoint(block):
        sdy.return_(body(list(block.arguments)))
    return list(op.results)
