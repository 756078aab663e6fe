"""devices, block_until_ready and disable_jit."""

import numpy as np
import pytest

from mj_core import config
from mj_xla import Array, block_until_ready, devices, disable_jit, jit


def test_devices_lists_the_cpu_device():
    (dev,) = devices("cpu")
    assert "cpu" in repr(dev).lower()


def test_block_until_ready_returns_the_same_tree():
    tree = {"a": jit(lambda x: x + 1.0)(np.float32(1.0)), "b": (np.ones(2), 3.0)}
    out = block_until_ready(tree)
    assert out["a"] is tree["a"] or float(out["a"]) == 2.0
    assert isinstance(out["a"], Array)
    assert out["b"][0] is tree["b"][0]
    assert out["b"][1] == 3.0


def test_disable_jit_runs_the_python_function_eagerly():
    seen = []

    @jit
    def f(x):
        seen.append(type(x))
        return x * 2

    f(1.0)
    assert seen[-1] is not float  # traced
    with disable_jit():
        assert config.disable_jit
        out = f(3.0)
    assert out == 6.0
    assert seen[-1] is float  # ran on the Python value itself
    assert not config.disable_jit
    assert isinstance(f(4.0), Array)  # jit is back on, from the cache


def test_disable_jit_is_restored_after_an_exception():
    with pytest.raises(ZeroDivisionError), disable_jit():
        raise ZeroDivisionError
    assert not config.disable_jit


def test_isinstance_array_covers_every_mj_array_like_jax_array():
    import mj_core.numpy as mnp
    from mj_autodiff import grad
    from mj_core import Array as MjArray
    from mj_xla import jit

    # mj_core.Array (mj.Array) is the type of every mj array, as jax.Array is JAX's; mj-xla's
    # Array is the device array class, registered with it (JAX's ArrayImpl).
    out = jit(lambda x: x + 1.0)(1.0)
    assert isinstance(out, MjArray)
    assert isinstance(out, Array)
    assert isinstance(mnp.sin(mnp.ones(3)), MjArray)  # eager results
    assert not isinstance(mnp.sin(mnp.ones(3)), Array)  # (not device arrays)
    seen = []
    grad(lambda x: seen.append(isinstance(x, MjArray)) or x * 2.0)(1.0)  # tracers
    assert seen == [True]
    assert not isinstance(np.ones(3), MjArray)  # NumPy's own arrays are not mj arrays
    assert not isinstance(1.0, MjArray)
    assert not isinstance(np.float32(1.0), MjArray)
