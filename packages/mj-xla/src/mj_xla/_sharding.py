"""Shardings: how a global array is laid out over devices, as JAX's ``jax.sharding``.

A :class:`Mesh` is an n-d array of devices with one name per axis; a :class:`PartitionSpec`
says, per array dimension, which mesh axes split it (``None``: not split); a
:class:`NamedSharding` pairs the two. Every sharding knows its device assignment (the devices
in the order XLA numbers them, the mesh flattened), the ``HloSharding`` XLA's SPMD partitioner
reads, and which slice of the global array each device holds (``devices_indices_map``).
Devices not named along an axis hold replicas.
"""

from __future__ import annotations

import enum
import functools
import math
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Sequence
from itertools import permutations, product
from typing import Any

import numpy as np

from mj_core.errors import user_line_suffix
from mj_core.extend import register_aval_sharding
from mj_core.tree_util import PyTreeDef, tree_flatten
from mj_xla import _jaxlib

__all__ = [
    "AbstractMesh",
    "AxisType",
    "GSPMDSharding",
    "Mesh",
    "NamedSharding",
    "PartitionSpec",
    "PmapSharding",
    "Sharding",
    "SingleDeviceSharding",
    "broadcast_prefix",
    "current_mesh",
    "make_mesh",
    "named_sharding_from_hlo",
    "set_mesh",
]

Index = tuple[Any, ...]  # slices (an int for a pmap's squeezed leading axis)


class AxisType(enum.Enum):
    """How a mesh axis is used (JAX's ``jax.sharding.AxisType``). mj lets XLA's partitioner
    decide the layout of intermediate values for every axis type (JAX's ``Auto``)."""

    Auto = enum.auto()
    Explicit = enum.auto()
    Manual = enum.auto()

    def __repr__(self) -> str:
        return self.name


class UnconstrainedSingleton:
    """``PartitionSpec.UNCONSTRAINED``: a dimension whose split is left to the compiler (JAX's
    sentinel, read by flax's partitioning rules). mj places such a dimension unsplit."""

    _instance: UnconstrainedSingleton | None = None

    def __new__(cls) -> UnconstrainedSingleton:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNCONSTRAINED"

    def __reduce__(self) -> tuple[type[UnconstrainedSingleton], tuple[()]]:
        return (UnconstrainedSingleton, ())


class PartitionSpec(tuple[Any, ...]):
    """Per array dimension: the mesh axis name (or tuple of names, major first) splitting
    it, or ``None``. Trailing dimensions left out are not split; an
    ``UNCONSTRAINED`` dimension is left to the compiler (in mj: not split)."""

    UNCONSTRAINED = UnconstrainedSingleton()

    def __new__(cls, *partitions: Any) -> PartitionSpec:
        for p in partitions:
            names = p if isinstance(p, tuple) else (p,)
            if not all(n is None or isinstance(n, Hashable) for n in names):
                raise TypeError(
                    f"PartitionSpec: each entry must be None, a mesh axis name or a tuple of "
                    f"names, got {p!r}"
                )
        return super().__new__(cls, partitions)

    def __repr__(self) -> str:
        return f"P({repr(tuple(self))[1:-1]})"  # as JAX: P('x',), P('x', None), P()

    def axes_of(self, dim: int) -> tuple[Any, ...]:
        """The mesh axes splitting dimension ``dim`` (major first)."""
        if dim >= len(self) or self[dim] is None or self[dim] is PartitionSpec.UNCONSTRAINED:
            return ()
        entry = self[dim]
        return tuple(entry) if isinstance(entry, tuple) else (entry,)


