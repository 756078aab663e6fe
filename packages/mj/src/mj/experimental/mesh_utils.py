"""``mj.experimental.mesh_utils``: JAX's ``create_device_mesh`` for ``mj.sharding.Mesh``.

mj runs on CPU and GPU devices, where JAX's layout is the devices in order (by id on a GPU)
reshaped to the mesh's shape; TPU torus layouts have no counterpart.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

import mj_xla

__all__ = ["create_device_mesh"]


def create_device_mesh(
    mesh_shape: Sequence[int],
    devices: Sequence[Any] | None = None,
    *,
    contiguous_submeshes: bool = False,
    allow_split_physical_axes: bool = False,
) -> np.ndarray:
    """An array of ``mesh_shape`` holding ``devices`` (default: every device) in order, for
    ``Mesh(devices, axis_names)``; as JAX's on CPU and GPU. The keyword options matter only
    for TPU topologies and are accepted for JAX's signature."""
    del contiguous_submeshes, allow_split_physical_axes
    if devices is None:
        devices = mj_xla.devices()
    try:
        shape = tuple(operator.index(n) for n in mesh_shape)
    except TypeError:
        raise ValueError(
            f"`mesh_shape` passed to `create_device_mesh` should be a sequence of ints. "
            f"Got {mesh_shape}"
        ) from None
    if math.prod(shape) != len(devices):
        raise ValueError(
            f"Number of devices {len(devices)} must equal the product of mesh_shape {shape}"
        )
    ordered = list(devices)
    if ordered and ordered[-1].platform == "gpu":
        ordered.sort(key=lambda d: d.id)
    mesh = np.empty(len(ordered), dtype=object)
    mesh[:] = ordered
    return mesh.reshape(shape)
