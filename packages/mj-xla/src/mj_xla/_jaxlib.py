"""The one door to jaxlib: MLIR context and dialects, the PJRT CPU client, transfers, execution.

Everything else in mj-xla reaches jaxlib through the names defined here, so a jaxlib upgrade
touches one module. Facts this module relies on (see ``shared/STABLEHLO.md``):

* jaxlib tries ``import jax._src.sharding_impls`` each time it creates an array; without jax
  installed that failed import costs ~30 us per array. When jax is not installed we park a
  ``None`` in ``sys.modules`` so the import fails at once. When jax *is* installed (the oracle
  test environment) we leave ``sys.modules`` alone so that ``import jax`` keeps working.
* Host data reaches the device through ``batched_device_put`` (a copy made during the call,
  so arrays stay immutable), given the aval and a sharding: jaxlib's other door, DLPack
  import, builds the aval itself through ``jax.core`` and so imports the whole of jax when it
  is installed. ``batched_device_put`` reads two attributes that JAX's Python sharding classes
  add to jaxlib's C++ ones; :class:`_PutSharding` supplies them.
* ``execute`` checks only byte sizes, never dtypes: callers validate avals themselves.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import importlib
import importlib.metadata
import importlib.util
import os
import re
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, TypeAlias, runtime_checkable

import ml_dtypes
import numpy as np

from mj_core import config
from mj_core.extend import DTypeLike
from mj_xla import _compilation_cache, _plugins

if importlib.util.find_spec("jax") is None:
    sys.modules.setdefault("jax._src.sharding_impls", None)  # type: ignore[arg-type]
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")

import jaxlib.xla_client as xc
from jaxlib import _jax  # type: ignore[attr-defined]
from jaxlib.mlir import ir
from jaxlib.mlir._mlir_libs import _jax_mlir_ext
from jaxlib.mlir.dialects import chlo, sdy
from jaxlib.mlir.dialects import func as _func
from jaxlib.mlir.dialects import stablehlo as hlo

#: Part of every persistent compilation cache key: executables of one jaxlib only.
_JAXLIB_VERSION = importlib.metadata.version("jaxlib")

__all__ = [
    "FLOAT0",
    "PYTHON_CALLBACK_TARGET",
    "RESULT_HANDLER_SKIPS_CHECKS",
    "Buffer",
    "Device",
    "LoadedExecutable",
    "Value",
    "assemble",
    "buffer_device",
    "chlo",
    "compile_module",
    "compile_replicated",
    "compile_spmd",
    "compiler_options",
    "copy_to_device",
    "cost_analysis",
    "cusolver_version",
    "default_platform",
    "device",
    "devices",
    "func",
    "hlo",
    "hlo_computation",
    "hlo_sharding_from_proto",
    "hlo_sharding_manual",
    "hlo_sharding_replicated",
    "hlo_sharding_tiled",
    "initialize_hybrid_kernels",
    "ir",
    "ir_element_type",
    "ir_tensor_type",
    "is_committed",
    "is_distributed",
    "is_local",
    "lapack_target",
    "local_devices",
    "lowering_platform",
    "mlir_context",
    "output_shardings",
    "parameter_shardings",
    "platforms",
    "process_count",
    "process_index",
    "put",
    "put_on",
    "python_callback_target",
    "replicated_result_handler",
    "result_handler",
    "sdy",
    "sharded_array",
    "sharded_result_handler",
    "shards",
    "start_distributed",
    "stop_distributed",
    "to_numpy",
]

# The func dialect's stubs lag behind its runtime API (add_entry_block, CallOp(func_op, args)).
func: Any = _func
if TYPE_CHECKING:
    # jaxlib's C++ classes (``jaxlib._jax``) ship no stubs, so mypy sees ``xc.Device`` and its
    # kin as ``Any``. These protocols describe the part of them mj calls; at run time the
    # names are jaxlib's own classes (``mj.Device`` is ``jax.Device``'s class).

    @runtime_checkable  # ``isinstance(d, mj.Device)``: at run time, jaxlib's class
    class Device(Protocol):
        """A device (``jax.Device``)."""

        @property
        def id(self) -> int: ...
        @property
        def platform(self) -> str: ...
        @property
        def device_kind(self) -> str: ...
        @property
        def process_index(self) -> int: ...
        @property
        def client(self) -> Any: ...

    class Buffer(Protocol):
        """jaxlib's ``ArrayImpl``: one array on one device, or a multi-device one."""

        _committed: bool
        _sharding: Any  # a jaxlib sharding; ``_device`` for a single-device one
        _arrays: Sequence[Buffer]  # the per-device buffers of a multi-device one

        @property
        def shape(self) -> tuple[int, ...]: ...
        @property
        def dtype(self) -> np.dtype[Any]: ...
        def is_deleted(self) -> bool: ...
        def is_ready(self) -> bool: ...
        def unsafe_buffer_pointer(self) -> int: ...
        def _copy_single_device_array_to_host_async(self) -> None: ...
        def delete(self) -> None: ...
        def block_until_ready(self) -> Buffer: ...
        def __array__(
            self, dtype: DTypeLike | None = ..., copy: bool | None = ...
        ) -> np.ndarray[Any, Any]: ...
        def _single_device_array_to_np_array_did_copy(
            self,
        ) -> tuple[np.ndarray[Any, Any], bool]: ...

    class ExecuteResults(Protocol):
        """What ``execute_sharded`` returns: outputs still to be wrapped by result handlers."""

        def consume_with_handlers(self, handlers: Sequence[Any]) -> list[Any]: ...

    class HloModule(Protocol):
        def to_string(self) -> str: ...

    class LoadedExecutable(Protocol):
        """A compiled program loaded on its devices."""

        def execute_sharded(
            self, arguments: Sequence[Buffer], with_tokens: bool = ...
        ) -> ExecuteResults: ...
        def hlo_modules(self) -> list[HloModule]: ...
        def get_output_shardings(self) -> Sequence[Any] | None: ...
        def get_parameter_shardings(self) -> Sequence[Any] | None: ...
        def get_output_layouts(self) -> Sequence[Any]: ...
        def get_parameter_layouts(self) -> Sequence[Any]: ...

    Value: TypeAlias = ir.Value[Any]  # an SSA value of the module being built
