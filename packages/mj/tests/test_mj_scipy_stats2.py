"""The new mj.scipy.special (gammainc/gammaincc/betainc, i0e/i1e/i0/i1), mj.numpy (i0,
nextafter) and mj.scipy.stats functions (gamma/beta cdf/sf/logcdf/logsf, poisson.cdf, chi2,
multivariate_normal) against closed forms and NumPy, eager and under jit/vmap/grad."""

import math

import numpy as np
import pytest

import mj
import mj.numpy as mnp
import mj.scipy.special as msp
import mj.scipy.stats as mst

X = np.array([0.1, 0.5, 1.0, 2.0, 4.0, 9.0])


def test_gammainc_closed_forms():
    # P(1, x) = 1 - exp(-x); Q(2, x) = (1 + x) exp(-x); P(1/2, x) = erf(sqrt(x))
    np.testing.assert_allclose(msp.gammainc(1.0, X), -np.expm1(-X), rtol=1e-13)
    np.testing.assert_allclose(msp.gammaincc(2.0, X), (1 + X) * np.exp(-X), rtol=1e-13)
    erf = np.vectorize(math.erf)
    np.testing.assert_allclose(msp.gammainc(0.5, X), erf(np.sqrt(X)), rtol=1e-13)
    assert msp.gammainc(2, 3).dtype == np.float64
    with pytest.raises(TypeError, match="gammainc"):
        msp.gammainc(1j, 1.0)


def test_betainc_wrapper():
    np.testing.assert_allclose(msp.betainc(2, 1, 0.3), 0.09, rtol=1e-14)
    assert msp.betainc(np.float32(2), 1, np.float32(0.3)).dtype == np.float32
    with pytest.raises(ValueError, match="complex"):
        msp.betainc(1.0, 2.0, 0.5j)


def _bessel_series(x, order):
    return sum(
        (x / 2) ** (2 * k + order) / (math.factorial(k) * math.factorial(k + order))
        for k in range(60)
    )


@pytest.mark.parametrize("x", [-7.5, -1.0, 0.0, 0.3, 2.0, 11.0])
def test_bessel_functions(x):
    i0, i1 = _bessel_series(x, 0), _bessel_series(x, 1)
    np.testing.assert_allclose(msp.i0(x), i0, rtol=1e-14)
    np.testing.assert_allclose(msp.i1(x), i1, rtol=1e-14, atol=1e-300)
    np.testing.assert_allclose(msp.i0e(x), i0 * math.exp(-abs(x)), rtol=1e-14)
    np.testing.assert_allclose(msp.i1e(x), i1 * math.exp(-abs(x)), rtol=1e-14, atol=1e-300)
    np.testing.assert_allclose(mnp.i0(x), i0, rtol=1e-14)
    # d/dx I0 = I1
    np.testing.assert_allclose(mj.grad(mnp.i0)(x), i1, rtol=1e-12, atol=1e-300)
    # scipy.special.i0 is i0e(x) * exp(|x|): at 0 it inherits abs's one-sided derivative
    # (+1, JAX's rule), exactly as jax.scipy.special.i0 does; mnp.i0 has JAX's exact 0 there
    want = 1.0 if x == 0.0 else i1
    np.testing.assert_allclose(mj.grad(msp.i0)(x), want, rtol=1e-12, atol=1e-300)


def test_numpy_i0_and_nextafter():
    assert mj.grad(mnp.i0)(0.0) == 0.0
    assert mnp.i0(np.array([1, 2])).dtype == np.float64
    with pytest.raises(ValueError, match="i0"):
        mnp.i0(1j)
    x = np.array([1.0, 0.0, -2.0], np.float32)
    out = mnp.nextafter(x, np.float32(10))
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, np.nextafter(x, np.float32(10)))
    np.testing.assert_array_equal(mj.jit(mnp.nextafter)(x, -np.inf), np.nextafter(x, -np.inf))


def test_gamma_and_chi2_cdfs():
    # gamma(a=1, scale=s) is exponential; chi2(df=2) is exponential with scale 2
    x = np.array([-1.0, 0.0, 0.5, 3.0, np.inf])
    expon_cdf = np.where(x < 0.3, 0.0, -np.expm1(-(x - 0.3) / 1.5))
    np.testing.assert_allclose(mst.gamma.cdf(x, 1.0, 0.3, 1.5), expon_cdf, atol=1e-15)
    np.testing.assert_allclose(mst.gamma.sf(x, 1.0, 0.3, 1.5), 1 - expon_cdf, atol=1e-15)
    np.testing.assert_allclose(
        mst.chi2.cdf(x, 2.0), np.where(x < 0, 0, -np.expm1(-x / 2)), atol=1e-15
    )
    np.testing.assert_allclose(mst.chi2.sf(x[2:4], 2.0), np.exp(-x[2:4] / 2), rtol=1e-14)
    np.testing.assert_allclose(mst.chi2.logsf(x[2:4], 2.0), -x[2:4] / 2, rtol=1e-14)
    np.testing.assert_allclose(mst.gamma.logcdf(3.0, 1.0), np.log(-np.expm1(-3.0)), rtol=1e-14)
    assert mst.gamma.logcdf(-1.0, 2.0) == -np.inf
    assert mst.gamma.logsf(-1.0, 2.0) == 0.0


