"""betainc under jit (XLA's decomposition around a stablehlo.while) agrees with the eager
continued fraction: values, edges, float32, vmap and grad."""

import numpy as np

from mj_autodiff import grad
from mj_batch import vmap
from mj_core import lax as ls
from mj_xla import jit

rng = np.random.default_rng(3)
A, B, X = rng.uniform(0.05, 60, 400), rng.uniform(0.05, 60, 400), rng.uniform(0, 1, 400)


def test_jit_matches_eager_float64():
    out = jit(ls.betainc)(A, B, X)
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, ls.betainc(A, B, X), rtol=1e-11, atol=1e-13)


def test_jit_float32():
    a, b, x = (v.astype(np.float32) for v in (A, B, X))
    out = jit(ls.betainc)(a, b, x)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, ls.betainc(a, b, x), atol=1e-4)


def test_jit_edges_and_broadcasting():
    a = np.array([0.0, 1.0, 2.0, -1.0, np.inf, 1.0, 0.0, 2.0, 2.0, 3.0])
    b = np.array([1.0, 0.0, np.inf, 1.0, 1.0, np.nan, 0.0, 3.0, 3.0, 3.0])
    for x in (0.0, 0.3, 0.5, 1.0):
        np.testing.assert_allclose(jit(ls.betainc)(a, b, x), ls.betainc(a, b, x), rtol=1e-14)
    assert jit(ls.betainc)(np.ones((2, 1)), np.ones(3), 0.25).shape == (2, 3)


def test_jit_vmap_and_grad():
    f = jit(vmap(grad(lambda x, a: ls.betainc(a, 2.0, x))))
    x, a = np.array([0.2, 0.5, 0.7]), np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(f(x, a), a * (a + 1) * x ** (a - 1) * (1 - x), rtol=1e-12)
    text = jit(ls.betainc).lower(2.0, 3.0, 0.4).as_text()
    assert "stablehlo.while" in text
