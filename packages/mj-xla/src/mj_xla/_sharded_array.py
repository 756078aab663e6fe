"""Arrays sharded over several devices: what ``pmap`` and sharded ``jit`` return, and what
``device_put(x, sharding)`` makes.

A :class:`ShardedArray` is an :class:`~mj_xla.array.Array` whose buffer is jaxlib's global
array (one buffer per device, in its sharding's device order), so passing it to the next
computation over the same devices in the same layout moves no data. Its ``sharding`` says
which slice each device holds: a :class:`NamedSharding` splits dimensions over mesh axes and
replicates over the others (a ``pmap`` output is split along its leading axis over a one-axis
mesh, as in JAX 0.10.2); the output of a ``pmap`` run as replicas (one holding a nested
``pmap``) holds slice ``i`` of the leading axis on device ``i`` (:class:`PmapSharding`).
``np.asarray`` assembles the pieces on the host (once: the array is immutable). An operation
outside ``jit`` on it runs as a compiled program over its devices and returns a sharded array
(:mod:`mj_xla._sharded_eager`, which mj-core's eager path calls for any primitive with an
operand of this type); transformations and NumPy's own functions and ufuncs work on the host
value, as for a single-device array.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mj_core import register_array_type
from mj_core.extend import ConcreteArray, ShapedArray
from mj_xla import _jaxlib
from mj_xla._array import Array
from mj_xla._donation import deleted_error
from mj_xla._sharding import PmapSharding, Shard, Sharding, iter_indices

__all__ = ["ShardedArray", "put_sharded"]


class ShardedArray(Array):
    """An immutable array whose pieces live on several devices, laid out by ``sharding``."""

    __slots__ = ("_devices", "_host", "_sharding")

    def __init__(
        self,
        buf: _jaxlib.Buffer,
        aval: ShapedArray,
        devices: Sequence[Any],
        sharding: Sharding | None = None,
    ) -> None:
        super().__init__(buf, aval)
        self._devices = tuple(devices)
        self._sharding: Sharding = PmapSharding(devices) if sharding is None else sharding
        self._host: np.ndarray[Any, Any] | None = None

    @property
    def _value(self) -> np.ndarray[Any, Any]:
        if self._buf.is_deleted():
            raise deleted_error(self._aval)
        host = self._host
        if host is None:
            if not (self._sharding.is_fully_addressable or self._sharding.is_fully_replicated):
                raise RuntimeError(
                    "Fetching value for `mj.Array` that spans non-addressable (non process "
                    "local) devices is not possible: this process holds only some of its "
                    "pieces. Use `.addressable_shards` to read those, or make the array "
                    "replicated (e.g. jit with out_shardings=NamedSharding(mesh, P())) first."
                )
            host = np.empty(self._aval.shape, self._aval.dtype)
            pieces = _jaxlib.shards(self._buf)
            indices = iter_indices(self._sharding, self._aval.shape)
            for piece, (_, index) in zip(pieces, indices, strict=True):
                host[index] = _jaxlib.to_numpy(piece)
            host.flags.writeable = False
            self._host = host
        return host

    @property
    def sharding(self) -> Sharding:
        return self._sharding

    def devices(self) -> set[Any]:
        """The devices holding the pieces."""
        return set(self._devices)

    @property
    def is_fully_replicated(self) -> bool:
        return self._sharding.is_fully_replicated

    @property
    def addressable_shards(self) -> list[Shard]:
        """One :class:`Shard` per device, in the sharding's device order."""
        shape = self._sharding.shard_shape(self._aval.shape)
        aval = ShapedArray(shape, self._aval.dtype, self._aval.weak_type)
        seen: dict[Any, int] = {}
        shards = []
        for buf, (device, index) in zip(
            _jaxlib.shards(self._buf), iter_indices(self._sharding, self._aval.shape), strict=True
        ):
            key = tuple((s.start, s.stop) if isinstance(s, slice) else s for s in index)
            replica = seen.get(key, 0)
            seen[key] = replica + 1
            shards.append(Shard(device, index, replica, Array(buf, aval)))
        return shards

    @property
    def device_buffers(self) -> list[Array]:
        """One single-device array per device, in the sharding's device order."""
        return [s.data for s in self.addressable_shards]

    def shards_on(self, devices: Sequence[Any]) -> _jaxlib.Buffer | None:
        """The multi-device buffer, if it is a pmap output whose slices are on exactly
        ``devices`` in that order (then a pmap over them takes it as is)."""
        if type(self._sharding) is PmapSharding and self._devices == tuple(devices):
            return self._buf
        return None

    def buffer_for(self, sharding: Sharding) -> _jaxlib.Buffer | None:
        """The global buffer, if this array is laid out by ``sharding`` (same devices, same
        pieces): then an SPMD program expecting ``sharding`` takes it as is."""
        same = self._sharding is sharding or (
            self._sharding.device_assignment == sharding.device_assignment
            and self._sharding.hlo_sharding(self.ndim) == sharding.hlo_sharding(self.ndim)
        )
        return self._buf if same else None


def _sharded_aval(x: ShardedArray) -> ShapedArray:
    return ConcreteArray(x._value, weak_type=x._aval.weak_type)


register_array_type(ShardedArray, _sharded_aval)


def put_sharded(host: np.ndarray[Any, Any], aval: ShapedArray, sharding: Sharding) -> ShardedArray:
    """Split host data over the devices of ``sharding``: each device gets its slice."""
    devices = sharding.device_assignment
    bufs = [_jaxlib.put_on(host[index], d) for d, index in iter_indices(sharding, host.shape)]
    hlo = sharding.hlo_sharding(host.ndim)
    buf = _jaxlib.sharded_array(bufs, aval, devices, hlo)
    return ShardedArray(buf, aval, devices, sharding)