def test_chi2_density():
    # chi2(df=4): x exp(-x/2) / 4
    x = np.array([0.5, 1.0, 6.0])
    np.testing.assert_allclose(mst.chi2.pdf(x, 4.0), x * np.exp(-x / 2) / 4, rtol=1e-14)
    np.testing.assert_allclose(
        mst.chi2.logpdf(2 * x + 1, 4.0, 1.0, 2.0), np.log(x * np.exp(-x / 2) / 8), rtol=1e-13
    )
    assert mst.chi2.logpdf(-0.1, 4.0) == -np.inf
    # derivative of the cdf is the density
    np.testing.assert_allclose(
        mj.vmap(mj.grad(mst.chi2.cdf), (0, None))(x, 4.0), mst.chi2.pdf(x, 4.0), rtol=1e-12
    )


def test_beta_cdf_sf():
    x = np.array([-0.5, 0.0, 0.25, 0.5, 0.9, 1.0, 1.5])
    y = np.clip(x, 0, 1)
    np.testing.assert_allclose(mst.beta.cdf(x, 2.0, 1.0), y**2, atol=1e-15)
    np.testing.assert_allclose(mst.beta.sf(x, 2.0, 1.0), 1 - y**2, atol=1e-15)
    np.testing.assert_allclose(mst.beta.cdf(2 * x + 1, 2.0, 1.0, 1.0, 2.0), y**2, atol=1e-15)
    np.testing.assert_allclose(mst.beta.logsf(0.5, 1.0, 3.0), 3 * np.log(0.5), rtol=1e-14)
    np.testing.assert_allclose(mst.beta.logcdf(0.5, 3.0, 1.0), 3 * np.log(0.5), rtol=1e-14)
    grads = mj.vmap(mj.grad(mst.beta.cdf), (0, None, None))(x[2:5], 2.0, 3.0)
    np.testing.assert_allclose(grads, mst.beta.pdf(x[2:5], 2.0, 3.0), rtol=1e-12)
    np.testing.assert_allclose(
        mj.jit(mst.beta.sf)(x, 2.5, 0.5), mst.beta.sf(x, 2.5, 0.5), rtol=1e-13
    )


def test_poisson_cdf():
    k = np.array([-1.0, 0.0, 1.0, 2.5, 3.0, 12.0])
    mu = 2.5
    pmf = [math.exp(-mu) * mu**j / math.factorial(j) for j in range(13)]
    expected = [0.0 if kk < 0 else math.fsum(pmf[: int(kk) + 1]) for kk in k]
    np.testing.assert_allclose(mst.poisson.cdf(k, mu), expected, rtol=1e-13)
    np.testing.assert_allclose(mst.poisson.cdf(k + 2, mu, 2), expected, rtol=1e-13)
    np.testing.assert_allclose(mj.jit(mst.poisson.cdf)(k, mu), expected, rtol=1e-12)


def test_multivariate_normal():
    rng = np.random.default_rng(0)
    m = rng.normal(size=(3, 3))
    cov = m @ m.T + np.eye(3)
    mean = rng.normal(size=3)
    x = rng.normal(size=(5, 3))
    d = x - mean
    expected = -0.5 * np.einsum("ij,jk,ik->i", d, np.linalg.inv(cov), d) - 0.5 * np.log(
        np.linalg.det(2 * np.pi * cov)
    )
    np.testing.assert_allclose(mst.multivariate_normal.logpdf(x, mean, cov), expected, rtol=1e-12)
    np.testing.assert_allclose(
        mst.multivariate_normal.pdf(x[0], mean, cov), np.exp(expected[0]), rtol=1e-12
    )
    np.testing.assert_allclose(
        mj.jit(mst.multivariate_normal.logpdf)(x, mean, cov), expected, rtol=1e-12
    )
    # scalar covariance: cov * I; scalar mean: univariate normal
    iso = -0.5 * np.sum(d * d, -1) / 2.0 - 1.5 * np.log(2 * np.pi * 2.0)
    np.testing.assert_allclose(mst.multivariate_normal.logpdf(x, mean, 2.0), iso, rtol=1e-13)
    np.testing.assert_allclose(
        mst.multivariate_normal.logpdf(0.5, 0.1, 2.0),
        -0.5 * 0.16 / 2 - 0.5 * np.log(4 * np.pi),
        rtol=1e-13,
    )
    # gradient w.r.t. x is -cov^-1 (x - mean)
    np.testing.assert_allclose(
        mj.grad(mst.multivariate_normal.logpdf)(x[0], mean, cov),
        -np.linalg.solve(cov, d[0]),
        rtol=1e-11,
    )
    with pytest.raises(ValueError, match="incompatible shapes"):
        mst.multivariate_normal.logpdf(x, mean, np.eye(2))
