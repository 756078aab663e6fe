"""mj.numpy.linalg / mj.scipy.linalg against jax.numpy.linalg / jax.scipy.linalg 0.10.2 (x64):
values, dtypes and gradients (eigenvector signs normalised by differentiating sign-invariant
functions of them)."""

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np
import pytest

import mj
import mj.numpy as mnp
import mj.scipy.linalg as msl

jax.config.update("jax_enable_x64", True)

pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(5)
A = RNG.normal(size=(2, 4, 4)) + 3 * np.eye(4)
B = RNG.normal(size=(2, 4, 3))
W = RNG.normal(size=(4, 4))
SPD = A @ np.swapaxes(A, -1, -2) + np.eye(4)


def _cases(np_, la, sla):
    return {
        "cholesky": lambda x: la.cholesky(x @ np_.swapaxes(x, -1, -2) + np_.eye(4)),
        "solve": lambda x: la.solve(x, B),
        "inv": la.inv,
        "det": la.det,
        "slogdet": lambda x: tuple(la.slogdet(x)),
        "eigvalsh": lambda x: la.eigvalsh(x + np_.swapaxes(x, -1, -2)),
        "eigh_vectors_sq": lambda x: la.eigh(x + np_.swapaxes(x, -1, -2))[1] ** 2,
        "svd_values": lambda x: la.svd(x, compute_uv=False),
        "qr": lambda x: tuple(la.qr(x)),
        "pinv": la.pinv,
        "lu_factor": lambda x: tuple(sla.lu_factor(x)),
        "lu_solve": lambda x: sla.lu_solve(sla.lu_factor(x), B),
        "cho_solve": lambda x: sla.cho_solve(
            sla.cho_factor(x @ np_.swapaxes(x, -1, -2) + np_.eye(4)), B
        ),
        "solve_triangular": lambda x: sla.solve_triangular(x, B, lower=True, trans=1),
    }


MJ = _cases(mnp, mnp.linalg, msl)
JAX = _cases(jnp, jnp.linalg, jsl)


@pytest.mark.parametrize("name", sorted(MJ))
def test_values_and_dtypes(name):
    ours, theirs = MJ[name](A), JAX[name](A)
    ours = ours if isinstance(ours, tuple) else (ours,)
    theirs = theirs if isinstance(theirs, tuple) else (theirs,)
    for o, t in zip(ours, theirs, strict=True):
        assert np.asarray(o).dtype == np.asarray(t).dtype
        assert np.shape(o) == np.shape(t)
        np.testing.assert_allclose(np.asarray(o), np.asarray(t), rtol=1e-9, atol=1e-10)
    jitted = mj.jit(MJ[name])(A)
    jitted = jitted if isinstance(jitted, tuple) else (jitted,)
    for o, t in zip(jitted, theirs, strict=True):
        np.testing.assert_allclose(np.asarray(o), np.asarray(t), rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize(
    "name",
    [
        n
        for n in sorted(MJ)
        if n
        not in ("slogdet", "qr", "lu_factor", "solve", "lu_solve", "cho_solve", "solve_triangular")
    ],
)
def test_grads(name):
    def loss(cases, np_):
        return lambda x: np_.sum(
            cases[name](x)
            * np_.arange(1.0, 1.0 + np.size(cases[name](A[0]))).reshape(np.shape(cases[name](A[0])))
        )

    x = A[0]
    ours = mj.grad(loss(MJ, mnp))(x)
    theirs = jax.grad(loss(JAX, jnp))(x)
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("which", ["solve", "lu_solve", "slogdet", "qr_r", "solve_triangular"])
def test_grads_of_solves(which):
    def make(np_, la, sla):
        fns = {
            "solve": lambda x: la.solve(x, B[0]),
            "lu_solve": lambda x: sla.lu_solve(sla.lu_factor(x), B[0]),
            "slogdet": lambda x: la.slogdet(x)[1],
            "qr_r": lambda x: la.qr(x)[1],
            "solve_triangular": lambda x: sla.solve_triangular(x, B[0], lower=True),
        }
        return lambda x: np_.sum(
            fns[which](x)
            * np_.sin(np_.arange(np.size(fns[which](A[0])) * 1.0)).reshape(
                np.shape(fns[which](A[0]))
            )
        )

    ours = mj.grad(make(mnp, mnp.linalg, msl))(A[0])
    theirs = jax.grad(make(jnp, jnp.linalg, jsl))(A[0])
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-8, atol=1e-10)
