"""Eager values that are the kernel's to define (mj_xla._kernel_defined_impls): eager equals
``jit`` exactly and equals JAX (whose eager is ``jit``), both dtype modes, also under ``vmap``
and ``grad``, for 64-bit NumPy inputs in 32-bit mode, and for what is built on them (sqrtm,
funm, rsf2csf, solve_sylvester, multigammaln). Before, eager ran mj-core's NumPy rules: a
different complex Schur form (JAX's linalg_test testSchur1/testSchur5), eigenvectors of other
signs (testEig5), float32 lgamma/betainc ~1e-5 relative away (lax_scipy_test
testMultigammaln9, lax_test testOp347)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj

pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(7)


def _matrix(shape, dtype, kind="general"):
    x = RNG.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * RNG.standard_normal(shape)
    x = x.astype(dtype)
    if kind == "hermitian":
        x = (x + np.conj(np.swapaxes(x, -1, -2))) / 2
    return x


def _dtypes(x64, complex_ok=True):
    out = [np.float32] + ([np.float64] if x64 else [])
    if complex_ok:
        out += [np.complex64] + ([np.complex128] if x64 else [])
    return out


def _assert_same(eager, jitted, want, rtol):
    """eager == jit bit for bit, and both == JAX within ``rtol`` of each output's scale
    (a different convention is O(1) away)."""
    for e, j, w in zip(eager, jitted, want, strict=True):
        e, j, w = np.asarray(e), np.asarray(j), np.asarray(w)
        assert e.dtype == j.dtype == w.dtype
        assert e.shape == w.shape
        np.testing.assert_array_equal(e, j)
        scale = max(float(np.max(np.abs(w), initial=0.0)), 1.0)
        np.testing.assert_allclose(e, w, rtol=0, atol=rtol * scale)


LINALG = {
    # name: (mj function, JAX function, input kind)
    "schur": (mj.lax.linalg.schur, jax.lax.linalg.schur, "general"),
    "eig": (mj.lax.linalg.eig, jax.lax.linalg.eig, "general"),
    "eigh": (mj.lax.linalg.eigh, jax.lax.linalg.eigh, "hermitian"),
    "svd": (mj.lax.linalg.svd, jax.lax.linalg.svd, "general"),
    "hessenberg": (mj.lax.linalg.hessenberg, jax.lax.linalg.hessenberg, "general"),
}


@pytest.mark.parametrize("name", sorted(LINALG))
def test_decompositions_eager_equals_jit_and_jax(name, x64):
    mfun, jfun, kind = LINALG[name]
    for dtype in _dtypes(x64):
        for shape in [(6, 6), (3, 9, 9)]:
            a = _matrix(shape, dtype, kind)
            eager = mfun(a)
            jitted = mj.jit(mfun)(a)
            want = jfun(a)
            if not isinstance(want, (tuple, list)):
                eager, jitted, want = [eager], [jitted], [want]
            wide = np.finfo(dtype).bits == 64
            tol = 1e-12 if wide else 1e-5
            if wide and name in ("eigh", "svd", "hessenberg"):
                # 64 bits: mj-core's rule (the same routine, or its port) agrees to rounding
                for e, j, w in zip(eager, jitted, want, strict=True):
                    np.testing.assert_allclose(np.asarray(e), np.asarray(j), rtol=0, atol=1e-12)
                    np.testing.assert_allclose(np.asarray(e), np.asarray(w), rtol=0, atol=1e-12)
                continue
            _assert_same(eager, jitted, want, tol)


def test_complex_schur_is_lapacks(x64):
    # JAX's testSchur1 / testSchur5: complex64 matrices; mj's own QR algorithm gave another
    # (valid) Schur form, entirely different T and Z
    for n in (4, 15):
        a = _matrix((n, n), np.complex64)
        t, z = mj.scipy.linalg.schur(a)
        jt, jz = jax.scipy.linalg.schur(a)
        np.testing.assert_array_equal(
            np.asarray(t), np.asarray(mj.jit(mj.scipy.linalg.schur)(a)[0])
        )
        np.testing.assert_allclose(np.asarray(t), np.asarray(jt), rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(np.asarray(z), np.asarray(jz), rtol=1e-6, atol=1e-6)


def test_eig_eigenvector_signs_are_lapacks(x64):
    # JAX's testEig5: float32, eager eigenvectors had the other sign
    a = _matrix((5, 5), np.float32)
    w, v = mj.numpy.linalg.eig(a)
    jw, jv = jnp.linalg.eig(a)
    np.testing.assert_array_equal(np.asarray(v), np.asarray(mj.jit(mj.numpy.linalg.eig)(a)[1]))
    np.testing.assert_allclose(np.asarray(w), np.asarray(jw), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(np.asarray(v), np.asarray(jv), rtol=1e-6, atol=1e-6)
    # left eigenvectors in float64 too (mj-core derived them from inv(vr): other signs)
    dtype = np.float64 if x64 else np.float32
    b = _matrix((6, 6), dtype)
    got = mj.lax.linalg.eig(b, compute_left_eigenvectors=True)
    want = jax.lax.linalg.eig(b, compute_left_eigenvectors=True)
    _assert_same(got, mj.jit(mj.lax.linalg.eig)(b), want, 1e-5 if dtype == np.float32 else 1e-12)


@pytest.mark.parametrize("name", ["sqrtm", "funm", "rsf2csf", "solve_sylvester"])
def test_schur_based_functions_eager_equal_jit_and_jax(name, x64):
    for dtype in [np.float32, np.complex64]:
        a = _matrix((7, 7), dtype)
        if name == "sqrtm":
            args = [a @ np.conj(a.T) + np.eye(7, dtype=dtype)]
            mfun, jfun = mj.scipy.linalg.sqrtm, jax.scipy.linalg.sqrtm
        elif name == "funm":
            args = [a]
            mfun = lambda x: mj.scipy.linalg.funm(x, mj.numpy.exp)  # noqa: E731
            jfun = lambda x: jax.scipy.linalg.funm(x, jnp.exp)  # noqa: E731
        elif name == "rsf2csf":
            if dtype != np.float32:
                continue
            t, z = (np.asarray(o) for o in jax.scipy.linalg.schur(a))
            args = [t, z]
            mfun, jfun = mj.scipy.linalg.rsf2csf, jax.scipy.linalg.rsf2csf
        else:
            b, c = _matrix((4, 4), dtype), _matrix((7, 4), dtype)
            args = [a + 8 * np.eye(7, dtype=dtype), b, c]
            mfun, jfun = mj.scipy.linalg.solve_sylvester, jax.scipy.linalg.solve_sylvester
        eager, want = np.asarray(mfun(*args)), np.asarray(jfun(*args))
        # the same Schur form: what is left is float32 rounding of the rest (a different
        # form was O(1) away for complex inputs)
        atol = 2e-6 * float(np.max(np.abs(want)))
        np.testing.assert_allclose(eager, np.asarray(mj.jit(mfun)(*args)), rtol=0, atol=atol)
        np.testing.assert_allclose(eager, want, rtol=0, atol=atol)


SPECIAL = {
    "lgamma": (lambda n: [RNG.uniform(-10, 30, n)]),
    "digamma": (lambda n: [RNG.uniform(-10, 30, n)]),
    "erfc": (lambda n: [RNG.uniform(-4, 9, n)]),
    "betainc": (lambda n: [RNG.uniform(0.1, 10, n), RNG.uniform(0.1, 10, n), RNG.uniform(0, 1, n)]),
}


@pytest.mark.parametrize("name", sorted(SPECIAL))
def test_special_functions_eager_equal_jit_and_jax(name, x64):
    mfun, jfun = getattr(mj.lax, name), getattr(jax.lax, name)
    for dtype in [np.float32] + ([np.float64] if x64 else []):
        args = [x.astype(dtype) for x in SPECIAL[name](600)]
        eager, jitted, want = (np.asarray(f(*args)) for f in (mfun, mj.jit(mfun), jfun))
        assert eager.dtype == want.dtype == np.dtype(dtype)
        if dtype == np.float32:  # XLA's float32 algorithm: bit for bit
            np.testing.assert_array_equal(eager, jitted)
            np.testing.assert_array_equal(eager, want)
        else:  # float64: mj-core's rule, within 1e-11 relative of XLA's
            np.testing.assert_allclose(eager, want, rtol=1e-11, atol=1e-300)
            np.testing.assert_allclose(jitted, want, rtol=1e-11, atol=1e-300)


def test_multigammaln_and_betainc_float32_cases(x64):
    # JAX's testMultigammaln9 (a sum of lgammas that cancels to 0.00555: relative 2e-4 off)
    # and testOp347 (betainc, float32, 1e-5 relative off)
    a = RNG.uniform(2.0, 6.0, (3, 4)).astype(np.float32)
    for d in (1, 2, 3):
        got = mj.scipy.special.multigammaln(a, d)
        want = jax.scipy.special.multigammaln(a, d)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    x, y, z = (RNG.uniform(0.1, 5, (2, 3, 4)).astype(np.float32) for _ in range(3))
    z = z / 5
    got = mj.lax.betainc(x, y, z)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(mj.jit(mj.lax.betainc)(x, y, z)))
    np.testing.assert_array_equal(np.asarray(got), np.asarray(jax.lax.betainc(x, y, z)))


def test_under_vmap_and_grad(x64):
    a = _matrix((4, 5, 5), np.complex64)
    eager = mj.vmap(mj.lax.linalg.schur)(a)
    _assert_same(
        eager, mj.jit(mj.vmap(mj.lax.linalg.schur))(a), jax.vmap(jax.lax.linalg.schur)(a), 1e-5
    )
    s = _matrix((5, 5), np.float32, "hermitian")

    def mloss(x):
        v, w = mj.lax.linalg.eigh(x)
        return (v[0] * w).sum()

    def jloss(x):
        v, w = jax.lax.linalg.eigh(x)
        return (v[0] * w).sum()

    got = np.asarray(mj.grad(mloss)(s))
    np.testing.assert_allclose(got, np.asarray(mj.jit(mj.grad(mloss))(s)), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got, np.asarray(jax.grad(jloss)(s)), rtol=1e-5, atol=1e-5)
    v = RNG.uniform(0.5, 5, (3, 4)).astype(np.float32)
    fn = lambda t: (mj.lax.lgamma(t) * mj.lax.digamma(t)).sum()  # noqa: E731
    jfn = lambda t: (jax.lax.lgamma(t) * jax.lax.digamma(t)).sum()  # noqa: E731
    got = np.asarray(mj.vmap(mj.grad(fn))(v))
    np.testing.assert_allclose(got, np.asarray(jax.vmap(jax.grad(jfn))(v)), rtol=1e-6)


def test_64_bit_numpy_inputs(x64):
    # 32-bit mode: a float64 NumPy operand (and a Python float) is float32, XLA's value
    x = RNG.uniform(0.2, 8, 50)
    got, want = mj.lax.lgamma(x), jax.lax.lgamma(x)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    if x64:
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12)
    else:
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    got, want = mj.lax.lgamma(1.7), jax.lax.lgamma(1.7)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12 if x64 else 0)
    b = _matrix((5, 5), np.complex128)
    got, want = mj.lax.linalg.schur(b), jax.lax.linalg.schur(b)
    tol = 1e-12 if x64 else 1e-5
    for g, w in zip(got, want, strict=True):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=0, atol=tol * 10)
