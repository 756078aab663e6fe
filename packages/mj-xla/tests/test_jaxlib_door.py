"""The door to jaxlib (``mj_xla._jaxlib``) on whichever jaxlib is installed: the version is in
the supported range, every jaxlib name the door uses exists, its feature probes agree with
what this jaxlib actually accepts, and the calls behind them work (run this file under each
jaxlib of the range: 0.10.2, 0.11.x, 0.12.x)."""

import jaxlib
import jaxlib.xla_client as xc
import ml_dtypes
import numpy as np
import pytest
from jaxlib import _jax

from mj_core import ShapedArray
from mj_xla import _jaxlib


def _version(text):
    return tuple(int(p) for p in text.split(".")[:3])


def test_installed_jaxlib_is_in_the_supported_range():
    assert (0, 10, 2) <= _version(jaxlib.__version__) < (0, 13)


@pytest.mark.parametrize(
    ("module", "name"),
    [
        (xc, "load_pjrt_plugin_dynamically"),
        (xc, "make_c_api_client"),
        (xc, "generate_pjrt_gpu_plugin_options"),
        (xc, "register_custom_call_target"),
        (xc, "register_custom_call_handler"),
        (xc, "register_custom_type_handler"),
        (xc, "register_custom_type"),
        (xc, "make_cpu_client"),
        (xc, "DeviceList"),
        (xc, "DeviceAssignment"),
        (xc, "HloSharding"),
        (xc, "CompileOptions"),
        (_jax, "batched_device_put"),
        (_jax, "array_result_handler"),
        (_jax, "ArrayImpl"),
        (_jax, "SingleDeviceSharding"),
        (_jax, "GSPMDSharding"),
        (_jax, "HostBufferSemantics"),
        (_jax, "JaxRuntimeError"),
    ],
    ids=lambda x: getattr(x, "__name__", x),
)
def test_every_name_the_door_uses_exists(module, name):
    assert callable(getattr(module, name))


def test_result_handler_probe_matches_what_jaxlib_accepts():
    """The probe reads the signature from the docstring; calling with the keyword decides."""
    device = _jaxlib.device()
    sharding = _jax.SingleDeviceSharding(device)
    aval = ShapedArray((2,), np.dtype(np.float32))
    try:
        _jax.array_result_handler(aval, sharding, True, _skip_checks=True)
        accepts = True
    except TypeError:
        accepts = False
    assert accepts == _jaxlib.RESULT_HANDLER_SKIPS_CHECKS


def test_the_door_round_trips_through_an_executable():
    """put, compile, execute with the probed result handler, read back: the whole path."""
    with _jaxlib.mlir_context(), _jaxlib.ir.Location.unknown():
        module = _jaxlib.ir.Module.create()
        t = _jaxlib.ir_tensor_type((3,), np.dtype(np.float32))
        with _jaxlib.ir.InsertionPoint(module.body):
            fn = _jaxlib.func.FuncOp("main", _jaxlib.ir.FunctionType.get([t], [t]))
            with _jaxlib.ir.InsertionPoint(fn.add_entry_block()):
                (x,) = fn.arguments
                _jaxlib.func.ReturnOp([_jaxlib.hlo.add(x, x)])
    exe = _jaxlib.compile_module(module)
    aval = ShapedArray((3,), np.dtype(np.float32))
    handler = _jaxlib.result_handler(aval)
    buf = _jaxlib.put(np.array([1.0, 2.0, 3.0], np.float32))
    assert not _jaxlib.is_committed(buf)
    (out,) = exe.execute_sharded([buf]).consume_with_handlers([handler])
    np.testing.assert_array_equal(_jaxlib.to_numpy(out), [2.0, 4.0, 6.0])
    assert _jaxlib.buffer_device(out) == _jaxlib.device()


def test_committed_puts_and_device_copies():
    host = np.arange(4, dtype=np.int32)
    buf = _jaxlib.put_on(host, _jaxlib.device())
    assert _jaxlib.is_committed(buf)
    aval = ShapedArray((4,), np.dtype(np.int32))
    copy = _jaxlib.copy_to_device(buf, aval, _jaxlib.device(), committed=False)
    assert not _jaxlib.is_committed(copy)
    np.testing.assert_array_equal(_jaxlib.to_numpy(copy), host)


def test_host_copies_of_types_without_a_buffer_protocol():
    host = np.array([1.5, -2.25], ml_dtypes.bfloat16)
    back = _jaxlib.to_numpy(_jaxlib.put(host))
    assert back.dtype == host.dtype
    np.testing.assert_array_equal(back.astype(np.float32), [1.5, -2.25])


def test_backends_and_platform_names():
    assert _jaxlib.platforms()[-1] == "cpu"  # the CPU is always there, last
    assert _jaxlib.lowering_platform() == _jaxlib.platforms()[0]
    assert _jaxlib.devices("cpu") == _jaxlib.local_devices("cpu")