class Mesh:
    """Devices in an n-d array with a name per axis (JAX's ``jax.sharding.Mesh``)."""

    __slots__ = ("_hash_key", "axis_names", "axis_types", "devices")

    def __init__(
        self,
        devices: Any,
        axis_names: str | Sequence[str],
        axis_types: Sequence[AxisType] | None = None,
    ) -> None:
        names = (axis_names,) if isinstance(axis_names, str) else tuple(axis_names)
        devs = np.asarray(devices, dtype=object)
        if devs.ndim != len(names):
            raise ValueError(
                "Mesh requires the ndim of its first argument (`devices`) to equal the length of "
                f"its second argument (`axis_names`), but got devices.ndim == {devs.ndim} and "
                f"len(axis_names) == {len(names)} (devices shape {devs.shape}, axis names "
                f"{names})."
            )
        if len(set(names)) != len(names):
            raise ValueError(f"Mesh: axis names must be distinct, got {names}")
        ids = [d.id for d in devs.flat]
        if len(set(ids)) != len(ids):
            raise ValueError(f"Mesh: a device appears twice in the mesh (ids {ids})")
        types = (AxisType.Auto,) * len(names) if axis_types is None else tuple(axis_types)
        if len(types) != len(names):
            raise ValueError(f"Mesh: {len(types)} axis_types for {len(names)} axis names ({names})")
        devs.flags.writeable = False
        self.devices: np.ndarray[Any, Any] = devs
        self.axis_names: tuple[str, ...] = names
        self.axis_types: tuple[AxisType, ...] = types
        self._hash_key: tuple[Any, ...] = (names, devs.shape, tuple(ids), types)

    @property
    def shape(self) -> OrderedDict[str, int]:
        return OrderedDict(zip(self.axis_names, self.devices.shape, strict=True))

    @property
    def axis_sizes(self) -> tuple[int, ...]:
        return tuple(self.devices.shape)

    @property
    def size(self) -> int:
        return int(self.devices.size)

    @property
    def device_ids(self) -> np.ndarray[Any, Any]:
        ids: np.ndarray[Any, Any] = np.vectorize(lambda d: d.id, otypes=[int])(self.devices)
        return ids

    @property
    def flat_devices(self) -> tuple[Any, ...]:
        """The devices in XLA's numbering: the mesh in row-major order."""
        return tuple(self.devices.flat)

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, Mesh) and self._hash_key == other._hash_key)

    def __hash__(self) -> int:
        return hash(self._hash_key)

    def _types(self) -> str:
        return "(" + ", ".join(t.name for t in self.axis_types) + ")"

    def __str__(self) -> str:
        axes = ", ".join(f"{n!r}: {s}" for n, s in self.shape.items())
        return f"Mesh({axes}, axis_types={self._types()})"

    def __repr__(self) -> str:
        return (
            f"Mesh(axis_sizes={self.axis_sizes}, axis_names={self.axis_names}, "
            f"axis_types={self._types()})"
        )

    @property
    def abstract_mesh(self) -> AbstractMesh:
        """This mesh's axis names, sizes and types without its devices."""
        return AbstractMesh(self.axis_sizes, self.axis_names, self.axis_types)


