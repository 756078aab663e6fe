"""Global switches, read on hot paths as plain attributes.

``check_jaxprs``: run ``typecheck_jaxpr`` on every jaxpr a transformation produces (off by
default for speed; the test suites switch it on). ``debug_nans``: make jit re-run a function
that produced a NaN op by op and raise ``FloatingPointError`` naming the primitive.
``debug_infs``: the same for infinities (``MJ_DEBUG_INFS``), as JAX's ``jax_debug_infs``.
``disable_jit``: make ``jit`` call the Python function directly (for debugging with print
and pdb; see ``mj.disable_jit()``).
Both can be preset with the environment variables ``MJ_CHECK_JAXPRS=1`` / ``MJ_DEBUG_NANS=1``.
``num_cpu_devices``: how many CPU devices the XLA backend creates (``MJ_NUM_CPU_DEVICES``),
for ``pmap`` without hardware; it must be set before the backend starts. Unset, it is as in
JAX: XLA's ``--xla_force_host_platform_device_count=N`` in ``XLA_FLAGS`` when the backend
starts, else 1.
``platforms``: the backends mj may use, in order of preference (``"cuda,cpu"``; JAX's
``jax_platforms``, preset with ``MJ_PLATFORMS``); ``None`` picks every available one, a GPU
first. Like ``num_cpu_devices`` it must be set before the backend starts.
``enable_x64``: 64-bit types (``MJ_ENABLE_X64=1``). Off by default, as in JAX: float32, int32,
uint32 and complex64 are the default types and 64-bit inputs are narrowed to them. Switching it
is safe at any time: every cache that depends on it (jit, typing memos) keys on it or is cleared
by the listeners registered with :func:`on_x64_change`.
``numpy_rank_promotion``: what mj.numpy does when operands of different ranks broadcast:
``"allow"`` (default), ``"warn"`` or ``"raise"`` (``MJ_NUMPY_RANK_PROMOTION``), as JAX.
``numpy_dtype_promotion``: ``"standard"`` (JAX's lattice, the default) or ``"strict"`` (only
Python scalars and weak values promote, into a dtype of their kind or wider; any other mix of
dtypes is a ``TypePromotionError``), as JAX's ``jax_numpy_dtype_promotion``
(``MJ_NUMPY_DTYPE_PROMOTION``).
``default_matmul_precision``: the precision of compiled ``dot_general``/convolutions that ask
for none (JAX's names: ``"default"``/``"bfloat16"``/``"fastest"``, ``"high"``/
``"tensorfloat32"``, ``"highest"``/``"float32"``); ``None`` leaves XLA's default.
``log_compiles``: log each XLA compilation (a warning on the ``mj`` logger), as JAX's.
``no_tracing`` / ``no_execution``: JAX's ``jax_no_tracing`` (a ``jit`` call that would trace
its function anew raises ``RuntimeError``) and ``jax_no_execution`` (running a compiled
computation raises ``RuntimeError``; mj's eager operations on host data are NumPy, not
executions, and still run).
``threefry_partitionable`` and ``default_prng_impl``: mj's random bits are JAX's defaults
(partitionable ``"threefry2x32"``); only those values are accepted.
``legacy_prng_key``: what ``mj.random``'s samplers do with a raw ``uint32[2]`` key
(``"allow"``, the default, ``"warn"`` or ``"error"``); ``enable_custom_prng``: ``PRNGKey``
returns typed keys (as ``mj.random.key``) when on; ``debug_key_reuse``: JAX's key-reuse
checker, only off in mj. As JAX's options of the same names.
``compilation_cache_dir``: a directory where compiled executables persist between processes
(``MJ_COMPILATION_CACHE_DIR``; JAX's ``jax_compilation_cache_dir``), for compilations that
took at least ``persistent_cache_min_compile_time_secs`` (1 s, as JAX) and entries of at least
``persistent_cache_min_entry_size_bytes``.
``transfer_guard`` and ``transfer_guard_host_to_device`` / ``_device_to_device`` /
``_device_to_host``: JAX's transfer guards (``"allow"``, ``"log"``, ``"disallow"``,
``"log_explicit"``, ``"disallow_explicit"``; None: unset, so a direction follows
``transfer_guard``, and that jaxlib's default, allow). mj-xla hands them to jaxlib, which
checks every transfer; see ``mj.transfer_guard``.
``default_device``: the device (or platform name) jit computes on when no argument is
committed to one (JAX's ``jax_default_device``); None: the default backend's first device.
``check_tracer_leaks``: JAX's leak checker (``mj.checking_leaks()``): a tracer still alive
after its transformation ended raises ``TracerLeakError`` (see ``mj_core._trace``).
``parse_flags_with_absl()`` / ``config_with_absl()`` (JAX's methods, called at import by
test files such as flax's) apply the command line's ``--jax_NAME=VALUE`` flags (before a
``--``) that name mj's options, and ignore the rest, as JAX's ``known_only`` parse.
``softmax_custom_jvp``: JAX's ``jax_softmax_custom_jvp`` (default False): ``mj.nn.softmax``
differentiated through its operations (False) or as a ``custom_jvp`` function whose reverse
mode saves only its output (True). Traces depend on it (:data:`TRACE_SETTINGS`).
``traceback_filtering``: mj never removes its own frames from tracebacks, which is JAX's
``"off"``; ``"off"`` and the default ``"auto"`` are accepted, the filtering modes refused.
"""