else:
    Buffer = _jax.ArrayImpl
    Device = xc.Device  # the type of every device (``jax.Device``)
    LoadedExecutable = xc.LoadedExecutable
    Value = ir.Value

# --- MLIR context: one per thread (creating one with all dialects costs ~6 ms) ---------------

_local = threading.local()


def mlir_context() -> ir.Context:
    """This thread's MLIR context with the func/stablehlo/chlo dialects loaded."""
    ctx: ir.Context | None = getattr(_local, "ctx", None)
    if ctx is None:
        registry = ir.DialectRegistry()
        _jax_mlir_ext.register_dialects(registry)
        ctx = ir.Context()
        ctx.append_dialect_registry(registry)
        ctx.load_all_available_dialects()
        hlo.register_dialect(ctx)
        chlo.register_dialect(ctx)
        sdy.register_dialect(ctx)
        _local.ctx = ctx
    return ctx


#: bfloat16 and the float8 types (``ml_dtypes``), by their MLIR names.
_CUSTOM_FLOATS: dict[np.dtype[Any], str] = {
    np.dtype(getattr(ml_dtypes, name)): mlir
    for name, mlir in [
        ("bfloat16", "bf16"),
        ("float8_e4m3fn", "f8E4M3FN"),
        ("float8_e5m2", "f8E5M2"),
        ("float8_e4m3fnuz", "f8E4M3FNUZ"),
        ("float8_e5m2fnuz", "f8E5M2FNUZ"),
        ("float8_e4m3b11fnuz", "f8E4M3B11FNUZ"),
        ("float8_e4m3", "f8E4M3"),
        ("float8_e3m4", "f8E3M4"),
        ("float8_e8m0fnu", "f8E8M0FNU"),
        ("float4_e2m1fn", "f4E2M1FN"),
        # ml_dtypes' narrow integers (signless and unsigned, as the wider ones below)
        ("int2", "i2"),
        ("int4", "i4"),
        ("uint2", "ui2"),
        ("uint4", "ui4"),
    ]
    if hasattr(ml_dtypes, name)
}

_ELEMENT_TYPES: dict[np.dtype[Any], Any] = {
    np.dtype(np.float16): ir.F16Type.get,
    np.dtype(np.float32): ir.F32Type.get,
    np.dtype(np.float64): ir.F64Type.get,
    np.dtype(np.bool_): lambda: ir.IntegerType.get_signless(1),
    np.dtype(np.int8): lambda: ir.IntegerType.get_signless(8),
    np.dtype(np.int16): lambda: ir.IntegerType.get_signless(16),
    np.dtype(np.int32): lambda: ir.IntegerType.get_signless(32),
    np.dtype(np.int64): lambda: ir.IntegerType.get_signless(64),
    np.dtype(np.uint8): lambda: ir.IntegerType.get_unsigned(8),
    np.dtype(np.uint16): lambda: ir.IntegerType.get_unsigned(16),
    np.dtype(np.uint32): lambda: ir.IntegerType.get_unsigned(32),
    np.dtype(np.uint64): lambda: ir.IntegerType.get_unsigned(64),
    np.dtype(np.complex64): lambda: ir.ComplexType.get(ir.F32Type.get()),
    np.dtype(np.complex128): lambda: ir.ComplexType.get(ir.F64Type.get()),
}


#: JAX's ``float0`` (mj_autodiff's, spelled here to keep this module below mj-autodiff): the
#: dtype of integer and bool values' tangents, which jit passes and returns as bool zeros.
FLOAT0: np.dtype[Any] = np.dtype([("float0", np.void, 0)])


def ir_element_type(dtype: np.dtype[Any]) -> ir.Type:
    """The MLIR element type of a NumPy dtype (needs an active context)."""
    try:
        elt: ir.Type = _ELEMENT_TYPES[dtype]()
    except KeyError:
        if dtype == FLOAT0:  # JAX's lowering too: a float0 value is a bool zero in programs
            return ir.IntegerType.get_signless(1)
        if dtype in _CUSTOM_FLOATS:
            return ir.Type.parse(_CUSTOM_FLOATS[dtype])
        raise TypeError(f"jit: dtype {dtype} is not supported by the XLA backend") from None
    return elt


def ir_tensor_type(shape: Sequence[int], dtype: np.dtype[Any]) -> ir.RankedTensorType:
    """The MLIR ``tensor<shape x element>`` type of a NumPy dtype."""
    return ir.RankedTensorType.get(list(shape), ir_element_type(dtype))


# --- the PJRT clients: the CPU, and GPUs through plugins -------------------------------------

_client_lock = threading.Lock()
_client: Any = None
_device: Any = None
_device_list: Any = None
_sharding: Any = None
_devices: list[Device] = []  # this process's devices
_global_devices: list[Device] = []  # every process's devices


class _Distributed:
    """This process's place among several joined by jaxlib's distributed runtime: the
    coordination service (run by process 0) and this process's client of it."""

    __slots__ = ("client", "num_processes", "process_id", "service")

    def __init__(self, service: Any, client: Any, process_id: int, num_processes: int) -> None:
        self.service = service
        self.client = client
        self.process_id = process_id
        self.num_processes = num_processes


_distributed: _Distributed | None = None


