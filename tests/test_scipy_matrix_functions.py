"""``mj.scipy.linalg.sqrtm`` and ``solve_sylvester`` against SciPy (issues 23, 35)."""

import numpy as np
import pytest
import scipy.linalg

import mj
from mj.scipy import linalg as mlinalg

rng = np.random.default_rng(23)

MATRICES = {
    "symmetric_with_a_negative_eigenvalue": np.array([[1.0, 2, 3], [2, 4, 2], [3, 2, 1]]),
    "triangular": np.array([[4.0, 1.0], [0.0, 9.0]]),
    "general": rng.normal(size=(4, 4)),
    "well_conditioned": rng.normal(size=(5, 5)) + 5 * np.eye(5),
    "negative_diagonal": np.array([[-1.0, 0.0], [0.0, 4.0]]),
    "rotation": np.array([[0.0, 1.0], [-1.0, 0.0]]),
    "complex": rng.normal(size=(3, 3)) + 1j * rng.normal(size=(3, 3)),
}


@pytest.mark.usefixtures("on_cpu")  # schur: the CPU's only, as in JAX
@pytest.mark.parametrize("name", sorted(MATRICES))
def test_sqrtm_is_scipys_principal_root(name):
    a = MATRICES[name]
    x = np.asarray(mlinalg.sqrtm(a))
    assert x.dtype == np.complex128
    np.testing.assert_allclose(x @ x, a, atol=1e-12)
    np.testing.assert_allclose(x, scipy.linalg.sqrtm(a), atol=1e-12)
    np.testing.assert_allclose(mj.jit(mlinalg.sqrtm)(a), x, atol=1e-12)


def test_sqrtm_single_precision_batching_and_no_gradient():
    a = MATRICES["triangular"]
    assert mlinalg.sqrtm(a.astype(np.float32)).dtype == np.complex64
    batch = np.stack([a, 2 * a, a.T])
    got = mj.vmap(mlinalg.sqrtm)(batch)
    for g, m in zip(got, batch, strict=True):
        np.testing.assert_allclose(g, scipy.linalg.sqrtm(m), atol=1e-12)
    # computed from a Schur decomposition, as JAX's, which has no derivative there either
    with pytest.raises(NotImplementedError, match="Differentiation rule for 'schur'"):
        mj.grad(lambda m: mlinalg.sqrtm(m).real.sum())(a)


@pytest.mark.usefixtures("on_cpu")  # schur: the CPU's only, as in JAX
@pytest.mark.parametrize("diag", [[0.0, 4.0, 0.0], [0.0, 0.0, 0.0, 9.0], [1.0, 0.0, 0.0]])
def test_sqrtm_of_a_singular_diagonal_matrix(diag):
    """Issue 35: the root of a singular diagonal matrix is the root of its diagonal."""
    a = np.diag(diag)
    for x in (mlinalg.sqrtm(a), mj.jit(mlinalg.sqrtm)(a)):
        np.testing.assert_allclose(x, np.diag(np.sqrt(diag)), atol=1e-12)


def test_sqrtm_wants_a_square_matrix():
    with pytest.raises(ValueError, match="square matrix"):
        mlinalg.sqrtm(np.ones((2, 3)))


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
@pytest.mark.parametrize(("m", "n"), [(3, 2), (1, 4), (4, 4)])
def test_solve_sylvester_matches_scipy(dtype, m, n):
    a = rng.normal(size=(m, m)) + 3 * np.eye(m)
    b = rng.normal(size=(n, n)) + 3 * np.eye(n)
    c = rng.normal(size=(m, n))
    if dtype == np.complex128:
        a = a + 1j * rng.normal(size=(m, m))
    x = np.asarray(mlinalg.solve_sylvester(a, b, c))
    np.testing.assert_allclose(a @ x + x @ b, c, atol=1e-12)
    # SciPy's own answer is wrong for a complex A with a real B: it gets them in one dtype
    want = scipy.linalg.solve_sylvester(a, b.astype(a.dtype), c.astype(a.dtype))
    np.testing.assert_allclose(x, want, atol=1e-12)
    np.testing.assert_allclose(mlinalg.solve_sylvester(a, b, c, method="eigen"), x, atol=1e-12)


def test_solve_sylvester_batches_and_differentiates():
    a = rng.normal(size=(2, 3, 3)) + 3 * np.eye(3)
    b = rng.normal(size=(2, 2)) + 3 * np.eye(2)
    c = rng.normal(size=(2, 3, 2))
    x = mlinalg.solve_sylvester(a, b, c)
    for k in range(2):
        np.testing.assert_allclose(x[k], scipy.linalg.solve_sylvester(a[k], b, c[k]), atol=1e-12)
    np.testing.assert_allclose(mj.jit(mlinalg.solve_sylvester)(a, b, c), x, atol=1e-12)
    # X is linear in C: the gradient of sum(X) is the solution of the adjoint equation
    g = mj.grad(lambda cc: mlinalg.solve_sylvester(a[0], b, cc).sum())(c[0])
    want = scipy.linalg.solve_sylvester(a[0].T, b.T, np.ones((3, 2)))
    np.testing.assert_allclose(g, want, atol=1e-12)


def test_solve_sylvester_errors():
    with pytest.raises(ValueError, match="Unrecognized method"):
        mlinalg.solve_sylvester(np.eye(2), np.eye(2), np.eye(2), method="qr")
    with pytest.raises(ValueError, match="Incompatible shapes for Sylvester equation"):
        mlinalg.solve_sylvester(np.eye(2), np.eye(3), np.ones((2, 2)))
