"""Replicated executables: a per-device jaxpr compiled as one replica per device.

A ``pmap`` runs its function this way when it needs replicas (:mod:`mj_xla._pmap_spmd`: a
``pmap`` nested in it, ``axis_index_groups``), and so does a ``jit`` holding a ``pmap``;
other ``pmap`` calls run as SPMD programs. A mapped argument is split along
its leading axis, one slice per device (a :class:`ShardedArray` already on those devices is
taken as is); an unmapped one is copied to every device; each output comes back as a
:class:`ShardedArray`. Executions (of these and of SPMD programs) are serialised: XLA:CPU
runs one thread per replica and blocks them in each collective's rendezvous, and two
programs in flight at once can hold every thread between them (on a small machine, a tight
pmap loop in JAX itself dies so).
"""

from __future__ import annotations

import threading
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from mj_core.errors import user_location
from mj_core.extend import ShapedArray
from mj_ir import ClosedJaxpr, Jaxpr
from mj_xla import _jaxlib
from mj_xla._array import Array
from mj_xla._identity_cache import IdentityCache
from mj_xla._lowering import build_module
from mj_xla._replicas import replica_axis
from mj_xla._runtime import live_arrays
from mj_xla._sharded_array import ShardedArray

__all__ = [
    "ReplicatedJit",
    "effects_barrier",
    "executable",
    "resolve_devices",
    "run_serialised",
    "stacked",
    "where",
]


def where() -> str:
    """`` (in f at file:line)`` for error messages, or nothing."""
    loc = user_location()
    return f" ({loc})" if loc else ""


_run_lock = threading.Lock()
# The completion token of the last multi-device execution: holding it rather than an output
# lets an output the caller drops be freed at once, so the next one reuses its memory (held
# outputs made the allocator return and re-fault a buffer's pages on most calls).
_in_flight: list[Any] = []


def effects_barrier() -> None:
    """Wait until the computations started so far have run their side effects (JAX's
    ``jax.effects_barrier``, which tests call before reading what callbacks printed). A
    single-device program's host callbacks have run when its results are returned, and
    eager ones run inline; a multi-device execution may still be running: wait for it, and
    for every live device array (a computation whose outputs were all dropped is not waited
    for; JAX's runtime tokens are)."""
    with _run_lock:
        for token in _in_flight:
            token.block_until_ready()
    for x in live_arrays():
        x.block_until_ready()


def run_serialised(exe: Any, bufs: Sequence[Any], handlers: Sequence[Any]) -> list[Any]:
    """Run a multi-device executable once the previous one has finished (see above)."""
    with _run_lock:
        for token in _in_flight:
            token.block_until_ready()
        results = exe.execute_sharded(list(bufs), with_tokens=True)
        _in_flight[:] = [results.consume_token()]
        outs: list[Any] = results.consume_with_handlers(list(handlers))
    return outs


