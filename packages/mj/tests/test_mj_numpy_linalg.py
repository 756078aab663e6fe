"""mj.numpy.linalg and mj.scipy.linalg against NumPy/SciPy-free references: values vs
np.linalg, gradients vs central finite differences, and eager == jit == vmap-of-loop."""

import numpy as np
import pytest

import mj
import mj.numpy as mnp
import mj.scipy.linalg as msl

RNG = np.random.default_rng(4)
A = RNG.normal(size=(3, 4, 4))
B = RNG.normal(size=(3, 4, 2))
SPD = A @ np.swapaxes(A, -1, -2) + 4 * np.eye(4)
L = mnp.linalg

VALUE_CASES = {
    "solve": (lambda: L.solve(A, B), lambda: np.linalg.solve(A, B)),
    "solve_vector": (lambda: L.solve(A[0], B[0, :, 0]), lambda: np.linalg.solve(A[0], B[0, :, 0])),
    "inv": (lambda: L.inv(A), lambda: np.linalg.inv(A)),
    "det": (lambda: L.det(A), lambda: np.linalg.det(A)),
    "slogdet": (lambda: tuple(L.slogdet(A)), lambda: tuple(np.linalg.slogdet(A))),
    "cholesky": (lambda: L.cholesky(SPD), lambda: np.linalg.cholesky(SPD)),
    "cholesky_upper": (
        lambda: L.cholesky(SPD, upper=True),
        lambda: np.linalg.cholesky(SPD, upper=True),
    ),
    "eigvalsh": (lambda: L.eigvalsh(SPD), lambda: np.linalg.eigvalsh(SPD)),
    "svd_values": (lambda: L.svd(A, compute_uv=False), lambda: np.linalg.svd(A, compute_uv=False)),
    "qr_r": (lambda: L.qr(A[:, :, :3], mode="r"), lambda: np.linalg.qr(A[:, :, :3], mode="r")),
    "pinv": (lambda: L.pinv(A[:, :, :3]), lambda: np.linalg.pinv(A[:, :, :3])),
    "lstsq": (lambda: L.lstsq(A[0, :, :3], B[0])[0], lambda: np.linalg.lstsq(A[0, :, :3], B[0])[0]),
    "norm_2": (lambda: L.norm(A[0], 2), lambda: np.linalg.norm(A[0], 2)),
    "norm_nuc": (
        lambda: L.norm(A, "nuc", axis=(1, 2)),
        lambda: np.linalg.norm(A, "nuc", axis=(1, 2)),
    ),
    "matrix_power_neg": (
        lambda: L.matrix_power(A[0], -3),
        lambda: np.linalg.matrix_power(A[0], -3),
    ),
    "scipy_cho_solve": (
        lambda: msl.cho_solve(msl.cho_factor(SPD[0]), B[0]),
        lambda: np.linalg.solve(SPD[0], B[0]),
    ),
    "scipy_lu_solve": (lambda: msl.lu_solve(msl.lu_factor(A), B), lambda: np.linalg.solve(A, B)),
    "scipy_lu_solve_t": (
        lambda: msl.lu_solve(msl.lu_factor(A[0]), B[0], trans=1),
        lambda: np.linalg.solve(A[0].T, B[0]),
    ),
    "scipy_solve_triangular": (
        lambda: msl.solve_triangular(A[0], B[0, :, 0], lower=True),
        lambda: np.linalg.solve(np.tril(A[0]), B[0, :, 0]),
    ),
    "scipy_cholesky_upper": (lambda: msl.cholesky(SPD[0]), lambda: np.linalg.cholesky(SPD[0]).T),
}


@pytest.mark.parametrize("name", sorted(VALUE_CASES))
def test_values_match_numpy(name):
    ours, ref = VALUE_CASES[name]
    got, want = ours(), ref()
    for g, w in zip(
        np.atleast_1d(got) if not isinstance(got, tuple) else got,
        np.atleast_1d(want) if not isinstance(want, tuple) else want,
        strict=True,
    ):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-9, atol=1e-10)


