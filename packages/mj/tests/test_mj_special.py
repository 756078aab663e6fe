"""Special-function primitives through every transformation, and ``mj.scipy.special``."""

import math

import numpy as np
import pytest

import mj
import mj.scipy.special as sps
from mj.test_util import check_grads

PRIMS = {
    "lgamma": (mj.lax.lgamma, np.array([0.3, 1.5, 4.0, -2.5, 12.0, 30.0])),
    "digamma": (mj.lax.digamma, np.array([0.3, 1.5, 4.0, -2.5, 12.0, 30.0])),
    "erfc": (mj.lax.erfc, np.array([-2.0, -0.3, 0.0, 0.7, 3.0])),
    "erf_inv": (mj.lax.erf_inv, np.array([-0.9, -0.3, 0.0, 0.5, 0.8])),
}
DERIVATIVES = {
    "lgamma": mj.lax.digamma,
    "erfc": lambda x: -2 / np.sqrt(np.pi) * np.exp(-x * x),
    "erf_inv": lambda x: np.sqrt(np.pi) / 2 * np.exp(np.asarray(mj.lax.erf_inv(x)) ** 2),
}


@pytest.mark.parametrize("name", sorted(PRIMS))
def test_eager_jaxpr_and_jit_agree(name):
    f, x = PRIMS[name]
    eager = np.asarray(f(x))
    staged = mj.make_jaxpr(f)(x)
    via_jaxpr = np.asarray(mj.eval_jaxpr(staged, [x])[0])
    jitted = mj.jit(f)(x)
    assert eager.dtype == via_jaxpr.dtype == np.asarray(jitted).dtype == np.float64
    np.testing.assert_array_equal(via_jaxpr, eager)
    np.testing.assert_allclose(jitted, eager, rtol=1e-13)
    np.testing.assert_allclose(mj.jit(f)(x.astype(np.float32)), eager, rtol=1e-5)
    assert np.asarray(mj.jit(f)(x.astype(np.float32))).dtype == np.float32
    np.testing.assert_array_equal(mj.vmap(f)(x), eager)


@pytest.mark.parametrize("name", sorted(PRIMS))
def test_derivatives_match_finite_differences(name):
    f, x = PRIMS[name]
    check_grads(f, (x,), order=2, modes=("fwd", "rev"))
    grads = mj.vmap(mj.grad(f))(x)
    np.testing.assert_allclose(mj.jit(mj.vmap(mj.grad(f)))(x), grads, rtol=1e-12)
    if name in DERIVATIVES:
        np.testing.assert_allclose(grads, DERIVATIVES[name](x), rtol=1e-12)


def test_trigamma_closed_forms():
    d = mj.grad(mj.lax.digamma)
    assert d(1.0) == pytest.approx(math.pi**2 / 6, rel=1e-14)
    assert d(0.5) == pytest.approx(math.pi**2 / 2, rel=1e-14)
    # reflection: psi1(1 - x) + psi1(x) = pi^2 / sin^2(pi x)
    assert d(-0.5) + d(1.5) == pytest.approx(math.pi**2, rel=1e-13)


def test_scipy_special_closed_forms():
    np.testing.assert_allclose(sps.gammaln(np.arange(1, 8)), [math.lgamma(n) for n in range(1, 8)])
    assert sps.betaln(2.0, 3.0) == pytest.approx(math.log(1 / 12), rel=1e-14)
    assert sps.multigammaln(3.0, 2) == pytest.approx(
        0.5 * math.log(math.pi) + math.lgamma(3.0) + math.lgamma(2.5), rel=1e-14
    )
    assert sps.digamma(1) == pytest.approx(-0.5772156649015329)
    np.testing.assert_allclose(sps.ndtr(np.array([-1.0, 0.0, 2.0])),
                               [0.5 * math.erfc(v / math.sqrt(2)) for v in (1.0, 0.0, -2.0)],
                               rtol=1e-15)  # fmt: skip
    assert sps.ndtr(-30.0) == pytest.approx(0.5 * math.erfc(30 / math.sqrt(2)), rel=1e-14)
    p = np.array([0.001, 0.2, 0.5, 0.9])
    np.testing.assert_allclose(sps.ndtr(sps.ndtri(p)), p, rtol=1e-12)
    np.testing.assert_array_equal(sps.ndtri(np.array([0.0, 1.0])), [-np.inf, np.inf])
    x = np.array([-60.0, -25.0, -3.0, 0.5, 9.0])
    tail = -0.5 * 60.0**2 - math.log(60.0) - 0.5 * math.log(2 * math.pi) + math.log1p(-1 / 3600)
    cdf = [0.5 * math.erfc(-v / math.sqrt(2)) for v in x[1:4]]
    want = [tail, *(math.log(c) for c in cdf), math.log1p(-0.5 * math.erfc(9 / math.sqrt(2)))]
    np.testing.assert_allclose(sps.log_ndtr(x), want, rtol=1e-9)
    np.testing.assert_allclose(mj.jit(sps.log_ndtr)(x), want, rtol=1e-9)


def test_xlogy_family_and_their_custom_derivatives():
    assert sps.xlogy(0.0, 0.0) == 0.0
    assert sps.xlogy(2.0, 3.0) == pytest.approx(2 * math.log(3))
    assert sps.xlog1py(0.0, -1.0) == 0.0
    assert sps.xlog1py(2.0, 0.5) == pytest.approx(2 * math.log1p(0.5))
    np.testing.assert_array_equal(sps.entr(np.array([-1.0, 0.0])), [-np.inf, 0.0])
    assert sps.entr(0.5) == pytest.approx(0.5 * math.log(2))
    # JAX's jvp rules: d/dx = log(y), d/dy = x / y, finite where x = 0 and y > 0
    assert mj.grad(sps.xlogy)(0.0, 2.0) == pytest.approx(math.log(2))
    assert mj.grad(sps.xlogy, 1)(0.0, 2.0) == 0.0
    assert mj.grad(sps.xlog1py, 1)(3.0, 0.5) == pytest.approx(2.0)
    assert mj.grad(sps.entr)(0.5) == pytest.approx(-(math.log(0.5) + 1))
    check_grads(sps.xlogy, (np.array([0.5, 2.0]), np.array([1.5, 3.0])), order=1)
    check_grads(sps.log_ndtr, (np.array([-30.0, -2.0, 0.3, 9.0]),), order=1)
    for x in (-30.0, -2.0, 0.3, 9.0):  # d log_ndtr = pdf / cdf
        pdf = math.exp(-x * x / 2) / math.sqrt(2 * math.pi)
        want = pdf / (0.5 * math.erfc(-x / math.sqrt(2)))
        assert mj.grad(sps.log_ndtr)(x) == pytest.approx(want, rel=1e-6)
