"""``lax.associative_scan`` and ``lax.cumlogsumexp`` against JAX: every length from 1 to 9,
both directions, other axes, pytrees, booleans, non-commutative ``fn``, grad and jit."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

rng = np.random.RandomState(0)


@pytest.mark.parametrize("n", range(1, 10))
@pytest.mark.parametrize("reverse", [False, True])
def test_cumulative_sums_and_products_as_jax(n, reverse, x64):
    x = rng.randn(n, 3).astype(np.float32)
    for fn_jax, fn_mj in ((jnp.add, mnp.add), (jnp.multiply, mnp.multiply)):
        want = jax.lax.associative_scan(fn_jax, x, reverse=reverse)
        got = mj.lax.associative_scan(fn_mj, x, reverse=reverse)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)


def test_pytrees_axes_booleans_and_order():
    x = rng.randn(2, 7).astype(np.float32)
    tree = {"s": x, "m": x * 2}

    def pair(lib):
        return lambda a, b: {"s": a["s"] + b["s"], "m": lib.maximum(a["m"], b["m"])}

    want = jax.lax.associative_scan(pair(jnp), tree, axis=1)
    got = mj.lax.associative_scan(pair(mnp), tree, axis=1)
    for k in tree:
        np.testing.assert_allclose(np.asarray(got[k]), np.asarray(want[k]), rtol=1e-6)
    flags = np.array([False, True, False, False, True, False])
    np.testing.assert_array_equal(
        mj.lax.associative_scan(mnp.logical_or, flags),
        jax.lax.associative_scan(jnp.logical_or, flags),
    )

    # 2x2 matrix products: associative, not commutative (the order must be the sequence's)
    mats = rng.randn(5, 2, 2).astype(np.float32)
    want = jax.lax.associative_scan(jnp.matmul, mats)
    got = mj.lax.associative_scan(mnp.matmul, mats)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-5)


def test_cumlogsumexp_grad_and_jit_as_jax(x64):
    x = np.array([[0.5, -1.0, 80.0, 3.0, -np.inf]], np.float32).T
    for reverse in (False, True):
        want = jax.lax.cumlogsumexp(x, axis=0, reverse=reverse)
        got = mj.lax.cumlogsumexp(x, axis=0, reverse=reverse)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
    y = rng.randn(6).astype(np.float32)
    want = jax.grad(lambda v: jax.lax.associative_scan(jnp.add, v * v).sum())(y)
    got = mj.grad(lambda v: mj.lax.associative_scan(mnp.add, v * v).sum())(y)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5)
    compiled = mj.jit(lambda v: mj.lax.associative_scan(mnp.add, v))(y)
    np.testing.assert_allclose(np.asarray(compiled), np.cumsum(y), rtol=1e-5, atol=1e-6)


def test_mismatched_lengths_are_an_error():
    with pytest.raises(ValueError, match="same first dimension"):
        mj.lax.associative_scan(lambda a, b: a, (np.ones(3), np.ones(4)))