from __future__ import annotations

import itertools
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["MATMUL_PRECISIONS", "TRACE_SETTINGS", "config", "on_change", "on_x64_change"]

#: The options a trace depends on besides its arguments: the dtype mode (constants' and
#: defaults' dtypes), the default matmul precision, the dtype and rank promotion modes (the
#: promotion lattice's answers and the rank checks made while tracing) and which softmax
#: ``mj.nn.softmax`` traces (``softmax_custom_jvp``, as JAX's jit key). Every cache of traced
#: jaxprs keys on them (``config.trace_settings()``), as JAX keys its traces.
TRACE_SETTINGS = (
    "enable_x64",
    "default_matmul_precision",
    "numpy_dtype_promotion",
    "numpy_rank_promotion",
    "softmax_custom_jvp",
)

_RANK_PROMOTION = ("allow", "warn", "raise")
_DTYPE_PROMOTION = ("standard", "strict")

#: Listeners called with the new value whenever an option changes (caches that depend on it).
_LISTENERS: dict[str, list[Callable[[Any], None]]] = {}


def on_change(name: str, listener: Callable[[Any], None]) -> None:
    """Call ``listener(new_value)`` whenever option ``name`` changes value."""
    _LISTENERS.setdefault(name, []).append(listener)


def on_x64_change(listener: Callable[[bool], None]) -> None:
    """Call ``listener(new_value)`` whenever ``enable_x64`` is switched."""
    on_change("enable_x64", listener)


def _flag(name: str, default: str = "") -> bool:
    return os.environ.get(name, default) not in ("", "0", "false", "False")


#: Options that may no longer change, with the reason (the backend read them when it started).
_FROZEN: dict[str, str] = {}
_GIVEN: set[str] = set()  # options set by an MJ_ variable or update(), not left at default
_FROZEN_OK: dict[str, tuple[Any, ...]] = {}


