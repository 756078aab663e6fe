"""mj-batch against real JAX: vmap with assorted in_axes/out_axes, gather/scatter/dot under
vmap, jacfwd/jacrev/hessian layouts and values, per-example gradients."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax as jlax

from mj_autodiff import grad
from mj_batch import hessian, jacfwd, jacrev, vmap
from mj_core import lax

jax.config.update("jax_enable_x64", True)

pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(7)


def _close(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape
    assert a.dtype == b.dtype
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize(("in_axes", "out_axes"), [(0, 0), (1, 0), (-1, 1), ((None, 1), -1)])
def test_vmap_of_elementwise_and_reduction(in_axes, out_axes):
    x, y = RNG.normal(size=(3, 4)), RNG.normal(size=(3, 4))
    if isinstance(in_axes, tuple):
        x = RNG.normal(size=(3,))

    def mj_f(a, b):
        return lax.reduce_sum(lax.sin(a) * b, (0,)) + b

    def jax_f(a, b):
        return jnp.sum(jnp.sin(a) * b, axis=0) + b

    spec = in_axes if isinstance(in_axes, tuple) else (in_axes, in_axes)
    _close(
        vmap(mj_f, spec, out_axes)(x, y),
        jax.vmap(jax_f, spec, out_axes)(x, y),
    )


def test_vmap_of_dot_general_and_gather():
    x, y = RNG.normal(size=(5, 3, 4)), RNG.normal(size=(4, 5))
    _close(vmap(lax.dot, (0, 1))(x, y), jax.vmap(jnp.dot, (0, 1))(x, y))
    table = RNG.normal(size=(6, 3))
    idx = RNG.integers(0, 6, size=(5, 2))

    def mj_take(t, i):
        dn = lax.GatherDimensionNumbers((1,), (0,), (0,))
        return lax.gather(t, i[:, None], dn, (1, 3))

    def jax_take(t, i):
        dn = jlax.GatherDimensionNumbers((1,), (0,), (0,))
        return jlax.gather(t, i[:, None], dn, (1, 3))

    _close(vmap(mj_take, (None, 0))(table, idx), jax.vmap(jax_take, (None, 0))(table, idx))
    tables = RNG.normal(size=(5, 6, 3))
    _close(vmap(mj_take)(tables, idx), jax.vmap(jax_take)(tables, idx))


def _mj_fun(w):
    return lax.tanh(lax.dot(w, w.T)) * 2.0


def _jax_fun(w):
    return jnp.tanh(w @ w.T) * 2.0


def test_jacobians_match_jax():
    w = RNG.normal(size=(3, 2))
    _close(jacfwd(_mj_fun)(w), jax.jacfwd(_jax_fun)(w))
    _close(jacrev(_mj_fun)(w), jax.jacrev(_jax_fun)(w))

    def mj_scalar(w):
        return lax.reduce_sum(_mj_fun(w), (0, 1))

    def jax_scalar(w):
        return jnp.sum(_jax_fun(w))

    _close(hessian(mj_scalar)(w), jax.hessian(jax_scalar)(w))


def test_per_example_gradients_match_jax():
    params = {"w": RNG.normal(size=(6, 4)), "b": RNG.normal(size=(4,))}
    xs, ys = RNG.normal(size=(8, 6)), RNG.normal(size=(8, 4))

    def mj_loss(p, x, y):
        err = lax.dot(x, p["w"]) + p["b"] - y
        return lax.reduce_sum(err * err, (0,))

    def jax_loss(p, x, y):
        err = x @ p["w"] + p["b"] - y
        return jnp.sum(err * err)

    mine = vmap(grad(mj_loss), (None, 0, 0))(params, xs, ys)
    ref = jax.vmap(jax.grad(jax_loss), (None, 0, 0))(params, xs, ys)
    for key in ("w", "b"):
        _close(mine[key], ref[key])
