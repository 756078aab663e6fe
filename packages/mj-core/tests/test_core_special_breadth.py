"""igamma/igammac, bessel_i0e/bessel_i1e and nextafter impls against closed forms and
series computed with the math module."""

import math

import numpy as np
import pytest

from mj_core import lax as ls

rng = np.random.default_rng(0)


def test_igamma_closed_forms():
    x = np.exp(rng.uniform(-4, 4, 200))
    np.testing.assert_allclose(ls.igamma(1.0, x), -np.expm1(-x), rtol=1e-13)
    erf = np.array([math.erf(math.sqrt(v)) for v in x])
    np.testing.assert_allclose(ls.igamma(0.5, x), erf, rtol=1e-13)
    # Q(n, x) = e^-x sum_{k<n} x^k / k!
    for n in (2, 5, 12):
        ref = np.exp(-x) * sum(x**k / math.factorial(k) for k in range(n))
        np.testing.assert_allclose(ls.igammac(float(n), x), ref, rtol=1e-12)
        np.testing.assert_allclose(ls.igamma(float(n), x) + ref, 1.0, rtol=1e-14)


def test_igamma_edges_and_dtypes():
    out = ls.igamma(np.array([1.0, 2.0, -1.0, 1.0, np.nan]), np.array([0.0, np.inf, 1, -1, 1]))
    np.testing.assert_array_equal(out, [0.0, 1.0, np.nan, np.nan, np.nan])
    assert ls.igammac(np.float32(2.0), 3.0).dtype == np.float32
    assert ls.igamma(np.arange(1, 4.0), 2).dtype == np.float64
    with pytest.raises(TypeError, match="igamma does not accept dtype int64 at position 0"):
        ls.igamma(np.arange(1, 4, dtype=np.int64), 2)  # JAX's primitive: floats only
    with pytest.raises(TypeError, match="igamma"):
        ls.igamma(np.complex128(1), 1.0)


def _i_series(order, x):
    """``I_order(x)`` by its power series, each term from the previous (no huge factorials)."""
    term = (x / 2) ** order / math.factorial(order)
    total = term
    for k in range(1, 300):
        term *= (x / 2) ** 2 / (k * (k + order))
        total += term
    return total


@pytest.mark.parametrize("x", [-30.0, -7.5, -0.3, 0.0, 1e-6, 0.5, 3.0, 8.0, 8.5, 25.0, 60.0])
def test_bessel_against_power_series(x):
    scale = math.exp(-abs(x))
    np.testing.assert_allclose(ls.bessel_i0e(x), _i_series(0, x) * scale, rtol=1e-14)
    np.testing.assert_allclose(ls.bessel_i1e(x), _i_series(1, x) * scale, rtol=1e-14, atol=1e-300)


def test_bessel_large_argument_and_dtype():
    x = 1e4
    np.testing.assert_allclose(ls.bessel_i0e(x), (1 + 1 / (8 * x)) / math.sqrt(2 * math.pi * x))
    np.testing.assert_allclose(ls.bessel_i1e(x), (1 - 3 / (8 * x)) / math.sqrt(2 * math.pi * x))
    assert ls.bessel_i1e(np.float32(2.0)).dtype == np.float32


def test_nextafter():
    x = np.array([1.0, 1.0, 0.0, -2.0])
    y = np.array([2.0, 0.0, 1.0, -2.0])
    np.testing.assert_array_equal(ls.nextafter(x, y), np.nextafter(x, y))
    out = ls.nextafter(np.float32(1.0), 2.0)
    assert out.dtype == np.float32
    assert out == np.float32(1.0) + np.finfo(np.float32).eps
