"""``mj.sharding``: JAX's ``jax.sharding``, how arrays are laid out over devices.

A ``Mesh`` names the axes of an n-d array of devices, a ``PartitionSpec`` (``P``) says which
mesh axes split each array dimension, and a ``NamedSharding`` pairs them; ``mj.device_put``
splits host data by a sharding, and ``mj.jit(in_shardings=, out_shardings=)`` compiles one
program that XLA's SPMD partitioner splits over the mesh. ``reshard`` lays arrays out anew (a
constraint inside ``jit``); ``set_mesh`` sets the mesh a bare ``PartitionSpec`` refers to.
"""

from mj_xla import AbstractMesh as AbstractMesh
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
