"""``mj.scipy.linalg.sqrtm`` and ``solve_sylvester`` against JAX's (issues 23, 35). ``sqrtm``
is JAX's algorithm (complex Schur form, triangular root); ``solve_sylvester`` takes another
route (see ``mj/scipy/_matrix_functions.py``): the answers agree to rounding."""

import jax
import numpy as np
import pytest
from jax.scipy import linalg as jlinalg

import mj
from mj.scipy import linalg as mlinalg

pytestmark = pytest.mark.oracle

rng = np.random.default_rng(7)


@pytest.mark.parametrize(
    "a",
    [
        np.array([[1.0, 2, 3], [2, 4, 2], [3, 2, 1]]),  # JAX's docstring example
        np.array([[4.0, 1.0], [0.0, 9.0]]),
        rng.normal(size=(4, 4)),
        np.array([[-1.0, 0.0], [0.0, 4.0]]),
        rng.normal(size=(3, 3)) + 1j * rng.normal(size=(3, 3)),
        np.array([[4.0, 1.0], [0.5, 9.0]], np.float32),
    ],
)
def test_sqrtm(a):
    want = jlinalg.sqrtm(a)
    got = mlinalg.sqrtm(a)
    assert got.dtype == want.dtype
    atol = 1e-4 if a.dtype == np.float32 else 1e-11
    # a real matrix with a negative eigenvalue has no principal root: JAX's (and mj's) side
    # of the branch cut follows the sign of a rounding-level imaginary part of the eigenvalue
    # in the complex Schur form, which the eager NumPy Schur need not share with LAPACK's
    np.testing.assert_allclose(got @ got, a, atol=atol * 10)
    if not (np.isrealobj(a) and (np.linalg.eigvals(a).real < 0).any()):
        np.testing.assert_allclose(got, want, atol=atol)
    np.testing.assert_allclose(mj.jit(mlinalg.sqrtm)(a), jax.jit(jlinalg.sqrtm)(a), atol=atol)


@pytest.mark.parametrize(("m", "n"), [(3, 2), (1, 4), (4, 4)])
@pytest.mark.parametrize("complex_a", [False, True])
def test_solve_sylvester(m, n, complex_a):
    a = rng.normal(size=(m, m)) + 3 * np.eye(m)
    if complex_a:
        a = a + 1j * rng.normal(size=(m, m))
    b = rng.normal(size=(n, n)) + 3 * np.eye(n)
    c = rng.normal(size=(m, n))
    want = jlinalg.solve_sylvester(a, b, c)
    got = mlinalg.solve_sylvester(a, b, c)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, atol=1e-11)