class _Config:
    __slots__ = (
        "check_jaxprs",
        "check_tracer_leaks",
        "compilation_cache_dir",
        "debug_infs",
        "debug_key_reuse",
        "debug_nans",
        "default_device",
        "default_matmul_precision",
        "default_prng_impl",
        "disable_jit",
        "enable_custom_prng",
        "enable_x64",
        "legacy_prng_key",
        "log_compiles",
        "no_execution",
        "no_tracing",
        "num_cpu_devices",
        "numpy_dtype_promotion",
        "numpy_rank_promotion",
        "persistent_cache_min_compile_time_secs",
        "persistent_cache_min_entry_size_bytes",
        "platforms",
        "softmax_custom_jvp",
        "threefry_partitionable",
        "traceback_filtering",
        "transfer_guard",
        "transfer_guard_device_to_device",
        "transfer_guard_device_to_host",
        "transfer_guard_host_to_device",
    )

    def __init__(self) -> None:
        self.check_jaxprs = _flag("MJ_CHECK_JAXPRS")
        self.check_tracer_leaks = False
        self.debug_nans = _flag("MJ_DEBUG_NANS")
        self.debug_infs = _flag("MJ_DEBUG_INFS")
        self.disable_jit = _flag("MJ_DISABLE_JIT")
        self.enable_x64 = _flag("MJ_ENABLE_X64")
        self.num_cpu_devices = int(os.environ.get("MJ_NUM_CPU_DEVICES", "1") or 1)
        if os.environ.get("MJ_NUM_CPU_DEVICES"):
            _GIVEN.add("num_cpu_devices")
        self.platforms = _check_platforms(os.environ.get("MJ_PLATFORMS"))
        rank = os.environ.get("MJ_NUMPY_RANK_PROMOTION", "allow") or "allow"
        self.numpy_rank_promotion = _check_rank_promotion(rank)
        promotion = os.environ.get("MJ_NUMPY_DTYPE_PROMOTION", "standard") or "standard"
        self.numpy_dtype_promotion = _check_dtype_promotion(promotion)
        self.default_matmul_precision: str | None = None
        self.log_compiles = _flag("MJ_LOG_COMPILES")
        self.no_tracing = False
        self.no_execution = False
        self.threefry_partitionable = True
        self.default_prng_impl = "threefry2x32"
        self.legacy_prng_key = "allow"
        self.enable_custom_prng = False
        self.debug_key_reuse = False
        self.traceback_filtering = "auto"
        self.softmax_custom_jvp = False
        self.transfer_guard: str | None = None
        self.transfer_guard_host_to_device: str | None = None
        self.transfer_guard_device_to_device: str | None = None
        self.transfer_guard_device_to_host: str | None = None
        self.default_device: object = None
        self.compilation_cache_dir: str | None = os.environ.get("MJ_COMPILATION_CACHE_DIR") or None
        self.persistent_cache_min_compile_time_secs = 1.0
        self.persistent_cache_min_entry_size_bytes = 0

    @property
    def x64_enabled(self) -> bool:
        """JAX's ``config.x64_enabled``: whether 64-bit dtypes are on (``enable_x64``)."""
        return bool(self.enable_x64)

    def trace_settings(self) -> tuple[object, ...]:
        """The current values of :data:`TRACE_SETTINGS`, for keys of traced-jaxpr caches."""
        return tuple(getattr(self, name) for name in TRACE_SETTINGS)

    def given(self, name: str) -> bool:
        """Whether option ``name`` was set (its ``MJ_`` environment variable or ``update``),
        rather than left at its default."""
        return _canonical(name) in _GIVEN

    def freeze(self, name: str, reason: str, accepted: tuple[Any, ...] = ()) -> None:
        """Refuse later changes of option ``name``: the component that read it has started.
        The ``accepted`` values change nothing that started (``platforms="cpu"`` when the
        CPU backend is the default one) and may still be set."""
        _FROZEN[name] = reason
        _FROZEN_OK[name] = accepted

    def __getattr__(self, name: str) -> Any:
        """JAX's spellings (``config.jax_enable_x64``) read the same options."""
        if name.startswith(("jax_", "mj_")):
            name = _ALIASES.get(name[4:], name[4:])
            if name in self.__slots__:
                return getattr(self, name)
        raise AttributeError(f"Unknown config option {name!r}; options: {self.__slots__}")

    def update(self, name: str, value: Any) -> None:
        """JAX-style ``config.update("debug_nans", True)`` (``jax_`` prefixes accepted)."""
        name = _canonical(name)
        if name not in self.__slots__:
            raise ValueError(f"Unknown config option {name!r}; options: {self.__slots__}")
        if name == "platforms":
            value = _check_platforms(value)
        if name in _FROZEN and value != getattr(self, name) and value not in _FROZEN_OK[name]:
            raise RuntimeError(
                f"jax_{name} config should be updated before backends are initialized i.e. "
                f"before any JAX operation is executed ({name} cannot be changed any more: "
                f"{_FROZEN[name]})"
            )
        if name == "num_cpu_devices" and (type(value) is not int or value < 1):
            raise ValueError(f"num_cpu_devices must be a positive int, got {value!r}")
        if name == "numpy_rank_promotion":
            value = _check_rank_promotion(value)
        if name == "numpy_dtype_promotion":
            value = _check_dtype_promotion(value)
        if name == "default_matmul_precision":
            value = _check_matmul_precision(value)
        if name in ("log_compiles", "debug_nans", "debug_infs"):
            value = bool(value)
        if name == "compilation_cache_dir" and value is not None:
            value = os.fspath(value)
        if name == "traceback_filtering":
            value = _check_traceback_filtering(value)
        if name == "legacy_prng_key" and value not in _LEGACY_PRNG_KEY:
            raise ValueError(f"legacy_prng_key must be one of {_LEGACY_PRNG_KEY}, got {value!r}")
        if name.startswith("transfer_guard") and value not in _TRANSFER_GUARD_LEVELS:
            raise ValueError(
                f"new enum value must be None or in {list(_TRANSFER_GUARD_LEVELS[1:])}, "
                f"got {value} of type {type(value)}."
            )
        if name in (
            "enable_custom_prng",
            "debug_key_reuse",
            "check_tracer_leaks",
            "softmax_custom_jvp",
        ):
            value = bool(value)
        if name in ("no_tracing", "no_execution"):
            value = bool(value)
        if name in _ONLY and value != _ONLY[name]:
            raise NotImplementedError(
                f"{name}={value!r} is not supported: {_ONLY_WHY[name]} ({name}={_ONLY[name]!r})"
            )
        if name == "enable_x64":
            value = bool(value)
        changed = value != getattr(self, name)
        setattr(self, name, value)
        _GIVEN.add(name)
        if changed:
            for listener in _LISTENERS.get(name, ()):
                listener(value)

    def parse_flags_with_absl(self) -> None:
        """Apply ``--jax_NAME=VALUE`` / ``--jax_NAME`` flags of ``sys.argv`` (those before a
        ``--``) that name mj's options; other flags are left alone (JAX parses only its own,
        ``known_only``). Without absl: mj does not register absl flags."""
        for arg in itertools.takewhile(lambda a: a != "--", sys.argv[1:]):
            if not arg.startswith("--jax_"):
                continue
            flag, has_value, text = arg[2:].partition("=")
            name = _canonical(flag)
            if name not in self.__slots__:
                continue
            self.update(name, _flag_value(getattr(self, name), text if has_value else "true"))

    def config_with_absl(self) -> None:
        """JAX's spelling for programs whose ``main`` parses absl flags: the same as
        :meth:`parse_flags_with_absl` here."""
        self.parse_flags_with_absl()

    @contextmanager
    def override(self, name: str, value: object) -> Iterator[None]:
        name = _canonical(name)
        old = getattr(self, name)
        self.update(name, value)
        try:
            yield
        finally:
            if name in _LISTENERS:  # through update: its listeners must hear the change
                self.update(name, old)
            else:
                setattr(self, name, old)


