"""``mj.numpy.linalg`` on complex matrices and ``eig``/``eigvals``, across the layers: NumPy
references, jit equals eager, gradients against finite differences, and both dtype modes
(complex128 with x64, complex64 in the default 32-bit mode), with the Autodiff Cookbook's
complex Cholesky example."""

import numpy as np
import pytest

import mj
import mj.numpy as mnp

L = mnp.linalg
RNG = np.random.default_rng(23)
Z = RNG.normal(size=(3, 3)) + 1j * RNG.normal(size=(3, 3)) + 3 * np.eye(3)
HPD = Z @ Z.conj().T + np.eye(3)
BZ = RNG.normal(size=(3, 2)) + 1j * RNG.normal(size=(3, 2))

VALUE_CASES = {
    "det": (L.det, np.linalg.det),
    "slogdet_sign": (lambda a: L.slogdet(a).sign, lambda a: np.linalg.slogdet(a)[0]),
    "slogdet_logabsdet": (lambda a: L.slogdet(a).logabsdet, lambda a: np.linalg.slogdet(a)[1]),
    "inv": (L.inv, np.linalg.inv),
    "solve": (lambda a: L.solve(a, BZ), lambda a: np.linalg.solve(a, BZ)),
    "solve_vector": (lambda a: L.solve(a, BZ[:, 0]), lambda a: np.linalg.solve(a, BZ[:, 0])),
    "pinv": (L.pinv, np.linalg.pinv),
    "cholesky": (
        lambda a: L.cholesky(a @ a.conj().T),
        lambda a: np.linalg.cholesky(a @ a.conj().T),
    ),
    "cholesky_upper": (
        lambda a: L.cholesky(a @ a.conj().T, upper=True),
        lambda a: np.linalg.cholesky(a @ a.conj().T, upper=True),
    ),
    "eigvalsh": (
        lambda a: L.eigvalsh(a @ a.conj().T),
        lambda a: np.linalg.eigvalsh(a @ a.conj().T),
    ),
    "svd_values": (
        lambda a: L.svd(a, compute_uv=False),
        lambda a: np.linalg.svd(a, compute_uv=False),
    ),
    "qr_r_abs": (lambda a: mnp.abs(L.qr(a).R), lambda a: np.abs(np.linalg.qr(a).R)),
    "eigvals_sorted": (
        lambda a: mnp.sort_complex(L.eigvals(a)),
        lambda a: np.sort_complex(np.linalg.eigvals(a)),
    ),
}


@pytest.mark.parametrize("name", sorted(VALUE_CASES))
def test_values_match_numpy_and_jit(name):
    ours, ref = VALUE_CASES[name]
    expected = ref(Z)
    got = ours(Z)
    assert np.asarray(got).dtype == np.asarray(expected).dtype
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.asarray(mj.jit(ours)(Z)), expected, rtol=1e-10, atol=1e-12)


def test_eig_returns_complex_eigenpairs():
    x = RNG.normal(size=(2, 4, 4))
    for a in (x, x + 1j * RNG.normal(size=x.shape)):
        w, v = L.eig(a)
        assert w.dtype == v.dtype == np.complex128
        w, v = np.asarray(w), np.asarray(v)
        np.testing.assert_allclose(a @ v, v * w[..., None, :], atol=1e-10)
        np.testing.assert_allclose(np.asarray(L.eigvals(a)), w, atol=1e-12)
        np.testing.assert_allclose(np.asarray(mj.jit(L.eigvals)(a)), w, atol=1e-10)
    assert isinstance(L.eig(x), L.EigResult)


GRAD_CASES = {  # real-valued losses of complex matrices: grad is the conjugate-gradient
    "det": lambda a: mnp.abs(L.det(a)) ** 2,
    "slogdet": lambda a: L.slogdet(a).logabsdet,
    "inv": lambda a: mnp.sum(mnp.real(L.inv(a)) * mnp.imag(a)),
    "solve": lambda a: mnp.sum(mnp.abs(L.solve(a, BZ)) ** 2),
    "cholesky": lambda a: mnp.sum(mnp.real(L.cholesky(a @ a.conj().T))),
    "eigh": lambda a: mnp.sum(L.eigvalsh(a @ a.conj().T) * mnp.arange(3.0)),
    "svd": lambda a: mnp.sum(L.svd(a, compute_uv=False) * mnp.arange(3.0)),
    "qr": lambda a: mnp.sum(mnp.abs(L.qr(a).R) ** 2 * mnp.arange(3.0)),
    "eigvals": lambda a: mnp.sum(mnp.real(L.eigvals(a)) * mnp.imag(L.eigvals(a))),
}


