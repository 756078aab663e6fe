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

import numpy as np

from mj_core import Primitive, ShapedArray, bind, config, get_aval, raise_to_shaped
from mj_core.extend import Token, abstract_token, get_token_aval, is_token_aval
from mj_ir import ClosedJaxpr, Jaxpr, Var
from mj_ir.extend import trace_to_closed_jaxpr
from mj_xla import _jaxlib
from mj_xla._array import Array, CommittedArray, device_put, to_buffer
from mj_xla._compile_log import enabled, log, timed
from mj_xla._debug_nans import check_outputs
from mj_xla._lowering import build_module, inline_values
from mj_xla._pmap_executable import ReplicatedJit
from mj_xla._sharding import Sharding
from mj_xla._spmd_executable import SpmdExecutable, spmd_placement
from mj_xla._xla_pmap import pmap_devices, replicas_of

__all__ = [
    "Executable",
    "compile_jaxpr",
    "compiled_impl",
    "drop_unused_arguments",
    "executable_for_closed_jaxpr",
    "inline_values",
]


def refuse_execution(name: str) -> None:
    """JAX's ``RuntimeError`` for a computation run while ``no_execution`` is set."""
    raise RuntimeError(
        f"JAX tried to execute function jit({name}), but the no_execution config option is set"
    )


class Executable:
    """A compiled jaxpr. ``run(args)`` takes the non-constant arguments and returns Arrays."""

    __slots__ = (
        "__weakref__",
        "_array_type",
        "_device",
        "_exe",
        "_float0_outs",
        "_handlers",
        "_held",
        "_host_callbacks",
        "_jaxpr",
        "_kept",
        "_known",
        "_name",
        "_token_outs",
        "arg_avals",
        "module",
        "out_avals",
    )

    def __init__(
        self,
        jaxpr: Jaxpr,
        known: Sequence[Any],
        name: str = "main",
        donated: Sequence[bool] = (),
        device: Any = None,
        keep_unused: bool = False,
    ) -> None:
        """``device``: the device committed inputs put the computation on (its outputs are
        committed to it); None for the default device (outputs uncommitted). Arguments
        nothing reads are dropped unless ``keep_unused``."""
        self._host_callbacks: list[Any] = []  # alive as long as the executable
        lowered, self._kept = (
            (jaxpr, None) if keep_unused else drop_unused_arguments(jaxpr, len(known))
        )
        with timed("Finished jaxpr to MLIR module conversion jit(%s)", name):
            module, params = build_module(
                lowered,
                inline_values(known),
                host_callbacks=self._host_callbacks,
                donated=[False] * len(known) + _kept_flags(donated, self._kept)
                if any(donated)
                else (),
                platform=_jaxlib.lowering_platform(device),
            )
        self._jaxpr = jaxpr  # kept for debug_nans' op-by-op re-run
        self._known = list(known)
        self._name = name
        self.module = module
        held = [i for i in params if i < len(known)]
        self._device = device
        with _jaxlib.unguarded_puts():  # (constants: JAX embeds them, no transfer)
            if device is None:
                self._held = [
                    to_buffer(known[i], abstract_token)
                    if type(known[i]) is Token
                    else device_put(_float0_as_bool(known[i]))._buf
                    for i in held
                ]
            else:
                self._held = [to_buffer(known[i], get_aval(known[i]), device) for i in held]
        self.arg_avals = [v.aval for v in jaxpr.in_binders[len(known) :]]
        self.out_avals = [x.aval for x in jaxpr.outs]
        self._exe = _jaxlib.compile_module(module, self._host_callbacks, device)
        committed = device is not None
        self._handlers = [
            _jaxlib.result_handler(_float0_as_bool(a), device, committed) for a in self.out_avals
        ]
        # float0 results (integer inputs' gradients) leave as NumPy zeros, as JAX's jit returns
        self._float0_outs = [
            i
            for i, a in enumerate(self.out_avals)
            if not is_token_aval(a) and a.dtype == _jaxlib.FLOAT0
        ]
        # token results leave as Tokens wrapping their buffer (JAX's token result handler)
        self._token_outs = [i for i, a in enumerate(self.out_avals) if is_token_aval(a)]
        self._array_type = CommittedArray if committed else Array

    def as_text(self) -> str:
        return str(self.module)

    def optimized_text(self) -> str:
        """XLA's optimized HLO of the compiled program (what ``jax.stages.Compiled.as_text``
        shows): fusions, layouts and the schedule XLA chose."""
        return "\n".join(m.to_string() for m in self._exe.hlo_modules())

    def runtime_executable(self) -> _jaxlib.LoadedExecutable:
        """jaxlib's loaded executable (JAX's ``Compiled.runtime_executable()``)."""
        return self._exe

    def run(self, args: Sequence[Any]) -> list[Array]:
        """Execute on ``args`` (Arrays, NumPy arrays or scalars of the argument types)."""
        if config.no_execution:
            refuse_execution(self._name)
        if len(args) != len(self.arg_avals):
            raise TypeError(
                f"jit: the compiled computation takes {len(self.arg_avals)} arguments, "
                f"got {len(args)}"
            )
        kept, avals, device = self._kept, self.arg_avals, self._device
        if kept is None:
            bufs = [to_buffer(x, a, device) for x, a in zip(args, avals, strict=True)]
        else:  # an argument the program does not read is not even transferred
            bufs = [to_buffer(args[i], avals[i], device) for i in kept]
        return self._execute(bufs, args)

    def run_buffers(self, bufs: list[Any]) -> list[Array]:
        """Execute on device buffers already checked against ``arg_avals`` (the fast path)."""
        if config.no_execution:
            refuse_execution(self._name)
        kept = self._kept
        if kept is None:
            if self._held:
                return self._execute(bufs, bufs)
            # (_execute, inline: jit's dispatch of every argument, nothing held)
            outs = self._exe.execute_sharded(bufs).consume_with_handlers(self._handlers)
            result = list(map(self._array_type, outs, self.out_avals))
            if self._float0_outs or self._token_outs:
                self._special_outputs(result)
            if config.debug_nans or config.debug_infs:
                check_outputs(result, self._jaxpr, self._known, bufs, self._name)
            return result
        return self._execute([bufs[i] for i in kept], bufs)

    def _execute(self, bufs: list[Any], args: Sequence[Any]) -> list[Array]:
        """Run on the buffers of the kept arguments; ``args`` are all the arguments (what
        debug_nans re-runs the jaxpr on)."""
        all_bufs = [*self._held, *bufs] if self._held else bufs
        outs = self._exe.execute_sharded(all_bufs).consume_with_handlers(self._handlers)
        result = list(map(self._array_type, outs, self.out_avals))  # (one each: XLA's)
        if self._float0_outs or self._token_outs:
            self._special_outputs(result)
        if config.debug_nans or config.debug_infs:
            check_outputs(result, self._jaxpr, self._known, args, self._name)
        return result

    def _special_outputs(self, result: list[Any]) -> None:
        """Replace the float0 results (computed as bool zeros) with NumPy float0 zeros, and
        wrap each token result's buffer (a ``bool[0]`` array) in a :class:`Token`."""
        for i in self._float0_outs:
            result[i] = np.zeros(self.out_avals[i].shape, _jaxlib.FLOAT0)
        for i in self._token_outs:
            result[i] = Token(self._array_type(result[i]._buf, get_token_aval()))


