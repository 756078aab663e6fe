"""Complex linear algebra and ``eig`` against jax 0.10.2, for complex64 and complex128 inputs:
values and dtypes (eigenvectors through phase-invariant functions of them), gradients of real
losses and holomorphic gradients, eigenvector JVPs under ``enable_eigvec_derivs``, and the
Autodiff Cookbook's complex Cholesky example."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

jax.config.update("jax_enable_x64", True)

pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(29)
Z = RNG.normal(size=(2, 3, 3)) + 1j * RNG.normal(size=(2, 3, 3)) + 3 * np.eye(3)
BZ = RNG.normal(size=(2, 3, 2)) + 1j * RNG.normal(size=(2, 3, 2))
REAL = RNG.normal(size=(2, 3, 3))
DTYPES = [np.complex64, np.complex128]


def _cases(np_, la):
    def herm(x):
        return x @ np_.conj(np_.swapaxes(x, -1, -2))

    return {
        "cholesky": lambda x: la.cholesky(herm(x)),
        "cholesky_upper": lambda x: la.cholesky(herm(x), upper=True),
        "solve": lambda x: la.solve(x, BZ.astype(x.dtype)),
        "inv": la.inv,
        "det": la.det,
        "slogdet": lambda x: tuple(la.slogdet(x)),
        "eigvalsh": lambda x: la.eigvalsh(herm(x)),
        "eigh_vectors_abs": lambda x: np_.abs(la.eigh(herm(x))[1]),
        "svd_values": lambda x: la.svd(x, compute_uv=False),
        "svd_vectors_abs": lambda x: np_.abs(la.svd(x)[0]),
        "qr": lambda x: tuple(la.qr(x)),
        "pinv": la.pinv,
        "eigvals": lambda x: np_.sort_complex(la.eigvals(x)),
        "eig_vectors_abs": lambda x: np_.abs(la.eig(x)[1]),
    }


MJ = _cases(mnp, mnp.linalg)
JAX = _cases(jnp, jnp.linalg)


def _tuple(x):
    return x if isinstance(x, tuple) else (x,)


def _tol(dtype):
    return {"rtol": 2e-4, "atol": 2e-4} if dtype == np.complex64 else {"rtol": 1e-9, "atol": 1e-10}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(MJ))
def test_values_and_dtypes(name, dtype):
    x = Z.astype(dtype)
    theirs = _tuple(JAX[name](x))
    for ours in (_tuple(MJ[name](x)), _tuple(mj.jit(MJ[name])(x))):
        for o, t in zip(ours, theirs, strict=True):
            assert np.asarray(o).dtype == np.asarray(t).dtype
            np.testing.assert_allclose(np.asarray(o), np.asarray(t), **_tol(dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_eig_of_real_matrices_is_complex(dtype):
    x = REAL.astype(dtype)
    ours, theirs = mnp.linalg.eigvals(x), jnp.linalg.eigvals(x)
    assert ours.dtype == theirs.dtype
    tol = {"atol": 1e-4} if dtype == np.float32 else {"atol": 1e-10}
    np.testing.assert_allclose(np.sort_complex(ours), np.sort_complex(theirs), **tol)
    w, v = mj.jit(mnp.linalg.eig)(x)
    jw, jv = jnp.linalg.eig(x)
    np.testing.assert_allclose(np.asarray(w), np.asarray(jw), **tol)
    np.testing.assert_allclose(np.abs(np.asarray(v)), np.abs(np.asarray(jv)), **tol)


GRAD_NAMES = sorted(set(MJ) - {"slogdet", "qr", "cholesky_upper", "eig_vectors_abs"})


def test_numpy_eig_vectors_are_not_differentiable_in_either():
    for np_, la, grad in ((mnp, mnp.linalg, mj.grad), (jnp, jnp.linalg, jax.grad)):
        with pytest.raises(NotImplementedError, match="enable_eigvec_derivs"):
            grad(lambda x, np_=np_, la=la: np_.sum(np_.abs(la.eig(x)[1])))(Z[0])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", GRAD_NAMES)
def test_grads_of_real_losses(name, dtype):
    def loss(cases, np_):
        def f(x):
            out = cases[name](x)
            weights = np_.sin(np_.arange(1.0, 1.0 + out.size)).reshape(out.shape)
            return np_.sum(np_.real(out) * weights + np_.imag(out) * weights**2)

        return f

    x = Z[0].astype(dtype)
    ours = mj.grad(loss(MJ, mnp))(x)
    theirs = jax.grad(loss(JAX, jnp))(x)
    assert ours.dtype == theirs.dtype
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), **_tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["det", "inv", "solve", "eigvals", "qr_r"])
def test_holomorphic_grads(name, dtype):
    def make(np_, la):
        fns = {
            "det": la.det,
            "inv": lambda x: np_.sum(la.inv(x)),
            "solve": lambda x: np_.sum(la.solve(x, BZ[0].astype(x.dtype))),
            "eigvals": lambda x: np_.sum(la.eigvals(x) ** 2),
            "qr_r": lambda x: np_.sum(la.qr(x)[1]),
        }
        return fns[name]

    x = Z[0].astype(dtype)
    ours = mj.grad(make(mnp, mnp.linalg), holomorphic=True)(x)
    theirs = jax.grad(make(jnp, jnp.linalg), holomorphic=True)(x)
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), **_tol(dtype))


@pytest.mark.parametrize("dtype", [np.float64, np.complex64, np.complex128])
def test_eigenvector_jvps(dtype):
    x = (REAL[0] if np.dtype(dtype).kind == "f" else Z[0]).astype(dtype)
    t = (RNG.normal(size=x.shape) * (1 + 0.5j if np.dtype(dtype).kind == "c" else 1)).astype(dtype)

    def f(lax_linalg):
        return lambda a: tuple(lax_linalg.eig(a, enable_eigvec_derivs=True))

    # under jit mj calls the same LAPACK geev as JAX, so even the eigenvectors' signs agree
    ours = mj.jit(lambda a, da: mj.jvp(f(mj.lax.linalg), (a,), (da,)))(x, t)
    theirs = jax.jvp(f(jax.lax.linalg), (x,), (t,))
    tol = _tol(np.result_type(dtype, np.complex64))
    leaves = zip(jax.tree_util.tree_leaves(ours), jax.tree_util.tree_leaves(theirs), strict=True)
    for o, th in leaves:
        assert np.asarray(o).dtype == np.asarray(th).dtype
        np.testing.assert_allclose(np.asarray(o), np.asarray(th), **tol)


def test_cookbook_complex_cholesky_grad():
    a = np.array([[5.0, 2.0 + 3j, 5j], [2.0 - 3j, 7.0, 1.0 + 7j], [-5j, 1.0 - 7j, 12.0]])

    def make(np_):
        def f(x):
            low = np_.linalg.cholesky(x)
            return np_.sum((low - np_.sin(low)) ** 2)

        return f

    for x in (a, a.astype(np.complex64)):
        ours = mj.grad(make(mnp), holomorphic=True)(x)
        theirs = jax.grad(make(jnp), holomorphic=True)(x)
        assert ours.dtype == theirs.dtype
        np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), **_tol(x.dtype))