class AbstractMesh:
    """A mesh's axis names and sizes without devices (JAX's ``jax.sharding.AbstractMesh``):
    the mesh of an abstract value's sharding (``jax.typeof(x).sharding``, over the empty mesh
    for an unsharded array) and of code that only reasons about shapes (flax's partitioning
    metadata). It has no devices: asking for them raises ``ValueError``, as in JAX."""

    __slots__ = ("axis_names", "axis_sizes", "axis_types")

    def __init__(
        self,
        axis_sizes: Sequence[int],
        axis_names: Sequence[str],
        axis_types: Sequence[AxisType] | None = None,
    ) -> None:
        if len(axis_sizes) != len(axis_names):
            raise ValueError(
                f"AbstractMesh: {len(axis_sizes)} axis sizes for {len(axis_names)} axis names"
            )
        self.axis_sizes: tuple[int, ...] = tuple(int(n) for n in axis_sizes)
        self.axis_names: tuple[str, ...] = tuple(axis_names)
        self.axis_types: tuple[AxisType, ...] = (
            tuple(axis_types) if axis_types is not None else (AxisType.Auto,) * len(axis_names)
        )

    @property
    def shape(self) -> OrderedDict[str, int]:
        return OrderedDict(zip(self.axis_names, self.axis_sizes, strict=True))

    @property
    def shape_tuple(self) -> tuple[tuple[str, int], ...]:
        return tuple(zip(self.axis_names, self.axis_sizes, strict=True))

    @property
    def size(self) -> int:
        """The number of positions in the mesh; 0 for the empty mesh, as JAX's."""
        return math.prod(self.axis_sizes) if self.axis_sizes else 0

    @property
    def empty(self) -> bool:
        return not self.axis_names

    @property
    def abstract_mesh(self) -> AbstractMesh:
        return self

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AbstractMesh) and (
            self.shape_tuple,
            self.axis_types,
        ) == (other.shape_tuple, other.axis_types)

    def __hash__(self) -> int:
        return hash((self.shape_tuple, self.axis_types))

    def __repr__(self) -> str:
        axes = ", ".join(f"{n!r}: {s}" for n, s in self.shape_tuple) or "()"
        types = "(" + ", ".join(t.name for t in self.axis_types) + ")"
        return f"AbstractMesh({axes}, axis_types={types})"


def _no_devices(what: str) -> ValueError:
    return ValueError(f"{what} is not implemented for `jax.sharding.AbstractMesh`.")


def make_mesh(
    axis_shapes: Sequence[int],
    axis_names: Sequence[str],
    axis_types: Sequence[AxisType] | None = None,
    *,
    devices: Sequence[Any] | None = None,
) -> Mesh:
    """A mesh of shape ``axis_shapes`` over ``devices`` (every device by default, which must
    number exactly ``prod(axis_shapes)``), axes typed ``Explicit`` unless given, as JAX's
    ``jax.make_mesh``."""
    devs = list(_jaxlib.devices() if devices is None else devices)
    shape = tuple(int(s) for s in axis_shapes)
    if math.prod(shape) != len(devs):
        raise ValueError(
            f"make_mesh: the mesh shape {shape} needs {math.prod(shape)} devices, but "
            f"{len(devs)} devices are available{user_line_suffix()}"
        )
    if axis_types is None:
        axis_types = (AxisType.Explicit,) * len(shape)
    arr = np.empty(len(devs), dtype=object)
    arr[:] = devs
    return Mesh(arr.reshape(shape), tuple(axis_names), axis_types)


_mesh_stack: list[Mesh | None] = [None]  # [-1]: the mesh set_mesh set, None when none is


def current_mesh() -> Mesh | None:
    """The mesh :func:`set_mesh` set (``None`` when none is set)."""
    return _mesh_stack[-1]


class _MeshSetting:
    """What :func:`set_mesh` returns: exiting it (``with``) restores the previous mesh."""

    __slots__ = ("mesh", "previous")

    def __init__(self, mesh: Mesh | None, previous: Mesh | None) -> None:
        self.mesh, self.previous = mesh, previous

    def __enter__(self) -> Mesh | None:
        return self.mesh

    def __exit__(self, *exc: object) -> None:
        _mesh_stack[-1] = self.previous


def set_mesh(mesh: Mesh | None) -> _MeshSetting:
    """Make ``mesh`` the current mesh, as JAX's ``jax.set_mesh``: a ``PartitionSpec`` given
    where a sharding is expected (``reshard``) means a ``NamedSharding`` on it. Set globally
    when called, or for a ``with`` block (``with mj.set_mesh(mesh): ...``), which restores the
    previous mesh at its end."""
    if mesh is not None and not isinstance(mesh, Mesh):
        raise TypeError(f"set_mesh: expected a Mesh or None, got {type(mesh).__name__}")
    previous = _mesh_stack[-1]
    _mesh_stack[-1] = mesh
    return _MeshSetting(mesh, previous)


