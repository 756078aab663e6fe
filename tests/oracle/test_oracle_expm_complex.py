"""``scipy.linalg.expm`` (and ``expm_frechet``, its gradient, ``upper_triangular``) of complex
matrices against JAX: a complex matrix takes the Pade degrees and scaling of its real type
(complex64 like float32, complex128 like float64), as ``jax.scipy.linalg.expm`` does; mj
refused complex input before (JAX's linalg_test testExpmFrechet / testExpmGrad)."""

import jax
import numpy as np
import pytest

import mj

TOL = {np.complex64: 2e-5, np.complex128: 1e-13}


def _close(got, want, rtol):
    """Equal up to ``rtol`` of ``want``'s largest entry; NaN (overflow) exactly where JAX's."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    if not nan.all():
        assert np.max(np.abs(got - want)[~nan]) <= rtol * np.max(np.abs(want[~nan]))


def _matrix(rs, n, dtype, scale):
    return ((rs.randn(n, n) + 1j * rs.randn(n, n)) * scale).astype(dtype)


@pytest.mark.parametrize("scale", [0.01, 0.5, 3.0, 40.0])  # each Pade degree, squarings
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=["c64", "c128"])
def test_complex_expm_as_jax(dtype, scale, x64):
    if dtype == np.complex128 and not x64:
        pytest.skip("complex128 needs x64")
    a = _matrix(np.random.RandomState(0), 5, dtype, scale)
    want = np.asarray(jax.scipy.linalg.expm(a))
    got = np.asarray(mj.scipy.linalg.expm(a))
    got_jit = np.asarray(mj.jit(mj.scipy.linalg.expm)(a))
    rtol = TOL[dtype]
    for g in (got, got_jit):
        _close(g, want, rtol)
    triu = np.triu(a)
    want_t = jax.scipy.linalg.expm(triu, upper_triangular=True)
    _close(mj.scipy.linalg.expm(triu, upper_triangular=True), want_t, rtol)


def test_complex_expm_frechet_and_grad_as_jax(x64):
    dtype = np.complex128 if x64 else np.complex64
    rs = np.random.RandomState(1)
    a, e = _matrix(rs, 4, dtype, 0.7), _matrix(rs, 4, dtype, 1.0)
    rtol = TOL[dtype] * 10
    for w, g in zip(
        jax.scipy.linalg.expm_frechet(a, e), mj.scipy.linalg.expm_frechet(a, e), strict=True
    ):
        _close(g, w, rtol)

    def loss(lib):
        return lambda m: lib.numpy.abs(lib.scipy.linalg.expm(m)).sum()

    _close(mj.grad(loss(mj))(a), jax.grad(loss(jax))(a), rtol)
