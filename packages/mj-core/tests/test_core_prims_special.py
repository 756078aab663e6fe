"""The special-function primitives' NumPy impls vs high-precision references."""

import math

import numpy as np
import pytest

from mj_core import lax
from mj_core._avals import ShapedArray
from mj_core.extend import elementwise_out_aval
from mj_core.prims.special import digamma_p, erf_inv_p, erfc_p, lgamma_p

EULER = 0.5772156649015329


def _ulps(got, want):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    return np.abs(got - want) / np.spacing(np.abs(want))


def _lgamma_near_one(z):
    """lgamma(1 + z) = -gamma z + sum_k (-1)^k zeta(k)/k z^k, summed in extended precision
    via math.fsum of float terms (|z| <= 1e-3: 12 terms are exact to 1e-40)."""
    zetas = [math.pi**2 / 6, 1.2020569031595942, math.pi**4 / 90, 1.0369277551433699]
    zetas += [1 + 2.0**-k + 3.0**-k + 4.0**-k for k in range(6, 14)]
    return math.fsum([-EULER * z] + [(-1) ** k * c / k * z**k for k, c in enumerate(zetas, 2)])


def test_lgamma_matches_math_lgamma_away_from_its_zeros(rng):
    x = np.concatenate([rng.uniform(2.6, 30, 500), rng.uniform(0.01, 0.8, 500),
                        np.geomspace(30, 1e300, 200), -rng.uniform(0.01, 30, 300)])  # fmt: skip
    x = x[np.abs(x - np.round(x)) > 1e-3]
    want = np.array([math.lgamma(v) for v in x])
    got = lax.lgamma(x)
    ok = np.abs(want) > 0.5  # math.lgamma itself loses relative accuracy near its zeros
    assert np.max(_ulps(got, want)[ok]) <= 8
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("z", [1e-9, -3e-7, 5e-5, -1e-3])
def test_lgamma_is_ulp_accurate_next_to_the_zeros_at_one_and_two(z):
    near_one = _lgamma_near_one(z)
    assert _ulps(lax.lgamma(1.0 + z), near_one) <= 4 if z == (1.0 + z) - 1.0 else True
    # lgamma(2 + z) = lgamma(1 + z) + log1p(z): exact z = (2 + z) - 2 keeps it exact
    z2 = (2.0 + z) - 2.0
    assert _ulps(lax.lgamma(2.0 + z2), _lgamma_near_one(z2) + math.log1p(z2)) <= 4


def test_lgamma_special_values():
    x = np.array([0.0, -0.0, -1.0, -7.0, 1.0, 2.0, np.inf, -np.inf, np.nan, 0.5, 1e-300])
    got = lax.lgamma(x)
    want = [np.inf] * 4 + [0.0, 0.0, np.inf, np.inf, np.nan, 0.5 * math.log(math.pi), 690.7755]
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert lax.lgamma(-2.5) == pytest.approx(math.lgamma(-2.5), rel=1e-15)


def test_digamma_closed_forms():
    n = np.arange(1, 40)
    harmonic = np.cumsum(1.0 / n)
    np.testing.assert_allclose(lax.digamma(n + 1.0), harmonic - EULER, rtol=2e-16 * 8)
    assert lax.digamma(1.0) == pytest.approx(-EULER, rel=4e-16)
    assert lax.digamma(0.5) == pytest.approx(-EULER - 2 * math.log(2), rel=4e-16)
    # psi(1/2 - n) = psi(1/2 + n) (reflection: cot(pi (1/2 - n)) = 0)
    np.testing.assert_allclose(lax.digamma(0.5 - n[:10]), lax.digamma(0.5 + n[:10]), rtol=1e-14)


def test_digamma_recurrence_and_poles(rng):
    x = np.concatenate(
        [rng.uniform(-20, 20, 400), np.geomspace(1e-2, 1e8, 50)]
    )  # 1/x swamps psi below
    np.testing.assert_allclose(lax.digamma(x + 1), lax.digamma(x) + 1 / x, rtol=1e-12, atol=1e-12)
    poles = lax.digamma(np.array([0.0, -0.0, -1.0, -30.0, -np.inf]))
    assert np.isnan(poles).all()
    assert lax.digamma(np.inf) == np.inf
    assert lax.digamma(1e-300) == pytest.approx(-1e300)


def test_erfc_has_no_cancellation_in_the_tail():
    x = np.array([-np.inf, -3.0, -0.2, 0.0, 0.3, 5.0, 10.0, 26.5, 30.0, np.inf])
    want = [math.erfc(v) for v in x]
    np.testing.assert_array_equal(lax.erfc(x), want)
    assert lax.erfc(26.5) > 0  # 1 - erf would be 0 here
    assert lax.erfc(np.float32(3.0)).dtype == np.float32


def test_erf_inv_inverts_erf_and_edges(rng):
    x = rng.uniform(-1, 1, 1000)
    y = lax.erf_inv(x)
    np.testing.assert_allclose([math.erf(v) for v in y], x, rtol=1e-15, atol=2e-16)
    edges = lax.erf_inv(np.array([-1.0, 1.0, 1.5, -2.0, 0.0]))
    np.testing.assert_array_equal(edges, [-np.inf, np.inf, np.nan, np.nan, 0.0])
    x32 = x.astype(np.float32)
    y32 = lax.erf_inv(x32)
    assert y32.dtype == np.float32
    np.testing.assert_allclose(y32, lax.erf_inv(x32.astype(np.float64)), rtol=3e-6)


@pytest.mark.parametrize("prim", [lgamma_p, digamma_p, erfc_p, erf_inv_p])
def test_typing_takes_floats_only(prim):
    # JAX's primitive: floats only (jax.scipy.special converts integers before binding it)
    assert elementwise_out_aval(prim, [ShapedArray((), np.dtype(np.float32))]).dtype == np.float32
    for dtype in (np.int32, np.int64, np.bool_, np.complex64):
        message = f"{prim.name} does not accept dtype {np.dtype(dtype).name}. Accepted dtypes"
        with pytest.raises(TypeError, match=message):
            elementwise_out_aval(prim, [ShapedArray((2,), np.dtype(dtype))])
    fun = getattr(lax, prim.name)
    with pytest.raises(TypeError, match=prim.name):
        fun(np.array([1j]))
    with pytest.raises(TypeError, match=f"{prim.name} does not accept dtype int32"):
        fun(np.array([1, 2], np.int32))
    assert fun(np.array([1, 2], np.float32)).dtype == np.float32
