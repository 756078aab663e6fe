"""Linear-algebra cases from JAX's own linalg_test on mj, against JAX: empty ``lstsq``,
``qr``'s ``'raw'`` mode and its derivative for wide matrices / complete ``Q``,
``rsf2csf`` broadcasting, pivoted QR, and float16's refusal."""

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np
import pytest

import mj
import mj.numpy as mnp
import mj.scipy.linalg as msl

pytestmark = pytest.mark.oracle


def _same(got, want, rtol=1e-5, atol=1e-5):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("numpy_resid", [False, True])
@pytest.mark.parametrize(
    "shapes",
    [((0, 3), (0,)), ((0, 3), (0, 2)), ((3, 0), (3,)), ((3, 0), (3, 2)), ((0, 0), (0,))],
)
def test_lstsq_of_an_empty_matrix(shapes, numpy_resid, x64):
    rng = np.random.default_rng(0)
    a = rng.normal(size=shapes[0]).astype(np.float32)
    b = rng.normal(size=shapes[1]).astype(np.float32)
    want = jnp.linalg.lstsq(a, b, numpy_resid=numpy_resid)
    for got in (
        mnp.linalg.lstsq(a, b, numpy_resid=numpy_resid),
        mj.jit(lambda a, b: mnp.linalg.lstsq(a, b, numpy_resid=numpy_resid))(a, b),
    ):
        for g, w in zip(got, want, strict=True):
            _same(g, w)
