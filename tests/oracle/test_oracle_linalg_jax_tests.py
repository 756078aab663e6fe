"""Linear algebra and special functions that JAX's own ``linalg_test.py`` and
``lax_scipy_test.py`` exercise, against jax 0.10.2: values, dtypes and derivatives, both
dtype modes (``x64`` fixture)."""

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import jax.scipy.special as jsp
import numpy as np
import pytest

import mj
import mj.numpy as mnp
import mj.scipy.linalg as msl
import mj.scipy.special as msp

pytestmark = pytest.mark.oracle


def _close(got, want, rtol=1e-5, atol=1e-6):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def test_betaln_large_argument(x64):
    """betaln(x, 1) == -log(x) up to x = 1e30 (no cancellation between the log-gammas)."""
    xs = np.geomspace(1, 1e30, 200).astype(np.float32)
    for a, b in ((xs, np.float32(1.0)), (np.float32(2.5), xs), (xs, xs[::-1])):
        _close(msp.betaln(a, b), jsp.betaln(a, b), rtol=2e-5, atol=1e-5)
    got = mj.jvp(msp.betaln, (xs, np.float32(1.0)), (np.ones_like(xs), np.float32(0.0)))
    want = jax.jvp(jsp.betaln, (xs, np.float32(1.0)), (np.ones_like(xs), np.float32(0.0)))
    for g, w in zip(got, want, strict=True):
        _close(g, w, rtol=2e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(got[0]), -np.log(xs.astype(np.float64)), atol=1e-4)


def _det_cases():
    rng = np.random.default_rng(0)
    batch = rng.normal(size=(2, 5, 5))
    batch[0] = 0
    return {
        "4x4": rng.normal(size=(4, 4)),
        "zero 4x4": np.zeros((4, 4)),
        "corank1 3x3": np.array([[50, -30, 45], [-30, 90, -81], [45, -81, 81.0]]),
        "corank2 3x3": np.array([[36, -42, 18], [-42, 49, -21], [18, -21, 9.0]]),
        "corank1 4x4": np.outer([1, 2, 3, 4.0], [1, 1, 2, 0]) + np.diag([0, 0, 0, 1.0]),
        "batch with zero": batch,
        "2x2": rng.normal(size=(2, 2)),
        "1x1": rng.normal(size=(1, 1)),
    }


@pytest.mark.parametrize("name", list(_det_cases()))
def test_det_and_derivatives_at_singular_matrices(name, x64):
    """det's JVP/VJP is the adjugate (finite at singular matrices), as JAX's."""
    a = _det_cases()[name].astype(np.float32)
    t = np.random.default_rng(1).normal(size=a.shape).astype(np.float32)
    _close(mnp.linalg.det(a), jnp.linalg.det(a), rtol=1e-4, atol=1e-3)
    got = mj.jvp(mnp.linalg.det, (a,), (t,))
    want = jax.jvp(jnp.linalg.det, (a,), (t,))
    for g, w in zip(got, want, strict=True):
        assert np.isfinite(np.asarray(g)).all()
        _close(g, w, rtol=1e-3, atol=1e-2)
    _close(
        mj.grad(lambda x: mnp.linalg.det(x).sum())(a),
        jax.grad(lambda x: jnp.linalg.det(x).sum())(a),
        rtol=1e-3,
        atol=1e-2,
    )
    _close(mj.jit(mnp.linalg.det)(a), jnp.linalg.det(a), rtol=1e-4, atol=1e-3)


def _pinv_of_p(np_):
    def f(p):
        return np_.linalg.pinv(np_.array([[0.0, 0.0], [-p, 1.0]], np_.float32) / (1 + p**2))

    return f


def test_pinv_derivatives_at_rank_deficient_matrices(x64):
    """pinv's JVP is Golub and Pereyra's formula (JAX's), finite where the SVD's is not."""
    _close(
        mj.jacobian(_pinv_of_p(mnp))(np.float32(2.0)),
        jax.jacobian(_pinv_of_p(jnp))(np.float32(2.0)),
    )
    eye = np.eye(2, dtype=np.float32)
    _close(mj.jacobian(mnp.linalg.pinv)(eye), jax.jacobian(jnp.linalg.pinv)(eye))
    rng = np.random.default_rng(2)
    for shape in [(3, 5), (5, 3), (2, 4, 4)]:
        a = rng.normal(size=shape).astype(np.float32)
        t = rng.normal(size=shape).astype(np.float32)
        got, want = mj.jvp(mnp.linalg.pinv, (a,), (t,)), jax.jvp(jnp.linalg.pinv, (a,), (t,))
        for g, w in zip(got, want, strict=True):
            _close(g, w, rtol=1e-4, atol=1e-4)