def start_distributed(
    coordinator_address: str,
    bind_address: str,
    num_processes: int,
    process_id: int,
    init_timeout: int,
    heartbeat_timeout: int,
    shutdown_timeout: int,
) -> None:
    """Join the processes of one computation: process 0 serves the coordination service on
    ``bind_address``; every process connects to it at ``coordinator_address`` (waiting up to
    ``init_timeout`` seconds for the others). The CPU backend started afterwards spans every
    process's devices, with gloo over TCP for collectives across processes."""
    global _distributed
    with _client_lock:
        if _client is not None:
            raise RuntimeError(
                "mj.distributed.initialize must be called before any computation: the CPU "
                "backend has already started as a single process"
            )
        if _distributed is not None:
            raise RuntimeError("mj.distributed.initialize should only be called once.")
        service = None
        if process_id == 0:
            service = _jax.get_distributed_runtime_service(
                bind_address,
                num_processes,
                heartbeat_timeout=heartbeat_timeout,
                shutdown_timeout=shutdown_timeout,
            )
        client = _jax.get_distributed_runtime_client(
            coordinator_address,
            process_id,
            init_timeout=init_timeout,
            heartbeat_timeout=heartbeat_timeout,
            shutdown_timeout=shutdown_timeout,
            use_compression=True,
        )
        try:
            client.connect()
        except BaseException:
            if service is not None:
                service.shutdown()
            raise
        _distributed = _Distributed(service, client, process_id, num_processes)


def stop_distributed() -> None:
    """Leave the distributed runtime (client first, then process 0's service)."""
    global _distributed
    state = _distributed
    if state is None:
        return
    state.client.shutdown()
    if state.service is not None:
        state.service.shutdown()
    _distributed = None


def is_distributed() -> bool:
    return _distributed is not None


def process_index() -> int:
    """This process's index (0 when it runs alone)."""
    return 0 if _distributed is None else _distributed.process_id


def process_count() -> int:
    return 1 if _distributed is None else _distributed.num_processes


_DEVICE_COUNT_FLAG = re.compile(r"(?:^|\s)-{0,2}xla_force_host_platform_device_count=(\d+)")


def _cpu_device_count() -> int:
    """``config.num_cpu_devices`` where it was set; else, as JAX (whose
    ``jax_num_cpu_devices`` defaults to XLA's flag), the count that
    ``--xla_force_host_platform_device_count`` in ``XLA_FLAGS`` gives now, when the backend
    starts (chex's ``set_n_cpu_devices`` sets it after ``import jax``), else 1."""
    if not config.given("num_cpu_devices"):
        found = _DEVICE_COUNT_FLAG.search(os.environ.get("XLA_FLAGS", ""))
        config.num_cpu_devices = int(found.group(1)) if found else 1
    return config.num_cpu_devices


def started_backends() -> dict[str, Any]:
    """The backends started so far (none before the first computation or device query),
    by platform, without starting any: JAX's ``xla_bridge._backends``."""
    return dict(_clients)


def _make_cpu_client(count: int) -> Any:
    state = _distributed
    if state is None:
        return xc.make_cpu_client(num_devices=count)
    return xc.make_cpu_client(
        distributed_client=state.client,
        node_id=state.process_id,
        num_nodes=state.num_processes,
        collectives=_jax.make_gloo_tcp_collectives(distributed_client=state.client),
        num_devices=count,
    )


#: Platform aliases as JAX has them: ``devices("gpu")`` means the CUDA or ROCm backend.
_ALIASES = {"gpu": ("cuda", "rocm")}
_clients: dict[str, Any] = {}  # started backends, by platform, the default one first
# platform -> the plugin's C API, loaded once per process (None: JAX, imported alongside,
# loaded it and registered its kernels).
_plugin_apis: dict[str, Any] = {}


def _load_plugin(plugin: _plugins.Plugin) -> bool:
    """``xc.load_pjrt_plugin_dynamically`` (once per platform); False, with JAX's warning,
    when the library cannot be loaded."""
    if plugin.platform in _plugin_apis:
        return True
    if xc.pjrt_plugin_loaded(plugin.platform):  # by JAX, in this process: its kernels too
        _plugin_apis[plugin.platform] = None
        return True
    try:
        c_api = xc.load_pjrt_plugin_dynamically(plugin.platform, plugin.library_path)
    except Exception as err:  # jaxlib raises its runtime error, or OSError from dlopen
        _plugins.logger.warning(
            "mj: PJRT plugin configuration error: the %r plugin %s could not be loaded: %s; "
            "the backend is not available (the CPU always is)",
            plugin.platform,
            plugin.library_path,
            err,
        )
        return False
    _plugin_apis[plugin.platform] = c_api
    return True


def _make_plugin_client(platform: str) -> Any:
    """A PJRT C API client for a loaded plugin, with the options JAX gives GPU plugins; the
    plugin's custom-call kernels (cuSOLVER, cuBLAS, ...) are registered with XLA first."""
    if not xc.pjrt_plugin_initialized(platform):
        xc.initialize_pjrt_plugin(platform)
    options: dict[str, Any] = {}
    if platform in _ALIASES["gpu"]:
        options.update(xc.generate_pjrt_gpu_plugin_options())
        _register_gpu_kernels(platform)
    state = _distributed
    if state is None:
        return xc.make_c_api_client(platform, options, None)
    options.update(node_id=state.process_id, num_nodes=state.num_processes)
    return xc.make_c_api_client(platform, options, state.client)


def _register_gpu_kernels(platform: str) -> None:
    """Register the plugin package's kernels for ``platform`` as JAX does on import (jaxlib's
    ``gpu_*`` modules find them in ``jax_cuda1x_plugin`` without importing jax); custom calls
    lowered for the GPU name them."""
    c_api = _plugin_apis[platform]
    if c_api is None:  # JAX loaded the plugin and registered them
        return
    xla_platform = platform.upper()
    extension = None
    for package in _jaxlib_plugin_packages(platform):
        try:
            extension = importlib.import_module(f"{package}.{platform}_plugin_extension")
        except ImportError:
            continue
        break
    if extension is not None:
        xc.register_custom_type_handler(
            xla_platform, functools.partial(extension.register_custom_type, c_api)
        )
        xc.register_custom_call_handler(
            xla_platform, functools.partial(extension.register_custom_call_target, c_api)
        )
        for name, value in extension.ffi_types().items():
            xc.register_custom_type(name, value, platform=xla_platform)
        for name, value in extension.ffi_handlers().items():
            xc.register_custom_call_target(name, value, platform=xla_platform, api_version=1)
    for module in ("gpu_solver", "gpu_linalg", "gpu_prng", "gpu_sparse"):
        try:
            kernels = importlib.import_module(f"jaxlib.{module}")
        except ImportError:
            continue
        for name, value, api_version in kernels.registrations().get(xla_platform, []):
            xc.register_custom_call_target(
                name, value, platform=xla_platform, api_version=api_version
            )


