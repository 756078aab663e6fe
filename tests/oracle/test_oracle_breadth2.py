"""Issue 9 breadth against real JAX 0.10.2 (x64): the new mj.numpy, mj.nn, mj.lax and
mj.scipy.linalg functions give JAX's values and dtypes, and mj.nn.initializers draw JAX's
samples for the same key (bit for bit under jit, where both run the same XLA program; eagerly
to a few ulps, since mj's eager erf_inv differs from XLA's in the last bit)."""

import jax
import jax.nn as jnn
import jax.nn.initializers as jinit
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np
import pytest

import mj
import mj.nn as mnn
import mj.numpy as mnp
import mj.random as mr
import mj.scipy.linalg as msl
from mj.nn import initializers as minit

jax.config.update("jax_enable_x64", True)

pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(99)
M = RNG.normal(size=(3, 7))
FW = RNG.integers(1, 4, size=7)
AW = RNG.uniform(0.5, 2.0, size=7)
A3, B3 = RNG.normal(size=(4, 3)), RNG.normal(size=(4, 3))
NAN = np.where(RNG.uniform(size=(3, 4)) < 0.3, np.nan, RNG.normal(size=(3, 4)))
I1, I2 = RNG.integers(-60, 60, size=12), RNG.integers(-60, 60, size=12)
F1, F2 = RNG.uniform(-9, 9, size=10), RNG.choice([-2.5, -1.0, 0.75, 3.0], size=10)
SQ = RNG.normal(size=(4, 4))
X = RNG.uniform(-8, 8, size=(3, 8))

NUMPY_CASES = {
    "bartlett": lambda np_: np_.bartlett(7),
    "blackman": lambda np_: np_.blackman(8),
    "hamming": lambda np_: np_.hamming(9),
    "hanning": lambda np_: np_.hanning(1),
    "kaiser": lambda np_: np_.kaiser(11, 6.5),
    "cov": lambda np_: np_.cov(M),
    "cov_weights": lambda np_: np_.cov(M, fweights=FW, aweights=AW, ddof=2),
    "cov_rowvar": lambda np_: np_.cov(M.T, rowvar=False, bias=True),
    "cov_xy": lambda np_: np_.cov(M[0], M[1]),
    "cov_int": lambda np_: np_.cov(np.arange(12).reshape(3, 4)),
    "corrcoef": lambda np_: np_.corrcoef(M),
    "cross": lambda np_: np_.cross(A3, B3),
    "cross_2d": lambda np_: np_.cross(A3[:, :2], B3[:, :2]),
    "cross_axis": lambda np_: np_.cross(A3.T, B3.T, axis=0),
    "cross_int": lambda np_: np_.cross(np.arange(3), np.array([4, -1, 2])),
    "divmod_int": lambda np_: np_.divmod(I1, np.where(I2 == 0, 7, I2)),
    "divmod_float": lambda np_: np_.divmod(F1, F2),
    "gcd": lambda np_: np_.gcd(I1, I2),
    "gcd_scalar": lambda np_: np_.gcd(I1.astype(np.int32), 12),
    "lcm": lambda np_: np_.lcm(I1, I2),
    "iscomplex": lambda np_: np_.iscomplex(np.array([1 + 0j, 2 + 1j, -3j])),
    "isreal": lambda np_: np_.isreal(I1),
    "nancumsum": lambda np_: np_.nancumsum(NAN, axis=1),
    "nancumsum_flat": lambda np_: np_.nancumsum(NAN),
    "nancumsum_int8": lambda np_: np_.nancumsum(np.arange(5, dtype=np.int8)),
    "nancumsum_bool": lambda np_: np_.nancumsum(np.array([True, False, True])),
    "nancumprod": lambda np_: np_.nancumprod(NAN, axis=0),
    "block": lambda np_: np_.block([[np.eye(2), np.zeros((2, 1))], [np.ones((1, 2)), 5.0]]),
    "matrix_rank": lambda np_: np_.linalg.matrix_rank(np.stack([SQ, np.outer(SQ[0], SQ[1])])),
    "matrix_rank_vec": lambda np_: np_.linalg.matrix_rank(np.array([0.0, 1.0])),
}

