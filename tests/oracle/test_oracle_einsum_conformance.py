"""``einsum`` with zero-size batch dimensions and in the interleaved (sublist) form, against
JAX (issue 23)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

pytestmark = pytest.mark.oracle

rng = np.random.default_rng(1)


@pytest.mark.parametrize(
    ("subscripts", "sa", "sb"),
    [
        ("...ij,...jk->...ik", (0, 2, 3), (0, 3, 4)),
        ("...ij,...jk->...ik", (5, 0, 2, 3), (0, 3, 4)),
        ("...ij,...jk->...ik", (1, 2, 3), (0, 3, 4)),
        ("ij,jk->ik", (2, 0), (0, 3)),
    ],
)
def test_zero_size_batch_matches_jax(subscripts, sa, sb):
    a, b = rng.normal(size=sa), rng.normal(size=sb)
    want = jnp.einsum(subscripts, a, b)
    got = mnp.einsum(subscripts, a, b)
    assert got.shape == want.shape
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want)
    jgrad = jax.grad(lambda a, b: jnp.einsum(subscripts, a, b).sum(), argnums=(0, 1))(a, b)
    mgrad = mj.grad(lambda a, b: mnp.einsum(subscripts, a, b).sum(), argnums=(0, 1))(a, b)
    for g, w in zip(mgrad, jgrad, strict=True):
        np.testing.assert_allclose(g, w)


@pytest.mark.parametrize(
    "args",
    [
        lambda a, b, c: (a, [0, 1], b, [1, 2]),
        lambda a, b, c: (a, [0, 1], b, [1, 2], [2, 0]),
        lambda a, b, c: (a, [0, 1], b, [1, 2], c, [2], [0]),
        lambda a, b, c: (a, [Ellipsis, 1], c[:3], [1], [Ellipsis]),
        lambda a, b, c: (a, [51, 26], b, [26, 0]),
    ],
)
def test_sublist_form_matches_jax(args):
    a, b, c = rng.normal(size=(3, 3)), rng.normal(size=(3, 4)), rng.normal(size=(4,))
    want = jnp.einsum(*args(a, b, c))
    got = mnp.einsum(*args(a, b, c))
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12)