def _jaxlib_plugin_packages(platform: str) -> list[str]:
    if platform == "cuda":
        return ["jax_cuda13_plugin", "jax_cuda12_plugin"]
    return ["jax_rocm7_plugin", "jax_rocm60_plugin"]


def _requested_platforms() -> list[str] | None:
    """``config.platforms`` as a list, or None (every available backend)."""
    return None if config.platforms is None else config.platforms.split(",")


def _start_backends(requested: list[str] | None) -> dict[str, Any]:
    """Start the backends as JAX does. Every discovered plugin is loaded first (a library
    that does not load is a warning, and the plugin is left out). Then, without
    ``requested``, every loaded plugin (CUDA only where an NVIDIA device is visible) and the
    CPU start, the highest priority (a GPU) first, which makes it the default; with
    ``requested``, those platforms in that order (``gpu`` meaning CUDA or ROCm), and any
    that cannot start is an error."""
    loaded = {p.platform: p for p in _plugins.discover_plugins() if _load_plugin(p)}
    if requested is None:
        by_priority = sorted(loaded.values(), key=lambda p: -p.priority)
        names = [p.platform for p in by_priority] + ["cpu"]
    else:
        names = [n for r in requested for n in _ALIASES.get(r, (r,)) if r != "gpu" or n in loaded]
        names += ["gpu"] if "gpu" in requested and not any(n in loaded for n in names) else []
    clients: dict[str, Any] = {}
    for name in dict.fromkeys(names):
        try:
            if name == "cpu":
                clients[name] = _make_cpu_client(_cpu_device_count())
            elif name not in loaded:
                known = sorted({"cpu", *loaded})
                raise RuntimeError(
                    f"Backend '{name}' is not in the list of known backends: {known}."
                )
            elif name != "cuda" or requested is not None or _plugins.has_visible_nvidia_gpu():
                clients[name] = _make_plugin_client(name)
        except Exception as err:
            hint = (
                "set MJ_PLATFORMS='' to automatically choose an available backend"
                if requested is not None
                else "you may need to uninstall the failing plugin package, or set "
                "MJ_PLATFORMS=cpu to skip this backend."
            )
            raise RuntimeError(f"Unable to initialize backend '{name}': {err} ({hint})") from err
    return clients


def _backend() -> tuple[Any, Device, Any, Any]:
    """The default backend's client, its first device (where uncommitted arrays live and
    computations without committed inputs run), that device as a DeviceList, and its
    sharding. Every backend starts on the first call."""
    global _client, _device, _device_list, _sharding
    if _client is None:
        with _client_lock:
            if _client is None:
                clients = _start_backends(_requested_platforms())
                count = config.num_cpu_devices
                config.freeze("num_cpu_devices", f"the CPU backend started with {count}")
                default = next(iter(clients))  # "cuda", whose client says "gpu"
                same = (config.platforms, default, str(clients[default].platform))
                config.freeze("platforms", f"the backends started: {list(clients)}", same)
                _clients.update(clients)
                client = next(iter(clients.values()))
                _devices[:] = client.local_devices()
                _global_devices[:] = client.devices()
                _device = _devices[0]
                _device_list = xc.DeviceList((_device,))
                _sharding = _jax.SingleDeviceSharding(_device)
                _client = client
    return _client, _device, _device_list, _sharding


@functools.cache
def profiler_library() -> Any:
    """jaxlib's profiler (sessions, trace annotations, the profiler server), loaded on first
    use: it costs ~50 ms to import, which programs that never profile should not pay."""
    return importlib.import_module("jaxlib._profiler")


def heap_profile(platform: str | None = None) -> bytes:
    """The backend's device memory profile (pprof protocol buffer, not compressed)."""
    data: bytes = _client_for(platform, "device_memory_profile").heap_profile()
    return data


def _client_for(platform: str | None, api: str) -> Any:
    """The started client of ``platform`` (an alias such as ``gpu`` included; None: the
    default), or JAX's error naming what is available."""
    _backend()
    if platform is None:
        return _client
    for name in _ALIASES.get(platform, (platform,)):
        if name in _clients:
            return _clients[name]
    if platform in _ALIASES:
        raise RuntimeError(
            f"{api}: Unknown backend: '{platform}' requested, but no platforms that are "
            f"instances of {platform} are present. Platforms present are: {','.join(_clients)}"
        )
    raise RuntimeError(
        f"{api}: Unknown backend {platform}. Available backends are {list(_clients)}"
    )


def platforms() -> list[str]:
    """The started backends' platform names, the default one first."""
    _backend()
    return list(_clients)


def lowering_platform(device: Device | None = None) -> str:
    """The platform lowering rules are registered under (``"cpu"``, ``"cuda"``, ``"rocm"``)
    for ``device``'s backend (the default one if None)."""
    client = _backend()[0] if device is None else device.client
    for name, started in _clients.items():
        if started is client or started.platform == client.platform:
            return name
    return str(client.platform)


def default_platform() -> str:
    """The default backend's platform as JAX names it (``"gpu"`` for CUDA and ROCm)."""
    return str(_backend()[0].platform)


def device() -> Device:
    """The default device: uncommitted arrays live on it and jit compiles for it."""
    return _backend()[1]


def devices(platform: str | None = None, api: str = "devices") -> list[Device]:
    """Every device of a backend (the default one), across processes."""
    if platform is None:
        _backend()
        return list(_global_devices)
    return list(_client_for(platform, api).devices())


