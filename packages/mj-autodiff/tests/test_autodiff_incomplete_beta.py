"""Derivative of betainc with respect to x (the beta density) against central differences;
a tangent on a or b raises like JAX (ValueError, also a NotImplementedError)."""

import math

import numpy as np
import pytest

from mj_autodiff import grad, jvp
from mj_core import lax as ls


@pytest.mark.parametrize(("a", "b", "x"), [(2.0, 3.0, 0.3), (0.5, 0.7, 0.05), (12.0, 4.0, 0.8)])
def test_x_derivative(a, b, x):
    def f(t):
        return ls.betainc(a, b, t)

    eps = 1e-6
    fd = (f(x + eps) - f(x - eps)) / (2 * eps)
    np.testing.assert_allclose(grad(f)(x), fd, rtol=1e-7)
    density = (
        x ** (a - 1)
        * (1 - x) ** (b - 1)
        / math.exp(math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b))
    )
    _, tangent = jvp(f, (x,), (2.0,))
    np.testing.assert_allclose(tangent, 2.0 * density, rtol=1e-12)


def test_broadcast_x_tangent():
    x = np.array([0.1, 0.5, 0.9])
    _, tangent = jvp(lambda t: ls.betainc(np.array([[1.0], [2.0]]), 1.0, t), (x,), (np.ones(3),))
    np.testing.assert_allclose(tangent, [np.ones(3), 2 * x], rtol=1e-12)


@pytest.mark.parametrize("argnum", [0, 1])
def test_shape_parameters_raise(argnum):
    args = [2.0, 3.0, 0.4]

    def f(v):
        full = list(args)
        full[argnum] = v
        return ls.betainc(*full)

    with pytest.raises(ValueError, match="with respect to a and b"):
        grad(f)(args[argnum])
    with pytest.raises(NotImplementedError, match="betainc"):
        jvp(f, (args[argnum],), (1.0,))