#: JAX's names of mj's options: ``jax_enable_checks`` typechecks every jaxpr, and
#: ``jax_platform_name`` (one platform) is the older spelling of ``jax_platforms``.
_ALIASES = {"enable_checks": "check_jaxprs", "platform_name": "platforms"}


def _flag_value(current: object, text: str) -> object:
    """A command-line flag's text as a value of the option's type (its current value's)."""
    if isinstance(current, bool):
        if text.lower() not in ("true", "1", "false", "0"):
            raise ValueError(f"a boolean flag takes true/false/1/0, got {text!r}")
        return text.lower() in ("true", "1")
    if isinstance(current, int):
        return int(text)
    if isinstance(current, float):
        return float(text)
    return text


def _canonical(name: str) -> str:
    name = name.removeprefix("jax_").removeprefix("mj_")
    return _ALIASES.get(name, name)


#: Options with the one value mj implements.
_ONLY: dict[str, Any] = {
    "threefry_partitionable": True,
    "default_prng_impl": "threefry2x32",
    "debug_key_reuse": False,
}
_ONLY_WHY = {
    "threefry_partitionable": "mj's random bits are JAX's defaults",
    "default_prng_impl": "mj's random bits are JAX's defaults",
    "debug_key_reuse": "mj has no key-reuse checker",
}