def default_device() -> Device | None:
    """The device ``config.default_device`` names (a device, or a platform's first device),
    or None where that is the default backend's first device, where computations without
    committed inputs run anyway."""
    wanted = config.default_device
    if wanted is None:
        return None
    if isinstance(wanted, str):
        wanted = local_devices(wanted, "default_device")[0]
    elif not isinstance(wanted, Device):
        raise TypeError(
            f"default_device: expected a device or a platform name, got {type(wanted).__name__}"
            f" ({wanted!r})"
        )
    return None if wanted is _backend()[1] else wanted


def local_devices(platform: str | None = None, api: str = "local_devices") -> list[Device]:
    """This process's devices of a backend (the default one)."""
    if platform is None:
        _backend()
        return list(_devices)
    return list(_client_for(platform, api).local_devices())


def is_local(device: Device) -> bool:
    """Whether this process can address ``device`` (hold and read its buffers)."""
    return int(device.process_index) == process_index()


def compile_module(
    module: ir.Module, host_callbacks: Sequence[Any] = (), device: Device | None = None
) -> LoadedExecutable:
    """Compile a StableHLO module (entry function ``main``) for ``device`` (the default
    device if None). ``host_callbacks`` are the Python functions its
    :data:`PYTHON_CALLBACK_TARGET` custom calls name by index."""
    client, _, device_list, _ = _backend()
    options = xc.CompileOptions()
    if device is not None and device is not _device:
        client, device_list = device.client, xc.DeviceList((device,))
        options.device_assignment = xc.DeviceAssignment.create(np.array([[device.id]]))
    return _compile(client, module, device_list, options, host_callbacks)


_compile_overrides: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "mj_compile_overrides", default=None
)

#: Options JAX sets on the executable build options rather than as XLA flag overrides.
_BUILD_OPTIONS = (
    "exec_time_optimization_effort",
    "memory_fitting_effort",
    "optimization_level",
    "memory_fitting_level",
)


@contextlib.contextmanager
def compiler_options(options: Mapping[str, Any] | None) -> Iterator[None]:
    """Compile with XLA options by name (JAX's ``compiler_options=``: debug flags such as
    ``xla_embed_ir_in_executable`` and the effort levels) for the compiles inside the block.
    XLA checks them when it compiles: an unknown name or a value of the wrong type raises
    jaxlib's ``JaxRuntimeError`` (``No such compile option: 'name'``), as in JAX."""
    token = _compile_overrides.set(dict(options) if options else None)
    try:
        yield
    finally:
        _compile_overrides.reset(token)


def _apply_compiler_options(options: Any) -> None:
    """Put the options of the enclosing :func:`compiler_options` block on ``options`` (a
    fresh ``CompileOptions``) as JAX does."""
    overrides = _compile_overrides.get()
    if not overrides:
        return
    rest = dict(overrides)
    build = options.executable_build_options
    for name in _BUILD_OPTIONS:
        if name in rest:
            setattr(build, name, rest.pop(name))
    options.env_option_overrides = list(rest.items())


def hlo_computation(module: ir.Module) -> Any:
    """``module`` (StableHLO) converted to an XLA HLO computation (JAX's
    ``Lowered.compiler_ir("hlo")``; ``.as_hlo_text()`` is its text)."""
    return _jax.mlir.mlir_module_to_xla_computation(
        str(module), use_tuple_args=False, return_tuple=False
    )


def cost_analysis(module: ir.Module, device: Device | None = None) -> dict[str, float]:
    """XLA's cost estimates (flops, bytes accessed, ...) of the unoptimized ``module`` on
    ``device``'s backend (the default device if None), as JAX's ``Lowered.cost_analysis``."""
    client = _backend()[0] if device is None else device.client
    hlo_module = hlo_computation(module).get_hlo_module()
    out: dict[str, float] = _jax.hlo_module_cost_analysis(client, hlo_module)
    return out


def _compile(
    client: Any, module: ir.Module, devices: Any, options: Any, host_callbacks: Sequence[Any]
) -> LoadedExecutable:
    """Compile, or load the executable from the persistent compilation cache (see
    :mod:`mj_xla._compilation_cache`) when one is set and holds it."""
    _apply_compiler_options(options)
    path = None
    if not host_callbacks and config.compilation_cache_dir:
        kinds = ",".join(f"{d.platform}:{d.device_kind}" for d in devices)
        parts = [str(module), options.SerializeAsString(), _JAXLIB_VERSION, kinds]
        path = _compilation_cache.cache_path([p if type(p) is bytes else p.encode() for p in parts])
    if path is not None:
        data = _compilation_cache.read_entry(path)
        if data is not None:
            try:
                exe: LoadedExecutable = client.deserialize_executable(data, devices, options)
                return exe
            except Exception as e:  # a damaged or foreign entry: compile as if it were absent
                warnings.warn(f"compilation cache: cannot load {path}: {e}", stacklevel=3)
    start = time.perf_counter()
    exe = _compile_now(client, module, devices, options, host_callbacks)
    if path is not None:
        _compilation_cache.write_entry(
            path, client.serialize_executable(exe), time.perf_counter() - start
        )
    return exe


def _compile_and_load(client: Any, *args: Any, **kwargs: Any) -> LoadedExecutable:
    exe: LoadedExecutable = client.compile_and_load(*args, **kwargs)
    return exe


def _compile_now(
    client: Any, module: ir.Module, devices: Any, options: Any, host_callbacks: Sequence[Any]
) -> LoadedExecutable:
    """``client.compile_and_load``, never abandoned half-way.

    jaxlib polls for Ctrl-C while XLA compiles and raises ``KeyboardInterrupt`` at once,
    leaving its compile thread running; if the interpreter then exits, that thread outlives
    it and the process segfaults. In the main thread a Ctrl-C during the compile is held
    back until the compile has finished, then raised as usual."""
    kwargs = {"host_callbacks": list(host_callbacks)} if host_callbacks else {}
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or previous is None:
        return _compile_and_load(client, module, devices, options, **kwargs)
    interrupted: list[Any] = []
    signal.signal(signal.SIGINT, lambda *args: interrupted.append(args))
    try:
        exe = _compile_and_load(client, module, devices, options, **kwargs)
    finally:
        signal.signal(signal.SIGINT, previous)
    if interrupted:
        if callable(previous):
            previous(*interrupted[0])  # the user's handler: KeyboardInterrupt by default
        elif previous == signal.SIG_DFL:
            signal.raise_signal(signal.SIGINT)
    return exe


