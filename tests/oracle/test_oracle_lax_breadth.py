"""reduce_window/reduce and the igamma/bessel/nextafter primitives against JAX 0.10.2 (x64):
values, dtypes, shapes and gradients, eager and under jit."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax as jlax

import mj
import mj.numpy as mnp
from mj import lax as mlax
from mj_core import lax as ls

jax.config.update("jax_enable_x64", True)

pytestmark = pytest.mark.oracle

rng = np.random.default_rng(0)
X = rng.normal(size=(2, 7, 6, 3))
WINDOWS = [
    ((1, 2, 2, 1), (1, 2, 2, 1), "SAME", None, None),
    ((1, 2, 2, 1), (1, 2, 2, 1), "VALID", None, None),
    ((1, 3, 2, 1), (1, 1, 2, 1), ((0, 0), (1, 2), (0, 1), (0, 0)), (1, 2, 1, 1), (1, 1, 2, 1)),
]
MONOIDS = [("add", 0.0), ("max", -np.inf), ("min", np.inf)]


@pytest.mark.parametrize("window", WINDOWS)
@pytest.mark.parametrize(("op", "init"), MONOIDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_reduce_window_values_and_grads(window, op, init, dtype):
    x = X.astype(dtype)
    outs = {}
    for name, lax_mod, np_mod in (("jax", jlax, jnp), ("mj", mlax, mnp)):

        def f(x, lax_mod=lax_mod):
            return lax_mod.reduce_window(x, init, getattr(lax_mod, op), *window)

        def loss(x, f=f, np_mod=np_mod):
            return np_mod.sum(f(x) ** 2)

        jit = jax.jit if name == "jax" else mj.jit
        grad = jax.grad if name == "jax" else mj.grad
        outs[name] = (f(x), jit(f)(x))
        if op == "add" or window[4] is None:  # JAX has no max/min VJP with window dilation
            outs[name] += (grad(loss)(x), jit(grad(loss))(x))
    for j, m in zip(outs["jax"], outs["mj"], strict=True):
        assert np.asarray(m).dtype == np.asarray(j).dtype
        assert np.shape(m) == np.shape(j)
        np.testing.assert_allclose(
            np.asarray(m),
            np.asarray(j),
            rtol=1e-5 if dtype == np.float32 else 1e-12,
            atol=1e-6 if dtype == np.float32 else 1e-14,
        )


def test_reduce_monoids():
    x = rng.normal(size=(3, 4))
    for op, init, dims in (("add", 0.0, (1,)), ("mul", 1.0, (0,)), ("max", -np.inf, (0, 1))):
        j = jlax.reduce(x, init, getattr(jlax, op), dims)
        m = mlax.reduce(x, init, getattr(mlax, op), dims)
        np.testing.assert_allclose(m, j, rtol=1e-14)
    b = x > 0
    np.testing.assert_array_equal(
        mlax.reduce(b, False, mlax.bitwise_or, (1,)), jlax.reduce(b, False, jlax.bitwise_or, (1,))
    )


A = np.exp(rng.uniform(-3, 4.5, 200))
Z = np.exp(rng.uniform(-5, 4.8, 200))


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_igamma(name):
    jf, mf = getattr(jlax, name), getattr(ls, name)
    j = np.asarray(jf(A, Z))
    np.testing.assert_allclose(mf(A, Z), j, rtol=1e-10, atol=1e-15)
    np.testing.assert_allclose(np.asarray(mj.jit(mf)(A, Z)), j, rtol=1e-10, atol=1e-14)
    gj = jax.vmap(jax.grad(jf, argnums=1))(A[:20], Z[:20])
    gm = mj.vmap(mj.grad(mf, argnums=1))(A[:20], Z[:20])
    np.testing.assert_allclose(gm, gj, rtol=1e-10, atol=1e-300)
    assert (
        mf(np.float32(2.0), np.float32(1.5)).dtype
        == np.asarray(jf(np.float32(2.0), np.float32(1.5))).dtype
    )


@pytest.mark.parametrize("name", ["bessel_i0e", "bessel_i1e"])
def test_bessel(name):
    x = np.concatenate([np.linspace(-40, 40, 401), [0.0, 1e-8, 1e3]])
    jf, mf = getattr(jlax, name), getattr(ls, name)
    np.testing.assert_allclose(mf(x), np.asarray(jf(x)), rtol=5e-15, atol=1e-300)
    np.testing.assert_allclose(np.asarray(mj.jit(mf)(x)), np.asarray(jf(x)), rtol=2e-15)
    gj = jax.vmap(jax.grad(jf))(x)
    np.testing.assert_allclose(mj.vmap(mj.grad(mf))(x), gj, rtol=1e-13, atol=1e-15)


def test_nextafter():
    x = np.array([1.0, 0.0, -2.0, 3.0], np.float32)
    y = np.array([2.0, -1.0, -2.0, 0.0], np.float32)
    j = np.asarray(jlax.nextafter(x, y))
    m = ls.nextafter(x, y)
    assert m.dtype == j.dtype
    np.testing.assert_array_equal(m, j)
    np.testing.assert_array_equal(np.asarray(mj.jit(ls.nextafter)(x, y)), j)