class Shard:
    """One device's piece of a sharded array: its ``device``, ``index`` (slices into the global
    array), ``replica_id`` and ``data`` (a single-device array)."""

    __slots__ = ("data", "device", "index", "replica_id")

    def __init__(self, device: Any, index: Index, replica_id: int, data: Any) -> None:
        self.device = device
        self.index = index
        self.replica_id = replica_id
        self.data = data

    def __repr__(self) -> str:
        return (
            f"Shard(device={self.device!r}, index={self.index}, replica_id={self.replica_id}, "
            f"data={self.data})"
        )


class Sharding:
    """What every sharding answers: its devices, and which slice of a global array of a given
    shape each holds."""

    memory_kind = "device"

    @property
    def device_assignment(self) -> tuple[Any, ...]:
        """The devices in XLA's logical numbering (partition ``i`` runs on entry ``i``)."""
        raise NotImplementedError

    def hlo_sharding(self, ndim: int) -> Any:
        """The ``HloSharding`` of an array of rank ``ndim`` (logical device numbers)."""
        raise NotImplementedError

    def devices_indices_map(self, shape: Sequence[int]) -> dict[Any, Index]:
        """For each device, the slice of a global array of ``shape`` it holds."""
        raise NotImplementedError

    @property
    def device_set(self) -> set[Any]:
        return set(self.device_assignment)

    @property
    def addressable_devices(self) -> set[Any]:
        """The devices this process holds pieces on (all of them when it runs alone)."""
        return {d for d in self.device_assignment if _jaxlib.is_local(d)}

    @property
    def num_devices(self) -> int:
        return len(self.device_assignment)

    @property
    def is_fully_addressable(self) -> bool:
        return all(_jaxlib.is_local(d) for d in self.device_assignment)

    @property
    def is_fully_replicated(self) -> bool:
        return bool(self.hlo_sharding(0).is_replicated())

    def addressable_devices_indices_map(self, shape: Sequence[int]) -> dict[Any, Index]:
        return {d: i for d, i in self.devices_indices_map(shape).items() if _jaxlib.is_local(d)}

    def shard_shape(self, shape: Sequence[int]) -> tuple[int, ...]:
        """The shape of each device's piece of a global array of ``shape``."""
        index = next(iter(self.devices_indices_map(shape).values()))
        return tuple(len(range(*s.indices(n))) for s, n in zip(index, shape, strict=True))


class SingleDeviceSharding(Sharding):
    """The whole array on one device."""

    __slots__ = ("_device",)

    def __init__(self, device: Any, *, memory_kind: str | None = None) -> None:
        self._device = device

    @property
    def device_assignment(self) -> tuple[Any, ...]:
        return (self._device,)

    def hlo_sharding(self, ndim: int) -> Any:
        return _jaxlib.hlo_sharding_replicated()

    def devices_indices_map(self, shape: Sequence[int]) -> dict[Any, Index]:
        return {self._device: tuple(slice(None) for _ in shape)}

    @property
    def is_fully_replicated(self) -> bool:
        return True

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SingleDeviceSharding) and other._device == self._device

    def __hash__(self) -> int:
        return hash(("single", self._device))

    def __repr__(self) -> str:
        return f"SingleDeviceSharding(device={self._device!r}, memory_kind={self.memory_kind})"