#: The typed-FFI custom-call target (api_version 4) through which XLA:CPU code calls a Python
#: function: ``backend_config = {index = i : ui64}`` picks ``host_callbacks[i]`` of the
#: compile call, which receives NumPy arrays and returns a tuple of arrays (one per result).
#: jaxlib's CPU client registers it; JAX lowers ``debug.print``/``pure_callback`` to it.
PYTHON_CALLBACK_TARGET = "xla_ffi_python_cpu_callback"


def python_callback_target(platform: str) -> str:
    """:data:`PYTHON_CALLBACK_TARGET` for a module lowered for ``platform``: on GPUs the
    CUDA/ROCm plugin's ``xla_ffi_python_gpu_callback`` (same protocol; the kernel copies the
    operands to the host and the results back), as JAX names it."""
    return "xla_ffi_python_gpu_callback" if platform in _ALIASES["gpu"] else PYTHON_CALLBACK_TARGET


_REPLICATED = xc.HloSharding.replicate()


class _PutSharding(_jax.SingleDeviceSharding):  # type: ignore[misc]
    """A one-device sharding ``batched_device_put`` accepts without JAX's Python classes."""

    memory_kind = None

    def _to_xla_hlo_sharding(self, num_dimensions: int) -> Any:
        return _REPLICATED  # (immutable: one for every put)

    def __repr__(self) -> str:  # (in jaxlib's messages: a refused transfer names it)
        return f"SingleDeviceSharding(device={self._device!r}, memory_kind=device)"


class _HostAval(NamedTuple):
    """What jaxlib reads from the aval of an array it creates."""

    shape: tuple[int, ...]
    dtype: np.dtype[Any]
    weak_type: bool

    def __repr__(self) -> str:  # JAX's aval text, as jaxlib's messages show it
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({np.dtype(self.dtype).name}[{','.join(map(str, self.shape))}]{weak})"


_put_shardings: dict[Any, _PutSharding] = {}


def _takes_keyword(fn: Any, name: str) -> bool:
    """Whether a jaxlib (nanobind) function's signature, as its docstring spells it, has the
    parameter ``name``: how the door tells jaxlib versions apart without version tables."""
    return f"{name}:" in (getattr(fn, "__doc__", None) or "")


#: jaxlib 0.10's ``array_result_handler`` takes ``_skip_checks`` (skip validating the aval
#: against the sharding on every call); from 0.11 it has no such keyword and checks nothing.
RESULT_HANDLER_SKIPS_CHECKS = _takes_keyword(_jax.array_result_handler, "_skip_checks")


def _array_result_handler(aval: Any, sharding: Any, committed: bool = True) -> Any:
    if RESULT_HANDLER_SKIPS_CHECKS:
        return _jax.array_result_handler(aval, sharding, committed, _skip_checks=True)
    return _jax.array_result_handler(aval, sharding, committed)


def put(x: np.ndarray[Any, Any]) -> Buffer:
    """Copy host data to the default device, uncommitted (a copy: later host writes don't
    reach it)."""
    return put_on(x, _backend()[1], committed=False)


def result_handler(aval: Any, device: Device | None = None, committed: bool = False) -> Any:
    """A reusable handler turning an executable's raw output on ``device`` (the default one
    if None) into a device buffer, ``committed`` to it or not; ``aval`` needs ``shape``,
    ``dtype`` and ``weak_type``. Building them once per executable is what makes dispatch
    cheap."""
    sharding = _backend()[3] if device is None else _jax.SingleDeviceSharding(device)
    return _array_result_handler(aval, sharding, committed)


def is_committed(buf: Buffer) -> bool:
    """Whether a buffer is committed to its device (JAX's ``Array.committed``)."""
    return bool(buf._committed)


def copy_to_device(buf: Buffer, aval: Any, dev: Device, committed: bool) -> Buffer:
    """A copy of a single-device buffer on device ``dev`` (device to device, no host trip
    where the two share a client)."""
    if buffer_device(buf).client is not dev.client:
        return put_on(to_numpy(buf), dev, committed)
    out: Buffer = _jax.batched_device_put(
        _HostAval(aval.shape, aval.dtype, aval.weak_type),
        _put_sharding(dev),
        [buf],
        [dev],
        committed,
        True,  # force_copy
        _jax.HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL,
        True,
    )
    return out


def to_numpy(buf: Buffer) -> np.ndarray[Any, Any]:
    """A zero-copy, read-only NumPy view of a device buffer (waits until it is ready)."""
    try:
        host: np.ndarray[Any, Any] = np.asarray(buf)
        if host.dtype != object:
            return host
    except BufferError:  # a GPU buffer: no host memory to view
        pass
    # bfloat16, float8 (no buffer protocol), GPU buffers: jaxlib's own copy to the host
    copied: np.ndarray[Any, Any] = buf._single_device_array_to_np_array_did_copy()[0]
    return copied


JaxRuntimeError = _jax.JaxRuntimeError

# --- transfer guards: jaxlib checks every transfer against the levels set here --------------

_guard_lib = _jax.guard_lib
_GUARD_LEVELS = {
    "allow": _guard_lib.TransferGuardLevel.ALLOW,
    "log": _guard_lib.TransferGuardLevel.LOG,
    "disallow": _guard_lib.TransferGuardLevel.DISALLOW,
    "log_explicit": _guard_lib.TransferGuardLevel.LOG_EXPLICIT,
    "disallow_explicit": _guard_lib.TransferGuardLevel.DISALLOW_EXPLICIT,
}
#: Whether any transfer guard is set to something other than "allow" (callers that exempt
#: mj's own transfers read it first, so an unguarded process pays nothing).
guards_set = False


