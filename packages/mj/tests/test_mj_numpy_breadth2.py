"""Issue 9 breadth for ``mj.numpy``: window functions, ``cov``/``corrcoef``, ``cross``,
``block``, ``divmod``/``gcd``/``lcm``, ``iscomplex``/``isreal``, ``nancumsum``/``nancumprod``,
``linalg.matrix_rank`` and NumPy's re-exported ``array_repr``/``array_str``/``can_cast``.

NumPy is the reference for values, dtypes and shapes; gradients are checked against central
finite differences; every case also runs under ``jit`` and ``make_jaxpr``/``eval_jaxpr`` and
must give the eager answer."""

import math

import numpy as np
import pytest

import mj
import mj.numpy as mnp

RNG = np.random.default_rng(2024)
M = RNG.normal(size=(3, 7))
MC = M + 1j * RNG.normal(size=(3, 7))
FW = RNG.integers(1, 4, size=7)
AW = RNG.uniform(0.5, 2.0, size=7)
A3 = RNG.normal(size=(4, 3))
B3 = RNG.normal(size=(4, 3))
WITH_NAN = np.where(RNG.uniform(size=(3, 4)) < 0.3, np.nan, RNG.normal(size=(3, 4)))
INTS1 = RNG.integers(-60, 60, size=(12,))
INTS2 = RNG.integers(-60, 60, size=(12,))
FLOATS1 = RNG.uniform(-9, 9, size=(10,))
FLOATS2 = RNG.choice([-2.5, -1.0, 0.75, 3.0], size=(10,))

# (name, args, kwargs): mnp.<name>(*args, **kwargs) against np.<name>(*args, **kwargs)
CASES = [
    ("bartlett", (7,), {}),
    ("bartlett", (1,), {}),
    ("bartlett", (0,), {}),
    ("blackman", (8,), {}),
    ("hamming", (9,), {}),
    ("hanning", (6,), {}),
    ("hanning", (1,), {}),
    ("kaiser", (9, 4.5), {}),
    ("kaiser", (12, 14.0), {}),
    ("kaiser", (1, 3.0), {}),
    ("cov", (M,), {}),
    ("cov", (M,), {"bias": True}),
    ("cov", (M.T,), {"rowvar": False}),
    ("cov", (M[0], M[1]), {}),
    ("cov", (M[0],), {}),
    ("cov", (M,), {"ddof": 2, "fweights": FW}),
    ("cov", (M,), {"aweights": AW}),
    ("cov", (M,), {"fweights": FW, "aweights": AW}),
    ("cov", (M,), {"fweights": FW, "aweights": AW, "ddof": 0}),
    ("cov", (MC,), {}),
    ("cov", (np.arange(12).reshape(3, 4),), {}),
    ("corrcoef", (M,), {}),
    ("corrcoef", (M[0], M[2]), {}),
    ("corrcoef", (MC,), {}),
    ("cross", (A3, B3), {}),
    ("cross", (A3[:, :2], B3), {}),
    ("cross", (A3.T, B3.T), {"axis": 0}),
    ("cross", (A3, B3[0]), {"axisc": 0}),
    ("cross", (np.arange(3), np.array([4, -1, 2])), {}),
    ("divmod", (INTS1, np.where(INTS2 == 0, 7, INTS2)), {}),
    ("divmod", (FLOATS1, FLOATS2), {}),
    ("divmod", (FLOATS1.astype(np.float32), np.float32(1.5)), {}),
    ("gcd", (INTS1, INTS2), {}),
    ("gcd", (INTS1.astype(np.int32), 12), {}),
    ("lcm", (INTS1, INTS2), {}),
    ("lcm", (INTS1.reshape(3, 4), INTS2[:4]), {}),
    ("iscomplex", (np.array([1 + 0j, 2 + 1j, -3j, 0j]),), {}),
    ("iscomplex", (M,), {}),
    ("isreal", (np.array([1 + 0j, 2 + 1j, -3j, 0j]),), {}),
    ("isreal", (INTS1,), {}),
    ("nancumsum", (WITH_NAN,), {}),
    ("nancumsum", (WITH_NAN,), {"axis": 1}),
    ("nancumsum", (WITH_NAN,), {"axis": 0, "dtype": np.float32}),
    ("nancumsum", (INTS1.reshape(3, 4),), {"axis": -1}),
    ("nancumprod", (WITH_NAN,), {"axis": 0}),
    ("nancumprod", (WITH_NAN,), {}),
]


def _ids(cases):
    return [f"{c[0]}-{i}" for i, c in enumerate(cases)]


