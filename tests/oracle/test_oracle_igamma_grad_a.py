"""``lax.igamma_grad_a`` and the derivatives of ``igamma``/``igammac`` (``gammainc``,
``gammaincc``) in ``a`` against JAX: eager, jit and vmap, both dtype modes."""

import jax
import numpy as np
import pytest

import mj

VALS = [0.0, 1e-30, 1e-3, 0.1, 0.5, 1.0, 1.5, 2.0, 5.0, 10.0, 30.0, 100.0, np.inf, np.nan, -1.0]
A, X = (g.ravel() for g in np.meshgrid(np.array(VALS), np.array(VALS)))


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_igamma_grad_a_as_jax(jit, x64):
    dtype = np.float64 if x64 else np.float32
    a, x = A.astype(dtype), X.astype(dtype)
    want = np.asarray(jax.lax.igamma_grad_a(a, x))
    fun = mj.jit(mj.lax.igamma_grad_a) if jit else mj.lax.igamma_grad_a
    got = np.asarray(fun(a, x))
    assert got.dtype == want.dtype
    # mj computes in float64 and rounds; JAX computes float32 in float32 (a=1e-30, x=30:
    # JAX -0.0, the true value and mj -3.02e-15)
    rtol, atol = (1e-10, 1e-300) if x64 else (2e-4, 1e-12)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", ["gammainc", "gammaincc"])
def test_incomplete_gamma_grads_in_a_as_jax(name, x64):
    a = np.array([0.3, 0.5, 1.0, 2.5, 3.0, 7.0])
    x = np.array([0.2, 5.0, 1.0, 2.0, 9.0, 6.5])
    jfn, mfn = getattr(jax.scipy.special, name), getattr(mj.scipy.special, name)
    want = jax.vmap(jax.grad(jfn, argnums=(0, 1)))(a, x)
    got = mj.vmap(mj.grad(mfn, argnums=(0, 1)))(a, x)
    got_jit = mj.jit(mj.vmap(mj.grad(mfn, argnums=(0, 1))))(a, x)
    rtol = 1e-9 if x64 else 1e-5
    for g, gj, w in zip(got, got_jit, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol)
        np.testing.assert_allclose(np.asarray(gj), np.asarray(w), rtol=rtol)
    tangent = jax.jvp(lambda v: jfn(v, x), (a,), (np.ones_like(a),))[1]
    mj_tangent = mj.jvp(lambda v: mfn(v, x), (a,), (np.ones_like(a),))[1]
    np.testing.assert_allclose(np.asarray(mj_tangent), np.asarray(tangent), rtol=rtol)