def set_transfer_guards(levels: Mapping[str, str | None]) -> None:
    """Set jaxlib's guard level per direction (``host_to_device``, ``device_to_device``,
    ``device_to_host``; None: jaxlib's default, allow)."""
    global guards_set
    state = _guard_lib.global_state()
    for direction, level in levels.items():
        setattr(state, direction, None if level is None else _GUARD_LEVELS[level])
    guards_set = any(level not in (None, "allow") for level in levels.values())


@contextlib.contextmanager
def unguarded_puts() -> Iterator[None]:
    """Host-to-device puts that are not transfers in JAX's model: mj's eager arrays (JAX's
    live on the device already) and a program's constants (JAX embeds them)."""
    state = _guard_lib.thread_local_state()
    before = state.host_to_device
    state.host_to_device = _GUARD_LEVELS["allow"]
    try:
        yield
    finally:
        state.host_to_device = before


@contextlib.contextmanager
def explicit_transfers(direction: str) -> Iterator[None]:
    """``device_put`` (``direction="put"``) and ``device_get`` (``"get"``): explicit
    transfers, which only the ``*_explicit`` levels log or refuse."""
    state = _guard_lib.thread_local_state()
    name = f"explicit_device_{direction}"
    before = getattr(state, name)
    setattr(state, name, True)
    try:
        yield
    finally:
        setattr(state, name, before)


# --- several devices: replicated programs and arrays with one buffer per device ---------------


def compile_replicated(
    module: ir.Module, devices: Sequence[Device], host_callbacks: Sequence[Any] = ()
) -> LoadedExecutable:
    """Compile ``module`` as one replica per device of ``devices`` (in order: replica ``i``
    runs on ``devices[i]``, and the collectives' replica groups count replicas)."""
    client = _backend()[0]
    options = xc.CompileOptions()
    options.num_replicas = len(devices)
    options.num_partitions = 1
    options.device_assignment = xc.DeviceAssignment.create(np.array([[d.id] for d in devices]))
    device_list = xc.DeviceList(tuple(devices))
    return _compile(client, module, device_list, options, host_callbacks)


def _put_sharding(dev: Device) -> _PutSharding:
    sharding = _put_shardings.get(dev)
    if sharding is None:
        sharding = _put_shardings.setdefault(dev, _PutSharding(dev))
    return sharding


def put_on(x: np.ndarray[Any, Any], dev: Device, committed: bool = True) -> Buffer:
    """:func:`put`, onto device ``dev``, committed to it unless told otherwise."""
    out: Buffer = _jax.batched_device_put(
        _HostAval(x.shape, x.dtype, False),
        _put_sharding(dev),
        [x],
        [dev],
        committed,
        True,  # force_copy
        _jax.HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL,
        True,  # enable_x64: the data's dtype is already mj's (no canonicalization)
    )
    return out


def host_putter(
    shape: tuple[int, ...], dtype: np.dtype[Any], dev: Any = None
) -> Callable[[Any], Buffer]:
    """:func:`put` (:func:`put_on` ``dev``, uncommitted) for host data of one ``shape``, taken
    as ``dtype`` (float64 data becomes float32 when that is the dtype asked for): what every
    such put shares is built once, for jit's dispatch of NumPy arguments. The caller knows the
    data has that shape.

    The buffers it makes are arguments of one execution and nothing else, so their sharding
    is jaxlib's own C++ ``GSPMDSharding`` (replicated on ``dev``): ``batched_device_put``
    reads a :class:`_PutSharding` (a Python subclass) through five Python attribute lookups
    and a Python call, ~0.6 us of each ~3 us put; the C++ class costs none of that."""
    dev = _backend()[1] if dev is None else dev
    aval = _HostAval(tuple(shape), np.dtype(dtype), False)
    sharding, devices = _replicated_sharding([dev]), [dev]
    semantics = _jax.HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL
    device_put, asarray = _jax.batched_device_put, np.asarray

    def put_host(x: Any) -> Buffer:
        data = asarray(x, dtype)
        out: Buffer = device_put(aval, sharding, [data], devices, False, True, semantics, True)
        return out

    return put_host


def _replicated_sharding(devices: Sequence[Device]) -> Any:
    # The sharding only tells execute_sharded which device each buffer is on: a replicated
    # program takes one whole buffer per replica.
    return _jax.GSPMDSharding(xc.DeviceList(tuple(devices)), xc.HloSharding.replicate())


def assemble(bufs: Sequence[Buffer], aval: Any, devices: Sequence[Device]) -> Buffer:
    """One multi-device buffer from per-device buffers (``bufs[i]`` on ``devices[i]``): the
    argument a replicated executable takes. ``aval`` is the stacked value's type."""
    out: Buffer = _jax.ArrayImpl(
        aval, _replicated_sharding(devices), list(bufs), committed=True, _skip_checks=True
    )
    return out


def replicated_result_handler(aval: Any, devices: Sequence[Device]) -> Any:
    """A handler turning a replicated executable's per-device outputs into one multi-device
    buffer (see :func:`assemble`)."""
    return _array_result_handler(aval, _replicated_sharding(devices))


def buffer_device(buf: Buffer) -> Device:
    """The device holding a single-device buffer."""
    dev: Device = buf._sharding._device
    return dev


def shards(buf: Buffer) -> list[Buffer]:
    """The per-device buffers of a multi-device buffer, in device order."""
    return list(buf._arrays)


# --- SPMD: one program partitioned by XLA over the devices of a mesh --------------------------

HloSharding = Any  # xla_client.HloSharding: how an array is laid out over logical devices


def hlo_sharding_tiled(
    tile_dims: Sequence[int], mesh_shape: Sequence[int], perm: Sequence[int], replicate: bool
) -> HloSharding:
    """A tiled sharding in XLA's iota form: the logical devices ``arange(prod(mesh_shape))``
    reshaped to ``mesh_shape``, transposed by ``perm`` and reshaped to ``tile_dims`` (whose
    last entry groups replicas when ``replicate``)."""
    groups = [xc.OpSharding.Type.REPLICATED] if replicate else []
    return xc.HloSharding.iota_tile(list(tile_dims), list(mesh_shape), list(perm), groups)


