"""``lax.optimization_barrier`` against JAX's: the identity on a pytree (values, dtypes and
weak types kept), a barrier under ``jit`` (``stablehlo.optimization_barrier`` in the module),
linear under ``jvp``/``grad`` (tangents and cotangents behind barriers of their own, as JAX's
jaxpr shows) and per-example under ``vmap``."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

pytestmark = pytest.mark.oracle


def _same(got, want):
    got_leaves, want_leaves = mj.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves, strict=True):
        assert g.dtype == w.dtype
        assert g.weak_type == w.weak_type
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)


TREES = [
    lambda: (2, 3.0),
    lambda: {"a": np.arange(3.0), "b": [np.int8(4)]},
    lambda: np.ones((2, 2), np.float16),
    lambda: 1.5,
]


@pytest.mark.parametrize("make", TREES, ids=range(len(TREES)))
def test_identity_on_pytrees(x64, make):
    _same(mj.lax.optimization_barrier(make()), jax.lax.optimization_barrier(make()))
    _same(
        mj.jit(mj.lax.optimization_barrier)(make()), jax.jit(jax.lax.optimization_barrier)(make())
    )


def _f(lib, lnp):
    return lambda x: lib.lax.optimization_barrier(lnp.sin(x) * x) * 2 + x


def test_derivatives_batching_and_lowering(x64):
    x = np.linspace(-1.0, 1.0, 5)
    f, g = _f(mj, mnp), _f(jax, jnp)
    _same(mj.vmap(mj.grad(f))(x), jax.vmap(jax.grad(g))(x))
    _same(mj.jit(mj.vmap(mj.grad(f)))(x), jax.jit(jax.vmap(jax.grad(g)))(x))
    _same(mj.jvp(f, (1.0,), (0.5,)), jax.jvp(g, (1.0,), (0.5,)))
    _same(mj.grad(mj.grad(f))(0.3), jax.grad(jax.grad(g))(0.3))
    jaxpr = str(mj.make_jaxpr(mj.grad(f))(1.0))
    assert jaxpr.count("optimization_barrier") == str(jax.make_jaxpr(jax.grad(g))(1.0)).count(
        "optimization_barrier"
    )
    assert "stablehlo.optimization_barrier" in mj.jit(f).lower(1.0).as_text()
