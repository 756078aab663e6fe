"""The pmap axes of the module being lowered, for the collectives' replica groups.

``pmap`` compiles its function as one replica per device and lowers it inside
:func:`replica_axis`; a ``pmap`` nested in it (or in ``jit``) pushes its own axis, so the
replicas form a grid, the outermost axis major (replica ``r`` of a 2x4 grid is ``(r // 4,
r % 4)``). A collective's lowering rule asks :func:`replica_groups` which replicas take part
together: those differing only along the axes it names. A collective over any other axis
cannot be compiled (``jit`` compiles for one device; vmap's axes are batched away before
lowering).
"""

from __future__ import annotations

import threading
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from mj_core.extend import names_of
from mj_xla._jaxlib import Value, hlo, ir, ir_tensor_type
from mj_xla._lowering import ir_constant

__all__ = [
    "axis_groups",
    "channel_attrs",
    "in_mesh",
    "int64_attr",
    "mesh_axes",
    "mesh_groups",
    "replica_axis",
    "replica_count",
    "replica_groups",
    "replica_index",
]


class _Lowering(threading.local):
    def __init__(self) -> None:
        # the pmap axes being lowered, outermost first: names and sizes
        self.axes: tuple[tuple[Hashable, ...], tuple[int, ...]] = ((), ())
        # inside a shard_map body: the mesh's axis names and sizes (devices are partitions)
        self.mesh: tuple[tuple[Hashable, ...], tuple[int, ...]] | None = None
        self.channels = 0


_state = _Lowering()


#: The trailing axis of the replicas that pmaps nested below the one being lowered split.
_NESTED = object()


@contextmanager
def replica_axis(name: Hashable, size: int, nested: int = 1) -> Iterator[None]:
    """Lower the block with the replicas split ``size`` ways along a new axis ``name``: the
    axes of the enclosing pmaps stay major, and ``nested`` replicas per index (those of the
    pmaps nested in this one, which split them further) minor."""
    prev = _state.axes
    names, sizes = prev
    if names and names[-1] is _NESTED:  # this pmap splits the enclosing one's nested axis
        names, sizes = names[:-1], sizes[:-1]
    names, sizes = (*names, name), (*sizes, size)
    if nested > 1:
        names, sizes = (*names, _NESTED), (*sizes, nested)
    _state.axes = (names, sizes)
    try:
        yield
    finally:
        _state.axes = prev


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
    return _grid_groups(names, sizes, wanted)


def _grid_groups(
    names: tuple[Hashable, ...], sizes: tuple[int, ...], wanted: tuple[Hashable, ...]
) -> np.ndarray[Any, Any]:
    """The ids (row-major over the grid ``sizes``) that differ only along the ``wanted``
    axes: one row per group, ordered by the wanted axes' combined index (first one major)."""
    ids = np.arange(int(np.prod(sizes))).reshape(sizes)
    order = [names.index(n) for n in names if n not in wanted] + [names.index(n) for n in wanted]
    width = int(np.prod([sizes[names.index(n)] for n in wanted]))
    groups: np.ndarray[Any, Any] = ids.transpose(order).reshape(-1, width)
    return groups


def axis_groups(prim_name: str, axis_name: Any) -> np.ndarray[Any, Any]:
    """The devices (mesh partitions, or pmap replicas) taking part together in a collective
    over ``axis_name``: one row per group, in axis-index order."""
    if _state.mesh is not None:
        return mesh_groups(prim_name, axis_name)
    names, sizes = _state.axes
    wanted = names_of(axis_name)
    if not names or any(n not in names for n in wanted):
        where = "a pmap over another axis" if names else "jit (one device)"
        raise NotImplementedError(
            f"{prim_name} over axis {axis_name!r} cannot be compiled: it is not the axis of a "
            f"pmap being compiled here ({where}). Collectives over a vmap axis are computed by "
            "vmap; over a pmap axis they must be inside that pmap."
        )
    return _grid_groups(names, sizes, wanted)


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
    """The ``replica_groups`` attribute of a collective over ``axis_name``: the devices
    differing only along its axes, each such group split by ``axis_index_groups`` if given
    (index ``i`` is the group's ``i``-th device; as JAX, along every row of a mesh)."""
    groups = axis_groups(prim_name, axis_name)
    if axis_index_groups is None:
        return int64_attr(groups.tolist())
    rows = [[row[i] for i in g] for row in groups.tolist() for g in axis_index_groups]
    width = max(len(r) for r in rows)  # uneven groups (reductions) padded with -1, as JAX's
    return int64_attr([r + [-1] * (width - len(r)) for r in rows])


def replica_index(prim_name: str, axis_name: Any) -> Value:
    """This device's index along ``axis_name`` (an i32 scalar), from its replica (or, in a
    ``shard_map`` body, partition) id: the position of the id in its group."""
    i32 = np.dtype(np.int32)
    scalar = ir_tensor_type((), i32)
    names, _ = _state.axes
    if _state.mesh is None and names_of(axis_name) == names:  # the id is the index
        return hlo.convert(scalar, hlo.replica_id())
    groups = axis_groups(prim_name, axis_name)
    table = np.zeros(groups.size, i32)
    for g in groups:
        table[g] = np.arange(len(g))
    device = hlo.partition_id() if _state.mesh is not None else hlo.replica_id()
    index = hlo.dynamic_slice(ir_constant(table), [hlo.convert(scalar, device)], [1])
    result: Value = hlo.reshape(scalar, index)
    return result


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
    return int(np.prod(_state.axes[1], dtype=np.int64))
