"""``scipy.special.gamma``/``beta``/``gammasgn``/``polygamma``/``zeta``,
``scipy.stats.dirichlet`` and ``scipy.signal.convolve``/``correlate`` against SciPy
(issue 23)."""

import numpy as np
import pytest
import scipy.signal
import scipy.special
import scipy.stats

import mj
from mj.scipy import signal as msignal
from mj.scipy import special as mspecial
from mj.scipy.stats import dirichlet

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # poles, log(0)

X = np.array([0.0, -0.0, -1.0, -2.5, -1.5, -0.3, 0.5, 3.0, 50.3, 171.5, 172.0, 1e-300,
              np.nan, np.inf, -np.inf])  # fmt: skip


def test_gammasgn_matches_scipy_including_signed_zero_and_poles():
    np.testing.assert_array_equal(mspecial.gammasgn(X), scipy.special.gammasgn(X))
    np.testing.assert_array_equal(mj.jit(mspecial.gammasgn)(X), scipy.special.gammasgn(X))


def test_gamma_matches_scipy():
    np.testing.assert_allclose(mspecial.gamma(X), scipy.special.gamma(X), rtol=1e-12)
    np.testing.assert_allclose(mj.jit(mspecial.gamma)(X), scipy.special.gamma(X), rtol=1e-12)
    g = mj.vmap(mj.grad(mspecial.gamma))(np.array([0.5, 2.5, -1.5]))
    x = np.array([0.5, 2.5, -1.5])
    np.testing.assert_allclose(g, scipy.special.gamma(x) * scipy.special.digamma(x), rtol=1e-12)


def test_beta_matches_scipy_away_from_poles():
    a = np.array([1.5, -0.5, 2.0, 0.0, -2.5, 30.0, 0.1])
    b = np.array([2.0, 1.5, 3.0, 1.0, 0.3, 40.0, 0.2])
    # JAX's betaln (its ``algdiv`` branch for b >= 8, which mj follows) is accurate to ~5e-9
    # relative at (30, 40); the others to 1e-12
    np.testing.assert_allclose(mspecial.beta(a, b), scipy.special.beta(a, b), rtol=1e-8)
    np.testing.assert_allclose(
        mspecial.beta(a[:5], b[:5]), scipy.special.beta(a[:5], b[:5]), rtol=1e-12
    )
    ga, gb = mj.grad(mspecial.beta, argnums=(0, 1))(1.5, 2.0)
    psi = scipy.special.digamma
    want = scipy.special.beta(1.5, 2.0) * (psi(1.5) - psi(3.5))
    assert float(ga) == pytest.approx(want, rel=1e-12)
    assert float(gb) == pytest.approx(scipy.special.beta(1.5, 2.0) * (psi(2.0) - psi(3.5)))


def test_beta_is_nan_at_a_pole_as_in_jax():
    assert np.isnan(mspecial.beta(2.0, -3.0))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_polygamma_matches_scipy(dtype):
    n = np.array([0, 1, 2, 3, 4, 1, 2, 7, 1, 5])
    x = np.array([0.5, 0.5, 1.5, 2.0, 10.0, -1.5, 0.3, 3.3, 1e-4, 100.0], dtype)
    got = mspecial.polygamma(n.astype(np.int32), x)
    assert got.dtype == dtype
    rtol = 1e-13 if dtype == np.float64 else 2e-5
    np.testing.assert_allclose(got, scipy.special.polygamma(n, x.astype(np.float64)), rtol=rtol)
    np.testing.assert_allclose(mj.jit(mspecial.polygamma)(n, x), got, rtol=rtol)
    assert np.isnan(mspecial.polygamma(-1, 2.0))
    # d/dx polygamma(n, x) = polygamma(n + 1, x)
    g = mj.grad(lambda v: mspecial.polygamma(2, v))(2.5)
    assert float(g) == pytest.approx(scipy.special.polygamma(3, 2.5), rel=1e-12)


def test_polygamma_wants_an_integer_order():
    with pytest.raises(ValueError, match="must be of integer type"):
        mspecial.polygamma(1.0, 2.0)