def _check(got, want, rtol=1e-12, atol=1e-12):
    if isinstance(want, tuple):
        assert isinstance(got, tuple)
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            _check(g, w, rtol, atol)
        return
    want = np.asarray(want)
    got_arr = np.asarray(got)
    assert got_arr.shape == want.shape, (got_arr.shape, want.shape)
    assert got_arr.dtype == want.dtype, (got_arr.dtype, want.dtype)
    np.testing.assert_allclose(got_arr, want, rtol=rtol, atol=atol)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # NumPy's 2-vector cross products
@pytest.mark.parametrize(("name", "args", "kwargs"), CASES, ids=_ids(CASES))
def test_matches_numpy(name, args, kwargs):
    want = getattr(np, name)(*args, **kwargs)
    _check(getattr(mnp, name)(*args, **kwargs), want)


@pytest.mark.parametrize(("name", "args", "kwargs"), CASES, ids=_ids(CASES))
def test_eager_jaxpr_and_jit_agree(name, args, kwargs):
    if name in ("bartlett", "blackman", "hamming", "hanning") or (name == "kaiser"):
        static, arrays = args[:1], args[1:]
    else:
        static, arrays = (), args

    def f(*xs):
        return getattr(mnp, name)(*static, *xs, **kwargs)

    eager = f(*arrays)
    closed = mj.make_jaxpr(f)(*arrays)
    flat = mj.eval_jaxpr(closed.jaxpr, [*closed.consts, *arrays])
    from_jaxpr = tuple(flat) if isinstance(eager, tuple) else flat[0]
    _check(from_jaxpr, eager)
    _check(mj.jit(f)(*arrays), eager, rtol=1e-10, atol=1e-10)


def test_signed_zeros_of_float_divmod_follow_the_correction_step():
    # divmod rounds the corrected quotient (x - mod) / y, as jax.numpy does
    q, r = mnp.divmod(np.array([7.0, -7.0, 6.0]), np.array([2.0, 2.0, -3.0]))
    np.testing.assert_array_equal(q, [3.0, -4.0, -2.0])
    np.testing.assert_array_equal(r, [1.0, 1.0, 0.0])


def test_gcd_and_lcm_closed_forms_and_transformations():
    assert int(mnp.gcd(2**5 * 3**2 * 7, 2**3 * 3**4 * 11)) == 2**3 * 3**2
    assert int(mnp.lcm(-4, 6)) == 12
    assert int(mnp.lcm(0, 5)) == 0
    assert int(mnp.gcd(0, 0)) == 0
    want = np.gcd(INTS1, INTS2)
    np.testing.assert_array_equal(mj.vmap(mnp.gcd)(INTS1, INTS2), want)
    np.testing.assert_array_equal(mj.jit(mj.vmap(mnp.lcm))(INTS1, INTS2), np.lcm(INTS1, INTS2))
    with pytest.raises(ValueError, match="gcd: arguments must be integers"):
        mnp.gcd(1.5, 3)