NN_CASES = [
    "celu", "selu", "glu", "hard_tanh", "soft_sign", "relu6", "hard_sigmoid", "hard_silu",
    "hard_swish", "sparse_plus", "sparse_sigmoid", "squareplus", "mish", "identity",
    "standardize", "elu", "leaky_relu", "softplus", "silu", "log_sigmoid",
]  # fmt: skip


def _compare(got, want, rtol=1e-12, atol=1e-13):
    got_leaves, want_leaves = jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves, strict=True):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape
        assert g.dtype == w.dtype, (g.dtype, w.dtype)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", list(NUMPY_CASES))
def test_numpy_matches_jax(name):
    _compare(NUMPY_CASES[name](mnp), NUMPY_CASES[name](jnp))


@pytest.mark.parametrize("name", NN_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nn_matches_jax(name, dtype):
    x = X.astype(dtype)
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    _compare(getattr(mnn, name)(x), getattr(jnn, name)(x), rtol=rtol, atol=rtol)
    g_mj = mj.grad(lambda v: mnp.sum(getattr(mnn, name)(v) ** 2))(X)
    g_jax = jax.grad(lambda v: jnp.sum(getattr(jnn, name)(v) ** 2))(X)
    _compare(g_mj, g_jax, rtol=1e-10, atol=1e-12)


def test_nn_kinks_and_log1mexp_match_jax():
    kinks = np.array([-3.0, -1.0, 0.0, 1.0, 3.0, 6.0])
    for name in ("relu6", "hard_sigmoid", "hard_tanh", "sparse_plus", "celu", "hard_silu"):
        g_mj = mj.vmap(mj.grad(getattr(mnn, name)))(kinks)
        _compare(g_mj, jax.vmap(jax.grad(getattr(jnn, name)))(kinks))
    pos = np.abs(X) + 1e-3
    _compare(mnn.log1mexp(pos), jnn.log1mexp(pos))
    _compare(mj.vmap(mj.grad(mnn.log1mexp))(pos[0]), jax.vmap(jax.grad(jnn.log1mexp))(pos[0]))
    mask = RNG.uniform(size=X.shape) < 0.7
    _compare(
        mnn.standardize(X, axis=0, where=mask, algorithm="stable", epsilon=1e-3),
        jnn.standardize(X, axis=0, where=mask, algorithm="stable", epsilon=1e-3),
    )


INIT_CASES = {
    "zeros": lambda m: m.zeros,
    "constant": lambda m: m.constant(-7.0),
    "uniform": lambda m: m.uniform(3.0),
    "normal": lambda m: m.normal(2.0),
    "truncated_normal": lambda m: m.truncated_normal(1.5, lower=-1.0, upper=3.0),
    "glorot_uniform": lambda m: m.glorot_uniform(),
    "glorot_normal": lambda m: m.glorot_normal(),
    "he_uniform": lambda m: m.he_uniform(),
    "he_normal": lambda m: m.he_normal(),
    "lecun_uniform": lambda m: m.lecun_uniform(),
    "lecun_normal": lambda m: m.lecun_normal(),
    "xavier_normal": lambda m: m.xavier_normal(),
    "kaiming_uniform": lambda m: m.kaiming_uniform(),
    "geo_avg_normal": lambda m: m.variance_scaling(2.0, "fan_geo_avg", "normal"),
    "conv_fans": lambda m: m.variance_scaling(0.5, "fan_out", "uniform", in_axis=(0, 1)),
    "orthogonal": lambda m: m.orthogonal(2.0),
    "orthogonal_axis0": lambda m: m.orthogonal(column_axis=0),
}


@pytest.mark.parametrize("name", list(INIT_CASES))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(5, 4), (3, 3, 2, 6)])
def test_initializers_draw_jax_samples(name, dtype, shape):
    m_init, j_init = INIT_CASES[name](minit), INIT_CASES[name](jinit)
    want = np.asarray(jax.jit(lambda k: j_init(k, shape, dtype))(jax.random.PRNGKey(7)))
    jitted = np.asarray(mj.jit(lambda k: m_init(k, shape, dtype))(mr.PRNGKey(7)))
    assert jitted.dtype == want.dtype
    if name.startswith("orthogonal"):  # through a QR: LAPACK in both, last-bit differences
        np.testing.assert_allclose(jitted, want, rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_array_equal(jitted, want)
    eager = np.asarray(m_init(mr.PRNGKey(7), shape, dtype))
    eager_jax = np.asarray(j_init(jax.random.PRNGKey(7), shape, dtype))
    tol = 4 * np.finfo(dtype).eps
    np.testing.assert_allclose(eager, eager_jax, rtol=tol * 10, atol=tol * 10)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_variance_scaling_matches_jax(dtype):
    for name in ("glorot_uniform", "he_normal"):
        m_init, j_init = getattr(minit, name)(), getattr(jinit, name)()
        want = jax.jit(lambda k, j_init=j_init: j_init(k, (4, 6), dtype))(jax.random.PRNGKey(3))
        got = mj.jit(lambda k, m_init=m_init: m_init(k, (4, 6), dtype))(mr.PRNGKey(3))
        _compare(got, want, rtol=1e-5 if dtype == np.complex64 else 1e-13, atol=1e-6)


def test_lax_batch_matmul_collapse_match_jax():
    a, b = RNG.normal(size=(2, 3, 4)), RNG.normal(size=(2, 4, 5))
    _compare(mj.lax.batch_matmul(a, b), jax.lax.batch_matmul(a, b))
    x = np.arange(120.0).reshape(2, 3, 4, 5)
    for args in ((1, 3), (0,), (-2, None), (2, 2)):
        _compare(mj.lax.collapse(x, *args), jax.lax.collapse(x, *args))


SCIPY_CASES = {
    "lu": lambda sl: sl.lu(SQ),
    "lu_wide": lambda sl: sl.lu(SQ[:3]),
    "lu_tall_permute_l": lambda sl: sl.lu(SQ[:, :3], permute_l=True),
    "block_diag": lambda sl: sl.block_diag(SQ[:2, :3], 3.0, np.arange(2.0)),
    "expm_small": lambda sl: sl.expm(0.01 * SQ),
    "expm": lambda sl: sl.expm(SQ),
    "expm_large": lambda sl: sl.expm(3.0 * SQ),
    "expm_f32": lambda sl: sl.expm((0.5 * SQ).astype(np.float32)),
    "expm_batched": lambda sl: sl.expm(np.stack([SQ, 0.3 * SQ])),
    "expm_triangular": lambda sl: sl.expm(np.triu(SQ), upper_triangular=True),
    "inv": lambda sl: sl.inv(SQ),
    "det": lambda sl: sl.det(SQ),
    "svd_values": lambda sl: sl.svd(SQ, compute_uv=False),
    "eigh_values": lambda sl: sl.eigh(SQ @ SQ.T, eigvals_only=True),
    "qr_r_abs": lambda sl: abs(sl.qr(SQ, mode="r")[0]),
    "solve": lambda sl: sl.solve(SQ, SQ[0]),
    "solve_pos": lambda sl: sl.solve(SQ @ SQ.T + np.eye(4), SQ[:, :2], assume_a="pos"),
}


@pytest.mark.parametrize("name", list(SCIPY_CASES))
def test_scipy_linalg_matches_jax(name):
    rtol = 1e-5 if name.endswith("f32") else 1e-10
    _compare(SCIPY_CASES[name](msl), SCIPY_CASES[name](jsl), rtol=rtol, atol=rtol)


def test_expm_gradient_matches_jax():
    w = RNG.normal(size=(4, 4))
    g_mj = mj.grad(lambda a: mnp.sum(msl.expm(a) * w))(0.7 * SQ)
    g_jax = jax.grad(lambda a: jnp.sum(jsl.expm(a) * w))(0.7 * SQ)
    _compare(g_mj, g_jax, rtol=1e-9, atol=1e-10)
