"""Derivatives of igamma/igammac (w.r.t. x), bessel_i0e/i1e against central differences;
igamma w.r.t. a and nextafter raise clear errors."""

import numpy as np
import pytest

from mj_autodiff import grad, jvp
from mj_core import lax as ls


def _fd(f, x, eps=1e-6):
    return (f(x + eps) - f(x - eps)) / (2 * eps)


@pytest.mark.parametrize("x", [-12.0, -2.5, -0.4, 0.3, 1.7, 8.2, 30.0])
def test_bessel_derivatives(x):
    for f in (ls.bessel_i0e, ls.bessel_i1e):
        np.testing.assert_allclose(grad(f)(x), _fd(f, x), rtol=1e-7)
    assert grad(ls.bessel_i1e)(0.0) == 0.5


@pytest.mark.parametrize(("a", "x"), [(0.5, 0.2), (2.5, 1.3), (7.0, 9.0), (30.0, 25.0)])
def test_igamma_derivative_in_x(a, x):
    for f in (ls.igamma, ls.igammac):

        def g(x, f=f):
            return f(a, x)

        np.testing.assert_allclose(grad(g)(x), _fd(g, x), rtol=1e-6)
    _, t = jvp(lambda x: ls.igamma(a, x), (x,), (1.0,))
    _, tc = jvp(lambda x: ls.igammac(a, x), (x,), (1.0,))
    np.testing.assert_allclose(t, -tc)


def test_igamma_is_differentiable_in_a_by_finite_differences():
    """``d igamma(a, x) / d a`` is the ``igamma_grad_a`` primitive (JAX's); igammac's is its
    negative. Checked in float64 against central differences."""
    for a, x in [(2.0, 1.0), (0.7, 3.0), (5.0, 4.5)]:
        h = 1e-6
        fd = (float(ls.igamma(a + h, x)) - float(ls.igamma(a - h, x))) / (2 * h)
        g = float(grad(lambda a_, x=x: ls.igamma(a_, x))(np.float64(a)))
        gc = float(grad(lambda a_, x=x: ls.igammac(a_, x))(np.float64(a)))
        assert g == pytest.approx(fd, rel=1e-5)
        assert gc == pytest.approx(-fd, rel=1e-5)


def test_unsupported_derivatives_raise():
    with pytest.raises(NotImplementedError, match="nextafter"):
        grad(lambda x: ls.nextafter(x, 2.0))(1.0)
    with pytest.raises(NotImplementedError, match="'igamma_grad_a' not implemented"):
        grad(lambda a: ls.igamma_grad_a(a, 1.0))(2.0)