class NamedSharding(Sharding):
    """A layout over ``mesh``: dimension ``d`` of the array is split over the mesh axes
    ``spec[d]`` (major first), and replicated over the axes no dimension names."""

    __slots__ = ("_hlo", "mesh", "spec")

    def __init__(
        self, mesh: Mesh | AbstractMesh, spec: Any, *, memory_kind: str | None = None
    ) -> None:
        if not isinstance(mesh, Mesh | AbstractMesh):
            raise TypeError(f"NamedSharding: mesh must be a Mesh, got {type(mesh).__name__}")
        if not isinstance(spec, PartitionSpec):
            if isinstance(spec, tuple | list):
                spec = PartitionSpec(*spec)
            else:
                raise TypeError(
                    f"NamedSharding: spec must be a PartitionSpec, got {type(spec).__name__}"
                )
        used: list[Any] = []
        for dim in range(len(spec)):
            for name in spec.axes_of(dim):
                if name not in mesh.axis_names:
                    raise ValueError(
                        f"NamedSharding: the spec {spec} names axis {name!r}, which is not an "
                        f"axis of the mesh (axes {mesh.axis_names}){user_line_suffix()}"
                    )
                if name in used:
                    raise ValueError(
                        f"NamedSharding: the spec {spec} uses mesh axis {name!r} more than "
                        f"once{user_line_suffix()}"
                    )
                used.append(name)
        self.mesh = mesh
        self.spec = spec
        self._hlo: dict[int, Any] = {}  # rank -> HloSharding (a sharding never changes)

    @property
    def device_assignment(self) -> tuple[Any, ...]:
        if isinstance(self.mesh, AbstractMesh):
            raise _no_devices("_device_assignment")
        return self.mesh.flat_devices

    @property
    def device_set(self) -> set[Any]:
        if isinstance(self.mesh, AbstractMesh):
            raise _no_devices("device_set")
        return set(self.mesh.flat_devices)

    @property
    def addressable_devices(self) -> set[Any]:
        if isinstance(self.mesh, AbstractMesh):
            raise _no_devices("addressable_devices")
        return super().addressable_devices

    @property
    def is_fully_addressable(self) -> bool:
        if isinstance(self.mesh, AbstractMesh):
            raise _no_devices("is_fully_addressable")
        return super().is_fully_addressable

    @property
    def num_devices(self) -> int:
        return self.mesh.size

    @property
    def memory_kind(self) -> str | None:  # type: ignore[override]
        """``None`` over an abstract mesh (no devices, no memories), as JAX's."""
        return None if isinstance(self.mesh, AbstractMesh) else "device"

    def shard_shape(self, shape: Sequence[int]) -> tuple[int, ...]:
        if isinstance(self.mesh, Mesh):
            return super().shard_shape(shape)
        self._check_rank(len(shape))
        sizes = self.mesh.shape
        out = []
        for d, n in enumerate(shape):
            parts = math.prod(sizes[a] for a in self.spec.axes_of(d))
            if n % parts:
                raise ValueError(
                    f"Sharding {self} implies that array axis {d} is partitioned {parts} "
                    f"times, but the dimension size is {n} (full shape: {tuple(shape)})"
                )
            out.append(n // parts)
        return tuple(out)

    def _check_rank(self, ndim: int) -> None:
        if len(self.spec) > ndim:
            raise ValueError(
                f"NamedSharding: the spec {self.spec} has {len(self.spec)} entries, too many "
                f"for an array of rank {ndim}{user_line_suffix()}"
            )

    def hlo_sharding(self, ndim: int) -> Any:
        hlo = self._hlo.get(ndim)
        if hlo is None:
            hlo = self._hlo[ndim] = self._make_hlo_sharding(ndim)
        return hlo

    def _make_hlo_sharding(self, ndim: int) -> Any:
        self._check_rank(ndim)
        sizes = self.mesh.shape
        names = self.mesh.axis_names
        tile_dims = [math.prod(sizes[a] for a in self.spec.axes_of(d)) for d in range(ndim)]
        split = [a for d in range(ndim) for a in self.spec.axes_of(d)]
        if not split:
            return _jaxlib.hlo_sharding_replicated()
        rest = [a for a in names if a not in split]
        replicas = math.prod(sizes[a] for a in rest)
        perm = [names.index(a) for a in [*split, *rest]]
        dims = [*tile_dims, replicas] if replicas > 1 else tile_dims
        return _jaxlib.hlo_sharding_tiled(dims, self.mesh.axis_sizes, perm, replicas > 1)

    def devices_indices_map(self, shape: Sequence[int]) -> dict[Any, Index]:
        if isinstance(self.mesh, AbstractMesh):
            raise _no_devices("_device_assignment")
        self._check_rank(len(shape))
        sizes = self.mesh.shape
        out: dict[Any, Index] = {}
        for coords in np.ndindex(*self.mesh.axis_sizes):
            at = dict(zip(self.mesh.axis_names, coords, strict=True))
            index = []
            for d, n in enumerate(shape):
                axes = self.spec.axes_of(d)
                parts = math.prod(sizes[a] for a in axes)
                if n % parts:
                    raise ValueError(
                        f"One of device_put args was given the sharding of {self}, which "
                        f"implies that the global size of its dimension {d} should be "
                        f"divisible by {parts}, but it is equal to {n} (full shape: "
                        f"{tuple(shape)}){user_line_suffix()}"
                    )
                block = 0
                for a in axes:
                    block = block * sizes[a] + at[a]
                chunk = n // parts
                index.append(
                    slice(block * chunk, (block + 1) * chunk) if parts > 1 else slice(None)
                )
            out[self.mesh.devices[coords]] = tuple(index)
        return out

    @property
    def is_fully_replicated(self) -> bool:
        return all(not self.spec.axes_of(d) for d in range(len(self.spec)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, NamedSharding) or other.mesh != self.mesh:
            return False
        n = max(len(self.spec), len(other.spec))
        return all(self.spec.axes_of(d) == other.spec.axes_of(d) for d in range(n))

    def __hash__(self) -> int:
        trimmed = list(self.spec)
        while trimmed and trimmed[-1] is None:
            trimmed.pop()
        return hash((self.mesh, tuple(trimmed)))

    def __repr__(self) -> str:
        if isinstance(self.mesh, AbstractMesh):
            return f"NamedSharding(mesh={self.mesh!r}, spec={self.spec})"
        return f"NamedSharding(mesh={self.mesh}, spec={self.spec}, memory_kind={self.memory_kind})"


class PmapSharding(Sharding):
    """The layout of a ``pmap`` output: slice ``i`` of the leading axis on device ``i``."""

    __slots__ = ("_devices",)

    def __init__(self, devices: Sequence[Any]) -> None:
        self._devices = tuple(devices)

    @property
    def device_assignment(self) -> tuple[Any, ...]:
        return self._devices

    def devices_indices_map(self, shape: Sequence[int]) -> dict[Any, Index]:
        rest = tuple(slice(None) for _ in shape[1:])
        return {d: (i, *rest) for i, d in enumerate(self._devices)}

    @property
    def is_fully_replicated(self) -> bool:
        return len(self._devices) == 1

    def shard_shape(self, shape: Sequence[int]) -> tuple[int, ...]:
        return tuple(shape[1:])

    def __repr__(self) -> str:
        return f"PmapSharding(device_ids={[d.id for d in self._devices]})"


def named_sharding_from_hlo(mesh: Mesh, hlo: Any, ndim: int) -> NamedSharding | None:
    """The :class:`NamedSharding` over ``mesh`` whose ``HloSharding`` is ``hlo`` (XLA's
    choice for an output), or ``None`` when no spec over ``mesh`` gives it."""
    if hlo.is_replicated():
        return NamedSharding(mesh, PartitionSpec())
    names = mesh.axis_names
    for choice in product(range(ndim + 1), repeat=len(names)):  # axis -> dim (ndim: unused)
        groups = [
            tuple(a for a, c in zip(names, choice, strict=True) if c == d) for d in range(ndim)
        ]
        # a dimension split over several axes, in each order (P(("b", "a")) is not P(("a", "b")))
        for spec in product(*(permutations(g) for g in groups)):
            entries = [None if not s else s[0] if len(s) == 1 else s for s in spec]
            while entries and entries[-1] is None:
                entries.pop()
            candidate = NamedSharding(mesh, PartitionSpec(*entries))
            if candidate.hlo_sharding(ndim) == hlo:
                return candidate
    return None


def iter_indices(sharding: Sharding, shape: Sequence[int]) -> Iterator[tuple[Any, Index]]:
    """``(device, index)`` for this process's devices, in the sharding's device order (the
    order of a global array's per-device buffers in this process)."""
    indices = sharding.devices_indices_map(shape)
    for d in sharding.device_assignment:
        if _jaxlib.is_local(d):
            yield d, indices[d]


class GSPMDSharding(Sharding):
    """A layout XLA chose that no ``PartitionSpec`` over the mesh spells: the ``HloSharding``
    itself over ``devices`` (logical device ``i`` is ``devices[i]``)."""

    __slots__ = ("_devices", "_hlo")

    def __init__(self, devices: Sequence[Any], hlo: Any) -> None:
        self._devices = tuple(devices)
        self._hlo = hlo

    @property
    def device_assignment(self) -> tuple[Any, ...]:
        return self._devices

    def hlo_sharding(self, ndim: int) -> Any:
        return self._hlo

    def devices_indices_map(self, shape: Sequence[int]) -> dict[Any, Index]:
        hlo = self._hlo
        if hlo.is_replicated():
            return {d: tuple(slice(None) for _ in shape) for d in self._devices}
        tiles = list(hlo.tile_assignment_dimensions())
        ids = np.asarray(hlo.tile_assignment_devices()).reshape(tiles)
        out: dict[Any, Index] = {}
        for coords in np.ndindex(*tiles):
            index = []
            for d, n in enumerate(shape):
                chunk = -(-n // tiles[d])
                index.append(slice(coords[d] * chunk, min(n, (coords[d] + 1) * chunk)))
            out[self._devices[int(ids[coords])]] = tuple(index)
        return out

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, GSPMDSharding)
            and other._devices == self._devices
            and other._hlo == self._hlo
        )

    def __hash__(self) -> int:
        return hash((self._devices, str(self._hlo)))

    def __repr__(self) -> str:
        return f"GSPMDSharding({self._hlo})"


def _is_sharding(x: Any) -> bool:
    return x is None or isinstance(x, Sharding)


def broadcast_prefix(
    spec: Any, treedef: PyTreeDef, what: str, is_leaf: Callable[[Any], bool] = _is_sharding
) -> list[Any]:
    """One entry per leaf of ``treedef`` from ``spec``, a pytree prefix of it whose leaves
    (``is_leaf``: shardings or ``None`` by default) stand for a whole subtree."""
    if is_leaf(spec):
        return [spec] * treedef.num_leaves
    if isinstance(spec, PartitionSpec):
        raise TypeError(
            f"{what}: a PartitionSpec needs a mesh; pass NamedSharding(mesh, {spec}) "
            f"instead{user_line_suffix()}"
        )
    children, spec_def = tree_flatten(spec, is_leaf=lambda s: s is not spec)
    if spec_def.node_type != treedef.node_type or len(children) != len(treedef.child_treedefs):
        raise ValueError(
            f"{what}: the shardings' structure {spec_def} is not a prefix of the values' "
            f"structure {treedef}{user_line_suffix()}"
        )
    out: list[Sharding | None] = []
    for child, sub in zip(children, treedef.child_treedefs, strict=True):
        out.extend(broadcast_prefix(child, sub, what, is_leaf))
    return out


@functools.cache
def _unsharded_aval_sharding(ndim: int) -> NamedSharding:
    """JAX's sharding of an unsharded abstract value of rank ``ndim``: the empty abstract
    mesh, no dimension split (``P(None, ...)``, ``P()`` for a scalar)."""
    return NamedSharding(AbstractMesh((), ()), PartitionSpec(*([None] * ndim)))


register_aval_sharding(_unsharded_aval_sharding)
