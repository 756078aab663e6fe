"""Regression tests for the tails: ndtri down to the smallest normal p (it once went through
erfinv(2p - 1), which rounds to -inf below p ~ 1e-17) and finite gamma.logpdf gradients at
points off the support."""

import math

import numpy as np
import pytest

import mj
import mj.scipy.special as ms
from mj.scipy import stats

P = np.array([2.3e-308, 1e-300, 1e-100, 1e-20, 1e-10, 0.01, 0.3, 0.5, 0.9, 1 - 1e-9])


def test_ndtri_inverts_log_ndtr_down_to_tiny_p():
    x = ms.ndtri(P)
    assert np.all(np.isfinite(x))
    np.testing.assert_allclose(ms.log_ndtr(x), np.log(P), rtol=1e-13)
    np.testing.assert_allclose(mj.jit(ms.ndtri)(P), x, rtol=1e-14)
    assert ms.ndtri(np.array(0.5)) == 0.0
    np.testing.assert_allclose(
        ms.ndtri(np.array([0.0, 1.0, -0.1, 1.1])), [-np.inf, np.inf, np.nan, np.nan]
    )


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_ndtri_keeps_the_dtype_and_its_derivative_is_one_over_the_pdf(dtype):
    p = np.array([1e-10, 0.3, 0.9], dtype)
    x = ms.ndtri(p)
    assert x.dtype == dtype
    dx = mj.vmap(mj.grad(ms.ndtri))(p)
    want = np.sqrt(2 * math.pi) * np.exp(0.5 * np.asarray(x, np.float64) ** 2)
    np.testing.assert_allclose(dx, want, rtol=1e-5 if dtype == np.float32 else 1e-12)


def test_gamma_logpdf_gradients_stay_finite_off_the_support():
    x = np.array([-1.0, 0.5, 2.0])
    grads = mj.grad(lambda a, s: mj.numpy.sum(stats.gamma.logpdf(x, a, 0.0, s)), argnums=(0, 1))(
        2.5, 1.5
    )
    assert all(np.isfinite(g) for g in grads)
    h = 1e-6
    fd = (
        np.sum(stats.gamma.logpdf(x[1:], 2.5 + h, 0.0, 1.5))
        - np.sum(stats.gamma.logpdf(x[1:], 2.5 - h, 0.0, 1.5))
    ) / (2 * h)
    np.testing.assert_allclose(grads[0], fd, rtol=1e-7)
