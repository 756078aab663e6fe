"""Eager operations on arrays committed to one device against JAX's, both with 4 CPU devices:
the result is committed to the operand's device (``.devices()``, ``.committed``), with JAX's
values, dtype and weak type, whatever the other operands are (uncommitted arrays, host data,
Python scalars); two operands committed to different devices are JAX's ``ValueError``.

Run in a process of its own (``test_oracle_committed_eager.py`` starts it): both backends'
device counts are fixed when they start.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

jax.config.update("jax_num_cpu_devices", 4)
jax.config.update("jax_enable_x64", True)

import mj  # noqa: E402  (after JAX's device count is set)
import mj.numpy as mnp  # noqa: E402

assert mj.device_count() == 4, "run with MJ_NUM_CPU_DEVICES=4 (see test_oracle_committed_eager.py)"
assert jax.device_count() == 4

pytestmark = pytest.mark.oracle

A = np.array([[0.5, -1.0, 2.0], [3.0, 0.0, -2.5]])

CASES = {
    "add_scalar": lambda np_, lib, x: x + 1,
    "sin": lambda np_, lib, x: np_.sin(x),
    "sum": lambda np_, lib, x: x.sum(),
    "sum_axis": lambda np_, lib, x: np_.sum(x, axis=0),
    "getitem": lambda np_, lib, x: x[1, 1:],
    "reshape": lambda np_, lib, x: x.reshape(3, 2),
    "with_host": lambda np_, lib, x: x * np.ones(3),
    "with_uncommitted": lambda np_, lib, x: x - lib.jit(lambda: np_.ones((2, 3)))(),
    "where": lambda np_, lib, x: np_.where(x > 0, x, 0.0),
    "sort": lambda np_, lib, x: np_.sort(x, axis=1),
    "cumsum": lambda np_, lib, x: np_.cumsum(x, axis=1),
    "astype": lambda np_, lib, x: x.astype(np_.int32),
    "matmul": lambda np_, lib, x: x @ x.T,
    "concatenate": lambda np_, lib, x: np_.concatenate([x, x]),
    "zeros_like": lambda np_, lib, x: np_.zeros_like(x),
    "grad": lambda np_, lib, x: lib.grad(lambda v: (v * v).sum())(x),
    "vmap": lambda np_, lib, x: lib.vmap(np_.tanh)(x),
    "jit": lambda np_, lib, x: lib.jit(lambda v: v * 2)(x),
}


def _committed(lib, np_, device_index, value=A):
    return lib.device_put(np_.asarray(value), lib.devices()[device_index])


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("device_index", [0, 2])
def test_eager_results_are_committed_to_the_operand_device(x64, name, device_index):
    f = CASES[name]
    want = f(jnp, jax, _committed(jax, jnp, device_index))
    got = f(mnp, mj, _committed(mj, mnp, device_index))
    assert want.committed
    assert got.committed
    assert {d.id for d in got.devices()} == {d.id for d in want.devices()} == {device_index}
    assert got.dtype == want.dtype
    assert got.weak_type == want.weak_type
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6, atol=1e-7)


def test_weak_committed_scalar_stays_weak_and_committed(x64):
    want = jax.device_put(2.0, jax.devices()[1]) * 3
    got = mj.device_put(2.0, mj.devices()[1]) * 3
    assert (got.dtype, got.weak_type, got.committed) == (want.dtype, want.weak_type, True)
    assert {d.id for d in got.devices()} == {d.id for d in want.devices()} == {1}
    assert float(got) == float(want)


MIXED = {
    "add": lambda np_, x, y: x + y,
    "concatenate": lambda np_, x, y: np_.concatenate([x, y]),
    "dot": lambda np_, x, y: np_.dot(x, y.T),
}


@pytest.mark.parametrize("name", MIXED)
def test_operands_committed_to_different_devices_raise_like_jax(x64, name):
    f = MIXED[name]
    with pytest.raises(ValueError, match="incompatible devices") as jax_err:
        f(jnp, _committed(jax, jnp, 1), _committed(jax, jnp, 2))
    with pytest.raises(ValueError, match="incompatible devices") as mj_err:
        f(mnp, _committed(mj, mnp, 1), _committed(mj, mnp, 2))
    for err in (jax_err, mj_err):
        assert "device ids [1]" in str(err.value)
        assert "device ids [2]" in str(err.value)
