"""Global arrays built piece by piece in each process: ``make_array_from_callback`` and
``make_array_from_process_local_data`` (JAX's). Over a mesh spanning several processes a
process can only place the pieces of its own devices, so it is asked for those only."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mj_core import ShapedArray
from mj_core.dtypes import canonical_dtype
from mj_core.errors import user_line_suffix
from mj_xla import _jaxlib
from mj_xla._sharded_array import ShardedArray
from mj_xla._sharding import Index, Sharding, iter_indices

__all__ = ["make_array_from_callback", "make_array_from_process_local_data"]


def make_array_from_callback(
    shape: Sequence[int], sharding: Sharding, data_callback: Callable[[Index], Any]
) -> ShardedArray:
    """The global array of ``shape`` laid out by ``sharding`` whose piece at ``index`` (a
    tuple of slices) is ``data_callback(index)``; called once per device of this process."""
    shape = tuple(int(n) for n in shape)
    bufs, dtype = [], None
    for device, index in iter_indices(sharding, shape):
        piece = np.asarray(data_callback(index))
        want = tuple(len(range(*s.indices(n))) for s, n in zip(index, shape, strict=True))
        if piece.shape != want:
            raise ValueError(
                f"make_array_from_callback: data_callback({index}) returned shape "
                f"{piece.shape}, but that piece of a {shape} array laid out by {sharding} has "
                f"shape {want}{user_line_suffix()}"
            )
        dtype = canonical_dtype(piece.dtype) if dtype is None else dtype
        bufs.append(_jaxlib.put_on(piece.astype(dtype, copy=False), device))
    aval = ShapedArray(shape, np.dtype(dtype or np.float32))
    buf = _jaxlib.sharded_array(
        bufs, aval, sharding.device_assignment, sharding.hlo_sharding(len(shape))
    )
    return ShardedArray(buf, aval, sharding.device_assignment, sharding)


def _blocks(sharding: Sharding, ndim: int) -> tuple[list[int], list[list[int]]]:
    """Per dimension: how many blocks the sharding splits it into, and which of them this
    process's devices hold (sorted)."""
    hlo = sharding.hlo_sharding(ndim)
    tiles = [1] * ndim if hlo.is_replicated() else list(hlo.tile_assignment_dimensions())[:ndim]
    local: list[set[int]] = [set() for _ in range(ndim)]
    for _, index in iter_indices(sharding, tiles):  # an array of `tiles` has blocks of one
        for d in range(ndim):
            local[d].add(index[d].indices(tiles[d])[0])
    return tiles, [sorted(s) for s in local]


def make_array_from_process_local_data(
    sharding: Sharding, local_data: Any, global_shape: Sequence[int] | None = None
) -> ShardedArray:
    """The global array laid out by ``sharding`` of which this process holds ``local_data``:
    along each dimension, the blocks this process's devices hold, in order. Without
    ``global_shape`` every dimension is taken to be split evenly among the processes that
    hold its blocks (a dimension no process splits is the whole of ``local_data``'s)."""
    data = np.asarray(local_data)
    ndim = data.ndim
    tiles, local = _blocks(sharding, ndim)
    if global_shape is None:
        global_shape = [
            data.shape[d] // len(local[d]) * tiles[d] if data.shape[d] % len(local[d]) == 0 else -1
            for d in range(ndim)
        ]
    shape = tuple(int(n) for n in global_shape)
    for d in range(ndim):
        if shape[d] == data.shape[d]:
            continue
        if (
            shape[d] < 0
            or shape[d] % tiles[d]
            or data.shape[d] != shape[d] // tiles[d] * len(local[d])
        ):
            raise ValueError(
                f"make_array_from_process_local_data: local_data of shape {data.shape} does not "
                f"fit global_shape {tuple(global_shape)} along dimension {d}: this process holds "
                f"{len(local[d])} of its {tiles[d]} blocks{user_line_suffix()}"
            )

    def piece(index: Index) -> Any:
        local_index = []
        for d, s in enumerate(index):
            start, stop, _ = s.indices(shape[d])
            if shape[d] == data.shape[d]:
                local_index.append(slice(start, stop))
                continue
            chunk = shape[d] // tiles[d]
            k = local[d].index(start // chunk) * chunk
            local_index.append(slice(k, k + stop - start))
        return data[tuple(local_index)]

    return make_array_from_callback(shape, sharding, piece)
