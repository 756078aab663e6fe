"""Complex ``logaddexp`` against JAX's: ``max + log1p(exp(x + y - 2 max))`` with the
imaginary part wrapped into ``[-pi, pi]`` (mj's could be off by ``2 pi``), and NaN inputs
giving ``nan+nanj``, eagerly and under ``jit``."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

pytestmark = pytest.mark.oracle


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_logaddexp_matches_jax(x64, dtype):
    rng = np.random.RandomState(0)
    a = (rng.randn(16) * 3 + 1j * rng.randn(16) * 3).astype(dtype)
    b = (rng.randn(16) * 3 + 1j * rng.randn(16) * 3).astype(dtype)
    a[2], b[5] = np.nan, complex(np.nan, 1.0)
    want = jnp.logaddexp(a, b)
    tol = 1e-5 if want.dtype == np.complex64 else 1e-12
    for got in (mnp.logaddexp(a, b), mj.jit(mnp.logaddexp)(a, b)):
        assert got.dtype == want.dtype
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=tol, atol=tol)
        assert np.all(np.abs(np.asarray(got).imag[np.isfinite(np.asarray(got))]) <= np.pi + tol)
    np.testing.assert_allclose(
        np.asarray(mnp.logaddexp(a[:1], b[:1])),
        np.asarray(jax.jit(jnp.logaddexp)(a[:1], b[:1])),
        rtol=tol,
    )