def test_windows_closed_forms():
    # Bartlett: 1 - |2n - (M - 1)| / (M - 1); Hann of length 3 is [0, 1, 0]; I0(0) = 1
    np.testing.assert_allclose(mnp.bartlett(5), [0.0, 0.5, 1.0, 0.5, 0.0], atol=1e-15)
    np.testing.assert_allclose(mnp.hanning(3), [0.0, 1.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(mnp.kaiser(6, 0.0), np.ones(6), atol=1e-15)
    # the ends of a Kaiser window are 1 / I0(beta); I0(2) = sum 1 / (k!)^2
    i0_2 = sum(1 / math.factorial(k) ** 2 for k in range(30))
    np.testing.assert_allclose(mnp.kaiser(5, 2.0)[0], 1 / i0_2, rtol=1e-14)
    with pytest.raises(TypeError, match="kaiser: M must be a concrete integer"):
        mj.jit(lambda m: mnp.kaiser(m, 1.0))(5)


def _central_difference(f, x, eps=1e-6):
    x = np.asarray(x, dtype=np.float64)
    grad = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[idx] = eps
        grad[idx] = (float(f(x + step)) - float(f(x - step))) / (2 * eps)
    return grad


W33 = RNG.normal(size=(3, 3))
GRAD_CASES = {
    "kaiser_beta": (lambda b: mnp.sum(mnp.kaiser(7, b) * np.arange(7.0)), np.array(3.7)),
    "cov": (lambda x: mnp.sum(W33 * mnp.cov(x)), M),
    "cov_weighted": (lambda x: mnp.sum(W33 * mnp.cov(x, fweights=FW, aweights=AW)), M),
    "corrcoef": (lambda x: mnp.sum(W33 * mnp.corrcoef(x)), M),
    "cross": (lambda x: mnp.sum(B3 * mnp.cross(x, B3)), A3),
    "nancumsum": (lambda x: mnp.sum(np.arange(12.0).reshape(3, 4) * mnp.nancumsum(x, 1)), M[:, :4]),
    "nancumprod": (lambda x: mnp.sum(mnp.nancumprod(x, 0)), M[:, :4]),
    "block": (lambda x: mnp.sum(mnp.block([[x, x], [2 * x, x**2]]) ** 2), M[:2, :2]),
}


@pytest.mark.parametrize("name", list(GRAD_CASES))
def test_grad_matches_central_differences(name):
    f, x = GRAD_CASES[name]
    np.testing.assert_allclose(mj.grad(f)(x), _central_difference(f, x), rtol=1e-6, atol=1e-6)


def test_block_matches_numpy_for_nested_lists():
    a, b, c = np.eye(2), np.zeros((2, 3)), np.arange(5.0)
    for arrays in ([a, a], [[a, b], [np.ones((1, 2)), np.ones((1, 3))]], [[c], [c]], [1.0, c]):
        want = np.block(arrays)
        _check(mnp.block(arrays), want)
    with pytest.raises(ValueError, match="block: mismatched list depths"):
        mnp.block([[a], a])
    with pytest.raises(ValueError, match="block: tuples are not allowed"):
        mnp.block((a, a))


def test_vmap_agrees_with_a_loop():
    xs = RNG.normal(size=(4, 2, 6))
    got = mj.vmap(mnp.cov)(xs)
    np.testing.assert_allclose(got, np.stack([np.cov(x) for x in xs]), rtol=1e-12)
    got = mj.vmap(lambda x: mnp.nancumsum(x, axis=0))(WITH_NAN)
    np.testing.assert_allclose(got, np.stack([np.nancumsum(x) for x in WITH_NAN]))
    got = mj.vmap(mnp.cross)(A3, B3)
    np.testing.assert_allclose(got, np.cross(A3, B3), rtol=1e-12)
    betas = np.array([0.5, 3.0, 9.0])
    np.testing.assert_allclose(
        mj.vmap(lambda b: mnp.kaiser(5, b))(betas), np.stack([np.kaiser(5, b) for b in betas])
    )


def test_matrix_rank():
    full = RNG.normal(size=(5, 4))
    low = np.outer(np.arange(1.0, 6.0), np.arange(1.0, 5.0)) + np.outer(np.ones(5), np.ones(4))
    stack = np.stack([full, low, np.zeros((5, 4))])
    got = mnp.linalg.matrix_rank(stack)
    np.testing.assert_array_equal(got, np.linalg.matrix_rank(stack))
    assert got.dtype == np.int64
    np.testing.assert_array_equal(mj.jit(mnp.linalg.matrix_rank)(stack), [4, 2, 0])
    # as in JAX, an explicit rtol is compared with the singular values themselves
    assert int(mnp.linalg.matrix_rank(np.diag([3.0, 1.0, 0.1]), rtol=0.5)) == 2
    assert int(mnp.linalg.matrix_rank(np.diag([3.0, 1.0, 0.1]), tol=0.05)) == 3
    vec = mnp.linalg.matrix_rank(np.array([0.0, 2.0]))
    assert int(vec) == 1
    assert vec.dtype == np.int32
    with pytest.raises(ValueError, match="matrix_rank: only one of tol or rtol"):
        mnp.linalg.matrix_rank(full, rtol=1.0, tol=1.0)


def test_numpy_printing_and_casting_reexports():
    x = mnp.sin(np.arange(3.0))
    assert mnp.array_str(x) == np.array_str(np.asarray(x))
    assert mnp.array_repr(x).endswith("([0.        , 0.84147098, 0.90929743])")
    assert mnp.can_cast(np.int32, np.float64)
    assert not mnp.can_cast(np.float64, np.int32)


def test_bad_inputs_name_the_api():
    with pytest.raises(ValueError, match="cross: vector dimensions must be 2 or 3"):
        mnp.cross(np.ones(4), np.ones(4))
    with pytest.raises(ValueError, match="cov: m has more than 2 dimensions"):
        mnp.cov(np.ones((2, 2, 2)))
    with pytest.raises(TypeError, match="cov: fweights must be integers"):
        mnp.cov(M, fweights=AW)
    with pytest.raises(ValueError, match="cov: expected one weight per sample"):
        mnp.cov(M, aweights=AW[:3])
    with pytest.raises(ValueError, match=r"corrcoef: dtype must be a (subclass of )?float or comp"):
        mnp.corrcoef(M, dtype=np.int32)


# --- mj.lax and mj.scipy.linalg breadth -------------------------------------------------------
def test_lax_batch_matmul_and_collapse():
    a, b = RNG.normal(size=(2, 3, 4, 5)), RNG.normal(size=(2, 3, 5, 6))
    np.testing.assert_allclose(mj.lax.batch_matmul(a, b), a @ b, rtol=1e-12)
    np.testing.assert_allclose(mj.jit(mj.lax.batch_matmul)(a, b), a @ b, rtol=1e-12)
    x = np.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5)
    assert mj.lax.collapse(x, 1, 3).shape == (2, 12, 5)
    assert mj.lax.collapse(x, 1).shape == (2, 60)
    assert mj.lax.collapse(x, -2).shape == (2, 3, 20)
    np.testing.assert_array_equal(mj.lax.collapse(x, 0, 2), x.reshape(6, 4, 5))
    with pytest.raises(ValueError, match="batch_matmul: arguments must have the same rank"):
        mj.lax.batch_matmul(a, b[0])
    with pytest.raises(ValueError, match="collapse: invalid dimension range"):
        mj.lax.collapse(x, 3, 1)


def test_lax_reexports_complex_fft_and_linalg():
    import mj_core.lax
    import mj_core.lax_linalg

    for name in ("real", "imag", "conj", "complex", "fft"):
        assert getattr(mj.lax, name) is getattr(mj_core.lax, name)
    assert mj.lax.linalg is mj_core.lax_linalg
    z = mj.lax.complex(np.array([1.0, 2.0]), np.array([3.0, -4.0]))
    np.testing.assert_array_equal(mj.lax.imag(mj.lax.conj(z)), [-3.0, 4.0])


def test_scipy_lu_reconstructs_with_scipy_conventions():
    import mj.scipy.linalg as msl

    for shape in ((4, 4), (5, 3), (3, 5)):
        a = RNG.normal(size=shape)
        p, lower, upper = msl.lu(a)
        k = min(shape)
        assert lower.shape == (shape[0], k)
        assert upper.shape == (k, shape[1])
        np.testing.assert_allclose(p @ lower @ upper, a, rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(np.diag(np.asarray(lower)), np.ones(k))
        np.testing.assert_array_equal(np.triu(np.asarray(lower), 1), 0)
        np.testing.assert_array_equal(np.tril(np.asarray(upper), -1), 0)
        # partial pivoting: every multiplier is at most 1 in magnitude
        assert np.abs(np.asarray(lower)).max() <= 1.0 + 1e-15
        pl, u2 = msl.lu(a, permute_l=True)
        np.testing.assert_allclose(pl @ u2, a, rtol=1e-12, atol=1e-12)
    a = RNG.normal(size=(4, 4))
    f = lambda x: mnp.sum(msl.lu(x)[2] ** 2)  # noqa: E731
    np.testing.assert_allclose(mj.grad(f)(a), _central_difference(f, a), rtol=1e-5, atol=1e-6)


def test_scipy_expm_closed_forms_grad_jit_vmap():
    import mj.scipy.linalg as msl

    rng = np.random.default_rng(2024)  # its own: the float32 bounds must not depend on test order
    t = 0.7
    rot = np.array([[0.0, -t], [t, 0.0]])
    want = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    np.testing.assert_allclose(msl.expm(rot), want, rtol=1e-14, atol=1e-15)
    nil = np.array([[0.0, 1.0, 2.0], [0.0, 0.0, 3.0], [0.0, 0.0, 0.0]])  # exp = I + N + N^2/2
    np.testing.assert_allclose(msl.expm(nil), np.eye(3) + nil + nil @ nil / 2, rtol=1e-14)
    np.testing.assert_allclose(
        msl.expm(nil, upper_triangular=True), np.eye(3) + nil + nil @ nil / 2
    )
    # a spread of norms exercises every Pade degree and the squarings: exp(Q D Q^T)
    q, _ = np.linalg.qr(rng.normal(size=(4, 4)))
    for scale in (1e-3, 0.1, 0.6, 1.5, 4.0, 30.0):
        d = rng.uniform(-1, 1, size=4) * scale
        a = q @ np.diag(d) @ q.T
        want = q @ np.diag(np.exp(d)) @ q.T
        np.testing.assert_allclose(msl.expm(a), want, rtol=1e-11 * max(1, scale), atol=1e-13)
        np.testing.assert_allclose(mj.jit(msl.expm)(a), msl.expm(a), rtol=1e-12, atol=1e-14)
        a32 = a.astype(np.float32)
        assert msl.expm(a32).dtype == np.float32
        np.testing.assert_allclose(msl.expm(a32), want, rtol=2e-5 * max(1, scale), atol=1e-5)
    stack = rng.normal(size=(3, 4, 4))
    np.testing.assert_allclose(
        msl.expm(stack), np.stack([msl.expm(s) for s in stack]), rtol=1e-13, atol=1e-14
    )
    np.testing.assert_allclose(mj.vmap(msl.expm)(stack), msl.expm(stack), rtol=1e-13, atol=1e-14)
    assert np.isnan(np.asarray(msl.expm(np.eye(2) * 1e9))).all()
    a = rng.normal(size=(3, 3)) * 0.8
    f = lambda x: mnp.sum(msl.expm(x) * np.arange(9.0).reshape(3, 3))  # noqa: E731
    np.testing.assert_allclose(mj.grad(f)(a), _central_difference(f, a), rtol=1e-6, atol=1e-6)


def test_scipy_linalg_wrappers():
    import mj.scipy.linalg as msl

    a = RNG.normal(size=(4, 4))
    spd = a @ a.T + np.eye(4)
    b = RNG.normal(size=(4, 2))
    np.testing.assert_allclose(msl.inv(a), np.linalg.inv(a), rtol=1e-11)
    np.testing.assert_allclose(msl.det(a), np.linalg.det(a), rtol=1e-12)
    u, s, vh = msl.svd(a)
    np.testing.assert_allclose(u @ np.diag(s) @ vh, a, atol=1e-12)
    np.testing.assert_allclose(msl.svd(a, compute_uv=False), np.linalg.svd(a)[1], rtol=1e-12)
    w, v = msl.eigh(spd)
    np.testing.assert_allclose(w, np.linalg.eigvalsh(spd), rtol=1e-12)
    np.testing.assert_allclose(spd @ v, v * w, atol=1e-11)
    np.testing.assert_allclose(msl.eigh(spd, eigvals_only=True), w, rtol=1e-12)
    # as in JAX, the input is symmetrised first (lower= only picks LAPACK's triangle)
    low = np.tril(spd)
    want_w = np.linalg.eigvalsh((low + low.T) / 2)
    np.testing.assert_allclose(msl.eigh(low, lower=False)[0], want_w, rtol=1e-12)
    q, r = msl.qr(RNG.normal(size=(5, 3)))
    assert q.shape == (5, 5)
    assert r.shape == (5, 3)
    (r_only,) = msl.qr(a, mode="r")
    np.testing.assert_allclose(np.abs(r_only), np.abs(np.linalg.qr(a, mode="r")), rtol=1e-12)
    assert msl.qr(RNG.normal(size=(5, 3)), mode="economic")[0].shape == (5, 3)
    want = np.linalg.solve(spd, b)
    for kwargs in ({}, {"assume_a": "sym"}, {"assume_a": "pos"}):
        np.testing.assert_allclose(msl.solve(spd, b, **kwargs), want, rtol=1e-11)
    np.testing.assert_allclose(msl.solve(np.triu(spd), b, assume_a="pos"), want, rtol=1e-11)
    np.testing.assert_allclose(
        msl.solve(np.tril(spd), b[:, 0], assume_a="pos", lower=True), want[:, 0], rtol=1e-11
    )
    got = msl.block_diag(np.eye(2), 3.0, np.arange(3), np.ones((2, 1), np.float32))
    want_bd = np.zeros((6, 7))
    want_bd[:2, :2] = np.eye(2)
    want_bd[2, 2] = 3.0
    want_bd[3, 3:6] = np.arange(3)
    want_bd[4:, 6] = 1.0
    _check(got, want_bd)
    assert msl.block_diag().shape == (1, 0)
    with pytest.raises(ValueError, match="solve: assume_a must be one of"):
        msl.solve(a, b, assume_a="tri")
    with pytest.raises(NotImplementedError, match="eigh: only the standard problem"):
        msl.eigh(spd, spd)
    with pytest.raises(ValueError, match="block_diag: blocks must have at most 2 dimensions"):
        msl.block_diag(np.ones((2, 2, 2)))