class _PmapExecutable:
    """``call_jaxpr`` compiled as one replica per device of ``devices``; with ``inner``
    replicas per slice (the ``pmap`` nested in it), each slice runs on ``inner`` consecutive
    devices and its output is the first one's."""

    __slots__ = (
        "_devices",
        "_exe",
        "_handlers",
        "_host_callbacks",
        "_inner",
        "_out_devices",
        "arg_avals",
        "module",
        "out_avals",
    )

    def __init__(
        self, call_jaxpr: ClosedJaxpr, axis_name: Hashable, devices: Sequence[Any], inner: int
    ) -> None:
        n = len(devices) // inner
        self._devices = tuple(devices)
        self._inner = inner
        self._out_devices = self._devices[::inner]
        self._host_callbacks: list[Any] = []
        with replica_axis(axis_name if axis_name is not None else _Unnamed(), n, inner):
            module, _ = build_module(call_jaxpr.jaxpr, [], host_callbacks=self._host_callbacks)
        self.module = module
        self._exe = _jaxlib.compile_replicated(module, devices, self._host_callbacks)
        self.arg_avals = call_jaxpr.in_avals
        self.out_avals = [stacked(n, a) for a in call_jaxpr.out_avals]
        self._handlers = [
            _jaxlib.replicated_result_handler(stacked(len(devices), a), devices)
            for a in call_jaxpr.out_avals
        ]

    def run(self, args: Sequence[Any], mapped: Sequence[bool]) -> list[ShardedArray]:
        bufs = [
            self._buffer(x, aval, m)
            for x, aval, m in zip(args, self.arg_avals, mapped, strict=True)
        ]
        outs = run_serialised(self._exe, bufs, self._handlers)
        if self._inner > 1:  # the first replica of each slice holds its output
            outs = [
                _jaxlib.assemble(_jaxlib.shards(b)[:: self._inner], a, self._out_devices)
                for b, a in zip(outs, self.out_avals, strict=True)
            ]
        return [
            ShardedArray(b, a, self._out_devices) for b, a in zip(outs, self.out_avals, strict=True)
        ]

    def optimized_text(self) -> str:
        """XLA's optimized HLO of the compiled program."""
        return "\n".join(m.to_string() for m in self._exe.hlo_modules())

    def _buffer(self, x: Any, aval: ShapedArray, mapped: bool) -> Any:
        """The multi-device buffer of one argument: the slices of a mapped one (a sharded
        array already on these devices is taken as is), copies of an unmapped one."""
        devices = self._devices
        n = len(self._out_devices)
        whole = stacked(n, aval)
        if mapped and self._inner == 1 and type(x) is ShardedArray and x.dtype == aval.dtype:
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
        slices = [host[r // self._inner] for r in range(len(devices))] if mapped else []
        per_device = [
            _jaxlib.put_on(slices[r] if mapped else host, d) for r, d in enumerate(devices)
        ]
        return _jaxlib.assemble(per_device, stacked(len(devices), aval), devices)


class _Unnamed:
    """The axis of a pmap without ``axis_name``: a name no collective can refer to."""

    __slots__ = ()


class ReplicatedJit:
    """A ``jit`` whose jaxpr holds a ``pmap``: one replicated program (the ``jit`` part
    computed alike by every replica, each ``pmap`` split across them, as in
    :mod:`mj_xla._xla_pmap`'s lowering) whose outputs are the first replica's."""

    __slots__ = ("_known", "_pmap", "arg_avals", "out_avals")

    def __init__(
        self,
        jaxpr: Jaxpr,
        known: Sequence[Any],
        replicas: int,
        devices: Sequence[Any] | None = None,
    ) -> None:
        devices = resolve_devices(replicas, devices)
        self._known = list(known)
        self._pmap = _PmapExecutable(ClosedJaxpr(jaxpr, ()), None, devices, replicas)
        self.arg_avals = [v.aval for v in jaxpr.in_binders[len(known) :]]
        self.out_avals = [x.aval for x in jaxpr.outs]

    def run(self, args: Sequence[Any]) -> list[Array]:
        every = [*self._known, *args]
        outs = self._pmap.run(every, [False] * len(every))
        return [
            Array(_jaxlib.shards(o._buf)[0], a) for o, a in zip(outs, self.out_avals, strict=True)
        ]

    def run_buffers(self, bufs: list[Any]) -> list[Array]:
        return self.run([Array(b, a) for b, a in zip(bufs, self.arg_avals, strict=True)])

    def as_text(self) -> str:
        return str(self._pmap.module)

    def optimized_text(self) -> str:
        return self._pmap.optimized_text()

    def runtime_executable(self) -> Any:
        """jaxlib's loaded executable of the replicated program."""
        return self._pmap._exe


def stacked(n: int, aval: ShapedArray) -> ShapedArray:
    """The type of ``n`` values of type ``aval`` stacked along a new leading axis."""
    return ShapedArray((n, *aval.shape), aval.dtype, aval.weak_type)


_executables: IdentityCache[_PmapExecutable] = IdentityCache(128)


def executable(
    call_jaxpr: ClosedJaxpr, axis_name: Hashable, devices: tuple[Any, ...], inner: int = 1
) -> _PmapExecutable:
    """The (LRU-cached) executable of ``call_jaxpr`` on ``devices`` (``inner`` consecutive
    ones per slice)."""
    return _executables.get(
        call_jaxpr, lambda: _PmapExecutable(call_jaxpr, axis_name, devices, inner), devices
    )


def resolve_devices(
    axis_size: int,
    devices: Sequence[Any] | None,
    first_mapped: tuple[tuple[int, ...], int] | None = None,
) -> tuple[Any, ...]:
    """The devices of a pmap over ``axis_size`` slices; ``first_mapped``: the shape and
    mapped axis of the first mapped argument, for JAX's words where there are too few."""
    if devices is not None:
        if len(devices) != axis_size:
            raise ValueError(
                f"pmap: the mapped axis has size {axis_size} but {len(devices)} devices were "
                f"given (devices={list(devices)}); they must be equal{where()}."
            )
        return tuple(devices)
    available = _jaxlib.local_devices()
    if axis_size > len(available):
        head = ""
        if first_mapped is not None and axis_size % len(available) == 0:
            # JAX 0.10's words: its pmap splits the axis over the devices it has, then fails
            # to squeeze each device's block (of more than one slice)
            shape, axis = first_mapped
            block = list(shape)
            block[axis] = axis_size // len(available)
            head = (
                "cannot select an axis to squeeze out which has size not equal to one, got "
                f"shape={tuple(block)} and dimensions=({axis},)\n"
            )
        raise ValueError(
            f"{head}compiling computation that requires {axis_size} logical devices, but only "
            f"{len(available)} XLA devices are available (num_replicas={axis_size}): the "
            f"mapped axis has size {axis_size}. Map over at most {len(available)} slices, or "
            'start mj with more CPU devices (mj.config.update("num_cpu_devices", N) or '
            f"MJ_NUM_CPU_DEVICES=N before the first computation){where()}."
        )
    return tuple(available[:axis_size])
