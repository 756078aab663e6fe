"""Eager impl rules of the linear-algebra primitives on complex operands, and ``eig``: NumPy
references and the defining identities (``L L^H = A``, ``A v = v w``, ``vl^H A = w vl^H``),
real outputs where JAX has them, LAPACK's pivoting and eigenvector normalisation."""

import numpy as np
import pytest

from mj_core import lax_linalg as la

RNG = np.random.default_rng(11)
Z = RNG.normal(size=(2, 4, 4)) + 1j * RNG.normal(size=(2, 4, 4))
HPD = Z @ np.conj(np.swapaxes(Z, -1, -2)) + 4 * np.eye(4)
REAL = RNG.normal(size=(3, 4, 4))


def _h(x):
    return np.conj(np.swapaxes(x, -1, -2))


def test_cholesky_of_hermitian_reconstructs():
    low = np.asarray(la.cholesky(HPD))
    assert low.dtype == np.complex128
    np.testing.assert_allclose(low @ _h(low), HPD, atol=1e-12)
    np.testing.assert_allclose(low, np.linalg.cholesky(HPD), atol=1e-12)
    assert (np.triu(low, 1) == 0).all()


def test_cholesky_reads_the_hermitian_part():
    skewed = HPD + 1j * np.swapaxes(np.tril(RNG.normal(size=(4, 4)), -1), -1, -2)
    hermitian = (skewed + _h(skewed)) / 2
    np.testing.assert_allclose(la.cholesky(skewed), np.linalg.cholesky(hermitian), atol=1e-12)


@pytest.mark.parametrize("left_side", [True, False])
@pytest.mark.parametrize("transpose_a", [True, False])
@pytest.mark.parametrize("conjugate_a", [True, False])
def test_triangular_solve_conjugates(left_side, transpose_a, conjugate_a):
    a = Z[0] + 4 * np.eye(4)
    b = RNG.normal(size=(4, 2) if left_side else (2, 4)) * (1 + 2j)
    x = np.asarray(
        la.triangular_solve(
            a, b, left_side=left_side, lower=True, transpose_a=transpose_a, conjugate_a=conjugate_a
        )
    )
    op = np.tril(a)
    op = np.conj(op) if conjugate_a else op
    op = op.T if transpose_a else op
    np.testing.assert_allclose(op @ x if left_side else x @ op, b, atol=1e-12)


def test_lu_pivots_like_lapack_for_complex():
    # |re| + |im| (LAPACK's icamax) picks row 1 (1 + 1 = 2 > 1.9); |z| would pick row 0
    a = np.array([[1.9 + 0j, 1.0], [1.0 + 1.0j, 2.0]])
    lu, pivots, perm = (np.asarray(t) for t in la.lu(a))
    assert pivots.tolist() == [1, 1]
    assert perm.tolist() == [1, 0]
    low = np.tril(lu, -1) + np.eye(2)
    np.testing.assert_allclose(low @ np.triu(lu), a[perm], atol=1e-15)


def test_eigh_of_hermitian_has_real_eigenvalues():
    v, w = (np.asarray(t) for t in la.eigh(HPD))
    assert w.dtype == np.float64
    assert v.dtype == np.complex128
    np.testing.assert_allclose(w, np.linalg.eigvalsh(HPD), atol=1e-12)
    np.testing.assert_allclose(HPD @ v, v * w[..., None, :], atol=1e-11)


def test_svd_of_complex_has_real_singular_values():
    u, s, vt = (np.asarray(t) for t in la.svd(Z[:, :, :3], full_matrices=False))
    assert s.dtype == np.float64
    assert u.dtype == np.complex128
    np.testing.assert_allclose(s, np.linalg.svd(Z[:, :, :3], compute_uv=False), atol=1e-12)
    np.testing.assert_allclose((u * s[..., None, :]) @ vt, Z[:, :, :3], atol=1e-12)
    assert la.svd(Z, compute_uv=False).dtype == np.float64


def test_qr_of_complex_is_unitary_times_upper():
    q, r = (np.asarray(t) for t in la.qr(Z[:, :, :3]))
    assert q.shape == (2, 4, 4)
    assert r.shape == (2, 4, 3)
    np.testing.assert_allclose(_h(q) @ q, np.broadcast_to(np.eye(4), q.shape), atol=1e-12)
    np.testing.assert_allclose(q @ r, Z[:, :, :3], atol=1e-12)
    assert (np.tril(r, -1) == 0).all()


@pytest.mark.parametrize("x", [Z, REAL], ids=["complex", "real"])
def test_eig_left_and_right_eigenvectors(x):
    w, vl, vr = (np.asarray(t) for t in la.eig(x))
    assert w.dtype == vl.dtype == vr.dtype == np.complex128
    assert w.shape == x.shape[:-1]
    assert vr.shape == vl.shape == x.shape
    np.testing.assert_allclose(
        np.sort_complex(w), np.sort_complex(np.linalg.eigvals(x)), atol=1e-10
    )
    np.testing.assert_allclose(x @ vr, vr * w[..., None, :], atol=1e-10)
    np.testing.assert_allclose(_h(vl) @ x, w[..., :, None] * _h(vl), atol=1e-10)
    for v in (vl, vr):  # geev's normalisation: unit norm, largest-modulus entry real
        np.testing.assert_allclose(np.linalg.norm(v, axis=-2), 1, atol=1e-12)
        top = np.take_along_axis(v, np.argmax(np.abs(v), axis=-2)[..., None, :], axis=-2)
        np.testing.assert_allclose(top.imag, 0, atol=1e-12)


def test_eig_flags_choose_the_outputs():
    both = la.eig(Z)
    only_w = la.eig(Z, compute_left_eigenvectors=False, compute_right_eigenvectors=False)
    only_vr = la.eig(Z, compute_left_eigenvectors=False)
    only_vl = la.eig(Z, compute_right_eigenvectors=False)
    assert [len(both), len(only_w), len(only_vr), len(only_vl)] == [3, 1, 2, 2]
    np.testing.assert_array_equal(only_vr[1], both[2])
    np.testing.assert_array_equal(only_vl[1], both[1])


def test_eig_of_float32_is_complex64():
    w, vr = la.eig(REAL.astype(np.float32), compute_left_eigenvectors=False)
    assert w.dtype == vr.dtype == np.complex64


def test_eig_of_non_finite_matrix_is_nan_only_there():
    x = np.stack([np.array([[1.0, np.nan], [0.0, 1.0]]), np.array([[2.0, 1.0], [0.0, 3.0]])])
    outs = [np.asarray(t) for t in la.eig(x)]
    assert all(np.isnan(t[0]).all() for t in outs)
    assert all(np.isfinite(t[1]).all() for t in outs)
    np.testing.assert_allclose(np.sort(outs[0][1].real), [2.0, 3.0])


def test_complex_inputs_errors_name_the_function():
    with pytest.raises(ValueError, match="eig: expected square matrices"):
        la.eig(np.ones((2, 3), complex))
    with pytest.raises(TypeError, match="eig: expected a float32, float64, complex64 or"):
        la.eig(np.eye(3, dtype=np.int32))
