"""Eager impl rules of the linear-algebra primitives: NumPy references and reconstruction
identities, batch axes, NaNs for failed factorisations, and input errors."""

import numpy as np
import pytest

from mj_core import lax_linalg as la

RNG = np.random.default_rng(0)
A = RNG.normal(size=(2, 3, 4, 4))
SPD = A @ np.swapaxes(A, -1, -2) + 4 * np.eye(4)


def test_cholesky_reconstructs_and_matches_numpy():
    low = la.cholesky(SPD)
    np.testing.assert_allclose(low @ np.swapaxes(low, -1, -2), SPD, atol=1e-12)
    np.testing.assert_allclose(low, np.linalg.cholesky(SPD), atol=1e-12)
    assert low.dtype == np.float64
    assert low.shape == SPD.shape


def test_cholesky_of_indefinite_matrix_is_nan_only_there():
    batch = np.stack([SPD[0, 0], -SPD[0, 1]])
    low = la.cholesky(batch)
    assert np.isfinite(low[0]).all()
    assert np.isnan(low[1][np.tril_indices(4)]).all()
    assert (np.triu(low[1], 1) == 0).all()


@pytest.mark.parametrize("left_side", [True, False])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("transpose_a", [True, False])
@pytest.mark.parametrize("unit_diagonal", [True, False])
def test_triangular_solve_solves(left_side, lower, transpose_a, unit_diagonal):
    a = A[0, 0] + 4 * np.eye(4)  # the other triangle is ignored
    b = RNG.normal(size=(4, 2) if left_side else (2, 4))
    x = la.triangular_solve(
        a,
        b,
        left_side=left_side,
        lower=lower,
        transpose_a=transpose_a,
        unit_diagonal=unit_diagonal,
    )
    t = np.tril(a) if lower else np.triu(a)
    if unit_diagonal:
        t = t - np.diag(np.diag(t)) + np.eye(4)
    op = np.swapaxes(t, -1, -2) if transpose_a else t
    np.testing.assert_allclose(op @ x if left_side else x @ op, b, atol=1e-12)


@pytest.mark.parametrize("shape", [(4, 4), (2, 5, 3), (3, 2, 5)])
def test_lu_reconstructs_with_lapack_pivots(shape):
    a = RNG.normal(size=shape)
    lu, pivots, perm = la.lu(a)
    m, n = shape[-2:]
    k = min(m, n)
    low = np.tril(lu[..., :, :k], -1) + np.eye(m, k)
    up = np.triu(lu[..., :k, :])
    np.testing.assert_allclose(np.take_along_axis(a, perm[..., None], -2), low @ up, atol=1e-12)
    assert pivots.dtype == perm.dtype == np.int32
    assert pivots.shape == (*shape[:-2], k)
    # the permutation is the pivots' row swaps applied to iota, in order
    for idx in np.ndindex(*shape[:-2]):
        expected = np.arange(m)
        for i, p in enumerate(pivots[idx]):
            expected[[i, p]] = expected[[p, i]]
        np.testing.assert_array_equal(perm[idx], expected)
    assert (np.abs(low) <= 1 + 1e-12).all()  # partial pivoting: |L| <= 1


def test_eigh_svd_qr_identities():
    v, w = la.eigh(SPD)
    np.testing.assert_allclose(SPD @ v, v * w[..., None, :], atol=1e-10)
    np.testing.assert_allclose(w, np.linalg.eigvalsh(SPD), atol=1e-10)
    x = A[..., :3]
    u, s, vt = la.svd(x, full_matrices=False)
    np.testing.assert_allclose((u * s[..., None, :]) @ vt, x, atol=1e-12)
    assert la.svd(x).__len__() == 3
    assert la.svd(x)[0].shape == (2, 3, 4, 4)
    np.testing.assert_allclose(la.svd(x, compute_uv=False), s, atol=1e-12)
    q, r = la.qr(x, full_matrices=False)
    np.testing.assert_allclose(q @ r, x, atol=1e-12)
    assert (np.tril(r, -1) == 0).all()
    assert q.shape == (2, 3, 4, 3)
    assert la.qr(x)[0].shape == (2, 3, 4, 4)


def test_float32_stays_float32():
    assert la.cholesky(SPD.astype(np.float32)).dtype == np.float32
    assert la.lu(A.astype(np.float32))[0].dtype == np.float32


def test_bad_inputs_name_the_function():
    with pytest.raises(
        TypeError, match="cholesky: expected a float32, float64, complex64 or complex128"
    ):
        la.cholesky(np.eye(3, dtype=np.int64))
    with pytest.raises(ValueError, match="lu: expected an array of rank >= 2"):
        la.lu(np.ones(3))
    with pytest.raises(ValueError, match="eigh: expected square matrices"):
        la.eigh(np.ones((2, 3)))
    with pytest.raises(TypeError, match="triangular_solve: a's size must match"):
        la.triangular_solve(np.eye(3), np.ones((4, 2)), left_side=True)
