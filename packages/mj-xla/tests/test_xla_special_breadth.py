"""jit of igamma/igammac, bessel_i0e/i1e and nextafter equals eager (values, dtypes); vmap
and grad compose under jit."""

import numpy as np
import pytest

from mj_autodiff import grad
from mj_batch import vmap
from mj_core import lax as ls
from mj_xla import jit

rng = np.random.default_rng(0)
A = np.exp(rng.uniform(-3, 4.5, 64))
X = np.exp(rng.uniform(-5, 4.8, 64))


@pytest.mark.parametrize("f", [ls.igamma, ls.igammac])
def test_igamma_jit_matches_eager(f):
    np.testing.assert_allclose(np.asarray(jit(f)(A, X)), f(A, X), rtol=1e-11, atol=1e-14)
    out32 = jit(f)(A.astype(np.float32), X.astype(np.float32))
    assert out32.dtype == np.float32
    np.testing.assert_allclose(np.asarray(out32), f(A, X), atol=2e-5)
    edges = (np.array([1.0, 1.0, -1.0, 2.0]), np.array([0.0, np.inf, 1.0, np.nan]))
    np.testing.assert_array_equal(np.asarray(jit(f)(*edges)), f(*edges))


@pytest.mark.parametrize("f", [ls.bessel_i0e, ls.bessel_i1e])
def test_bessel_jit_matches_eager(f):
    x = np.linspace(-40, 40, 801)
    np.testing.assert_allclose(np.asarray(jit(f)(x)), f(x), rtol=1e-14, atol=1e-16)
    np.testing.assert_allclose(np.asarray(jit(vmap(grad(f)))(x[:5])), vmap(grad(f))(x[:5]))


def test_nextafter_jit():
    x, y = np.array([1.0, 0.0, -3.0], np.float32), np.array([0.0, 1.0, -3.0], np.float32)
    out = jit(ls.nextafter)(x, y)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(out), np.nextafter(x, y))
