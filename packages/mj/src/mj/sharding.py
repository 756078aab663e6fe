"""``mj.sharding``: JAX's ``jax.sharding``, how arrays are laid out over devices.

A ``Mesh`` names the axes of an n-d array of devices, a ``PartitionSpec`` (``P``) says which
mesh axes split each array dimension, and a ``NamedSharding`` pairs them; ``mj.device_put``
splits host data by a sharding, and ``mj.jit(in_shardings=, out_shardings=)`` compiles one
program that XLA's SPMD partitioner splits over the mesh. ``reshard`` lays arrays out anew (a
constraint inside ``jit``); ``set_mesh`` sets the mesh a bare ``PartitionSpec`` refers to.
"""

import math

from mj_xla import AxisType as AxisType
from mj_xla import Mesh as Mesh
from mj_xla import NamedSharding as NamedSharding
from mj_xla import PartitionSpec as PartitionSpec
from mj_xla import PmapSharding as PmapSharding
from mj_xla import Shard as Shard
from mj_xla import Sharding as Sharding
from mj_xla import SingleDeviceSharding as SingleDeviceSharding
from mj_xla import reshard as reshard
from mj_xla import set_mesh as set_mesh

P = PartitionSpec


def make_single_device_sharding(device: object, *, memory_kind: str | None = None) -> Sharding:
    """The whole array on ``device`` (JAX's ``jax.sharding.make_single_device_sharding``)."""
    return SingleDeviceSharding(device, memory_kind=memory_kind)


class AbstractMesh:
    """A mesh's axis names and sizes without devices (JAX's ``jax.sharding.AbstractMesh``):
    what code that only reasons about shapes (flax's partitioning metadata) reads."""

    def __init__(
        self,
        axis_sizes: tuple[int, ...],
        axis_names: tuple[str, ...],
        axis_types: tuple[AxisType, ...] | None = None,
    ) -> None:
        if len(axis_sizes) != len(axis_names):
            raise ValueError(
                f"AbstractMesh: {len(axis_sizes)} axis sizes for {len(axis_names)} axis names"
            )
        self.axis_sizes = tuple(int(n) for n in axis_sizes)
        self.axis_names = tuple(axis_names)
        self.axis_types = (
            tuple(axis_types) if axis_types is not None else (AxisType.Auto,) * len(axis_names)
        )

    @property
    def shape(self) -> dict[str, int]:
        return dict(zip(self.axis_names, self.axis_sizes, strict=True))

    @property
    def shape_tuple(self) -> tuple[tuple[str, int], ...]:
        return tuple(zip(self.axis_names, self.axis_sizes, strict=True))

    @property
    def size(self) -> int:
        return math.prod(self.axis_sizes)

    @property
    def empty(self) -> bool:
        return not self.axis_names

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AbstractMesh) and (
            self.shape_tuple,
            self.axis_types,
        ) == (other.shape_tuple, other.axis_types)

    def __hash__(self) -> int:
        return hash((self.shape_tuple, self.axis_types))

    def __repr__(self) -> str:
        return f"AbstractMesh({self.shape_tuple!r})"


def get_abstract_mesh() -> AbstractMesh:
    """The mesh set for the current context, abstractly (JAX's ``get_abstract_mesh``). mj has
    no ambient mesh context (shardings are passed explicitly), so this is the empty mesh."""
    return AbstractMesh((), ())


__all__ = [
    "AbstractMesh",
    "AxisType",
    "Mesh",
    "NamedSharding",
    "P",
    "PartitionSpec",
    "PmapSharding",
    "Shard",
    "Sharding",
    "SingleDeviceSharding",
    "get_abstract_mesh",
    "reshard",
    "set_mesh",
]