def _float0_as_bool(x: Any) -> Any:
    """A float0 value or aval as the bool zeros (or bool aval) programs hold instead; a
    token's aval as the ``bool[0]`` array its buffer is (JAX's ``get_token_aval``)."""
    if x is abstract_token:
        return get_token_aval()
    if x.dtype != _jaxlib.FLOAT0:
        return x
    if isinstance(x, ShapedArray):
        return ShapedArray(x.shape, np.dtype(np.bool_))
    return np.zeros(x.shape, np.bool_)


def drop_unused_arguments(jaxpr: Jaxpr, num_known: int) -> tuple[Jaxpr, list[int] | None]:
    """``jaxpr`` without the argument binders (those after the ``num_known`` leading ones)
    that nothing reads, as JAX's ``jit`` drops them (``keep_unused=False``): XLA's compile
    time grows with the parameter count (a pytree of 100,000 leaves of which the function
    reads a few). Also returns the indices of the kept arguments, ``None`` if all are."""
    read = {x for eqn in jaxpr.eqns for x in eqn.inputs if type(x) is Var}
    read.update(x for x in jaxpr.outs if type(x) is Var)
    args = jaxpr.in_binders[num_known:]
    kept = [i for i, v in enumerate(args) if v in read]
    if len(kept) == len(args):
        return jaxpr, None
    binders = [*jaxpr.in_binders[:num_known], *(args[i] for i in kept)]
    return Jaxpr(binders, jaxpr.eqns, jaxpr.outs), kept


def _kept_flags(flags: Sequence[bool], kept: list[int] | None) -> list[bool]:
    """``flags`` of the arguments :func:`drop_unused_arguments` kept."""
    return list(flags) if kept is None else [flags[i] for i in kept]


