"""Arrays sharded over several devices: what ``pmap`` returns.

A :class:`ShardedArray` is an :class:`~mj_xla.array.Array` whose leading axis is split
across devices, one slice per device: its buffer is jaxlib's multi-device array (one buffer
per device), so passing it to the next ``pmap`` over the same devices moves no data.
``np.asarray`` stacks the slices on the host (once: the array is immutable); everything else
(operators, indexing, NumPy functions, transformations) works on that host value, as for a
single-device array.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mj_core import register_array_type
from mj_core.extend import ConcreteArray, ShapedArray
from mj_xla import _jaxlib
from mj_xla._array import Array

__all__ = ["ShardedArray"]


class ShardedArray(Array):
    """An immutable array whose leading axis is split over ``devices()``, one slice each."""

    __slots__ = ("_devices", "_host")

    def __init__(self, buf: _jaxlib.Buffer, aval: ShapedArray, devices: Sequence[Any]) -> None:
        super().__init__(buf, aval)
        self._devices = tuple(devices)
        self._host: np.ndarray[Any, Any] | None = None

    def _value(self) -> np.ndarray[Any, Any]:
        host = self._host
        if host is None:
            slices = [_jaxlib.to_numpy(b) for b in _jaxlib.shards(self._buf)]
            host = np.stack(slices) if slices else np.empty(self._aval.shape, self._aval.dtype)
            host.flags.writeable = False
            self._host = host
        return host

    def devices(self) -> set[Any]:
        """The devices holding the slices."""
        return set(self._devices)

    @property
    def device_buffers(self) -> list[Array]:
        """One single-device array per device: slice ``i`` of the leading axis."""
        aval = ShapedArray(self._aval.shape[1:], self._aval.dtype, self._aval.weak_type)
        return [Array(b, aval) for b in _jaxlib.shards(self._buf)]

    def shards_on(self, devices: Sequence[Any]) -> _jaxlib.Buffer | None:
        """The multi-device buffer, if its slices are on exactly ``devices`` in that order
        (then a pmap over them takes it as is)."""
        return self._buf if self._devices == tuple(devices) else None


def _sharded_aval(x: ShardedArray) -> ShapedArray:
    return ConcreteArray(x._value(), weak_type=x._aval.weak_type)


register_array_type(ShardedArray, _sharded_aval)