def _fd_grad(f, x, eps=1e-6):
    """``d f / d re - i d f / d im`` per entry: JAX's gradient of a real function of complex x."""
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        for step, weight in ((1.0, 1.0), (1j, -1j)):
            dx = np.zeros_like(x)
            dx[idx] = eps * step
            g[idx] += weight * (float(f(x + dx)) - float(f(x - dx))) / (2 * eps)
    return g


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_grads_match_finite_differences_and_jit(name):
    f = GRAD_CASES[name]
    g = np.asarray(mj.grad(f)(Z))
    np.testing.assert_allclose(g, _fd_grad(f, Z), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(mj.jit(mj.grad(f))(Z)), g, rtol=1e-9, atol=1e-10)


def test_holomorphic_det_grad_is_the_cofactor_matrix():
    g = np.asarray(mj.grad(L.det, holomorphic=True)(Z))
    np.testing.assert_allclose(g, np.linalg.det(Z) * np.linalg.inv(Z).T, rtol=1e-10)


def test_vmap_of_complex_solve_and_eigvals():
    a = np.stack([Z, Z.T, HPD])
    np.testing.assert_allclose(
        np.asarray(mj.vmap(L.inv)(a)), np.linalg.inv(a), rtol=1e-10, atol=1e-12
    )
    w = np.asarray(mj.vmap(L.eigvals)(a))
    np.testing.assert_allclose(
        np.sort_complex(w), np.sort_complex(np.linalg.eigvals(a)), atol=1e-10
    )


def test_lstsq_solves_complex_systems_as_numpy():
    x, _, rank, sv = L.lstsq(Z, BZ)
    wx, _, wrank, wsv = np.linalg.lstsq(np.asarray(Z), np.asarray(BZ), rcond=None)
    np.testing.assert_allclose(np.asarray(x), wx, rtol=1e-4, atol=1e-5)
    assert int(rank) == wrank
    np.testing.assert_allclose(np.asarray(sv), wsv, rtol=1e-4)


# The Autodiff Cookbook's example: A is Hermitian positive definite (the seed's text lost the
# minus signs of its conjugate entries).
COOKBOOK_A = np.array([[5.0, 2.0 + 3j, 5j], [2.0 - 3j, 7.0, 1.0 + 7j], [-5j, 1.0 - 7j, 12.0]])


def _cookbook_f(x):
    low = L.cholesky(x)
    return mnp.sum((low - mnp.sin(low)) ** 2)


def _cookbook_reference(a):
    """JAX's ``grad(holomorphic=True)`` of the example by central differences. ``f`` reads
    ``(x + x^H) / 2``, so it is not holomorphic: with ``df = A dz + B conj(dz)`` JAX's
    convention gives ``A + conj(B)``, and real and imaginary steps measure ``A + B`` and
    ``i (A - B)``."""

    def f(x):
        low = np.linalg.cholesky((x + x.conj().T) / 2)
        return np.sum((low - np.sin(low)) ** 2)

    g = np.zeros_like(a)
    for idx in np.ndindex(a.shape):
        dx = np.zeros_like(a)
        dx[idx] = 1e-6
        d_re = (f(a + dx) - f(a - dx)) / 2e-6
        d_im = (f(a + 1j * dx) - f(a - 1j * dx)) / 2e-6
        g[idx] = (d_re - 1j * d_im) / 2 + np.conj((d_re + 1j * d_im) / 2)
    return g


def test_cookbook_complex_cholesky_grad_x64():
    g = np.asarray(mj.grad(_cookbook_f, holomorphic=True)(COOKBOOK_A))
    assert g.dtype == np.complex128
    np.testing.assert_allclose(g, _cookbook_reference(COOKBOOK_A), rtol=1e-6, atol=1e-6)


@pytest.mark.x32
def test_cookbook_complex_cholesky_grad_in_32_bit_mode():
    g = mj.grad(_cookbook_f, holomorphic=True)(COOKBOOK_A)
    assert g.dtype == np.complex64
    ref = _cookbook_reference(COOKBOOK_A)
    np.testing.assert_allclose(np.asarray(g), ref, rtol=2e-4, atol=2e-4)
    np.testing.assert_allclose(
        np.asarray(mj.jit(mj.grad(_cookbook_f, holomorphic=True))(COOKBOOK_A)),
        ref,
        rtol=2e-4,
        atol=2e-4,
    )


@pytest.mark.x32
def test_eig_in_32_bit_mode_is_complex64():
    w, v = L.eig(Z)
    assert w.dtype == v.dtype == np.complex64
    np.testing.assert_allclose(Z @ np.asarray(v), np.asarray(v) * np.asarray(w), atol=1e-4)
    w, v = mj.jit(L.eig)(Z.real.astype(np.float32))
    assert w.dtype == v.dtype == np.complex64
    x = Z.real.astype(np.complex128)
    np.testing.assert_allclose(x @ np.asarray(v), np.asarray(v) * np.asarray(w), atol=1e-4)
    assert L.det(Z).dtype == np.complex64
