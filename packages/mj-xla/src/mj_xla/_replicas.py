"""The pmap axes of the module being lowered, for the collectives' replica groups.

``pmap`` compiles its function as one replica per device and lowers it inside
:func:`replica_axis`; a collective's lowering rule asks :func:`replica_groups` which
replicas take part together. A collective over any other axis cannot be compiled (``jit``
compiles for one device; vmap's axes are batched away before lowering).
"""

from __future__ import annotations

import threading
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from mj_core.extend import names_of
from mj_xla._jaxlib import hlo, ir

__all__ = [
    "channel_attrs",
    "in_mesh",
    "int64_attr",
    "mesh_axes",
    "mesh_groups",
    "replica_axis",
    "replica_count",
    "replica_groups",
]


class _Lowering(threading.local):
    def __init__(self) -> None:
        self.axis: tuple[Hashable, int] | None = None
        # inside a shard_map body: the mesh's axis names and sizes (devices are partitions)
        self.mesh: tuple[tuple[Hashable, ...], tuple[int, ...]] | None = None
        self.channels = 0


_state = _Lowering()


@contextmanager
def replica_axis(name: Hashable, size: int) -> Iterator[None]:
    """Lower the block's modules as ``size`` replicas mapped over axis ``name``."""
    prev = _state.axis
    _state.axis = (name, size)
    try:
        yield
    finally:
        _state.axis = prev


@contextmanager
def mesh_axes(names: tuple[Hashable, ...], sizes: tuple[int, ...]) -> Iterator[None]:
    """Lower the block as a ``shard_map`` body over a mesh of these axes: collectives group
    the partitions (XLA's logical device ids, the mesh in row-major order) along them."""
    prev = _state.mesh
    _state.mesh = (names, sizes)
    try:
        yield
    finally:
        _state.mesh = prev


def mesh_groups(prim_name: str, axis_name: Any) -> np.ndarray[Any, Any]:
    """The partitions taking part together in a collective over ``axis_name`` inside a
    ``shard_map`` body: one row per group, in axis-index order."""
    assert _state.mesh is not None
    names, sizes = _state.mesh
    wanted = names_of(axis_name)
    missing = [n for n in wanted if n not in names]
    if missing:
        raise NameError(
            f"{prim_name}: unbound axis name {missing[0]!r}; the mesh axes in scope are "
            f"{list(names)}"
        )
    ids = np.arange(int(np.prod(sizes))).reshape(sizes)
    order = [names.index(n) for n in names if n not in wanted] + [names.index(n) for n in wanted]
    width = int(np.prod([sizes[names.index(n)] for n in wanted]))
    groups: np.ndarray[Any, Any] = ids.transpose(order).reshape(-1, width)
    return groups


def in_mesh() -> bool:
    """True while lowering a ``shard_map`` body."""
    return _state.mesh is not None


def channel_attrs(global_ids: bool = True) -> dict[str, Any]:
    """Inside a ``shard_map`` body a collective is cross-partition: a fresh channel, and
    replica groups that hold global device ids. Elsewhere (pmap replicas) nothing."""
    if _state.mesh is None:
        return {}
    _state.channels += 1
    attrs: dict[str, Any] = {"channel_handle": hlo.ChannelHandle.get(_state.channels, 1)}
    if global_ids:
        attrs["use_global_device_ids"] = True
    return attrs


def replica_groups(prim_name: str, axis_name: Any, axis_index_groups: Any = None) -> ir.Attribute:
    """The ``replica_groups`` attribute of a collective over ``axis_name``: every replica in
    one group, or the given ``axis_index_groups`` (replica ``i`` is axis index ``i``)."""
    if _state.mesh is not None:
        rows = mesh_groups(prim_name, axis_name).tolist()
        if axis_index_groups is not None:  # as JAX: each group of indices, along every row
            rows = [[row[i] for i in group] for row in rows for group in axis_index_groups]
        return int64_attr(rows)
    axis = _state.axis
    names = names_of(axis_name)
    if axis is None or names != (axis[0],):
        where = "a pmap over another axis" if axis is not None else "jit (one device)"
        raise NotImplementedError(
            f"{prim_name} over axis {axis_name!r} cannot be compiled: it is not the axis of a "
            f"pmap being compiled here ({where}). Collectives over a vmap axis are computed by "
            "vmap; over a pmap axis they must be inside that pmap."
        )
    size = axis[1]
    groups = [list(range(size))] if axis_index_groups is None else axis_index_groups
    return int64_attr(groups)


def int64_attr(rows: Any) -> ir.Attribute:
    """A dense ``i64`` attribute holding the matrix ``rows`` (groups, source-target pairs)."""
    values = (
        np.asarray(rows, np.int64).reshape(len(rows), -1)
        if len(rows)
        else np.zeros((0, 2), np.int64)
    )
    attr: ir.Attribute = ir.DenseIntElementsAttr.get(values)  # type: ignore[call-overload]
    return attr


def replica_count() -> int:
    """The number of replicas of the module being lowered (1 outside a pmap)."""
    axis = _state.axis
    return 1 if axis is None else axis[1]
