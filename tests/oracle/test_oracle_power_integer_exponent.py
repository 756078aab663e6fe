"""``x ** n`` with a traced integer exponent, against JAX: the exponent stays an integer (JAX
binds ``pow`` with it), so the derivative in ``x`` is 0 where ``n == 0`` (it was NaN at
``x == 0``: ``0 * 0 ** -1``, JAX's issue 14397), eagerly, under ``jit`` and ``vmap``."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

pytestmark = pytest.mark.oracle


def _pow(x, n):
    return x**n


@pytest.mark.parametrize("n", [0, 1, 2, 3])
@pytest.mark.parametrize("x", [0.0, 1.5, -2.0])
def test_grad_of_traced_integer_power(x64, x, n):
    got = [mj.grad(_pow)(x, n), mj.grad(mj.jit(_pow))(x, n), mj.jit(mj.grad(_pow))(x, n)]
    want = jax.grad(jax.jit(_pow))(x, n)
    for g in got:
        np.testing.assert_allclose(np.asarray(g), np.asarray(want), rtol=1e-6)
        assert g.dtype == want.dtype


@pytest.mark.parametrize(
    ("x", "n"),
    [
        (np.float32(2.0), np.int32(3)),
        (np.float16(2.0), np.int32(3)),
        (np.array([0.5, 2.0], np.float32), np.array([0, 3], np.uint8)),
        (np.array([1 + 1j], np.complex64), np.int32(2)),
        (np.array([2, 3], np.int32), np.int32(2)),
    ],
    ids=repr,
)
def test_values_dtypes_and_vmap(x64, x, n):
    for got, want in [
        (mnp.power(x, n), jnp.power(x, n)),
        (mj.jit(mnp.power)(x, n), jax.jit(jnp.power)(x, n)),
    ]:
        assert got.dtype == want.dtype
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
    xs, ns = np.array([0.0, 2.0, 3.0], np.float32), np.array([0, 3, 1], np.int32)
    np.testing.assert_allclose(
        mj.vmap(mj.grad(_pow))(xs, ns), jax.vmap(jax.grad(_pow))(xs, ns), rtol=1e-6
    )
