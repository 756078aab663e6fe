"""Where ``jit`` computes, against JAX, both with 4 CPU devices: ``jit(f, device=d)`` runs on
``d`` whatever the arguments are (Python scalars and no arguments included), and ``with
default_device(d)`` moves computations without committed arguments to ``d``, while an explicit
``device=`` or a committed argument takes precedence and nested blocks restore the outer one.

Run in a process of its own (``test_oracle_committed_eager.py`` starts it): both backends'
device counts are fixed when they start.
"""

import jax
import numpy as np
import pytest

jax.config.update("jax_num_cpu_devices", 4)

import mj  # noqa: E402  (after JAX's device count is set)

assert mj.device_count() == 4, "run with MJ_NUM_CPU_DEVICES=4 (see test_oracle_committed_eager.py)"
assert jax.device_count() == 4

pytestmark = [
    pytest.mark.oracle,
    pytest.mark.filterwarnings("ignore:backend and device argument:DeprecationWarning"),
]


def ids(arr):
    return sorted(d.id for d in arr.devices())


ARGS = {"py_int": (1,), "py_float": (2.5,), "numpy": (np.arange(3.0),), "none": ()}


def _fun(args):
    return (lambda x: x + 1) if args else (lambda: np.float32(1.0) + 2)


@pytest.mark.parametrize("kind", ARGS)
@pytest.mark.parametrize("index", [0, 3])
def test_jit_device_argument(kind, index):
    args = ARGS[kind]
    got = mj.jit(_fun(args), device=mj.devices()[index])(*args)
    want = jax.jit(_fun(args), device=jax.devices()[index])(*args)
    assert ids(got) == ids(want) == [index]
    assert got.committed == want.committed
    np.testing.assert_allclose(np.asarray(got), np.asarray(want))


@pytest.mark.parametrize("kind", ARGS)
def test_default_device_moves_uncommitted_computations(kind):
    args = ARGS[kind]
    for lib in (mj, jax):
        f = lib.jit(_fun(args))
        assert ids(f(*args)) == [0]
        with lib.default_device(lib.devices()[2]):
            assert ids(f(*args)) == [2]
            with lib.default_device(lib.devices()[1]):
                assert ids(f(*args)) == [1]
            assert ids(f(*args)) == [2]
            explicit = lib.jit(_fun(args), device=lib.devices()[0])
            assert ids(explicit(*args)) == [0]
        assert ids(f(*args)) == [0]


def test_committed_argument_beats_default_device():
    for lib in (mj, jax):
        f = lib.jit(lambda x: x * 2)
        sticky = lib.device_put(np.float32(3.0), lib.devices()[1])
        with lib.default_device(lib.devices()[3]):
            assert ids(f(sticky)) == [1]
            assert ids(f(np.float32(3.0))) == [3]


def test_default_device_by_platform_name():
    for lib in (mj, jax):
        with lib.default_device("cpu"):
            out = lib.jit(lambda x: x + 1)(1)
        assert out.device.platform == "cpu"
        assert out.device == lib.local_devices(backend="cpu")[0]
