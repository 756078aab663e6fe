"""Placement on several CPU devices (run by ``test_xla_devices.py`` with four devices):
uncommitted and committed arrays, and jit following its committed inputs, as JAX defines
them."""

import re

import numpy as np
import pytest

import mj
from mj_core import config

config.check_jaxprs = True


@pytest.fixture(scope="module")
def devs():
    devices = mj.devices()
    assert len(devices) == 4, "run with MJ_NUM_CPU_DEVICES=4"
    return devices


def test_backend_queries(devs):
    assert mj.default_backend() == "cpu"
    assert mj.devices("cpu") == devs
    assert mj.local_devices() == devs
    assert mj.device_count() == mj.local_device_count("cpu") == 4
    assert [d.id for d in devs] == [0, 1, 2, 3]


def test_device_put_without_device_is_uncommitted_on_the_default_device(devs):
    x = mj.device_put(np.arange(3.0, dtype=np.float32))
    assert x.device is devs[0]
    assert x.devices() == {devs[0]}
    assert not x.committed


def test_device_put_to_a_device_commits(devs):
    host = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    x = mj.device_put(host, devs[2])
    assert x.committed
    assert x.device is devs[2]
    assert x.devices() == {devs[2]}
    np.testing.assert_array_equal(np.asarray(x), host)
    np.testing.assert_array_equal(mj.device_get({"a": x})["a"], host)
    assert isinstance(x, mj.Array)


def test_device_put_moves_an_array_between_devices(devs):
    x = mj.device_put(np.arange(4, dtype=np.int32), devs[1])
    y = mj.device_put(x, devs[3])
    assert y.device is devs[3]
    assert y.committed
    assert x.device is devs[1]  # the source is untouched
    np.testing.assert_array_equal(np.asarray(y), [0, 1, 2, 3])
    z = mj.device_put(mj.device_put(np.ones(2, np.float32)), devs[1])
    assert z.device is devs[1]
    assert z.committed


def test_jit_follows_its_committed_input(devs):
    f = mj.jit(lambda x, y: x * 2.0 + y)
    host = np.arange(3.0, dtype=np.float32)
    x = mj.device_put(host, devs[2])
    out = f(x, mj.device_put(np.ones(3, np.float32)))  # the uncommitted one moves
    assert out.device is devs[2]
    assert out.committed
    np.testing.assert_allclose(np.asarray(out), host * 2 + 1)
    out2 = f(x, host)  # host data goes to the committed device too
    assert out2.device is devs[2]
    # the same signature without committed inputs: the default device, uncommitted
    plain = f(mj.device_put(host), mj.device_put(host))
    assert plain.device is devs[0]
    assert not plain.committed
    np.testing.assert_allclose(np.asarray(plain), host * 3)
    # and the committed result feeds the next computation on its device
    again = f(out, out)
    assert again.device is devs[2]
    np.testing.assert_allclose(np.asarray(again), (host * 2 + 1) * 3)


def test_jit_closed_over_arrays_go_to_the_committed_device(devs):
    table = np.linspace(0.0, 1.0, 64, dtype=np.float32)
    f = mj.jit(lambda x: x + table)
    x = mj.device_put(np.ones(64, np.float32), devs[3])
    out = f(x)
    assert out.device is devs[3]
    np.testing.assert_allclose(np.asarray(out), table + 1)


def test_committed_inputs_on_different_devices_are_an_error(devs):
    def add(x, y):
        return x + y

    x = mj.device_put(np.ones(3, np.float32), devs[1])
    y = mj.device_put(np.ones(3, np.float32), devs[2])
    want = (  # JAX 0.10.2's message for the same call
        "Received incompatible devices for jitted computation. Got argument x of add with "
        "shape float32[3] and with device ids [1] on platform CPU and argument y of add with "
        "shape float32[3] and with device ids [2] on platform CPU"
    )
    with pytest.raises(ValueError, match=re.escape(want)):
        mj.jit(add)(x, y)


def test_committed_device_and_outputs_of_several_results(devs):
    f = mj.jit(lambda x: (x.sum(), {"sq": x * x}))
    x = mj.device_put(np.arange(4.0, dtype=np.float32), devs[1])
    total, rest = f(x)
    assert total.device is devs[1]
    assert rest["sq"].device is devs[1]
    assert total.committed
    assert rest["sq"].committed
    assert float(total) == 6.0
    np.testing.assert_array_equal(np.asarray(rest["sq"]), [0.0, 1.0, 4.0, 9.0])


def test_committed_calls_take_the_cached_entry(devs):
    traces = []

    def f(x, y):
        traces.append(1)
        return x * y

    g = mj.jit(f)
    x = mj.device_put(np.full(3, 2.0, np.float32), devs[3])
    for i in range(3):
        out = g(x, x)
        assert out.device is devs[3]
        np.testing.assert_array_equal(np.asarray(out), 4.0)
        assert len(traces) == 1, i
    other = mj.device_put(np.ones(3, np.float32), devs[1])
    assert g(other, other).device is devs[1]  # another device: another entry
    assert len(traces) == 2
    with pytest.raises(ValueError, match="Received incompatible devices"):
        g(x, other)


def test_jit_device_runs_there_with_host_arguments(devs):
    """``jit(f, device=d)`` (deprecated in JAX, still honoured there) commits its host and
    uncommitted arguments to ``d``: the computation and its result are on ``d``, call after
    call (JAX 0.10.2: ``jax.jit(f, device=jax.devices()[3])(np.ones(2)).devices()`` is
    ``{CpuDevice(id=3)}``)."""
    with pytest.warns(DeprecationWarning, match="deprecated"):
        g = mj.jit(lambda y, s: y + s, device=devs[3])
    for k in range(3):
        host = np.full(2, k, np.int64)  # narrowed to int32 without enable_x64
        out = g(host, 1)
        assert out.device is devs[3], k
        assert out.committed
        assert out.dtype == (np.int64 if config.enable_x64 else np.int32)
        np.testing.assert_array_equal(np.asarray(out), host + 1)
    out = g(mj.device_put(np.ones(2, np.int32)), 2)
    assert out.device is devs[3]
    np.testing.assert_array_equal(np.asarray(out), [3, 3])
