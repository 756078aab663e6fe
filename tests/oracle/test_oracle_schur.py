"""``lax.linalg.schur`` and ``mj.scipy.linalg.schur``/``sqrtm``/``funm`` against JAX (issue 35).

A Schur form is unique only up to the order of its eigenvalues and a phase per Schur vector,
so ``schur`` is checked by what JAX's answer satisfies too (``Z T Z^H = A``, ``Z`` unitary,
``T`` triangular or quasi-triangular with JAX's dtype), and by equality with JAX's where both
call LAPACK's ``gees`` (under ``jit``); ``sqrtm`` and ``funm`` are unique, so they are
compared with JAX's directly."""

import jax
import numpy as np
import pytest
from jax import lax as jlax
from jax.scipy import linalg as jlinalg

import mj
from mj import lax
from mj.scipy import linalg as mlinalg

pytestmark = pytest.mark.oracle

rng = np.random.default_rng(35)
DTYPES = [np.float32, np.float64, np.complex64, np.complex128]


def _matrix(shape, dtype):
    a = rng.normal(size=shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.normal(size=shape)
    return a.astype(dtype)


def _check_schur(a, t, z, want_dtype):
    t, z = np.asarray(t), np.asarray(z)
    assert t.dtype == z.dtype == want_dtype
    tol = 1e-4 if want_dtype in (np.float32, np.complex64) else 1e-11
    zh = np.conj(np.swapaxes(z, -1, -2))
    np.testing.assert_allclose(z @ t @ zh, a, atol=tol * max(1, a.shape[-1]))
    np.testing.assert_allclose(z @ zh, np.broadcast_to(np.eye(a.shape[-1]), a.shape), atol=tol)
    if t.dtype.kind == "c":
        assert not np.tril(t, -1).any()
    else:  # quasi-triangular: 2x2 blocks, never two consecutive subdiagonal entries
        assert not np.tril(t, -2).any()
        sub = np.diagonal(t, -1, -2, -1)
        assert not (sub[..., 1:] * sub[..., :-1]).any()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (5, 5), (12, 12), (3, 4, 4)])
def test_lax_schur(x64, dtype, shape):
    a = _matrix(shape, dtype)
    want_t, _ = jlax.linalg.schur(a)
    t, z = lax.linalg.schur(a)
    _check_schur(np.asarray(a, want_t.dtype), t, z, want_t.dtype)
    jt, jz = mj.jit(lax.linalg.schur)(a)  # both are LAPACK's gees now
    _check_schur(np.asarray(a, want_t.dtype), jt, jz, want_t.dtype)
    tol = 1e-4 if want_t.dtype in (np.float32, np.complex64) else 1e-10
    np.testing.assert_allclose(jt, jax.jit(jlax.linalg.schur)(a)[0], atol=tol)
    np.testing.assert_allclose(jz, jax.jit(jlax.linalg.schur)(a)[1], atol=tol)
    (t_only,) = lax.linalg.schur(a, compute_schur_vectors=False)
    np.testing.assert_allclose(np.diagonal(t_only, 0, -2, -1), np.diagonal(t, 0, -2, -1))
    vt, vz = mj.vmap(lax.linalg.schur)(a.reshape(-1, *shape[-2:]))
    _check_schur(np.asarray(a, want_t.dtype).reshape(vt.shape), vt, vz, want_t.dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("output", ["real", "complex"])
def test_scipy_schur(x64, dtype, output):
    a = _matrix((6, 6), dtype)
    want_t, _ = jlinalg.schur(a, output=output)
    for fn in (mlinalg.schur, mj.jit(mlinalg.schur, static_argnames="output")):
        t, z = fn(a, output=output)
        _check_schur(np.asarray(a, want_t.dtype), t, z, want_t.dtype)


SQRTM_CASES = {
    "singular_diag": np.diag([0.0, 4.0, 0.0]),
    "singular_diag6": np.diag([0.0, 0.0, 9.0, 0.0, 0.0, 4.0]),
    "diag": np.diag([1.0, 4.0, 9.0]),
    "spd": (lambda b: b @ b.T)(rng.normal(size=(6, 6))),
    "general": rng.normal(size=(5, 5)),
    "complex": rng.normal(size=(4, 4)) + 1j * rng.normal(size=(4, 4)),
    "zeros": np.zeros((3, 3)),
}


@pytest.mark.parametrize("name", sorted(SQRTM_CASES))
@pytest.mark.parametrize("single", [False, True])
def test_sqrtm(x64, name, single):
    a = SQRTM_CASES[name]
    if single:
        a = a.astype(np.complex64 if a.dtype.kind == "c" else np.float32)
    want = jlinalg.sqrtm(a)
    tol = 1e-4 if want.dtype == np.complex64 else 1e-10
    for got in (mlinalg.sqrtm(a), mj.jit(mlinalg.sqrtm)(a)):
        assert got.dtype == want.dtype
        assert np.isfinite(np.asarray(got)).all()
        np.testing.assert_allclose(got, want, atol=tol * max(1, np.abs(want).max()))


@pytest.mark.parametrize("name", ["general", "spd", "complex", "diag"])
@pytest.mark.parametrize("disp", [True, False])
def test_funm(x64, name, disp):
    a = SQRTM_CASES[name]
    want = jlinalg.funm(a, jax.numpy.sin, disp=disp)
    got = mlinalg.funm(a, mj.numpy.sin, disp=disp)
    if not disp:
        (want, want_err), (got, got_err) = want, got
        np.testing.assert_allclose(got_err, want_err, rtol=1e-3)
    assert got.dtype == want.dtype
    tol = 1e-4 if want.dtype == np.complex64 else 1e-10
    np.testing.assert_allclose(got, want, atol=tol * max(1, np.abs(want).max()))


def _raises(fn, *args, **kw):
    with pytest.raises((TypeError, ValueError, NotImplementedError)) as info:
        fn(*args, **kw)
    return info


@pytest.mark.parametrize(
    ("args", "kw"),
    [
        ((np.ones((2, 3), np.float32),), {}),
        ((np.eye(3, dtype=np.int32),), {}),
        ((np.ones(3, np.float32),), {}),
        ((np.eye(3, dtype=np.float32),), {"sort_eig_vals": True}),
    ],
    ids=["not_square", "int", "rank1", "sort"],
)
def test_schur_errors(args, kw):
    want = _raises(jlax.linalg.schur, *args, **kw)
    got = _raises(lax.linalg.schur, *args, **kw)
    assert type(got.value) is type(want.value) or isinstance(got.value, type(want.value))
    assert str(got.value).startswith(str(want.value))
    if kw:  # under jit too (JAX raises when lowering)
        got = _raises(mj.jit(lambda x: lax.linalg.schur(x, **kw)), *args)
        assert str(want.value) in str(got.value)


def test_scipy_schur_and_sqrtm_errors():
    want = _raises(jlinalg.schur, np.eye(2), output="bad")
    got = _raises(mlinalg.schur, np.eye(2), output="bad")
    assert type(got.value) is type(want.value)
    assert str(got.value).startswith(str(want.value))
    want = _raises(jlinalg.sqrtm, np.eye(2), blocksize=2)
    got = _raises(mlinalg.sqrtm, np.eye(2), blocksize=2)
    assert type(got.value) is type(want.value)
    for fn in (jlinalg.funm, mlinalg.funm):
        with pytest.raises(ValueError, match="expected square array_like input"):
            fn(np.ones((2, 3)), np.sin)
    with pytest.raises(NotImplementedError, match="Differentiation rule for 'schur'"):
        mj.grad(lambda a: lax.linalg.schur(a)[0].sum())(np.eye(2))
