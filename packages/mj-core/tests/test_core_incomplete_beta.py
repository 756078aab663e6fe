"""regularized_incomplete_beta (lax.betainc) eagerly: closed forms, the symmetry,
JAX's edge values, dtypes and broadcasting."""

import math

import numpy as np
import pytest

from mj_core import lax as ls

X = np.linspace(0.0, 1.0, 41)


@pytest.mark.parametrize("b", [0.5, 1.0, 3.0, 17.5])
def test_a_equal_one_is_one_minus_power(b):
    np.testing.assert_allclose(ls.betainc(1.0, b, X), 1 - (1 - X) ** b, rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("a", [0.25, 1.0, 2.5, 40.0])
def test_b_equal_one_is_power(a):
    np.testing.assert_allclose(ls.betainc(a, 1.0, X), X**a, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize(("a", "b"), [(2, 3), (5, 5), (1, 12), (9, 2), (30, 25)])
def test_integer_shapes_are_binomial_tails(a, b):
    # I_x(a, b) = P(Binomial(a + b - 1, x) >= a)
    n = a + b - 1
    expected = [
        math.fsum(math.comb(n, j) * x**j * (1 - x) ** (n - j) for j in range(a, n + 1)) for x in X
    ]
    np.testing.assert_allclose(ls.betainc(float(a), float(b), X), expected, atol=2e-15)


def test_half_half_is_arcsine_law():
    expected = 2 / np.pi * np.arcsin(np.sqrt(X))
    np.testing.assert_allclose(ls.betainc(0.5, 0.5, X), expected, rtol=1e-14, atol=1e-15)


def test_symmetry_across_the_switch():
    rng = np.random.default_rng(1)
    a, b, x = rng.uniform(0.1, 50, 300), rng.uniform(0.1, 50, 300), rng.uniform(0, 1, 300)
    total = ls.betainc(a, b, x) + ls.betainc(b, a, 1 - x)
    np.testing.assert_allclose(total, 1.0, atol=5e-14)


def test_edges_follow_jax():
    a = np.array([0.0, 1.0, 2.0, -1.0, np.inf, 1.0, 0.0, np.inf, 2.0, 2.0])
    b = np.array([1.0, 0.0, np.inf, 1.0, 1.0, np.nan, 0.0, np.inf, 3.0, 3.0])
    x = np.array([0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, -0.1, 1.2])
    expected = [1.0, 0.0, 1.0, np.nan, 0.0, np.nan, np.nan, np.nan, np.nan, np.nan]
    np.testing.assert_array_equal(ls.betainc(a, b, x), expected)
    assert ls.betainc(0.0, 2.0, 0.0) == 0.0
    assert ls.betainc(2.0, 0.0, 1.0) == 1.0
    assert ls.betainc(2.0, 3.0, 0.0) == 0.0
    assert ls.betainc(2.0, 3.0, 1.0) == 1.0


def test_dtypes_and_broadcasting():
    out = ls.betainc(np.float32(2.0), np.float32(3.0), np.full((2, 3), 0.4, np.float32))
    assert out.dtype == np.float32
    assert out.shape == (2, 3)
    np.testing.assert_allclose(out, 0.5248, rtol=1e-6)
    assert ls.betainc(2, 3, 0.5).dtype == np.float64
    assert ls.betainc(np.ones((4, 1)), np.ones(3), 0.5).shape == (4, 3)


def test_complex_operands_are_rejected():
    with pytest.raises(TypeError, match="regularized_incomplete_beta"):
        ls.betainc(1.0 + 0j, 2.0, 0.5)
