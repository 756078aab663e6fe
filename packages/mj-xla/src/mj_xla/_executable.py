"""Compiled executables: a jaxpr lowered, compiled once, and run with cheap dispatch.

Constants known at compile time are handled the way XLA likes them: scalars are inlined in
the module as ``stablehlo.constant``; larger arrays are moved to the device once and passed
as leading parameters on every call (so big closed-over arrays are never embedded in, or
re-copied for, the program). Result handlers are built once per executable: that, and
keeping arguments on the device, is what makes a call cost a few microseconds.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from mj_core import config
from mj_ir import ClosedJaxpr, Jaxpr
from mj_xla import _jaxlib
from mj_xla._array import Array, device_put, to_buffer
from mj_xla._debug_nans import check_outputs
from mj_xla._lowering import build_module, inline_values
from mj_xla._sharding import Sharding
from mj_xla._spmd_executable import SpmdExecutable, spmd_placement

__all__ = ["Executable", "compile_jaxpr", "executable_for_closed_jaxpr", "inline_values"]


class Executable:
    """A compiled jaxpr. ``run(args)`` takes the non-constant arguments and returns Arrays."""

    __slots__ = (
        "__weakref__",
        "_exe",
        "_handlers",
        "_held",
        "_host_callbacks",
        "_jaxpr",
        "_known",
        "_name",
        "arg_avals",
        "module",
        "out_avals",
    )

    def __init__(
        self, jaxpr: Jaxpr, known: Sequence[Any], name: str = "main", donated: Sequence[bool] = ()
    ) -> None:
        self._host_callbacks: list[Any] = []  # alive as long as the executable
        module, params = build_module(
            jaxpr,
            inline_values(known),
            host_callbacks=self._host_callbacks,
            donated=[False] * len(known) + list(donated) if any(donated) else (),
        )
        self._jaxpr = jaxpr  # kept for debug_nans' op-by-op re-run
        self._known = list(known)
        self._name = name
        self.module = module
        held = [i for i in params if i < len(known)]
        self._held = [device_put(known[i])._buf for i in held]
        self.arg_avals = [v.aval for v in jaxpr.in_binders[len(known) :]]
        self.out_avals = [x.aval for x in jaxpr.outs]
        self._exe = _jaxlib.compile_module(module, self._host_callbacks)
        self._handlers = [_jaxlib.result_handler(a) for a in self.out_avals]

    def as_text(self) -> str:
        return str(self.module)

    def optimized_text(self) -> str:
        """XLA's optimized HLO of the compiled program (what ``jax.stages.Compiled.as_text``
        shows): fusions, layouts and the schedule XLA chose."""
        return "\n".join(m.to_string() for m in self._exe.hlo_modules())

    def run(self, args: Sequence[Any]) -> list[Array]:
        """Execute on ``args`` (Arrays, NumPy arrays or scalars of the argument types)."""
        if len(args) != len(self.arg_avals):
            raise TypeError(
                f"jit: the compiled computation takes {len(self.arg_avals)} arguments, "
                f"got {len(args)}"
            )
        bufs = [to_buffer(x, a) for x, a in zip(args, self.arg_avals, strict=True)]
        return self.run_buffers(bufs)

    def run_buffers(self, bufs: list[Any]) -> list[Array]:
        """Execute on device buffers already checked against ``arg_avals`` (the fast path)."""
        all_bufs = [*self._held, *bufs] if self._held else bufs
        outs = self._exe.execute_sharded(all_bufs).consume_with_handlers(self._handlers)
        result = [Array(b, a) for b, a in zip(outs, self.out_avals, strict=True)]
        if config.debug_nans:
            args = [Array(b, a) for b, a in zip(bufs, self.arg_avals, strict=True)]
            check_outputs(result, self._jaxpr, self._known, args, self._name)
        return result


def compile_jaxpr(
    jaxpr: Jaxpr,
    known: Sequence[Any],
    name: str = "main",
    in_shardings: Sequence[Sharding | None] = (),
    out_shardings: Sequence[Sharding | None] = (),
    donated: Sequence[bool] = (),
) -> Executable | SpmdExecutable:
    """Lower and compile ``jaxpr``; ``known`` are the values of its leading binders. With a
    sharding involved (given for an argument or output, or inside the jaxpr), the program is
    compiled for XLA's SPMD partitioner over the sharding's devices. ``donated`` flags the
    arguments (after ``known``) whose buffers outputs may reuse."""
    placement = spmd_placement(jaxpr, [*in_shardings, *out_shardings])
    if placement is None:
        return Executable(jaxpr, known, name, donated)
    devices, mesh = placement
    n_args = len(jaxpr.in_binders) - len(known)
    ins = list(in_shardings) or [None] * n_args
    outs = list(out_shardings) or [None] * len(jaxpr.outs)
    return SpmdExecutable(jaxpr, known, devices, mesh, ins, outs, donated)


_MAX_CLOSED_CACHE = 512
_closed_cache: OrderedDict[int, tuple[ClosedJaxpr, Executable | SpmdExecutable]] = OrderedDict()


def executable_for_closed_jaxpr(
    closed: ClosedJaxpr, name: str = "main"
) -> Executable | SpmdExecutable:
    """The (LRU-cached) executable of ``closed``, keyed by the jaxpr's identity."""
    key = id(closed)
    hit = _closed_cache.get(key)
    if hit is not None and hit[0] is closed:
        _closed_cache.move_to_end(key)
        return hit[1]
    exe = compile_jaxpr(closed.jaxpr, closed.consts, name)
    _closed_cache[key] = (closed, exe)
    if len(_closed_cache) > _MAX_CLOSED_CACHE:
        _closed_cache.popitem(last=False)
    return exe
