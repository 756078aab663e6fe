"""Linear-algebra cases from JAX's own linalg_test on mj, against JAX: empty ``lstsq``,
``qr``'s ``'raw'`` mode and its derivative for wide matrices / complete ``Q``,
``rsf2csf`` broadcasting, pivoted QR, and float16's refusal."""

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np
import pytest

import mj
import mj.numpy as mnp
import mj.scipy.linalg as msl

pytestmark = pytest.mark.oracle


def _same(got, want, rtol=1e-5, atol=1e-5):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("numpy_resid", [False, True])
@pytest.mark.parametrize(
    "shapes",
    [((0, 3), (0,)), ((0, 3), (0, 2)), ((3, 0), (3,)), ((3, 0), (3, 2)), ((0, 0), (0,))],
)
def test_lstsq_of_an_empty_matrix(shapes, numpy_resid, x64):
    rng = np.random.default_rng(0)
    a = rng.normal(size=shapes[0]).astype(np.float32)
    b = rng.normal(size=shapes[1]).astype(np.float32)
    want = jnp.linalg.lstsq(a, b, numpy_resid=numpy_resid)
    for got in (
        mnp.linalg.lstsq(a, b, numpy_resid=numpy_resid),
        mj.jit(lambda a, b: mnp.linalg.lstsq(a, b, numpy_resid=numpy_resid))(a, b),
    ):
        for g, w in zip(got, want, strict=True):
            _same(g, w)


def _rand(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.normal(size=shape)
    return (3 * x).astype(dtype)


@pytest.mark.parametrize("mode", ["raw", "full", "r", "reduced", "complete"])
@pytest.mark.parametrize("shape", [(3, 4), (4, 3), (2, 5, 3), (0, 3)])
@pytest.mark.parametrize("dtype", [np.float32, np.complex64, np.int32])
def test_numpy_qr_modes_raw_and_full(mode, shape, dtype, x64):
    a = _rand(shape, dtype)
    want = jax.tree.leaves(jnp.linalg.qr(a, mode=mode))
    for got in (mnp.linalg.qr(a, mode=mode), mj.jit(lambda x: mnp.linalg.qr(x, mode=mode))(a)):
        got = [got] if not isinstance(got, tuple) else list(got)
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            _same(g, w)


@pytest.mark.parametrize("mode", ["reduced", "complete"])
@pytest.mark.parametrize("shape", [(0, 2), (3, 5), (5, 3), (2, 6, 4), (4, 4)])
@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_qr_derivative_of_wide_matrices_and_complete_q(shape, dtype, mode, x64):
    a, t = _rand(shape, dtype, 1), _rand(shape, dtype, 2)
    want = jax.jvp(lambda x: tuple(jnp.linalg.qr(x, mode=mode)), (a,), (t,))
    got = mj.jvp(lambda x: tuple(mnp.linalg.qr(x, mode=mode)), (a,), (t,))
    for g, w in zip(got[1], want[1], strict=True):
        _same(g, w, rtol=2e-4, atol=2e-4)
    # the reverse mode transposes the same rule
    cot = jax.tree.map(np.asarray, want[0])
    g_j = jax.vjp(lambda x: tuple(jnp.linalg.qr(x, mode=mode)), a)[1](cot)[0]
    g_m = mj.vjp(lambda x: tuple(mnp.linalg.qr(x, mode=mode)), a)[1](cot)[0]
    _same(g_m, g_j, rtol=2e-4, atol=2e-4)


@pytest.mark.parametrize("fn", ["qr", "cholesky", "svd"])
def test_half_precision_linalg_is_jax_not_implemented(fn):
    a = np.eye(3, dtype=np.float16)
    with pytest.raises(NotImplementedError, match="Unsupported dtype float16"):
        getattr(jnp.linalg, fn)(a)
    with pytest.raises(NotImplementedError, match="Unsupported dtype float16"):
        getattr(mnp.linalg, fn)(a)


@pytest.mark.parametrize("mode", ["full", "r", "economic"])
@pytest.mark.parametrize("shape", [(3, 3), (5, 3), (3, 5), (2, 4, 3), (0, 3)])
@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_scipy_qr_with_column_pivoting(mode, shape, dtype, x64):
    a = _rand(shape, dtype, 3)
    want = jsl.qr(a, mode=mode, pivoting=True)
    for got in (
        msl.qr(a, mode=mode, pivoting=True),
        mj.jit(lambda x: msl.qr(x, mode=mode, pivoting=True))(a),
    ):
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            _same(g, w, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("shape", [(4, 4), (6, 4)])
def test_pivoted_qr_derivative_is_jax(shape, x64):
    a, t = _rand(shape, np.float32, 4), _rand(shape, np.float32, 5)

    def qr_and_mul(lib, np_, x):  # the identity, as in JAX's testScipyQrModes
        q, r, p = lib.qr(x, mode="economic", pivoting=True)
        return (q @ r)[:, np_.argsort(p)]

    want = jax.jvp(lambda x: qr_and_mul(jsl, jnp, x), (a,), (t,))[1]
    got = mj.jvp(lambda x: qr_and_mul(msl, mnp, x), (a,), (t,))[1]
    _same(got, want, rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(np.asarray(got), t, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("mode", ["left", "right"])
def test_qr_multiply_with_pivoting(mode, x64):
    a = _rand((6, 4), np.float32, 6)
    c = _rand((4, 2) if mode == "left" else (2, 6), np.float32, 7)
    want = jsl.qr_multiply(a, c, mode=mode, pivoting=True)
    got = msl.qr_multiply(a, c, mode=mode, pivoting=True)
    assert len(got) == len(want) == 3
    for g, w in zip(got, want, strict=True):
        _same(g, w, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(
    "shapes", [((3, 4, 4), (3, 4, 4)), ((3, 4, 4), (4, 4)), ((4, 4), (3, 4, 4))]
)
@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_rsf2csf_broadcasts_t_and_z(shapes, dtype, x64):
    t, z = _rand(shapes[0], dtype, 8), _rand(shapes[1], dtype, 9)
    want = jsl.rsf2csf(t, z)
    for got in (msl.rsf2csf(t, z), mj.jit(msl.rsf2csf)(t, z)):
        for g, w in zip(got, want, strict=True):
            _same(g, w, rtol=1e-4, atol=1e-4)


def test_rsf2csf_shape_errors_are_jax():
    for t, z, msg in [
        ((3, 4), (4, 4), "Input 'T' must be square"),
        ((4, 4), (4, 3), "Input 'Z' must be square"),
        ((4, 4), (3, 3), "Input array shapes must match"),
    ]:
        for lib in (jsl, msl):
            with pytest.raises(ValueError, match=msg):
                lib.rsf2csf(np.ones(t), np.ones(z))