def test_decompositions_reconstruct():
    w, v = L.eigh(SPD)
    np.testing.assert_allclose(SPD @ v, v * w[..., None, :], atol=1e-10)
    u, s, vh = L.svd(A[:, :, :3], full_matrices=False)
    np.testing.assert_allclose((u * s[..., None, :]) @ vh, A[:, :, :3], atol=1e-12)
    q, r = L.qr(A[:, :, :3])
    np.testing.assert_allclose(q @ r, A[:, :, :3], atol=1e-12)


def _fd_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for idx in np.ndindex(*x.shape):
        e = np.zeros_like(x)
        e[idx] = eps
        g[idx] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


W = RNG.normal(size=(4, 4))
GRAD_CASES = {
    "det": lambda x: L.det(x),
    "slogdet": lambda x: L.slogdet(x).logabsdet,
    "inv": lambda x: mnp.sum(L.inv(x) * W),
    "solve": lambda x: mnp.sum(L.solve(x, B[0]) * B[1]),
    "cholesky": lambda x: mnp.sum(L.cholesky(x @ x.T + 4 * mnp.eye(4)) * W),
    "eigh": lambda x: mnp.sum(L.eigh(x + x.T).eigenvectors ** 2 * W),
    "svd": lambda x: mnp.sum(L.svd(x, compute_uv=False) * mnp.arange(4.0)),
    "qr": lambda x: mnp.sum(L.qr(x).R * W),
    "pinv": lambda x: mnp.sum(L.pinv(x) * W),
    "scipy_lu_solve": lambda x: mnp.sum(msl.lu_solve(msl.lu_factor(x), B[0]) * B[1]),
    "scipy_solve_triangular": lambda x: mnp.sum(msl.solve_triangular(x, B[0], lower=True)),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_grads_match_finite_differences_and_jit(name):
    f = GRAD_CASES[name]
    x = A[0] + 3 * np.eye(4)
    g = mj.grad(f)(x)
    np.testing.assert_allclose(g, _fd_grad(f, x), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(mj.jit(mj.grad(f))(x)), g, rtol=1e-9, atol=1e-12)


def test_vmap_and_jit_agree_with_eager():
    f = lambda a, b: (L.solve(a, b), L.det(a), L.inv(a))  # noqa: E731
    eager = f(A, B)
    for other in (mj.jit(f)(A, B), mj.vmap(f)(A, B)):
        for e, o in zip(eager, other, strict=True):
            assert np.asarray(o).dtype == np.asarray(e).dtype
            np.testing.assert_allclose(np.asarray(o), e, rtol=1e-10, atol=1e-12)


def test_errors_name_the_function():
    with pytest.raises(
        TypeError, match="det: expected a float32, float64, complex64 or complex128"
    ):
        L.det(np.eye(3, dtype=np.int32))
    with pytest.raises(ValueError, match="inv: expected square matrices"):
        L.inv(np.ones((2, 3)))
    with pytest.raises(ValueError, match="Unsupported QR decomposition mode 'bogus'"):
        L.qr(np.eye(2), mode="bogus")
    with pytest.raises(ValueError, match="Invalid 'trans' value 3"):
        msl.solve_triangular(np.eye(2), np.ones(2), trans=3)


def test_lstsq_residuals_keep_their_axis_for_a_vector_b():
    """JAX's (and NumPy's) residuals are ``(1,)`` for a 1-D ``b``, ``(k,)`` for ``k`` columns."""
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((5, 3)), rng.standard_normal(5)
    x, resid, _, _ = L.lstsq(a, b)
    want = np.linalg.lstsq(a, b)
    assert np.shape(x) == (3,)
    assert np.shape(resid) == (1,)
    np.testing.assert_allclose(resid, want[1], rtol=1e-10)
    _, resid2, _, _ = L.lstsq(a, np.stack([b, 2 * b], 1))
    np.testing.assert_allclose(resid2, [want[1][0], 4 * want[1][0]], rtol=1e-10)
