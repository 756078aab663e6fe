"""Running a ``pmap``: its body as one SPMD program over the devices, as JAX 0.10.2 does.

JAX 0.10.2 runs ``pmap(f)`` as ``jit(shard_map(f))`` over a 1-d mesh of the devices: one
program partitioned N ways (``num_partitions=N``), each mapped argument laid out along its
leading axis, one slice per device, the unmapped ones replicated. mj's ``xla_pmap`` impl does
the same through :func:`~mj_xla._shard_map.shard_map` and
:class:`~mj_xla._spmd_executable.SpmdExecutable`. Two kinds of body keep the replicated
route (:mod:`mj_xla._pmap_executable`, one replica per device), which they need: one holding
a nested ``pmap`` (its replicas split the devices further) and one whose collectives name
``axis_index_groups`` (which ``shard_map`` does not take).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from mj_core import lax
from mj_core.extend import impl_rules
from mj_ir import ClosedJaxpr, Jaxpr, eval_jaxpr
from mj_ir.extend import trace_to_jaxpr
from mj_xla._identity_cache import IdentityCache
from mj_xla._pmap_executable import executable, resolve_devices, stacked
from mj_xla._shard_map import shard_map
from mj_xla._sharding import Mesh, NamedSharding, PartitionSpec
from mj_xla._spmd_executable import SpmdExecutable
from mj_xla._xla_pmap import names_devices, nested_devices_error, nested_replicas, xla_pmap_p

__all__ = ["xla_pmap_impl"]

#: The mesh axis of a pmap without ``axis_name`` (JAX's name for it).
_UNNAMED = "_internal_pmap_axis_name"


def xla_pmap_impl(
    *args: Any,
    axis_name: Hashable,
    axis_size: int,
    backend: Any,
    call_jaxpr: ClosedJaxpr,
    devices: Any,
    global_axis_size: Any,
    mapped_invars: tuple[bool, ...],
    name: str,
) -> list[Any]:
    inner = nested_replicas(call_jaxpr)
    if inner > 1 and (devices is not None or names_devices(call_jaxpr.jaxpr)):
        raise nested_devices_error(name)
    placed = resolve_devices(axis_size * inner, devices)
    if inner > 1 or _has_index_groups(call_jaxpr):
        return list(executable(call_jaxpr, axis_name, placed, inner).run(args, mapped_invars))
    return _spmd_executable(call_jaxpr, axis_name, placed, mapped_invars).run(args)


impl_rules[xla_pmap_p] = xla_pmap_impl


def _spmd_program(
    call_jaxpr: ClosedJaxpr, axis_name: Hashable, devices: tuple[Any, ...], mapped: Sequence[bool]
) -> SpmdExecutable:
    """``call_jaxpr`` as JAX's ``jit(shard_map)``: over a mesh ``(axis_name,)`` of
    ``devices``, a mapped operand of global shape ``(n, *s)`` is split ``P(axis_name)`` (each
    device's block ``(1, *s)`` squeezed to the body's ``s``), an unmapped one replicated; each
    output is stacked back along a new leading axis."""
    name = _UNNAMED if axis_name is None else axis_name
    mesh = Mesh(np.array(devices, dtype=object), (name,))  # type: ignore[arg-type]
    split, whole = PartitionSpec(name), PartitionSpec()
    in_specs = tuple(split if m else whole for m in mapped)

    def body(*blocks: Any) -> list[Any]:
        args = [lax.squeeze(b, [0]) if m else b for b, m in zip(blocks, mapped, strict=True)]
        return [lax.expand_dims(o, [0]) for o in eval_jaxpr(call_jaxpr, args)]

    sharded = shard_map(body, mesh=mesh, in_specs=in_specs, out_specs=split, check_vma=False)
    in_avals = [
        stacked(len(devices), a) if m else a
        for a, m in zip(call_jaxpr.in_avals, mapped, strict=True)
    ]
    jaxpr, consts = trace_to_jaxpr(lambda *xs: sharded(*xs), in_avals)
    ins = [NamedSharding(mesh, s) for s in in_specs]
    outs = [NamedSharding(mesh, split)] * len(jaxpr.outs)
    return SpmdExecutable(jaxpr, consts, devices, mesh, ins, outs)


_executables: IdentityCache[SpmdExecutable] = IdentityCache(128)


def _spmd_executable(
    call_jaxpr: ClosedJaxpr, axis_name: Hashable, devices: tuple[Any, ...], mapped: tuple[bool, ...]
) -> SpmdExecutable:
    """The (LRU-cached) SPMD program of ``call_jaxpr`` on ``devices``."""
    return _executables.get(
        call_jaxpr, lambda: _spmd_program(call_jaxpr, axis_name, devices, mapped), devices, mapped
    )


_index_groups: IdentityCache[bool] = IdentityCache(128)


def _has_index_groups(call_jaxpr: ClosedJaxpr) -> bool:
    """:func:`uses_index_groups` of the body, cached by its identity."""
    return _index_groups.get(call_jaxpr, lambda: uses_index_groups(call_jaxpr.jaxpr))


def uses_index_groups(jaxpr: Jaxpr) -> bool:
    """Whether a collective in ``jaxpr`` (or a jaxpr nested in it) has ``axis_index_groups``."""
    for eqn in jaxpr.eqns:
        if eqn.params.get("axis_index_groups") is not None:
            return True
        for value in eqn.params.values():
            for sub in value if isinstance(value, tuple | list) else (value,):
                if isinstance(sub, ClosedJaxpr | Jaxpr) and uses_index_groups(
                    sub.jaxpr if isinstance(sub, ClosedJaxpr) else sub
                ):
                    return True
    return False
