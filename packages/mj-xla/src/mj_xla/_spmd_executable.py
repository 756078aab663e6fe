"""SPMD executables: one program over global shapes, split by XLA over a mesh's devices.

``jit`` compiles this way when a sharding is involved: ``in_shardings``/``out_shardings``,
an argument already sharded over several devices, or a ``with_sharding_constraint`` /
``shard_map`` inside the function. The module's parameters and results carry sharding
annotations (Shardy's ``sdy.sharding`` when every sharding is spelled over a mesh, as JAX
lowers them; else GSPMD's ``mhlo.sharding``: :mod:`mj_xla._shardy`), and XLA's SPMD
partitioner (``num_partitions`` = the number of devices) writes the per-device program and
inserts the communication. Arguments are passed as global arrays
laid out as the program expects (an array already laid out so is passed as is; anything
else is split on the host); outputs come back as :class:`ShardedArray`s whose sharding is the
one XLA compiled, spelled over the mesh when a ``PartitionSpec`` can say it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mj_core.errors import user_line_suffix
from mj_core.extend import ShapedArray
from mj_ir import ClosedJaxpr, Jaxpr
from mj_xla import _jaxlib
from mj_xla._lowering import Spmd, build_module, inline_values
from mj_xla._pmap_executable import run_serialised
from mj_xla._sharded_array import ShardedArray, put_sharded
from mj_xla._sharding import (
    GSPMDSharding,
    Mesh,
    NamedSharding,
    Sharding,
    SingleDeviceSharding,
    named_sharding_from_hlo,
)
from mj_xla._shardy import shardy_layout

__all__ = ["SpmdExecutable", "spmd_placement"]


def _collect(x: Any, meshes: list[Mesh], assignments: list[tuple[Any, ...]]) -> None:
    if isinstance(x, Mesh):
        meshes.append(x)
        assignments.append(x.flat_devices)
    elif isinstance(x, NamedSharding):
        _collect(x.mesh, meshes, assignments)
    elif isinstance(x, Sharding) and not isinstance(x, SingleDeviceSharding):
        assignments.append(x.device_assignment)
    elif isinstance(x, ClosedJaxpr):
        _collect(x.jaxpr, meshes, assignments)
    elif isinstance(x, Jaxpr):
        for eqn in x.eqns:
            for v in eqn.params.values():
                _collect(v, meshes, assignments)
    elif isinstance(x, tuple | list):
        for v in x:
            _collect(v, meshes, assignments)


def spmd_placement(
    jaxpr: Jaxpr, shardings: Sequence[Sharding | None]
) -> tuple[tuple[Any, ...], Mesh | None] | None:
    """The devices (and mesh, if one is named) a program must be partitioned over, from the
    given shardings and those inside ``jaxpr``; ``None`` when nothing is sharded."""
    meshes: list[Mesh] = []
    assignments: list[tuple[Any, ...]] = []
    _collect(list(shardings), meshes, assignments)
    _collect(jaxpr, meshes, assignments)
    if not assignments:
        return None
    devices = assignments[0]
    for other in assignments[1:]:
        if other != devices:
            raise ValueError(
                "jit: received incompatible devices for the jitted computation: one sharding "
                f"uses devices {[d.id for d in devices]} and another "
                f"{[d.id for d in other]}; every sharding of one computation must use the "
                f"same devices in the same order{user_line_suffix()}"
            )
    return devices, (meshes[0] if meshes else None)


def _replicated(devices: Sequence[Any]) -> Sharding:
    return GSPMDSharding(devices, _jaxlib.hlo_sharding_replicated())


class SpmdExecutable:
    """A jaxpr compiled as one SPMD program over ``devices``; ``run(args)`` takes the
    non-constant arguments and returns :class:`ShardedArray`s."""

    __slots__ = (
        "__weakref__",
        "_devices",
        "_exe",
        "_handlers",
        "_held",
        "_host_callbacks",
        "arg_avals",
        "in_shardings",
        "module",
        "out_avals",
        "out_shardings",
    )

    def __init__(
        self,
        jaxpr: Jaxpr,
        known: Sequence[Any],
        devices: tuple[Any, ...],
        mesh: Mesh | None,
        in_shardings: Sequence[Sharding | None],
        out_shardings: Sequence[Sharding | None],
        donated: Sequence[bool] = (),
        keep_spec: bool = False,
    ) -> None:
        self._devices = devices
        self._host_callbacks: list[Any] = []
        n_known = len(known)
        binders = jaxpr.in_binders
        replicated = _replicated(devices)
        self.arg_avals = [v.aval for v in binders[n_known:]]
        self.out_avals = [x.aval for x in jaxpr.outs]
        # An argument with no sharding (host data) is left unannotated, as JAX does: XLA
        # picks its layout, read back below, and the host data is split that way.
        in_text = [str(replicated.hlo_sharding(0))] * n_known + [
            None if s is None else str(s.hlo_sharding(a.ndim))
            for s, a in zip(in_shardings, self.arg_avals, strict=True)
        ]
        out_text = [
            None if s is None else str(s.hlo_sharding(a.ndim))
            for s, a in zip(out_shardings, self.out_avals, strict=True)
        ]
        shardy = shardy_layout(jaxpr, n_known, devices, mesh, in_shardings, out_shardings)
        spmd = Spmd(in_text, out_text, len(devices), shardy)
        module, params = build_module(
            jaxpr,
            inline_values(known),
            host_callbacks=self._host_callbacks,
            spmd=spmd,
            donated=[False] * n_known + list(donated) if any(donated) else (),
        )
        self.module = module
        self._held = [
            self._global_buffer(known[i], binders[i].aval, replicated)
            for i in params
            if i < n_known
        ]
        free = [s is None for s in out_shardings]
        free_params = [in_text[i] is None for i in params]
        self._exe = _jaxlib.compile_spmd(
            module, devices, self._host_callbacks, free, free_params, shardy is not None
        )
        chosen = _jaxlib.parameter_shardings(self._exe)[len(params) - len(self.arg_avals) :]
        # JAX spells a layout XLA chose as the first named argument sharding when they agree
        # and that argument was a sharded array (P(("y", "x"), None) comes back as written)
        named = [
            (s, a.ndim)
            for s, a in zip(in_shardings, self.arg_avals, strict=True)
            if isinstance(s, NamedSharding)
        ][: 1 if keep_spec else 0]
        self.in_shardings: list[Sharding] = [
            self._output_sharding(given, hlo, aval.ndim, mesh, named)
            for given, hlo, aval in zip(in_shardings, chosen, self.arg_avals, strict=True)
        ]
        # (a program without outputs has one sharding: its empty result tuple's)
        compiled = _jaxlib.output_shardings(self._exe) if self.out_avals else []
        self.out_shardings: list[Sharding] = [
            self._output_sharding(given, hlo, aval.ndim, mesh, named)
            for given, hlo, aval in zip(out_shardings, compiled, self.out_avals, strict=True)
        ]
        self._handlers = [
            _jaxlib.sharded_result_handler(a, devices, s.hlo_sharding(a.ndim))
            for a, s in zip(self.out_avals, self.out_shardings, strict=True)
        ]

    def _output_sharding(
        self,
        given: Sharding | None,
        hlo: Any,
        ndim: int,
        mesh: Mesh | None,
        named: list[tuple[NamedSharding, int]],
    ) -> Sharding:
        """``given``, else XLA's layout ``hlo``: the ``named`` argument sharding (of rank
        ``n``) when it is that layout, else spelled over ``mesh`` when a spec can."""
        if given is not None:
            return given
        for original, n in named:
            if n == ndim and original.hlo_sharding(ndim) == hlo:
                return original
        if mesh is not None:
            spelled = named_sharding_from_hlo(mesh, hlo, ndim)
            if spelled is not None:
                return spelled
        return GSPMDSharding(self._devices, hlo)

    def as_text(self) -> str:
        return str(self.module)

    def optimized_text(self) -> str:
        return "\n".join(m.to_string() for m in self._exe.hlo_modules())

    def runtime_executable(self) -> Any:
        """jaxlib's loaded executable (JAX's ``Compiled.runtime_executable()``)."""
        return self._exe

    @staticmethod
    def _global_buffer(x: Any, aval: ShapedArray, sharding: Sharding) -> Any:
        if isinstance(x, ShardedArray) and x.dtype == aval.dtype and x.shape == aval.shape:
            buf = x.buffer_for(sharding)
            if buf is not None:
                return buf
        host = np.asarray(x, aval.dtype)
        if host.shape != aval.shape:
            raise TypeError(
                f"jit: an argument of shape {host.shape} was passed where the compiled "
                f"computation expects {aval.str_short()}"
            )
        return put_sharded(host, aval, sharding)._buf

    def run(self, args: Sequence[Any]) -> list[ShardedArray]:
        """Execute on ``args`` (arrays of the argument types, laid out anyhow)."""
        if len(args) != len(self.arg_avals):
            raise TypeError(
                f"jit: the compiled computation takes {len(self.arg_avals)} arguments, "
                f"got {len(args)}"
            )
        bufs = [
            self._global_buffer(x, a, s)
            for x, a, s in zip(args, self.arg_avals, self.in_shardings, strict=True)
        ]
        outs = run_serialised(self._exe, [*self._held, *bufs], self._handlers)
        return [
            ShardedArray(b, a, self._devices, s)
            for b, a, s in zip(outs, self.out_avals, self.out_shardings, strict=True)
        ]