_LEGACY_PRNG_KEY = ("allow", "warn", "error")
_TRANSFER_GUARD_LEVELS = (None, "allow", "log", "disallow", "log_explicit", "disallow_explicit")

#: JAX's names of the matmul precisions (and their aliases).
MATMUL_PRECISIONS = {
    "default": "DEFAULT",
    "fastest": "DEFAULT",
    "bfloat16": "DEFAULT",
    "high": "HIGH",
    "tensorfloat32": "HIGH",
    "bfloat16_3x": "HIGH",
    "highest": "HIGHEST",
    "float32": "HIGHEST",
}


#: The names of ``lax.DotAlgorithmPreset`` (``mj_core.prims.contractions``), which
#: ``default_matmul_precision`` may also name.
DOT_ALGORITHM_PRESETS = (
    "DEFAULT", "ANY_F8_ANY_F8_F32", "ANY_F8_ANY_F8_F32_FAST_ACCUM", "ANY_F8_ANY_F8_ANY",
    "ANY_F8_ANY_F8_ANY_FAST_ACCUM", "F16_F16_F16", "F16_F16_F32", "BF16_BF16_BF16",
    "BF16_BF16_F32", "BF16_BF16_F32_X3", "BF16_BF16_F32_X6", "BF16_BF16_F32_X9",
    "TF32_TF32_F32", "TF32_TF32_F32_X3", "F32_F32_F32", "F64_F64_F64",
)  # fmt: skip


def _check_matmul_precision(value: object) -> str | None:
    """One of JAX's precision names (lowercased), or the name of a ``DotAlgorithmPreset``."""
    if value is None:
        return None
    if isinstance(value, str) and value in DOT_ALGORITHM_PRESETS:
        return value
    if not isinstance(value, str) or value.lower() not in MATMUL_PRECISIONS:
        raise ValueError(
            f"default_matmul_precision must be None, one of {sorted(MATMUL_PRECISIONS)} or the "
            f"name of a lax.DotAlgorithmPreset, got {value!r}"
        )
    return value.lower()


_FILTERING_MODES = ("tracebackhide", "remove_frames", "quiet_remove_frames")


def _check_traceback_filtering(value: object) -> str:
    if value in ("off", "auto"):
        return str(value)
    if value in _FILTERING_MODES:
        raise NotImplementedError(
            f"traceback_filtering={value!r} is not supported: mj never removes frames from "
            "tracebacks (JAX's 'off'); 'off' and 'auto' are accepted"
        )
    raise ValueError(
        f"traceback_filtering must be one of {('off', 'auto', *_FILTERING_MODES)}, got {value!r}"
    )


def _check_dtype_promotion(value: object) -> str:
    if value not in _DTYPE_PROMOTION:
        raise ValueError(f"numpy_dtype_promotion must be one of {_DTYPE_PROMOTION}, got {value!r}")
    return str(value)


def _check_rank_promotion(value: object) -> str:
    if value not in _RANK_PROMOTION:
        raise ValueError(f"numpy_rank_promotion must be one of {_RANK_PROMOTION}, got {value!r}")
    return str(value)


def _check_platforms(value: object) -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str) or not all(p.strip() for p in value.split(",")):
        raise ValueError(
            f"platforms must be a comma-separated list of platform names such as 'cuda,cpu' "
            f"(or None for every available one), got {value!r}"
        )
    return ",".join(p.strip() for p in value.split(","))


config = _Config()
