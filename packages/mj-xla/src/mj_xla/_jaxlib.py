"""The one door to jaxlib: MLIR context and dialects, the PJRT CPU client, transfers, execution.

Everything else in mj-xla reaches jaxlib through the names defined here, so a jaxlib upgrade
touches one module. Facts this module relies on (see ``shared/STABLEHLO.md``):

* jaxlib tries ``import jax._src.sharding_impls`` each time it creates an array; without jax
  installed that failed import costs ~30 us per array. When jax is not installed we park a
  ``None`` in ``sys.modules`` so the import fails at once. When jax *is* installed (the oracle
  test environment) we leave ``sys.modules`` alone so that ``import jax`` keeps working.
* DLPack import is zero-copy (the device buffer aliases host memory) exactly when the data is
  64-byte aligned, so :func:`put` hands jaxlib a private aligned copy: arrays stay immutable.
* ``execute`` checks only byte sizes, never dtypes: callers validate avals themselves.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import sys
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

import ml_dtypes
import numpy as np

from mj_core import config

if importlib.util.find_spec("jax") is None:
    sys.modules.setdefault("jax._src.sharding_impls", None)  # type: ignore[arg-type]
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")

import jaxlib.xla_client as xc
from jaxlib import _jax  # type: ignore[attr-defined]
from jaxlib.mlir import ir
from jaxlib.mlir._mlir_libs import _jax_mlir_ext
from jaxlib.mlir.dialects import chlo
from jaxlib.mlir.dialects import func as _func
from jaxlib.mlir.dialects import stablehlo as hlo

__all__ = [
    "PYTHON_CALLBACK_TARGET",
    "Buffer",
    "LoadedExecutable",
    "Value",
    "assemble",
    "chlo",
    "compile_module",
    "compile_replicated",
    "device",
    "devices",
    "func",
    "hlo",
    "ir",
    "ir_element_type",
    "ir_tensor_type",
    "lapack_target",
    "mlir_context",
    "put",
    "put_on",
    "replicated_result_handler",
    "result_handler",
    "shards",
    "to_numpy",
]

# The func dialect's stubs lag behind its runtime API (add_entry_block, CallOp(func_op, args)).
func: Any = _func
Buffer = Any  # jaxlib's ArrayImpl: a device buffer
LoadedExecutable = Any
if TYPE_CHECKING:
    Value: TypeAlias = ir.Value[Any]  # an SSA value of the module being built
else:
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
        _local.ctx = ctx
    return ctx


#: bfloat16 and the float8 types (``ml_dtypes``), by their MLIR names: DLPack cannot carry
#: them, so :func:`put_on` moves their bits as unsigned integers and bitcasts on the device.
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


def ir_element_type(dtype: np.dtype[Any]) -> ir.Type:
    """The MLIR element type of a NumPy dtype (needs an active context)."""
    try:
        elt: ir.Type = _ELEMENT_TYPES[dtype]()
    except KeyError:
        if dtype in _CUSTOM_FLOATS:
            return ir.Type.parse(_CUSTOM_FLOATS[dtype])
        raise TypeError(f"jit: dtype {dtype} is not supported by the XLA backend") from None
    return elt


def ir_tensor_type(shape: Sequence[int], dtype: np.dtype[Any]) -> ir.RankedTensorType:
    """The MLIR ``tensor<shape x element>`` type of a NumPy dtype."""
    return ir.RankedTensorType.get(list(shape), ir_element_type(dtype))


# --- the PJRT CPU client ----------------------------------------------------------------------

_client_lock = threading.Lock()
_client: Any = None
_device: Any = None
_device_list: Any = None
_sharding: Any = None
_devices: list[Any] = []


def _backend() -> tuple[Any, Any, Any, Any]:
    global _client, _device, _device_list, _sharding
    if _client is None:
        with _client_lock:
            if _client is None:
                count = config.num_cpu_devices
                client = xc.make_cpu_client(num_devices=count)
                config.freeze("num_cpu_devices", f"the CPU backend started with {count}")
                _devices[:] = client.local_devices()  # type: ignore[attr-defined]
                _device = _devices[0]
                _device_list = xc.DeviceList((_device,))
                _sharding = _jax.SingleDeviceSharding(_device)
                _client = client
    return _client, _device, _device_list, _sharding


def device() -> Any:
    """The default CPU device: jit compiles for it and arrays live on it."""
    return _backend()[1]


def devices() -> list[Any]:
    """Every CPU device of the backend (``config.num_cpu_devices`` of them)."""
    _backend()
    return list(_devices)


def compile_module(module: ir.Module, host_callbacks: Sequence[Any] = ()) -> LoadedExecutable:
    """Compile a StableHLO module (entry function ``main``) for the CPU device.
    ``host_callbacks`` are the Python functions its :data:`PYTHON_CALLBACK_TARGET` custom
    calls name by index."""
    client, _, devices, _ = _backend()
    if host_callbacks:
        return client.compile_and_load(
            module, devices, xc.CompileOptions(), host_callbacks=list(host_callbacks)
        )
    return client.compile_and_load(module, devices, xc.CompileOptions())


#: The typed-FFI custom-call target (api_version 4) through which XLA:CPU code calls a Python
#: function: ``backend_config = {index = i : ui64}`` picks ``host_callbacks[i]`` of the
#: compile call, which receives NumPy arrays and returns a tuple of arrays (one per result).
#: jaxlib's CPU client registers it; JAX lowers ``debug.print``/``pure_callback`` to it.
PYTHON_CALLBACK_TARGET = "xla_ffi_python_cpu_callback"


def _aligned_copy(x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    nbytes = x.nbytes
    raw = np.empty(nbytes + 64, np.uint8)
    offset = -raw.ctypes.data % 64
    out: np.ndarray[Any, Any] = raw[offset : offset + nbytes].view(x.dtype).reshape(x.shape)
    np.copyto(out, x)
    return out


def put(x: np.ndarray[Any, Any]) -> Buffer:
    """Copy host data to the device (a private aligned copy, so later host writes don't leak)."""
    _, dev, _, _ = _backend()
    if x.dtype.kind == "V":  # bfloat16, float8
        return put_on(x, dev)
    return _jax.dlpack_managed_tensor_to_buffer(_aligned_copy(x).__dlpack__(), dev, None)


def result_handler(aval: Any) -> Any:
    """A reusable handler turning an executable's raw output into a device buffer; ``aval``
    needs ``shape``, ``dtype`` and ``weak_type``. Building them once per executable is what
    makes dispatch cheap."""
    _, _, _, sharding = _backend()
    return _jax.array_result_handler(aval, sharding, True, _skip_checks=True)


def to_numpy(buf: Buffer) -> np.ndarray[Any, Any]:
    """A zero-copy, read-only NumPy view of a device buffer (waits until it is ready)."""
    host: np.ndarray[Any, Any] = np.asarray(buf)
    return host


JaxRuntimeError = _jax.JaxRuntimeError

# --- several devices: replicated programs and arrays with one buffer per device ---------------


def compile_replicated(
    module: ir.Module, devices: Sequence[Any], host_callbacks: Sequence[Any] = ()
) -> LoadedExecutable:
    """Compile ``module`` as one replica per device of ``devices`` (in order: replica ``i``
    runs on ``devices[i]``, and the collectives' replica groups count replicas)."""
    client = _backend()[0]
    options = xc.CompileOptions()
    options.num_replicas = len(devices)
    options.num_partitions = 1
    options.device_assignment = xc.DeviceAssignment.create(np.array([[d.id] for d in devices]))
    device_list = xc.DeviceList(tuple(devices))
    if host_callbacks:
        return client.compile_and_load(
            module, device_list, options, host_callbacks=list(host_callbacks)
        )
    return client.compile_and_load(module, device_list, options)


def put_on(x: np.ndarray[Any, Any], dev: Any) -> Buffer:
    """:func:`put`, onto device ``dev``."""
    if x.dtype in _CUSTOM_FLOATS:
        bits = put_on(x.view(f"u{x.itemsize}"), dev)
        return _bitcaster(x.shape, x.dtype, dev).execute([bits])[0]
    return _jax.dlpack_managed_tensor_to_buffer(_aligned_copy(x).__dlpack__(), dev, None)


@functools.cache
def _bitcaster(shape: tuple[int, ...], dtype: np.dtype[Any], dev: Any) -> LoadedExecutable:
    """A program turning the unsigned-integer bits of a ``dtype`` array into the array."""
    dims = "".join(f"{n}x" for n in shape)
    src, dst = f"tensor<{dims}ui{8 * dtype.itemsize}>", f"tensor<{dims}{_CUSTOM_FLOATS[dtype]}>"
    text = (
        f"func.func @main(%bits: {src}) -> {dst} {{\n"
        f"  %0 = stablehlo.bitcast_convert %bits : ({src}) -> {dst}\n"
        f"  return %0 : {dst}\n}}"
    )
    with mlir_context():
        module = ir.Module.parse(text)
    options = xc.CompileOptions()
    return _backend()[0].compile_and_load(module, xc.DeviceList((dev,)), options)


def _replicated_sharding(devices: Sequence[Any]) -> Any:
    # The sharding only tells execute_sharded which device each buffer is on: a replicated
    # program takes one whole buffer per replica.
    return _jax.GSPMDSharding(xc.DeviceList(tuple(devices)), xc.HloSharding.replicate())


def assemble(bufs: Sequence[Buffer], aval: Any, devices: Sequence[Any]) -> Buffer:
    """One multi-device buffer from per-device buffers (``bufs[i]`` on ``devices[i]``): the
    argument a replicated executable takes. ``aval`` is the stacked value's type."""
    return _jax.ArrayImpl(
        aval, _replicated_sharding(devices), list(bufs), committed=True, _skip_checks=True
    )


def replicated_result_handler(aval: Any, devices: Sequence[Any]) -> Any:
    """A handler turning a replicated executable's per-device outputs into one multi-device
    buffer (see :func:`assemble`)."""
    return _jax.array_result_handler(aval, _replicated_sharding(devices), True, _skip_checks=True)


def shards(buf: Buffer) -> list[Buffer]:
    """The per-device buffers of a multi-device buffer, in device order."""
    return list(buf._arrays)


# --- LAPACK kernels (jaxlib's typed-FFI custom-call targets) ----------------------------------

_lapack_lock = threading.Lock()
_lapack_registered = False
_LAPACK_PREFIX = {np.dtype(np.float32): "s", np.dtype(np.float64): "d"}


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