def test_pinv_options_and_empty_matrices(x64):
    a = np.random.default_rng(3).normal(size=(4, 3)).astype(np.float32)
    _close(mnp.linalg.pinv(a, rcond=0.3), jnp.linalg.pinv(a, rcond=0.3), rtol=1e-4)
    _close(mnp.linalg.pinv(a, rtol=0.3), jnp.linalg.pinv(a, rtol=0.3), rtol=1e-4)
    for shape in [(3, 0), (0, 3), (2, 0, 0)]:
        _close(
            mnp.linalg.pinv(np.ones(shape, np.float32)), jnp.linalg.pinv(np.ones(shape, np.float32))
        )
    with pytest.raises(ValueError, match="only one of rtol and rcond"):
        mnp.linalg.pinv(a, rcond=0.1, rtol=0.1)


def _rng_complex(rng, shape):
    return (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(np.complex64)


@pytest.mark.parametrize("kind", ["real", "complex"])
def test_scipy_factorisations_real_and_complex(kind, x64):
    """scipy.linalg's cholesky/lu/lu_factor/lu_solve (trans 0, 1, 2)/qr/solve take complex
    matrices and conjugate where SciPy does; ``qr(mode='r')`` is the full ``R``."""
    rng = np.random.default_rng(4)
    if kind == "real":
        a = rng.normal(size=(4, 4)).astype(np.float32)
        b = rng.normal(size=(4, 2)).astype(np.float32)
    else:
        a, b = _rng_complex(rng, (4, 4)), _rng_complex(rng, (4, 2))
    spd = a @ a.conj().T + np.eye(4, dtype=a.dtype)
    pairs = [
        (msl.cholesky(spd), jsl.cholesky(spd)),
        (msl.cholesky(spd, lower=True), jsl.cholesky(spd, lower=True)),
        *zip(msl.lu(a), jsl.lu(a), strict=True),
        *zip(msl.lu(a[:, :3], permute_l=True), jsl.lu(a[:, :3], permute_l=True), strict=True),
        *zip(msl.lu_factor(a), jsl.lu_factor(a), strict=True),
        *zip(msl.qr(a[:, :3], mode="r"), jsl.qr(a[:, :3], mode="r"), strict=True),
        *zip(msl.qr(a[:3], mode="economic"), jsl.qr(a[:3], mode="economic"), strict=True),
        (msl.solve(spd, b, assume_a="pos"), jsl.solve(spd, b, assume_a="pos")),
        (
            msl.cho_solve(msl.cho_factor(spd, lower=True), b),
            jsl.cho_solve(jsl.cho_factor(spd, lower=True), b),
        ),
        (msl.cho_solve(msl.cho_factor(spd), b), jsl.cho_solve(jsl.cho_factor(spd), b)),
    ]
    for trans in (0, 1, 2):
        pairs.append(
            (
                msl.lu_solve(msl.lu_factor(a), b, trans=trans),
                jsl.lu_solve(jsl.lu_factor(a), b, trans=trans),
            )
        )
    for got, want in pairs:
        _close(got, want, rtol=1e-4, atol=1e-4)


def test_solve_triangular_broadcasting_and_vectors(x64):
    """solve_triangular/cho_solve follow JAX's gufunc signatures (vector b, batch broadcast,
    mixed dtypes); lax.linalg.triangular_solve takes a vector b one rank below a."""
    rng = np.random.default_rng(5)
    a = (np.triu(rng.normal(size=(3, 4, 4))) + 4 * np.eye(4)).astype(np.float32)
    ac = (a + 1j * np.triu(rng.normal(size=a.shape))).astype(np.complex64)
    cases = [
        (a, rng.normal(size=(4, 2)).astype(np.float32)),
        (a, rng.normal(size=(4,)).astype(np.float32)),
        (a[0], rng.normal(size=(2, 4, 3)).astype(np.float32)),
        (a, np.arange(8, dtype=np.int32).reshape(4, 2)),
        (ac, _rng_complex(rng, (4, 2))),
    ]
    for x, y in cases:
        for trans in (0, 1, 2, "N", "T", "C"):
            for lower in (False, True):
                got = msl.solve_triangular(x, y, trans=trans, lower=lower)
                want = jsl.solve_triangular(x, y, trans=trans, lower=lower)
                _close(got, want, rtol=1e-4, atol=1e-4)
    for left_side in (False, True):
        got = mj.lax.linalg.triangular_solve(a, a[:, 1], left_side=left_side, lower=False)
        want = jax.lax.linalg.triangular_solve(a, a[:, 1], left_side=left_side, lower=False)
        _close(got, want, rtol=1e-4, atol=1e-4)
    got = mj.jvp(lambda m: mj.lax.linalg.triangular_solve(m, a[:, 1]), (a,), (a,))
    want = jax.jvp(lambda m: jax.lax.linalg.triangular_solve(m, a[:, 1]), (a,), (a,))
    for g, w in zip(got, want, strict=True):
        _close(g, w, rtol=1e-4, atol=1e-4)


_C = np.random.default_rng(6).normal(size=(2, 4)).astype(np.float32)
_R = np.random.default_rng(7).normal(size=(3,)).astype(np.float32)
_P6 = np.random.default_rng(8).normal(size=(6,)).astype(np.float32)
SPECIAL_MATRICES = {
    "toeplitz c": lambda s: s.toeplitz(_C),
    "toeplitz c r": lambda s: s.toeplitz(_C, _R),
    "toeplitz complex": lambda s: s.toeplitz((_C + 2j * _C).astype(np.complex64)),
    "toeplitz int": lambda s: s.toeplitz(np.arange(4, dtype=np.int32), np.arange(3)),
    "toeplitz empty": lambda s: s.toeplitz(np.zeros((0,), np.float32), _R),
    "hankel c": lambda s: s.hankel(_C),
    "hankel c r": lambda s: s.hankel(_C, _R),
    "hankel r c": lambda s: s.hankel(_R, _C),
    "circulant": lambda s: s.circulant(_C),
    "leslie": lambda s: s.leslie(_C, _R),
    "companion": lambda s: s.companion(_C),
    "companion int": lambda s: s.companion(np.array([1, 2, 3], np.int32)),
    "fiedler": lambda s: s.fiedler(_C),
    "fiedler_companion": lambda s: s.fiedler_companion(_C),
    "fiedler_companion 6": lambda s: s.fiedler_companion(_P6),
    "fiedler_companion 1": lambda s: s.fiedler_companion(_C[:, :1]),
    "fiedler_companion 2": lambda s: s.fiedler_companion(_C[:, :2]),
    "convolution_matrix full": lambda s: s.convolution_matrix(_C, 3),
    "convolution_matrix same": lambda s: s.convolution_matrix(_C[0], 6, "same"),
    "convolution_matrix valid": lambda s: s.convolution_matrix(_C[0], 2, "valid"),
    "hilbert": lambda s: s.hilbert(4),
    "invhilbert": lambda s: s.invhilbert(5),
    "pascal": lambda s: s.pascal(5),
    "pascal lower": lambda s: s.pascal(4, "lower"),
    "invpascal": lambda s: s.invpascal(5),
    "invpascal upper": lambda s: s.invpascal(4, kind="upper"),
    "helmert": lambda s: s.helmert(5),
    "helmert full": lambda s: s.helmert(4, full=True),
    "hadamard": lambda s: s.hadamard(8),
    "hadamard float": lambda s: s.hadamard(4, dtype=np.float32),
    "dft": lambda s: s.dft(5),
    "dft n": lambda s: s.dft(4, "n"),
    "dft sqrtn complex64": lambda s: s.dft(4, "sqrtn", dtype=np.complex64),
}


@pytest.mark.parametrize("name", list(SPECIAL_MATRICES))
def test_special_matrices(name, x64):
    _close(SPECIAL_MATRICES[name](msl), SPECIAL_MATRICES[name](jsl), rtol=1e-5, atol=1e-5)


def test_special_matrices_differentiate_and_batch(x64):
    for fn in ("toeplitz", "hankel", "circulant", "companion", "fiedler_companion"):
        ours = mj.grad(lambda x, fn=fn: getattr(msl, fn)(x).sum() ** 2)(_P6)
        _close(ours, jax.grad(lambda x, fn=fn: getattr(jsl, fn)(x).sum() ** 2)(_P6))
        got = mj.vmap(getattr(msl, fn))(_C)
        _close(got, getattr(jsl, fn)(_C), rtol=1e-5, atol=1e-5)
        _close(mj.jit(getattr(msl, fn))(_C), got)


def test_special_matrix_errors(x64):
    with pytest.raises(ValueError, match="must be at least 1-dimensional"):
        msl.convolution_matrix(np.float32(5.0), 3)
    with pytest.raises(ValueError, match=r"len\(a\) must be at least 1"):
        msl.convolution_matrix(np.zeros((2, 0)), 3)
    with pytest.raises(ValueError, match="Incorrect lengths for f and s"):
        msl.leslie(_C, _C)
    with pytest.raises(ValueError, match="power of 2"):
        msl.hadamard(6)
    with pytest.raises(ValueError, match="complex floating-point"):
        msl.dft(3, dtype=np.float32)


def test_linalg_keywords_and_lu_pivots_to_permutation(x64):
    """JAX's keyword arguments (svd algorithm, eig implementation, slogdet method, matmul
    precision) and lax.linalg.lu_pivots_to_permutation."""
    rng = np.random.default_rng(9)
    a = rng.normal(size=(3, 4, 4)).astype(np.float32)
    for alg in ("QR", "DIVIDE_AND_CONQUER"):
        got = mj.lax.linalg.svd(
            a, compute_uv=False, algorithm=getattr(mj.lax.linalg.SvdAlgorithm, alg)
        )
        want = jax.lax.linalg.svd(
            a, compute_uv=False, algorithm=getattr(jax.lax.linalg.SvdAlgorithm, alg)
        )
        _close(got, want, rtol=1e-4, atol=1e-5)
    _close(mj.lax.linalg.eig(a, implementation=None)[0], jax.lax.linalg.eig(a)[0], 1e-4, 1e-4)
    for method in ("lu", "qr"):
        for g, w in zip(
            mnp.linalg.slogdet(a, method=method), jnp.linalg.slogdet(a, method=method), strict=True
        ):
            _close(g, w, rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="Unknown slogdet method 'x'"):
        mnp.linalg.slogdet(a, method="x")
    prec = mj.lax.Precision.HIGHEST
    _close(mnp.linalg.matmul(a, a[0], precision=prec), jnp.linalg.matmul(a, a[0]), 1e-5, 1e-5)
    pivots = np.array([[3, 2, 3, 0], [1, 1, 2, 3]], np.int32)
    for size in (4, 6):
        _close(
            mj.lax.linalg.lu_pivots_to_permutation(pivots, size),
            jax.lax.linalg.lu_pivots_to_permutation(pivots, size),
        )
    _close(
        mj.vmap(lambda p: mj.lax.linalg.lu_pivots_to_permutation(p, 5))(pivots),
        jax.lax.linalg.lu_pivots_to_permutation(pivots, 5),
    )


@pytest.mark.parametrize(
    ("shape", "side", "method"),
    [
        ((3, 4, 3), "right", "qdwh"),
        ((4, 3), "right", "svd"),
        ((3, 4), "left", "qdwh"),
        ((2, 3, 3), "left", "svd"),
        ((3, 5), "right", "svd"),
    ],
)
def test_polar(shape, side, method, x64):
    rng = np.random.default_rng(10)
    for a in (rng.normal(size=shape).astype(np.float32), _rng_complex(rng, shape)):
        for g, w in zip(
            msl.polar(a, side, method=method), jsl.polar(a, side, method=method), strict=True
        ):
            _close(g, w, rtol=1e-4, atol=1e-5)


def test_polar_errors(x64):
    with pytest.raises(NotImplementedError, match="method='qdwh' only supports"):
        msl.polar(np.ones((3, 4), np.float32))
    with pytest.raises(ValueError, match="must be at least a 2-D array"):
        msl.polar(np.ones(3, np.float32))
    with pytest.raises(ValueError, match="Unknown polar decomposition method"):
        msl.polar(np.ones((3, 3), np.float32), method="x")


def test_spence(x64):
    import jax.scipy.special as jss

    x = np.array([-1, 0, 0.2, 0.5, 0.7, 1, 1.3, 1.7, 2, 2.5, 10, 1e3], np.float32)
    _close(msp.spence(x), jss.spence(x), rtol=2e-6, atol=1e-6)
    xs = x[2:]
    _close(
        mj.grad(lambda t: msp.spence(t).sum())(xs),
        jax.grad(lambda t: jss.spence(t).sum())(xs),
        rtol=1e-5,
        atol=1e-6,
    )
    with pytest.raises(TypeError, match="is not supported"):
        msp.spence(np.arange(3))


def test_bessel_jn(x64):
    z = np.array([[0.5, 1.0, 3.0], [10.0, 20.0, 0.1]], np.float32)
    for v, n_iter in ((0, 50), (3, 50), (2, 200)):
        _close(msp.bessel_jn(z, v=v, n_iter=n_iter), jsp.bessel_jn(z, v=v, n_iter=n_iter), 1e-4)
    got = mj.jit(lambda t: msp.bessel_jn(t, v=2))(z[1])
    _close(got, jsp.bessel_jn(z[1], v=2), rtol=1e-4)


def test_integrate_trapezoid_and_cluster_vq(x64):
    import jax.scipy.cluster.vq as jvq
    import jax.scipy.integrate as jint

    import mj.scipy.cluster.vq as mvq
    import mj.scipy.integrate as mint

    rng = np.random.default_rng(11)
    y = rng.normal(size=(3, 5)).astype(np.float32)
    x = np.cumsum(rng.random(5)).astype(np.float32)
    _close(mint.trapezoid(y, x), jint.trapezoid(y, x))
    _close(mint.trapezoid(y, dx=0.5, axis=0), jint.trapezoid(y, dx=0.5, axis=0))
    obs, book = rng.random((6, 3)).astype(np.float32), rng.random((4, 3)).astype(np.float32)
    for got, want in zip(mvq.vq(obs, book), jvq.vq(obs, book), strict=True):
        _close(got, want)
    for got, want in zip(mvq.vq(obs[:, 0], book[:, 0]), jvq.vq(obs[:, 0], book[:, 0]), strict=True):
        _close(got, want)


def test_norms_of_empty_matrices_single_axes_and_string_orders(x64):
    for shape in [(0, 2), (2, 0), (0, 0)]:
        z = np.zeros(shape, np.float32)
        for ord_ in [1, 2, np.inf, "fro", "nuc"]:
            _close(mnp.linalg.matrix_norm(z, ord=ord_), jnp.linalg.matrix_norm(z, ord=ord_))
    _close(
        mnp.linalg.vector_norm(np.zeros(0), ord=np.inf),
        jnp.linalg.vector_norm(np.zeros(0), ord=np.inf),
    )
    x = np.random.default_rng(12).normal(size=(2, 3, 4)).astype(np.float32)
    for ord_ in [None, 1, 2, np.inf, -np.inf, -1, -2, "fro", "nuc"]:
        for axis in [(1,), (0, 2), (2, 1)]:
            if len(axis) == 1 and ord_ in ("fro", "nuc"):
                continue
            for keepdims in (False, True):
                _close(
                    mnp.linalg.norm(x, ord_, axis, keepdims),
                    jnp.linalg.norm(x, ord_, axis, keepdims),
                    rtol=1e-5,
                )
    with pytest.raises(ValueError, match="Invalid order 'inf' for vector norm"):
        mnp.linalg.norm(np.ones(3, np.float32), ord="inf")
    with pytest.raises(ValueError, match="only one of tol or rtol may be specified"):
        mnp.linalg.matrix_rank(np.ones((3, 3)), rtol=0.1, tol=0.1)


def test_expm_of_integer_matrices(x64):
    a = np.array([[[1, 2], [0, 1]], [[0, 1], [-1, 0]]], np.int8)
    _close(msl.expm(a), jsl.expm(a), rtol=1e-5)


def test_lstsq_real_complex_and_rank_deficient(x64):
    rng = np.random.default_rng(13)
    cases = [
        (rng.normal(size=(6, 4)).astype(np.float32), rng.normal(size=(6, 2)).astype(np.float32)),
        (_rng_complex(rng, (5, 5)), _rng_complex(rng, (5,))),
        (np.ones((4, 3), np.float32), np.arange(4, dtype=np.float32)),
    ]
    for a, b in cases:
        for got, want in zip(mnp.linalg.lstsq(a, b), jnp.linalg.lstsq(a, b), strict=True):
            _close(got, want, rtol=1e-4, atol=1e-4)
