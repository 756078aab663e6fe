"""``lax.linalg.hessenberg``, ``householder_product`` and ``tridiagonal`` (LAPACK's ``gehrd``,
``orgqr``/``ungqr``, ``sytrd``/``hetrd``) and the ``scipy.linalg`` functions built on them or
on ``qr``/``expm`` (``hessenberg``, ``qr_multiply``, ``expm_frechet``) against JAX: values
eager and under jit, batches and vmap, JAX's errors (no derivatives, shapes), both dtype
modes."""

import jax
import jax.scipy.linalg as jsl
import numpy as np
import pytest

import mj
import mj.scipy.linalg as msl


def _dtypes(x64):
    return [np.float64, np.complex128] if x64 else [np.float32, np.complex64]


def _draw(rs, shape, dtype):
    x = rs.randn(*shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rs.randn(*shape)
    return x.astype(dtype)


def _close(got, want, dtype, loose=1.0):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype
    assert got.shape == want.shape
    tol = (1e-12 if np.finfo(dtype).bits == 64 else 2e-5) * loose
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def _both(name, *args, **params):
    """mj's ``lax.linalg.<name>`` eagerly and under jit, and JAX's."""
    fun = getattr(mj.lax.linalg, name)
    want = getattr(jax.lax.linalg, name)(*args, **params)
    eager = fun(*args, **params)
    jitted = mj.jit(lambda *xs: fun(*xs, **params))(*args)
    return eager, jitted, want


def _flat(x):
    return list(x) if isinstance(x, (tuple, list)) else [x]


SHAPES = [(1, 1), (2, 2), (2, 3, 3), (7, 7)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_hessenberg_as_jax(shape, x64):
    rs = np.random.RandomState(0)
    for dtype in _dtypes(x64):
        a = _draw(rs, shape, dtype)
        eager, jitted, want = _both("hessenberg", a)
        for got in (eager, jitted):
            for g, w in zip(_flat(got), _flat(want), strict=True):
                _close(g, w, dtype)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("lower", [True, False])
def test_tridiagonal_as_jax(shape, lower, x64):
    rs = np.random.RandomState(1)
    for dtype in _dtypes(x64):
        a = _draw(rs, shape, dtype)  # the other triangle is left as it is
        eager, jitted, want = _both("tridiagonal", a, lower=lower)
        for got in (eager, jitted):
            for g, w in zip(_flat(got), _flat(want), strict=True):
                _close(g, w, dtype)


@pytest.mark.parametrize(("shape", "k"), [((1, 1), 1), ((4, 4), 2), ((2, 5, 3), 3), ((6, 2), 0)])
def test_householder_product_as_jax(shape, k, x64):
    rs = np.random.RandomState(2)
    for dtype in _dtypes(x64):
        a = _draw(rs, shape, dtype)
        taus = _draw(rs, (*shape[:-2], k), dtype)
        eager, jitted, want = _both("householder_product", a, taus)
        _close(eager, want, dtype, loose=10)
        _close(jitted, want, dtype)


def test_householder_product_of_qr_reflectors_is_q(x64):
    """The reflectors of a QR factorisation (via hessenberg's) multiply out to an orthogonal
    matrix; mj's agrees with JAX's."""
    rs = np.random.RandomState(3)
    for dtype in _dtypes(x64):
        a = _draw(rs, (5, 5), dtype)
        h, taus = mj.lax.linalg.hessenberg(a)
        q = np.asarray(mj.lax.linalg.householder_product(h[1:, :-1], taus))
        _close(q.conj().T @ q, np.eye(4, dtype=dtype), dtype, loose=10)


def test_vmap_as_jax():
    rs = np.random.RandomState(4)
    a = _draw(rs, (3, 4, 4), np.float32)
    taus = _draw(rs, (3, 2), np.float32)
    for name, args, params, axes in [
        ("hessenberg", (a,), {}, 0),
        ("tridiagonal", (a,), {"lower": False}, 0),
        ("householder_product", (a, taus), {}, 0),
        ("householder_product", (a, taus[0]), {}, (0, None)),
    ]:

        def mj_f(*xs, name=name, params=params):
            return getattr(mj.lax.linalg, name)(*xs, **params)

        def jax_f(*xs, name=name, params=params):
            return getattr(jax.lax.linalg, name)(*xs, **params)

        got = mj.vmap(mj_f, in_axes=axes)(*args)
        want = jax.vmap(jax_f, in_axes=axes)(*args)
        for g, w in zip(_flat(got), _flat(want), strict=True):
            _close(g, w, np.float32)


def test_errors_as_jax():
    f32 = np.ones((3, 3), np.float32)
    for name, args in [
        ("hessenberg", (f32,)),
        ("tridiagonal", (f32,)),
        ("householder_product", (f32, np.ones(2, np.float32))),
    ]:
        with pytest.raises(NotImplementedError, match=f"Differentiation rule for '{name}'"):
            mj.jvp(getattr(mj.lax.linalg, name), args, args)
        with pytest.raises(NotImplementedError, match=f"Differentiation rule for '{name}'"):
            jax.jvp(getattr(jax.lax.linalg, name), args, args)
    cases = [
        ("hessenberg", (np.ones((2, 3), np.float32),), ValueError, "must have shape"),
        ("tridiagonal", (np.ones((0, 0), np.float32),), ValueError, "must be a square matrix"),
        ("tridiagonal", (np.ones(3, np.float32),), TypeError, "must have rank at least 2"),
        ("hessenberg", (np.ones((2, 2), np.int32),), TypeError, "does not accept dtype int32"),
        (
            "householder_product",
            (np.ones((2, 3), np.float32), np.ones(1, np.float32)),
            ValueError,
            "at least as many rows as columns",
        ),
        (
            "householder_product",
            (np.ones((3, 2), np.float32), np.ones(3, np.float32)),
            ValueError,
            "must not have more rows",
        ),
    ]
    for name, args, error, text in cases:
        with pytest.raises(error, match=text):
            getattr(jax.lax.linalg, name)(*args)
        with pytest.raises(error, match=text):
            getattr(mj.lax.linalg, name)(*args)


@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (2, 5, 5), (0, 0)], ids=str)
@pytest.mark.parametrize("calc_q", [False, True])
def test_scipy_hessenberg_as_jax(shape, calc_q, x64):
    rs = np.random.RandomState(5)
    for dtype in _dtypes(x64):
        a = _draw(rs, shape, dtype)
        want = jsl.hessenberg(a, calc_q=calc_q)
        for fun in (msl.hessenberg, mj.jit(msl.hessenberg, static_argnames="calc_q")):
            got = fun(a, calc_q=calc_q)
            for g, w in zip(_flat(got), _flat(want), strict=True):
                _close(g, w, dtype)
        if calc_q and shape[-1]:
            h, q = (np.asarray(x) for x in msl.hessenberg(a, calc_q=True))
            recon = q @ h @ np.conj(np.swapaxes(q, -1, -2))
            _close(recon, a, dtype, loose=10)