def test_zeta_matches_scipy():
    s = np.array([2.0, 3.5, 1.0, 0.5, 1.1, 10.0, 2.0, 2.0, 4.0])
    q = np.array([1.0, 2.0, 1.0, 1.0, 0.7, 0.01, -5.5, 1e5, 0.0])
    np.testing.assert_allclose(mspecial.zeta(s, q), scipy.special.zeta(s, q), rtol=1e-13)


def test_dirichlet_matches_scipy():
    alpha = np.array([1.5, 2.0, 3.0])
    x = np.array([0.2, 0.3, 0.5])
    want = scipy.stats.dirichlet.logpdf(x, alpha)
    assert float(dirichlet.logpdf(x, alpha)) == pytest.approx(want, rel=1e-13)
    assert float(dirichlet.logpdf(x[:2], alpha)) == pytest.approx(want, rel=1e-13)
    assert float(dirichlet.pdf(x, alpha)) == pytest.approx(np.exp(want), rel=1e-13)
    batch = np.array([[0.2, 0.1], [0.3, 0.6], [0.5, 0.3]])
    np.testing.assert_allclose(
        mj.jit(dirichlet.logpdf)(batch, alpha), scipy.stats.dirichlet.logpdf(batch, alpha)
    )
    assert float(dirichlet.logpdf(np.array([0.2, 0.3, 0.6]), alpha)) == -np.inf
    assert float(dirichlet.logpdf(np.array([0.0, 0.5, 0.5]), alpha)) == -np.inf
    g = mj.grad(dirichlet.logpdf, argnums=1)(x, alpha)
    psi = scipy.special.digamma
    np.testing.assert_allclose(g, np.log(x) - psi(alpha) + psi(alpha.sum()), rtol=1e-12)
    with pytest.raises(ValueError, match="one-dimensional"):
        dirichlet.logpdf(x, alpha[None])
    with pytest.raises(ValueError, match="one entry fewer"):
        dirichlet.logpdf(x[:1], alpha)


A = np.arange(12.0).reshape(3, 4)
K = np.array([[1.0, 2.0], [0.5, -1.0]])


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("name", ["convolve", "correlate"])
@pytest.mark.parametrize(
    ("in1", "in2"),
    [(A, K), (K, A), (np.arange(7.0), np.array([1.0, 2.0, 3.0])),
     (np.ones((4, 5, 3)), np.arange(12.0).reshape(2, 3, 2)),
     (A + 1j * A[::-1], K + 1j)],
)  # fmt: skip
def test_signal_matches_scipy(mode, name, in1, in2):
    want = getattr(scipy.signal, name)(in1, in2, mode)
    got = getattr(msignal, name)(in1, in2, mode)
    np.testing.assert_allclose(got, want, atol=1e-12)
    got = mj.jit(lambda a, b: getattr(msignal, name)(a, b, mode))(in1, in2)
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_signal_checks_its_arguments():
    with pytest.raises(ValueError, match="same number of dimensions"):
        msignal.convolve(A, np.ones(2))
    with pytest.raises(ValueError, match="smaller than the other in every dimension"):
        msignal.convolve(np.ones((2, 5)), np.ones((3, 2)))
    with pytest.raises(ValueError, match="mode must be one of"):
        msignal.convolve(A, K, "bad")
    with pytest.raises(ValueError, match="expected 'auto', 'fft', or 'direct'"):
        msignal.convolve(A, K, method="x")
    with pytest.raises(ValueError, match="zero-size arrays"):
        msignal.convolve(np.ones((0, 2)), K)


def test_signal_is_differentiable():
    g = mj.grad(lambda a: msignal.convolve(a, K, "same").sum())(A)
    h = 1e-6
    e = np.zeros_like(A)
    e[1, 2] = h
    fd = (
        scipy.signal.convolve(A + e, K, "same").sum()
        - scipy.signal.convolve(A - e, K, "same").sum()
    ) / (2 * h)
    assert float(g[1, 2]) == pytest.approx(fd, rel=1e-6)
