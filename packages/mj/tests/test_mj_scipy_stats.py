"""mj.scipy.stats vs closed forms (math module), support edges, transformations and finite
differences."""

import math

import numpy as np
import pytest

import mj
import mj.scipy.stats as st
from mj.test_util import check_grads

X = np.array([-3.0, -0.5, 0.0, 0.2, 0.7, 1.0, 2.5, 7.0])


def _close(got, want):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want, np.float64), rtol=1e-12, atol=0)


def test_norm_closed_forms():
    loc, scale = 0.3, 1.7
    z = (X - loc) / scale
    _close(st.norm.logpdf(X, loc, scale), -0.5 * z**2 - math.log(scale * math.sqrt(2 * math.pi)))
    cdf = [0.5 * math.erfc(-v / math.sqrt(2)) for v in z]
    _close(st.norm.cdf(X, loc, scale), cdf)
    _close(st.norm.sf(X, loc, scale), [0.5 * math.erfc(v / math.sqrt(2)) for v in z])
    _close(st.norm.logcdf(X, loc, scale), np.log(cdf))
    np.testing.assert_allclose(st.norm.ppf(st.norm.cdf(X, loc, scale), loc, scale), X, atol=1e-12)
    assert st.norm.logcdf(-40.0) == pytest.approx(-804.6084420137538, rel=1e-12)


def test_supports_give_minus_inf_exactly():
    assert st.expon.logpdf(-0.1) == -np.inf
    assert st.expon.pdf(-0.1) == 0.0
    assert st.gamma.logpdf(-1.0, 2.0) == -np.inf
    np.testing.assert_array_equal(st.beta.logpdf(np.array([-0.1, 1.1]), 2.0, 3.0), -np.inf)
    np.testing.assert_array_equal(st.uniform.logpdf(np.array([-0.1, 1.1]), 0.0, 1.0), -np.inf)
    np.testing.assert_array_equal(st.poisson.logpmf(np.array([-1.0, 2.5]), 2.0), -np.inf)
    np.testing.assert_array_equal(st.bernoulli.logpmf(np.array([-1.0, 2.0]), 0.3), -np.inf)


def test_other_densities_closed_forms():
    x = np.array([0.2, 0.7, 2.5])
    _close(st.expon.logpdf(x, 0.1, 2.0), -(x - 0.1) / 2.0 - math.log(2.0))
    _close(st.expon.cdf(x, 0.1, 2.0), -np.expm1(-(x - 0.1) / 2.0))
    a, s = 2.5, 1.5
    _close(st.gamma.logpdf(x, a, 0.0, s),
           (a - 1) * np.log(x / s) - x / s - math.lgamma(a) - math.log(s))  # fmt: skip
    y = np.array([0.1, 0.5, 0.9])
    _close(st.beta.logpdf(y, 2.0, 3.0), np.log(12 * y * (1 - y) ** 2))
    _close(st.laplace.logpdf(x, 0.2, 1.3), -np.log(2.6) - np.abs(x - 0.2) / 1.3)
    _close(st.laplace.cdf(np.array([0.2]), 0.2, 1.3), [0.5])
    e = np.exp(-(x - 0.2) / 1.3)
    _close(st.logistic.pdf(x, 0.2, 1.3), e / (1.3 * (1 + e) ** 2))
    _close(st.logistic.cdf(x), 1 / (1 + np.exp(-x)))
    _close(st.uniform.pdf(x, -1.0, 4.0), np.full(3, 0.25))
    _close(st.uniform.cdf(x, -1.0, 4.0), (x + 1) / 4)
    nu = 3.0
    want_t = [math.lgamma(2.0) - math.lgamma(1.5) - 0.5 * math.log(nu * math.pi)
              - 2.0 * math.log1p(v * v / nu) for v in x]  # fmt: skip
    _close(st.t.logpdf(x, nu), want_t)
    _close(st.cauchy.pdf(x, 0.5, 2.0), 1 / (math.pi * 2.0 * (1 + ((x - 0.5) / 2.0) ** 2)))
    _close(st.cauchy.cdf(x), 0.5 + np.arctan(x) / math.pi)
    k = np.array([0.0, 1.0, 3.0, 10.0])
    _close(st.poisson.pmf(k, 2.0), [math.exp(-2) * 2**n / math.factorial(int(n)) for n in k])
    _close(st.bernoulli.pmf(np.array([0.0, 1.0]), 0.3), [0.7, 0.3])
    _close(st.bernoulli.cdf(np.array([-1.0, 0.0, 0.5, 1.0]), 0.3), [0.0, 0.7, 0.7, 1.0])


def test_loc_scale_broadcast_and_transformations_agree():
    loc = np.array([[0.0], [1.0]])
    out = st.norm.logpdf(X, loc, 2.0)
    assert out.shape == (2, X.size)
    f = mj.jit(st.t.logpdf)
    np.testing.assert_allclose(f(X, 4.0, loc, 2.0), st.t.logpdf(X, 4.0, loc, 2.0), rtol=1e-13)
    v = mj.vmap(st.gamma.logpdf, in_axes=(0, None))(np.array([0.5, 1.0, 3.0]), 2.0)
    np.testing.assert_array_equal(v, st.gamma.logpdf(np.array([0.5, 1.0, 3.0]), 2.0))
    assert st.norm.logpdf(np.float32(0.5)).dtype == np.float32


@pytest.mark.parametrize(
    ("f", "args"),
    [
        (st.norm.logpdf, (0.7, 0.3, 1.7)),
        (st.norm.logcdf, (-3.0, 0.0, 1.0)),
        (st.gamma.logpdf, (1.3, 2.5, 0.0, 1.5)),
        (st.beta.logpdf, (0.3, 2.0, 3.0)),
        (st.t.logpdf, (0.4, 3.0, 0.5, 2.0)),
        (st.logistic.logpdf, (0.4, 0.2, 1.3)),
        (st.cauchy.logpdf, (0.4, 0.5, 2.0)),
        (lambda mu: st.poisson.logpmf(3.0, mu), (2.0,)),
        (st.laplace.logpdf, (0.4, 0.2, 1.3)),
    ],
)
def test_gradients_match_finite_differences(f, args):
    check_grads(f, args, order=1, modes=("fwd", "rev"))


def test_beta_logpdf_is_nan_for_invalid_shapes_or_scale_as_jax():
    from mj.scipy.stats import beta

    for a, b, scale in ((-1.0, 2.0, 1.0), (1.0, 0.0, 1.0), (2.0, 2.0, -1.0)):
        assert np.isnan(float(beta.logpdf(0.5, a, b, scale=scale)))
    assert float(beta.logpdf(1.5, 2.0, 2.0)) == -np.inf  # outside the support, valid shapes
