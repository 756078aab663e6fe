"""Linear algebra and special functions that JAX's own ``linalg_test.py`` and
``lax_scipy_test.py`` exercise, against jax 0.10.2: values, dtypes and derivatives, both
dtype modes (``x64`` fixture)."""

import jax
import jax.scipy.special as jsp
import numpy as np
import pytest

import mj
import mj.scipy.special as msp

pytestmark = pytest.mark.oracle


def _close(got, want, rtol=1e-5, atol=1e-6):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def test_betaln_large_argument(x64):
    """betaln(x, 1) == -log(x) up to x = 1e30 (no cancellation between the log-gammas)."""
    xs = np.geomspace(1, 1e30, 200).astype(np.float32)
    for a, b in ((xs, np.float32(1.0)), (np.float32(2.5), xs), (xs, xs[::-1])):
        _close(msp.betaln(a, b), jsp.betaln(a, b), rtol=2e-5, atol=1e-5)
    got = mj.jvp(msp.betaln, (xs, np.float32(1.0)), (np.ones_like(xs), np.float32(0.0)))
    want = jax.jvp(jsp.betaln, (xs, np.float32(1.0)), (np.ones_like(xs), np.float32(0.0)))
    for g, w in zip(got, want, strict=True):
        _close(g, w, rtol=2e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(got[0]), -np.log(xs.astype(np.float64)), atol=1e-4)
