"""User-level pooling with mj.lax.reduce_window (NHWC, 2x2 windows, stride 2): avg/max pool
values against NumPy reshapes, gradients against central differences, and the same answer
eagerly, through make_jaxpr + eval_jaxpr and under jit; mj.lax.reduce."""

import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj import lax

rng = np.random.default_rng(0)
X = rng.normal(size=(2, 6, 8, 3))


def max_pool(x, padding="VALID"):
    return lax.reduce_window(x, -np.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), padding)


def avg_pool(x, padding="VALID"):
    return lax.reduce_window(x, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), padding) / 4.0


def test_pooling_values_match_numpy_reshape():
    blocks = X.reshape(2, 3, 2, 4, 2, 3)
    np.testing.assert_allclose(max_pool(X), blocks.max(axis=(2, 4)))
    np.testing.assert_allclose(avg_pool(X), blocks.mean(axis=(2, 4)))
    odd = X[:, :5, :7]
    assert max_pool(odd, "SAME").shape == (2, 3, 4, 3)
    assert max_pool(odd, "VALID").shape == (2, 2, 3, 3)


@pytest.mark.parametrize("pool", [max_pool, avg_pool])
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_same_answer_everywhere_and_grads(pool, padding):
    x = X[:, :5, :7]

    def loss(x):
        return mnp.sum(mnp.tanh(pool(x, padding)) ** 2)

    eager = pool(x, padding)
    closed = mj.make_jaxpr(lambda x: pool(x, padding))(x)
    np.testing.assert_allclose(mj.eval_jaxpr(closed.jaxpr, [*closed.consts, x])[0], eager)
    np.testing.assert_allclose(np.asarray(mj.jit(lambda x: pool(x, padding))(x)), eager)
    g = mj.grad(loss)(x)
    np.testing.assert_allclose(np.asarray(mj.jit(mj.grad(loss))(x)), g, rtol=1e-12)
    d = rng.normal(size=x.shape)
    eps = 1e-6
    fd = (loss(x + eps * d) - loss(x - eps * d)) / (2 * eps)
    np.testing.assert_allclose(np.sum(g * d), fd, rtol=1e-6)


def test_reduce():
    x = rng.normal(size=(3, 4))
    np.testing.assert_allclose(lax.reduce(x, 0.0, lax.add, (0,)), x.sum(0))
    np.testing.assert_allclose(mj.jit(lambda x: lax.reduce(x, -np.inf, lax.max, (1,)))(x), x.max(1))
