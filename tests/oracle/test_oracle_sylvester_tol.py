"""``scipy.linalg.solve_sylvester``'s ``tol``, against JAX: where an eigenvalue of ``A`` and
one of ``B`` sum to within ``tol`` of zero (the equation has no unique solution) the result
is a matrix of NaNs, per matrix of a batch (mj once ignored ``tol`` and returned a
meaningless finite solution: JAX's test_ill_conditioned_sylvester)."""

import jax.scipy.linalg as jsl
import numpy as np
import pytest

import mj
import mj.scipy.linalg as msl

pytestmark = pytest.mark.oracle


def _ill_conditioned(dtype, n=4, seed=0):
    rng = np.random.default_rng(seed)
    ev = rng.normal(size=n).astype(dtype)
    p = rng.normal(size=(n, n)).astype(dtype) + 3 * np.eye(n, dtype=dtype)
    p_inv = np.linalg.inv(p)
    return p @ np.diag(ev) @ p_inv, p @ np.diag(-ev) @ p_inv, rng.normal(size=(n, n)).astype(dtype)


def _well_conditioned(dtype, n=4, seed=1):
    rng = np.random.default_rng(seed)
    a, b, c = (rng.normal(size=(n, n)).astype(dtype) for _ in range(3))
    return a + 4 * np.eye(n, dtype=dtype), b + 4 * np.eye(n, dtype=dtype), c


@pytest.mark.parametrize("method", ["schur", "eigen"])
@pytest.mark.parametrize("dtype", [np.float32, np.complex64, np.float64])
def test_no_unique_solution_is_nans_as_in_jax(dtype, method, x64):
    """(float64 operands in 32-bit mode: both narrow them to float32 first.)"""
    a, b, c = _ill_conditioned(dtype)
    want = np.asarray(jsl.solve_sylvester(a, b, c, method=method, tol=1e-5))
    assert np.isnan(want).all()
    eager = msl.solve_sylvester(a, b, c, method=method, tol=1e-5)
    jitted = mj.jit(lambda *m: msl.solve_sylvester(*m, method=method, tol=1e-5))(a, b, c)
    for got in (eager, jitted):
        assert np.asarray(got).dtype == want.dtype
        assert np.isnan(np.asarray(got)).all()


def test_a_batch_marks_only_its_unsolvable_matrices(x64):
    (a1, b1, c), (a2, b2, _) = _ill_conditioned(np.float32), _well_conditioned(np.float32)
    a, b = np.stack([a1, a2]), np.stack([b1, b2])
    want = np.asarray(jsl.solve_sylvester(a, b, c, tol=1e-5))
    got = np.asarray(msl.solve_sylvester(a, b, c, tol=1e-5))
    np.testing.assert_array_equal(np.isnan(got).all(axis=(1, 2)), [True, False])
    np.testing.assert_array_equal(np.isnan(want).all(axis=(1, 2)), [True, False])
    np.testing.assert_allclose(got[1], want[1], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(a2 @ got[1] + got[1] @ b2, c, rtol=1e-4, atol=1e-4)


def test_the_tolerance_leaves_a_solvable_system_and_its_gradient_alone(x64):
    a, b, c = _well_conditioned(np.float64 if x64 else np.float32)
    x = np.asarray(msl.solve_sylvester(a, b, c))
    np.testing.assert_allclose(x, np.asarray(jsl.solve_sylvester(a, b, c)), rtol=1e-4, atol=1e-5)
    # (JAX cannot differentiate it: no schur rule, eig vectors need opting in)
    g = np.asarray(mj.grad(lambda m: msl.solve_sylvester(m, b, c).sum())(a))
    eps = 1e-3 if not x64 else 1e-6
    e = np.zeros_like(a)
    e[1, 2] = eps
    fd = (msl.solve_sylvester(a + e, b, c).sum() - msl.solve_sylvester(a - e, b, c).sum()) / (
        2 * eps
    )
    np.testing.assert_allclose(g[1, 2], float(fd), rtol=2e-2 if not x64 else 1e-6)


@pytest.mark.parametrize("method", ["schur", "eigen"])
@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
@pytest.mark.parametrize("shape", [(2, 3), (50, 7), (60, 70)])
def test_solutions_are_jaxs_bartels_stewart_and_large_ones_are_fast(shape, dtype, method, x64):
    """JAX's algorithms (Schur forms and back substitution, or eigendecompositions): a
    60 x 70 system once meant mj's (m n)^2 = 4200^2 Kronecker solve (JAX's 100 x 110
    test_solve_sylvester timed out); now it is seconds."""
    import time

    m, n = shape
    rng = np.random.default_rng(7)

    def draw(*s):
        x = rng.normal(size=s)
        if np.dtype(dtype).kind == "c":
            x = x + 1j * rng.normal(size=s)
        return x.astype(dtype)

    a, b, x_true = draw(m, m), draw(n, n), draw(m, n)
    c = a @ x_true + x_true @ b
    want = np.asarray(jsl.solve_sylvester(a, b, c, method=method))
    start = time.perf_counter()
    got = np.asarray(msl.solve_sylvester(a, b, c, method=method))
    assert time.perf_counter() - start < 60
    jitted = np.asarray(mj.jit(lambda *v: msl.solve_sylvester(*v, method=method))(a, b, c))
    scale = np.abs(want).max()
    for g in (got, jitted):
        assert g.dtype == want.dtype
        assert g.shape == want.shape
        assert np.abs(g - want).max() / scale < 5e-2  # JAX's own test tolerance (float32)
        np.testing.assert_allclose(a @ g + g @ b, c, atol=5e-2 * np.abs(c).max())
