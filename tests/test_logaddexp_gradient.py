"""``logaddexp``/``logaddexp2`` gradients against the closed form, ties included (issue 23:
at ``x == y`` the gradient was ``(0, 1)``; the closed form and JAX give ``(0.5, 0.5)``)."""

import numpy as np
import pytest

import mj
import mj.numpy as mnp

POINTS = [(1.0, 1.0), (0.0, 0.0), (-3.0, -3.0), (2.0, -1.0), (-1.0, 2.0), (-np.inf, 1.0)]


@pytest.mark.parametrize(("x", "y"), POINTS)
@pytest.mark.parametrize("transform", ["grad", "jit", "vmap"])
def test_logaddexp_gradient_is_the_softmax_weights(x, y, transform):
    grad = mj.grad(mnp.logaddexp, argnums=(0, 1))
    if transform == "jit":
        grad = mj.jit(grad)
    out = np.logaddexp(x, y)
    want = (np.exp(x - out), np.exp(y - out))
    if transform == "vmap":
        gx, gy = mj.vmap(grad)(np.array([x, x]), np.array([y, y]))
        got = (gx[1], gy[1])
    else:
        got = grad(x, y)
    np.testing.assert_allclose(np.asarray(got, dtype=float), want, rtol=1e-14)


@pytest.mark.parametrize(("x", "y"), POINTS)
def test_logaddexp2_gradient(x, y):
    out = np.logaddexp2(x, y)
    want = (2.0 ** (x - out), 2.0 ** (y - out))
    got = mj.grad(mnp.logaddexp2, argnums=(0, 1))(x, y)
    np.testing.assert_allclose(np.asarray(got, dtype=float), want, rtol=1e-14)


def test_values_and_special_points_unchanged():
    x = np.array([1.0, -np.inf, np.inf, np.nan, 3.0, -np.inf])
    y = np.array([1.0, -np.inf, np.inf, 1.0, -2.0, 5.0])
    with np.errstate(invalid="ignore"):
        want = np.logaddexp(x, y)
    np.testing.assert_array_equal(mnp.logaddexp(x, y), want)
    np.testing.assert_array_equal(mj.jit(mnp.logaddexp)(x, y), want)
    both_inf = np.array([1.0, np.inf])  # inf - inf must not leak a NaN (JAX: 1 and 1 there)
    g = mj.grad(lambda a, b: mnp.logaddexp(a, b).sum(), argnums=(0, 1))(both_inf, both_inf)
    np.testing.assert_allclose(np.asarray(g), [[0.5, 1.0], [0.5, 1.0]])
    assert np.isnan(mj.grad(mnp.logaddexp)(np.nan, 1.0))


@pytest.mark.parametrize(("x", "y"), [(1.0, 1.0), (-3.0, -3.0), (2.0, -1.0)])
def test_second_derivatives_are_the_closed_form_at_ties_too(x, y):
    # d2/dx2 log(e^x + e^y) = p (1 - p) with p = e^(x - out); the mixed one is its negative
    p = np.exp(x - np.logaddexp(x, y))
    c = p * (1 - p)
    for f, scale in ((mnp.logaddexp, 1.0), (mnp.logaddexp2, np.log(2))):
        if f is mnp.logaddexp2:
            q = 2.0 ** (x - np.logaddexp2(x, y))
            c = q * (1 - q)
        got = mj.hessian(f, argnums=(0, 1))(x, y)
        want = scale * c * np.array([[1, -1], [-1, 1]])
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)
