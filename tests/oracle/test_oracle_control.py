"""mj-control against real JAX: values, dtypes and derivatives of cond/switch/while_loop/
fori_loop/scan, eager and under jit and vmap (x64 mode, so both default to float64)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax as jlax

from mj_autodiff import grad, jvp
from mj_batch import vmap
from mj_control import cond, fori_loop, scan, switch, while_loop
from mj_core import lax
from mj_xla import jit

jax.config.update("jax_enable_x64", True)

pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(11)


def _close(a, b, rtol=1e-12):
    for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b), strict=True):
        x, y = np.asarray(x), np.asarray(y)
        assert x.shape == y.shape
        assert x.dtype == y.dtype
        np.testing.assert_allclose(x, y, rtol=rtol, atol=1e-14)


@pytest.mark.parametrize("x", [1.3, -0.4])
def test_cond_value_and_grad(x):
    def mj_f(x):
        return cond(x > 0, lambda x: lax.sin(x) * x, lambda x: x * x * 3.0, x)

    def jax_f(x):
        return jlax.cond(x > 0, lambda x: jnp.sin(x) * x, lambda x: x * x * 3.0, x)

    _close(mj_f(x), jax_f(x))
    _close(jit(mj_f)(x), jax.jit(jax_f)(x))
    _close(grad(mj_f)(x), jax.grad(jax_f)(x))


def test_switch_clamping_matches():
    mj_branches = [lambda x: x + 1.0, lambda x: lax.exp(x), lambda x: -x]
    jax_branches = [lambda x: x + 1.0, jnp.exp, lambda x: -x]
    for i in (-5, 0, 1, 2, 9):
        _close(switch(i, mj_branches, 0.3), jlax.switch(i, jax_branches, 0.3))
    idx = np.array([-1, 0, 1, 2, 3])
    xs = RNG.normal(size=5)
    _close(
        vmap(lambda i, x: switch(i, mj_branches, x))(idx, xs),
        jax.vmap(lambda i, x: jlax.switch(i, jax_branches, x))(idx, xs),
    )


def test_while_loop_and_batched_predicate():
    def mj_f(limit, x):
        return while_loop(lambda c: c[0] < limit, lambda c: (c[0] + 1, c[1] * 1.5 + 1.0), (0, x))

    def jax_f(limit, x):
        return jlax.while_loop(
            lambda c: c[0] < limit, lambda c: (c[0] + 1, c[1] * 1.5 + 1.0), (0, x)
        )

    limits, xs = np.array([0, 3, 1, 6]), RNG.normal(size=4)
    _close(vmap(mj_f)(limits, xs), jax.vmap(jax_f)(limits, xs))
    ours = jvp(lambda x: mj_f(4, x)[1], (0.5,), (1.0,))
    _close(ours, jax.jvp(lambda x: jax_f(4, x)[1], (0.5,), (1.0,)))


def test_fori_loop_static_bounds_grad():
    def mj_f(x):
        return fori_loop(0, 6, lambda i, c: lax.sin(c) * x + i, x)

    def jax_f(x):
        return jlax.fori_loop(0, 6, lambda i, c: jnp.sin(c) * x + i, x)

    _close(mj_f(0.7), jax_f(0.7))
    _close(grad(mj_f)(0.7), jax.grad(jax_f)(0.7))


@pytest.mark.parametrize("reverse", [False, True])
def test_scan_values_grads_and_vmap(reverse):
    w = RNG.normal(size=(4, 4)) * 0.5
    xs = RNG.normal(size=(9, 4))

    def mj_loss(w, xs):
        def step(h, x):
            h = lax.tanh(lax.dot(w, h) + x)
            return h, lax.reduce_sum(h * h, (0,))

        h, ys = scan(step, np.zeros(4), xs, reverse=reverse)
        return lax.reduce_sum(h, (0,)) + lax.reduce_sum(ys, (0,))

    def jax_loss(w, xs):
        def step(h, x):
            h = jnp.tanh(w @ h + x)
            return h, jnp.sum(h * h)

        h, ys = jlax.scan(step, jnp.zeros(4), xs, reverse=reverse)
        return jnp.sum(h) + jnp.sum(ys)

    _close(mj_loss(w, xs), jax_loss(w, xs))
    _close(jit(mj_loss)(w, xs), jax.jit(jax_loss)(w, xs))
    _close(grad(mj_loss, argnums=(0, 1))(w, xs), jax.grad(jax_loss, argnums=(0, 1))(w, xs))
    _close(jit(grad(mj_loss))(w, xs), jax.jit(jax.grad(jax_loss))(w, xs), rtol=1e-10)
    batch = RNG.normal(size=(3, 9, 4))
    _close(
        vmap(grad(mj_loss), in_axes=(None, 0))(w, batch),
        jax.vmap(jax.grad(jax_loss), in_axes=(None, 0))(w, batch),
        rtol=1e-10,
    )


def test_while_reverse_mode_error_matches_jax():
    def mj_f(x):
        return while_loop(lambda c: c < 10.0, lambda c: c * x, 1.0)

    def jax_f(x):
        return jlax.while_loop(lambda c: c < 10.0, lambda c: c * x, 1.0)

    with pytest.raises(ValueError, match="Reverse-mode differentiation") as theirs:
        jax.grad(jax_f)(2.0)
    with pytest.raises(ValueError, match="Reverse-mode differentiation") as ours:
        grad(mj_f)(2.0)
    assert str(theirs.value).split(".")[0] in str(ours.value)