def hlo_sharding_replicated() -> HloSharding:
    return xc.HloSharding.replicate()


def hlo_sharding_manual() -> HloSharding:
    """The sharding of values inside a ``shard_map`` body: each device holds its own."""
    return xc.HloSharding.manual()


def hlo_sharding_from_proto(proto: Any) -> HloSharding:
    return xc.HloSharding.from_proto(proto)


def _gspmd(devices: Sequence[Device], sharding: HloSharding) -> Any:
    return _jax.GSPMDSharding(xc.DeviceList(tuple(devices)), sharding)


def sharded_array(
    bufs: Sequence[Buffer], aval: Any, devices: Sequence[Device], sharding: HloSharding
) -> Buffer:
    """One global array from its per-device shards (``bufs[i]`` on ``devices[i]``, the
    logical device ``i`` of ``sharding``): what an SPMD executable takes."""
    out: Buffer = _jax.ArrayImpl(
        aval, _gspmd(devices, sharding), list(bufs), True, _skip_checks=True
    )
    return out


def sharded_result_handler(aval: Any, devices: Sequence[Device], sharding: HloSharding) -> Any:
    """A handler turning an SPMD executable's per-device outputs into one global array."""
    return _array_result_handler(aval, _gspmd(devices, sharding))


def compile_spmd(
    module: ir.Module,
    devices: Sequence[Device],
    host_callbacks: Sequence[Any] = (),
    free_outputs: Sequence[bool] = (),
    free_params: Sequence[bool] = (),
    shardy: bool = False,
) -> LoadedExecutable:
    """Compile ``module`` (global shapes, sharding annotations) as one program that XLA's SPMD
    partitioner splits over ``devices`` (partition ``i`` runs on ``devices[i]``): Shardy for
    ``sdy.sharding`` annotations (``shardy``), else GSPMD for ``mhlo.sharding``. XLA chooses
    the layout of the outputs flagged in ``free_outputs`` and of the parameters flagged in
    ``free_params`` (read them back with :func:`output_shardings` and
    :func:`parameter_shardings`)."""
    client = _backend()[0]
    options = xc.CompileOptions()
    options.num_replicas = 1
    options.num_partitions = len(devices)
    options.device_assignment = xc.DeviceAssignment.create(np.array([[d.id for d in devices]]))
    build = options.executable_build_options
    build.use_spmd_partitioning = True
    build.use_shardy_partitioner = shardy
    if any(free_outputs):
        build.allow_spmd_sharding_propagation_to_output = list(free_outputs)
    if any(free_params):
        build.allow_spmd_sharding_propagation_to_parameters = list(free_params)
    device_list = xc.DeviceList(tuple(devices))
    if host_callbacks:
        return _compile_and_load(
            client, module, device_list, options, host_callbacks=list(host_callbacks)
        )
    return _compile_and_load(client, module, device_list, options)


def output_shardings(exe: LoadedExecutable) -> list[HloSharding]:
    """The layout of each output of an SPMD executable, as compiled."""
    protos = exe.get_output_shardings()
    if protos is None:  # one partition: XLA records none, every output is whole
        return [xc.HloSharding.replicate()] * len(exe.get_output_layouts())
    return [xc.HloSharding.from_proto(p) for p in protos]


def parameter_shardings(exe: LoadedExecutable) -> list[HloSharding]:
    """The layout of each parameter of an SPMD executable, as compiled."""
    protos = exe.get_parameter_shardings()
    if protos is None:  # one partition: XLA records none, every parameter is whole
        return [xc.HloSharding.replicate()] * len(exe.get_parameter_layouts())
    return [xc.HloSharding.from_proto(p) for p in protos]


# --- LAPACK kernels (jaxlib's typed-FFI custom-call targets) ----------------------------------

_lapack_lock = threading.Lock()
_lapack_registered = False
_LAPACK_PREFIX = {
    np.dtype(np.float32): "s",
    np.dtype(np.float64): "d",
    np.dtype(np.complex64): "c",
    np.dtype(np.complex128): "z",
}


def cusolver_version() -> int:
    """The version of the CUDA plugin's cuSOLVER (``11701`` for 11.7.1), 0 where no CUDA
    plugin is installed: JAX's ``cuda_versions.cusolver_get_version()``, which decides
    whether ``eig`` can use cuSOLVER's ``geev``."""
    from jaxlib import plugin_support

    versions = plugin_support.import_from_plugin("cuda", "_versions")
    return 0 if versions is None else int(versions.cusolver_get_version())


def initialize_hybrid_kernels() -> None:
    """Let the CUDA plugin's hybrid (GPU and host LAPACK) kernels find LAPACK, as JAX does
    before lowering to one (``gpu_solver.initialize_hybrid_kernels``)."""
    from jaxlib import gpu_solver

    gpu_solver.initialize_hybrid_kernels()  # type: ignore[no-untyped-call]


def lapack_target(fn_base: str, dtype: np.dtype[Any]) -> str:
    """The custom-call target name of LAPACK routine ``fn_base`` (``"potrf_ffi"``) for
    ``dtype``, e.g. ``lapack_dpotrf_ffi``. The first call registers all of jaxlib's LAPACK FFI
    handlers with XLA's CPU backend (api_version 1, the typed FFI), as JAX does on import."""
    global _lapack_registered
    if not _lapack_registered:
        with _lapack_lock:
            if not _lapack_registered:
                from jaxlib.cpu import _lapack  # type: ignore[attr-defined]

                _lapack.initialize()
                for name, capsule in _lapack.registrations().items():
                    xc.register_custom_call_target(
                        name, capsule, platform="cpu", api_version=int(name.endswith("_ffi"))
                    )
                _lapack_registered = True
    return f"lapack_{_LAPACK_PREFIX[np.dtype(dtype)]}{fn_base}"
