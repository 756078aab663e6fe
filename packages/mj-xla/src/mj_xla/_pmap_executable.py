"""Replicated executables: a per-device jaxpr compiled as one replica per device.

``pmap`` runs its function this way (:mod:`mj_xla._pmap`). A mapped argument is split along
its leading axis, one slice per device (a :class:`ShardedArray` already on those devices is
taken as is); an unmapped one is copied to every device; each output comes back as a
:class:`ShardedArray`. Executions (of these and of SPMD programs) are serialised: XLA:CPU
runs one thread per replica and blocks them in each collective's rendezvous, and two
programs in flight at once can hold every thread between them (on a small machine, a tight
pmap loop in JAX itself dies so).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from mj_core.errors import user_location
from mj_core.extend import ShapedArray
from mj_ir import ClosedJaxpr
from mj_xla import _jaxlib
from mj_xla._lowering import build_module
from mj_xla._replicas import replica_axis
from mj_xla._sharded_array import ShardedArray

__all__ = ["executable", "resolve_devices", "run_serialised", "stacked", "where"]


def where() -> str:
    """`` (in f at file:line)`` for error messages, or nothing."""
    loc = user_location()
    return f" ({loc})" if loc else ""


_run_lock = threading.Lock()
_in_flight: list[Any] = []  # the outputs of the last replicated execution


def run_serialised(exe: Any, bufs: Sequence[Any], handlers: Sequence[Any]) -> list[Any]:
    """Run a multi-device executable once the previous one has finished (see above)."""
    with _run_lock:
        for out in _in_flight:
            out.block_until_ready()
        outs: list[Any] = exe.execute_sharded(list(bufs)).consume_with_handlers(list(handlers))
        _in_flight[:] = outs[:1]
    return outs


class _PmapExecutable:
    """``call_jaxpr`` compiled as one replica per device of ``devices``."""

    __slots__ = ("_devices", "_exe", "_handlers", "_host_callbacks", "arg_avals", "out_avals")

    def __init__(
        self, call_jaxpr: ClosedJaxpr, axis_name: Hashable, devices: Sequence[Any]
    ) -> None:
        n = len(devices)
        self._devices = tuple(devices)
        self._host_callbacks: list[Any] = []
        with replica_axis(axis_name, n):
            module, _ = build_module(call_jaxpr.jaxpr, [], host_callbacks=self._host_callbacks)
        self._exe = _jaxlib.compile_replicated(module, devices, self._host_callbacks)
        self.arg_avals = call_jaxpr.in_avals
        self.out_avals = [stacked(n, a) for a in call_jaxpr.out_avals]
        self._handlers = [_jaxlib.replicated_result_handler(a, devices) for a in self.out_avals]

    def run(self, args: Sequence[Any], mapped: Sequence[bool]) -> list[ShardedArray]:
        bufs = [
            self._buffer(x, aval, m)
            for x, aval, m in zip(args, self.arg_avals, mapped, strict=True)
        ]
        outs = run_serialised(self._exe, bufs, self._handlers)
        return [
            ShardedArray(b, a, self._devices) for b, a in zip(outs, self.out_avals, strict=True)
        ]

    def _buffer(self, x: Any, aval: ShapedArray, mapped: bool) -> Any:
        """The multi-device buffer of one argument: the slices of a mapped one (a sharded
        array already on these devices is taken as is), copies of an unmapped one."""
        devices = self._devices
        whole = stacked(len(devices), aval)
        if mapped and type(x) is ShardedArray and x.dtype == aval.dtype:
            buf = x.shards_on(devices)
            if buf is not None and x.shape == whole.shape:
                return buf
        host = np.asarray(x, aval.dtype)
        expected = whole.shape if mapped else aval.shape
        if host.shape != expected:
            raise TypeError(
                f"pmap: an argument of shape {host.shape} was passed where the compiled "
                f"computation expects {ShapedArray(expected, aval.dtype).str_short()}"
            )
        slices = list(host) if mapped else [host] * len(devices)
        per_device = [_jaxlib.put_on(s, d) for s, d in zip(slices, devices, strict=True)]
        return _jaxlib.assemble(per_device, whole, devices)


def stacked(n: int, aval: ShapedArray) -> ShapedArray:
    """The type of ``n`` values of type ``aval`` stacked along a new leading axis."""
    return ShapedArray((n, *aval.shape), aval.dtype, aval.weak_type)


_MAX_EXECUTABLES = 128
_executables: OrderedDict[tuple[int, tuple[Any, ...]], tuple[ClosedJaxpr, _PmapExecutable]] = (
    OrderedDict()
)


def executable(
    call_jaxpr: ClosedJaxpr, axis_name: Hashable, devices: tuple[Any, ...]
) -> _PmapExecutable:
    """The (LRU-cached) executable of ``call_jaxpr`` on ``devices``."""
    key = (id(call_jaxpr), devices)
    hit = _executables.get(key)
    if hit is not None and hit[0] is call_jaxpr:
        _executables.move_to_end(key)
        return hit[1]
    exe = _PmapExecutable(call_jaxpr, axis_name, devices)
    _executables[key] = (call_jaxpr, exe)  # holding the jaxpr keeps its id unique
    if len(_executables) > _MAX_EXECUTABLES:
        _executables.popitem(last=False)
    return exe


def resolve_devices(axis_size: int, devices: Sequence[Any] | None) -> tuple[Any, ...]:
    if devices is not None:
        if len(devices) != axis_size:
            raise ValueError(
                f"pmap: the mapped axis has size {axis_size} but {len(devices)} devices were "
                f"given (devices={list(devices)}); they must be equal{where()}."
            )
        return tuple(devices)
    available = _jaxlib.local_devices()
    if axis_size > len(available):
        raise ValueError(
            f"compiling computation that requires {axis_size} logical devices, but only "
            f"{len(available)} XLA devices are available (num_replicas={axis_size}): the "
            f"mapped axis has size {axis_size}. Map over at most {len(available)} slices, or "
            'start mj with more CPU devices (mj.config.update("num_cpu_devices", N) or '
            f"MJ_NUM_CPU_DEVICES=N before the first computation){where()}."
        )
    return tuple(available[:axis_size])