@pytest.mark.parametrize(
    ("a_shape", "c_shape", "mode", "conjugate"),
    [
        ((4, 3), (3, 2), "left", False),
        ((4, 4), (2, 4), "right", True),
        ((3, 6, 4), (3, 4, 5), "left", True),
        ((6, 4), (6,), "right", False),
        ((4, 3), (3,), "left", False),
        ((3, 5), (2, 3), "right", False),
    ],
    ids=str,
)
def test_qr_multiply_as_jax(a_shape, c_shape, mode, conjugate, x64):
    rs = np.random.RandomState(6)
    for dtype in _dtypes(x64):
        a, c = _draw(rs, a_shape, dtype), _draw(rs, c_shape, dtype)
        want = jsl.qr_multiply(a, c, mode=mode, conjugate=conjugate)
        fun = mj.jit(msl.qr_multiply, static_argnames=("mode", "conjugate"))
        for got in (
            msl.qr_multiply(a, c, mode=mode, conjugate=conjugate),
            fun(a, c, mode=mode, conjugate=conjugate),
        ):
            assert len(got) == 2
            for g, w in zip(got, want, strict=True):
                _close(g, w, dtype, loose=10)


def test_qr_multiply_errors_as_jax():
    a = np.ones((4, 3), np.float32)
    for args, kwargs, text in [
        ((a, np.ones((4, 2), np.float32)), {"mode": "left"}, "Q @ c operation"),
        ((a, np.ones((2, 3), np.float32)), {"mode": "right"}, "c @ Q operation"),
        ((a, np.ones((2, 4), np.float32)), {"mode": "middle"}, "mode must be 'right' or 'left'"),
    ]:
        with pytest.raises(ValueError, match=text):
            jsl.qr_multiply(*args, **kwargs)
        with pytest.raises(ValueError, match=text):
            msl.qr_multiply(*args, **kwargs)


@pytest.mark.parametrize(("n", "norm"), [(1, 0.1), (4, 1.0), (3, 3.0)])
def test_expm_frechet_as_jax(n, norm, x64):
    rs = np.random.RandomState(7)
    dtype = np.float64 if x64 else np.float32
    a = rs.randn(n, n)
    a = (a / np.linalg.norm(a, 1) * norm).astype(dtype)
    e = rs.randn(n, n).astype(dtype)
    want_expm, want_l = jsl.expm_frechet(a, e)
    for fun in (msl.expm_frechet, mj.jit(msl.expm_frechet)):
        got_expm, got_l = fun(a, e)
        _close(got_expm, want_expm, dtype, loose=10)
        _close(got_l, want_l, dtype, loose=10)
    _close(msl.expm_frechet(a, e, compute_expm=False), want_l, dtype, loose=10)
    with pytest.raises(ValueError, match="expected A and E to be the same shape"):
        jsl.expm_frechet(a, np.ones((n + 1, n + 1), dtype))
    with pytest.raises(ValueError, match="expected A and E to be the same shape"):
        msl.expm_frechet(a, np.ones((n + 1, n + 1), dtype))