def compile_jaxpr(
    jaxpr: Jaxpr,
    known: Sequence[Any],
    name: str = "main",
    in_shardings: Sequence[Sharding | None] = (),
    out_shardings: Sequence[Sharding | None] = (),
    donated: Sequence[bool] = (),
    device: Any = None,
    keep_spec: bool = False,
    keep_unused: bool = False,
) -> Executable | SpmdExecutable | ReplicatedJit:
    """Lower and compile ``jaxpr``; ``known`` are the values of its leading binders. With a
    sharding involved (given for an argument or output, or inside the jaxpr), the program is
    compiled for XLA's SPMD partitioner over the sharding's devices. ``donated`` flags the
    arguments (after ``known``) whose buffers outputs may reuse; ``device`` is the device of
    the committed arguments (None: the default device). A program holding a ``pmap`` is
    compiled as one replica per device (its arguments, however laid out, are gathered),
    unless an output sharding or a sharding inside asks for SPMD. ``keep_spec``: the first
    named argument sharding is a sharded array's own, so outputs XLA lays out the same way
    take its spelling (as JAX's). ``keep_unused``: arguments nothing reads stay parameters
    of the single-device program (JAX's ``jit(keep_unused=True)``)."""
    if enabled():
        avals = ", ".join(v.aval.str_short() for v in jaxpr.in_binders[len(known) :])
        log("Compiling jit(%s) with global shapes and types [%s].", name, avals)
    with timed("Finished XLA compilation of jit(%s)", name):
        return _compile(
            jaxpr, known, name, in_shardings, out_shardings, donated, device, keep_spec, keep_unused
        )


def _compile(
    jaxpr: Jaxpr,
    known: Sequence[Any],
    name: str,
    in_shardings: Sequence[Sharding | None],
    out_shardings: Sequence[Sharding | None],
    donated: Sequence[bool],
    device: Any,
    keep_spec: bool,
    keep_unused: bool,
) -> Executable | SpmdExecutable | ReplicatedJit:
    """compile_jaxpr's choice of executable kind (one device, SPMD, replicas), and its build."""
    replicas = replicas_of(jaxpr)
    placed = pmap_devices(jaxpr)  # a pmap's devices=...: the program runs on them
    if placed is not None:
        if device is not None and (device,) != placed[:1]:
            ids = [d.id for d in placed]
            raise ValueError(
                "Received incompatible devices for jitted computation. Got an argument with "
                f"device ids [{device.id}] on platform {device.platform.upper()} and pmap "
                f"inside jit with device ids {ids} on platform {placed[0].platform.upper()}."
            )
        device = placed[0]
    explicit = any(s is not None for s in out_shardings)
    if replicas > 1 and not explicit and spmd_placement(jaxpr, []) is None:
        return ReplicatedJit(jaxpr, known, replicas, placed)
    placement = spmd_placement(jaxpr, [*in_shardings, *out_shardings])
    if placement is None:
        return Executable(jaxpr, known, name, donated, device, keep_unused)
    devices, mesh = placement
    n_args = len(jaxpr.in_binders) - len(known)
    ins = list(in_shardings) or [None] * n_args
    outs = list(out_shardings) or [None] * len(jaxpr.outs)
    return SpmdExecutable(jaxpr, known, devices, mesh, ins, outs, donated, keep_spec)


_MAX_CLOSED_CACHE = 512
_closed_cache: OrderedDict[int, tuple[ClosedJaxpr, Executable | SpmdExecutable | ReplicatedJit]] = (
    OrderedDict()
)


def executable_for_closed_jaxpr(
    closed: ClosedJaxpr, name: str = "main"
) -> Executable | SpmdExecutable | ReplicatedJit:
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


_primitive_jaxprs: OrderedDict[tuple[Any, ...], ClosedJaxpr] = OrderedDict()


def compiled_impl(primitive: Primitive) -> Any:
    """An impl rule that compiles ``primitive`` alone (once per operand types and params, which
    must be hashable) and runs it, as JAX's ``dispatch.apply_primitive``: for a primitive whose
    values are XLA's to define (random bits), or whose parameters hold a jaxpr, eager results
    are then those of ``jit``."""

    def impl(*args: Any, **params: Any) -> list[Any]:
        avals = tuple(raise_to_shaped(get_aval(a)) for a in args)
        key = (primitive, avals, tuple(sorted(params.items())))
        closed = _primitive_jaxprs.get(key)
        if closed is None:

            def one(*xs: Any) -> list[Any]:
                return bind(primitive, *xs, **params)

            closed = trace_to_closed_jaxpr(one, avals)
            _primitive_jaxprs[key] = closed
            if len(_primitive_jaxprs) > _MAX_CLOSED_CACHE:
                _primitive_jaxprs.popitem(last=False)
        else:
            _primitive_jaxprs.move_to_end(key)
        return list(executable_for_closed_jaxpr(closed, primitive.name).run(list(args)))

    impl.__name__ = f"{primitive.name}_impl"
    return impl
