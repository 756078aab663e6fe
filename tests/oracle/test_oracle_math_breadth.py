"""The Array API aliases, dtype names, float decomposition, finite differences, averages,
NaN statistics and polynomials of ``mj.numpy`` against real JAX 0.10.2 (x64): values,
dtypes (weak Python scalars under ``jit`` included), error types, gradients and ``vmap``.

Inputs are float64/float32/int64 (or integers where the function keeps integers): for
int32/int16/int8/bool input to a float function JAX computes in float32, mj in NumPy's float
(float64 for int32), a rule mj follows everywhere. ``roots`` are compared as sets: JAX
returns LAPACK's eigenvalue order, mj the order its root finder converges in."""

import builtins

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

jax.config.update("jax_enable_x64", True)

pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(77)
M = RNG.normal(size=(3, 5))
V4 = RNG.normal(size=4)
A3 = RNG.normal(size=(2, 3, 4))
SQ = RNG.normal(size=(4, 4))
POS = RNG.uniform(0.5, 2.0, size=(3, 5))
INTS = RNG.integers(-50, 50, size=10)
NAN = RNG.normal(size=(4, 6))
NAN[0, [1, 4]] = NAN[1, 0] = NAN[3, [2, 3, 5]] = np.nan
NAN[2] = np.nan
X8 = np.sort(RNG.uniform(0, 2, size=8))
Y8 = 1.5 * X8**3 - X8 + 0.25 + 0.05 * np.sin(9 * X8)
W8 = RNG.uniform(0.5, 1.5, size=8)
Q = np.array([0.0, 0.1, 0.37, 0.5, 0.9, 1.0])
F32 = M.astype(np.float32)
PHASE = np.cumsum(RNG.uniform(-4, 4, size=(2, 9)), 1)

CASES = {
    "acos": lambda np_: np_.acos(np.clip(M, -1, 1)),
    "acosh": lambda np_: np_.acosh(1 + POS),
    "asin": lambda np_: np_.asin(np.clip(F32, -1, 1)),
    "asinh": lambda np_: np_.asinh(M),
    "atan": lambda np_: np_.atan(M),
    "atan2": lambda np_: np_.atan2(M, POS),
    "atanh": lambda np_: np_.atanh(np.clip(M, -0.9, 0.9)),
    "pow": lambda np_: np_.pow(POS, M),
    "pow_int": lambda np_: np_.pow(INTS, 3),
    "concat": lambda np_: np_.concat([M, POS], axis=1),
    "concat_promote": lambda np_: np_.concat([F32, M[:1]]),
    "concat_none": lambda np_: np_.concat([M, A3], axis=None),
    "permute_dims": lambda np_: np_.permute_dims(A3, (2, 0, 1)),
    "matrix_transpose": lambda np_: np_.matrix_transpose(A3),
    "left_shift": lambda np_: np_.bitwise_left_shift(INTS, 3),
    "left_shift_int8": lambda np_: np_.bitwise_left_shift(INTS.astype(np.int8), 2),
    "left_shift_bool": lambda np_: np_.bitwise_left_shift(np.array([True]), np.array([True])),
    "right_shift": lambda np_: np_.bitwise_right_shift(INTS, 2),
    "right_shift_uint8": lambda np_: np_.bitwise_right_shift(np.array([255, 7], np.uint8), 3),
    "bitwise_invert": lambda np_: np_.bitwise_invert(INTS.astype(np.int16)),
    "bitwise_count": lambda np_: np_.bitwise_count(INTS),
    "bitwise_count_int8": lambda np_: np_.bitwise_count(np.array([-128, -1, 0, 127], np.int8)),
    "bitwise_count_uint64": lambda np_: np_.bitwise_count(np.array([2**64 - 1, 5], np.uint64)),
    "bitwise_count_bool": lambda np_: np_.bitwise_count(np.array([True, False])),
    "bitwise_count_scalar": lambda np_: np_.bitwise_count(7),
    "vecdot": lambda np_: np_.vecdot(A3, V4),
    "vecdot_complex": lambda np_: np_.vecdot(M + 1j * POS, M - 2j, axis=0),
    "vecdot_int32": lambda np_: np_.vecdot(INTS[:4].astype(np.int32), INTS[4:8].astype(np.int32)),
    "vecdot_bool": lambda np_: np_.vecdot(np.ones(3, bool), np.array([False, True, False])),
    "matvec": lambda np_: np_.matvec(A3, V4),
    "matvec_int32": lambda np_: np_.matvec(INTS[:4].reshape(2, 2).astype(np.int32), INTS[:2]),
    "vecmat": lambda np_: np_.vecmat(V4 + 1j, SQ),
    "vecmat_batch": lambda np_: np_.vecmat(M[:, :4], A3[:1].transpose(0, 2, 1)),
    "unstack": lambda np_: np_.unstack(A3, axis=1),
    "cumulative_sum": lambda np_: np_.cumulative_sum(V4),
    "cumulative_sum_initial": lambda np_: np_.cumulative_sum(M, axis=1, include_initial=True),
    "cumulative_sum_uint8": lambda np_: np_.cumulative_sum(np.arange(6, dtype=np.uint8)),
    "cumulative_sum_int32": lambda np_: np_.cumulative_sum(np.arange(6, dtype=np.int32)),
    "cumulative_sum_bool": lambda np_: np_.cumulative_sum(np.array([True, True, False])),
    "cumulative_sum_dtype": lambda np_: np_.cumulative_sum(INTS, dtype=np.float32),
    "cumulative_sum_to_bool": lambda np_: np_.cumulative_sum(np.array([1, -1, 0]), dtype=bool),
    "cumulative_prod": lambda np_: np_.cumulative_prod(M, axis=0, include_initial=True),
    "cumulative_prod_int32": lambda np_: np_.cumulative_prod(np.arange(1, 6, dtype=np.int32)),
    "cumulative_prod_uint8": lambda np_: np_.cumulative_prod(np.arange(1, 5, dtype=np.uint8)),
    "cumulative_prod_bool": lambda np_: np_.cumulative_prod(np.array([True, False, True])),
    "copy": lambda np_: np_.copy(M),
    "ldexp": lambda np_: np_.ldexp(M, INTS[:5].reshape(1, 5)),
    "ldexp_f32": lambda np_: np_.ldexp(F32, np.int32(5)),
    "ldexp_ranges": lambda np_: np_.ldexp(
        np.array([1e-300, 0.75, 1.0, -2.5, 0.0, np.inf]), np.array([1500, 1024, 1024, 7, 9, 3])
    ),
    "ldexp_int": lambda np_: np_.ldexp(INTS[:4], INTS[4:8]),
    "frexp": lambda np_: np_.frexp(
        np.array([0.0, -3.0, 1.5, 1e300, -7.25e-3, 2.5e-308, np.inf, -np.inf, np.nan, -0.0])
    ),
    "frexp_f32": lambda np_: np_.frexp(F32),
    "frexp_int": lambda np_: np_.frexp(INTS),
    "modf": lambda np_: np_.modf(M * 7),
    "modf_specials": lambda np_: np_.modf(np.array([-0.0, np.inf, -2.5, 3.0])),
    "spacing": lambda np_: np_.spacing(np.array([1.0, -1.0, 0.0, -0.0, 1e308, -5.5, np.inf])),
    "spacing_f32": lambda np_: np_.spacing(F32),
    "spacing_f16": lambda np_: np_.spacing(np.array([1.0, 0.0, -1.0, 300.0], np.float16)),
    "diff": lambda np_: np_.diff(M),
    "diff_n2": lambda np_: np_.diff(A3, n=2, axis=1),
    "diff_int32": lambda np_: np_.diff(INTS.astype(np.int32)),
    "diff_uint8": lambda np_: np_.diff(np.array([1, 0, 5], np.uint8)),
    "diff_bool": lambda np_: np_.diff(np.array([True, False, False, True])),
    "diff_edges": lambda np_: np_.diff(F32[0], prepend=1.5, append=np.array([2.0, 3.0])),
    "diff_append": lambda np_: np_.diff(M, axis=0, append=np.ones((1, 5))),
    "diff_long": lambda np_: np_.diff(V4, n=7),
    "diff_n0": lambda np_: np_.diff(V4, n=0),
    "ediff1d": lambda np_: np_.ediff1d(M),
    "ediff1d_ends": lambda np_: np_.ediff1d(
        INTS.astype(np.int32), to_begin=np.array([-1, -2]), to_end=np.array(7)
    ),
    "gradient": lambda np_: np_.gradient(V4),
    "gradient_all_axes": lambda np_: np_.gradient(M),
    "gradient_step": lambda np_: np_.gradient(V4, 0.5),
    "gradient_coords": lambda np_: np_.gradient(V4, np.array([0.0, 0.5, 2.0, 2.25])),
    "gradient_f32_coords": lambda np_: np_.gradient(F32[0], X8[:5]),
    "gradient_axes": lambda np_: np_.gradient(M, 1.0, np.cumsum(POS[0]), axis=(0, 1)),
    "gradient_axis": lambda np_: np_.gradient(M, 2.0, axis=-1),
    "gradient_int": lambda np_: np_.gradient(INTS),
    "trapezoid": lambda np_: np_.trapezoid(M),
    "trapezoid_x": lambda np_: np_.trapezoid(M, X8[:5]),
    "trapezoid_dx": lambda np_: np_.trapezoid(M, dx=0.3, axis=0),
    "trapezoid_dx_array": lambda np_: np_.trapezoid(M, dx=np.array([1.0, 2.0, 3.0, 4.0])),
    "trapezoid_x2d": lambda np_: np_.trapezoid(M, POS, axis=1),
    "trapezoid_int": lambda np_: np_.trapezoid(INTS),
    "trapezoid_f32_f64": lambda np_: np_.trapezoid(F32, X8[:5]),
    "trapezoid_one": lambda np_: np_.trapezoid(np.ones(1)),
    "average": lambda np_: np_.average(M),
    "average_weights": lambda np_: np_.average(M, axis=1, weights=POS[0], returned=True),
    "average_axes_order": lambda np_: np_.average(A3, axis=(2, 0), weights=SQ[:, :2]),
    "average_keepdims": lambda np_: np_.average(M, axis=0, weights=POS, keepdims=True),
    "average_full_weights": lambda np_: np_.average(M, axis=1, weights=POS, returned=True),
    "average_int": lambda np_: np_.average(INTS, returned=True),
    "average_f32": lambda np_: np_.average(F32, axis=0, returned=True),
    "average_complex": lambda np_: np_.average(M + 1j * POS, axis=1, weights=POS),
    "nanvar": lambda np_: np_.nanvar(NAN),
    "nanvar_ddof": lambda np_: np_.nanvar(NAN, axis=1, ddof=1),
    "nanvar_keepdims": lambda np_: np_.nanvar(NAN, axis=0, keepdims=True),
    "nanvar_f32": lambda np_: np_.nanvar(NAN.astype(np.float32), axis=1),
    "nanvar_complex": lambda np_: np_.nanvar(NAN + 1j * NAN[::-1], axis=1),
    "nanvar_int": lambda np_: np_.nanvar(INTS),
    "nanvar_dtype": lambda np_: np_.nanvar(NAN, dtype=np.float32),
    "nanvar_where": lambda np_: np_.nanvar(NAN, axis=1, where=np.arange(6) % 4 != 1),
    "nanvar_mean": lambda np_: np_.nanvar(NAN, axis=1, mean=np.zeros((4, 1))),
    "nanstd": lambda np_: np_.nanstd(NAN, axis=0, ddof=1),
    "nanmedian": lambda np_: np_.nanmedian(NAN),
    "nanmedian_axis": lambda np_: np_.nanmedian(NAN, axis=1),
    "nanmedian_tuple": lambda np_: np_.nanmedian(A3, axis=(0, 2), keepdims=True),
    "nanmedian_int": lambda np_: np_.nanmedian(INTS),
    "nanmedian_f32": lambda np_: np_.nanmedian(NAN.astype(np.float32), axis=0),
    "nanquantile": lambda np_: np_.nanquantile(NAN, Q, axis=1),
    "nanquantile_keepdims": lambda np_: np_.nanquantile(NAN, Q[:2], axis=0, keepdims=True),
    "nanquantile_none_keep": lambda np_: np_.nanquantile(NAN, 0.3, keepdims=True),
    "nanquantile_lower": lambda np_: np_.nanquantile(NAN, Q, axis=1, method="lower"),
    "nanquantile_higher": lambda np_: np_.nanquantile(NAN, Q, axis=0, method="higher"),
    "nanquantile_midpoint": lambda np_: np_.nanquantile(NAN, Q, axis=1, method="midpoint"),
    "nanquantile_nearest": lambda np_: np_.nanquantile(NAN, Q, axis=1, method="nearest"),
    "nanquantile_icdf": lambda np_: np_.nanquantile(NAN, Q, axis=1, method="inverted_cdf"),
    "nanquantile_weights": lambda np_: np_.nanquantile(
        NAN, Q[1:4], axis=1, method="inverted_cdf", weights=np.array([1.0, 2, 3, 4, 0.5, 1])
    ),
    "nanquantile_tuple_weights": lambda np_: np_.nanquantile(
        A3, 0.6, axis=(0, 2), method="inverted_cdf", weights=np.abs(A3)
    ),
    "nanquantile_f32": lambda np_: np_.nanquantile(NAN.astype(np.float32), 0.7),
    "nanquantile_q_f32": lambda np_: np_.nanquantile(NAN, np.float32(0.3), axis=1),
    "nanquantile_q_beyond": lambda np_: np_.nanquantile(np.array([1.0, 5.0]), 1.5),
    "nanpercentile": lambda np_: np_.nanpercentile(NAN, np.array([10, 50, 95]), axis=1),
    "nanpercentile_keep": lambda np_: np_.nanpercentile(NAN, 30, axis=0, keepdims=True),
    "nanargmax": lambda np_: np_.nanargmax(NAN, axis=1),
    "nanargmin_keepdims": lambda np_: np_.nanargmin(NAN, axis=0, keepdims=True),
    "nanargmax_flat": lambda np_: np_.nanargmax(NAN),
    "nanargmin_int": lambda np_: np_.nanargmin(INTS),
    "unwrap": lambda np_: np_.unwrap(PHASE[0]),
    "unwrap_options": lambda np_: np_.unwrap(PHASE, discont=2.0, period=5.0),
    "unwrap_int": lambda np_: np_.unwrap(np.array([0, 7, 14, 2, -9]), period=6),
    "unwrap_int32": lambda np_: np_.unwrap(np.array([0, 7, 14, 2, -9], np.int32), period=6),
    "unwrap_int_default": lambda np_: np_.unwrap(np.array([0, 7, 14, 2, -9])),
    "unwrap_axis": lambda np_: np_.unwrap(PHASE.T, axis=0),
    "unwrap_f32": lambda np_: np_.unwrap(PHASE.astype(np.float32)),
    "unwrap_empty": lambda np_: np_.unwrap(np.ones((2, 0))),
    "array_equiv": lambda np_: np_.array_equiv(np.ones((2, 3)), np.ones(3)),
    "array_equiv_shapes": lambda np_: np_.array_equiv(np.ones((2, 3)), np.ones(2)),
    "array_equiv_values": lambda np_: np_.array_equiv(M, M + 1e-9),
    "polyadd": lambda np_: np_.polyadd(V4, M[0]),
    "polyadd_int": lambda np_: np_.polyadd(INTS[:3], INTS[:5].astype(np.int32)),
    "polyadd_f32_f64": lambda np_: np_.polyadd(F32[0], V4),
    "polysub": lambda np_: np_.polysub(M[0], V4),
    "polysub_uint8": lambda np_: np_.polysub(np.array([1, 2], np.uint8), np.array([3], np.uint8)),
    "polymul": lambda np_: np_.polymul(V4, M[0]),
    "polymul_int": lambda np_: np_.polymul(INTS[:3], INTS[3:5]),
    "polymul_trim": lambda np_: np_.polymul(
        np.array([0.0, 0, 1, 2]), np.array([0.0, 3]), trim_leading_zeros=True
    ),
    "polymul_empty": lambda np_: np_.polymul(np.zeros(0), np.array([2.0, 3.0])),
    "polyder": lambda np_: np_.polyder(M[0]),
    "polyder_m3": lambda np_: np_.polyder(INTS[:6], 3),
    "polyder_m_large": lambda np_: np_.polyder(V4, 6),
    "polyint": lambda np_: np_.polyint(V4),
    "polyint_k": lambda np_: np_.polyint(V4, 2, k=np.array([3.0, -1.0])),
    "polyint_f32": lambda np_: np_.polyint(F32[0], 3, k=2),
    "polyint_m0": lambda np_: np_.polyint(INTS[:3], 0),
    "polydiv": lambda np_: np_.polydiv(np.array([1.0, 2, 3, 4]), np.array([2.0, 1])),
    "polydiv_int": lambda np_: np_.polydiv(INTS[:5], np.array([2, 1])),
    "polydiv_short": lambda np_: np_.polydiv(np.array([1.0, 2]), np.array([2.0, 1, 5])),
    "polydiv_trim": lambda np_: np_.polydiv(
        np.array([1.0, 3, 2]), np.array([1.0, 1]), trim_leading_zeros=True
    ),
    "poly": lambda np_: np_.poly(V4),
    "poly_scalar": lambda np_: np_.poly(2.0),
    "poly_empty": lambda np_: np_.poly(np.zeros(0)),
    "poly_complex": lambda np_: np_.poly(np.array([1 + 1j, 1 - 1j, 2.0])),
    "poly_matrix": lambda np_: np_.poly(SQ),
    "poly_matrix_complex": lambda np_: np_.poly(SQ + 1j * SQ.T),
    "polyfit": lambda np_: np_.polyfit(X8, Y8, 3),
    "polyfit_full": lambda np_: np_.polyfit(X8, Y8, 2, full=True),
    "polyfit_cov": lambda np_: np_.polyfit(X8, Y8, 2, cov=True),
    "polyfit_cov_unscaled": lambda np_: np_.polyfit(X8, Y8, 2, cov="unscaled"),
    "polyfit_2d_cov": lambda np_: np_.polyfit(X8, np.stack([Y8, -(Y8**2)], 1), 2, cov=True),
    "polyfit_2d_unscaled": lambda np_: np_.polyfit(X8, np.stack([Y8, Y8], 1), 1, cov="unscaled"),
    "polyfit_w": lambda np_: np_.polyfit(X8, Y8, 3, w=W8),
    "polyfit_f32": lambda np_: np_.polyfit(X8.astype(np.float32), Y8.astype(np.float32), 2),
    "polyfit_rcond": lambda np_: np_.polyfit(X8, Y8, 5, rcond=1e-3, full=True),
}

# tolerances for results computed along different routes (SVDs, root finders, sums)
LOOSE = {
    "polyfit_f32": 2e-4,
    "poly_matrix": 1e-11,
    "poly_matrix_complex": 1e-11,
    "nanquantile_q_f32": 1e-6,  # computed in q's float32 by both
}


def _compare(got, want, rtol=1e-12, atol=1e-12):
    got_leaves, want_leaves = jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves, strict=True):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape, (g.shape, w.shape)
        assert g.dtype == w.dtype, (g.dtype, w.dtype)
        if g.dtype.kind in "biu":
            np.testing.assert_array_equal(g, w)
        else:
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True)


def _tolerance(name, want):
    if name in LOOSE:
        return LOOSE[name]
    leaves = jax.tree_util.tree_leaves(want)
    if any(np.asarray(x).dtype in (np.float16,) for x in leaves):
        return 1e-3
    if any(np.asarray(x).dtype in (np.float32, np.complex64) for x in leaves):
        return 2e-6
    return 1e-10


# cases whose output shape depends on the values: JAX runs them eagerly only
EAGER_ONLY = {"polymul_trim", "polydiv_trim"}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", list(CASES))
def test_numpy_matches_jax(name):
    # one compiled JAX program per case is much faster than JAX's op-by-op dispatch
    want = CASES[name](jnp) if name in EAGER_ONLY else jax.jit(lambda: CASES[name](jnp))()
    tol = _tolerance(name, want)
    _compare(CASES[name](mnp), want, tol, tol)


# --- weak Python scalars: under jit a Python scalar argument is weakly typed in both ----------
WEAK_CASES = {
    "trapezoid_dx": lambda np_, y, s: np_.trapezoid(y, dx=s),
    "gradient_step": lambda np_, y, s: np_.gradient(y, s),
    "diff_prepend": lambda np_, y, s: np_.diff(y, prepend=s),
    "ldexp": lambda np_, y, s: np_.ldexp(y, 3),
    "polyint_k": lambda np_, y, s: np_.polyint(y, 2, k=s),
    "polyadd": lambda np_, y, s: np_.polyadd(y, np_.asarray(y) * s),
    "unwrap_period": lambda np_, y, s: np_.unwrap(y, period=s + 5.0),
    "unwrap_default": lambda np_, y, s: np_.unwrap(y * 5),
    "nanquantile": lambda np_, y, s: np_.nanquantile(y, s / 3),
    "nanpercentile": lambda np_, y, s: np_.nanpercentile(y, s * 10),
    "average_weights": lambda np_, y, s: np_.average(y, weights=y * s + 2.0),
    "vecdot": lambda np_, y, s: np_.vecdot(y, y * s),
    "atan2": lambda np_, y, s: np_.atan2(y, s),
    "pow": lambda np_, y, s: np_.pow(np_.abs(y), s),
    "cumulative_sum": lambda np_, y, s: np_.cumulative_sum(y * s, include_initial=True),
    "spacing": lambda np_, y, s: np_.spacing(y * s),
    "frexp": lambda np_, y, s: np_.frexp(y * s),
    "modf": lambda np_, y, s: np_.modf(y * s),
    "poly": lambda np_, y, s: np_.poly(y * s),
    "polyfit": lambda np_, y, s: np_.polyfit(y, y * s, 1),
    "nanvar_mean": lambda np_, y, s: np_.nanvar(y, mean=s),
}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", list(WEAK_CASES))
def test_weak_scalars_keep_float32_under_jit(name):
    y = np.abs(F32[0]) + np.float32(0.5)
    f = WEAK_CASES[name]
    want = jax.jit(lambda y, s: f(jnp, y, s))(y, 1.5)
    got = mj.jit(lambda y, s: f(mnp, y, s))(y, 1.5)
    _compare(got, want, 5e-6, 5e-6)


def test_dtype_names_and_predicates_match_jax():
    names = ["bool", "int_", "uint", "float_", "complex_", "single", "double", "csingle",
             "cdouble", "object_"]  # fmt: skip
    for name in names:  # jax.numpy wraps these scalar types in classes of its own
        assert np.dtype(getattr(mnp, name)) == np.dtype(getattr(jnp, name)), name
    for name in ("generic", "signedinteger", "unsignedinteger", "flexible", "character"):
        assert getattr(mnp, name) is getattr(jnp, name), name
    kinds = ["bool", "signed integer", "unsigned integer", "integral", "real floating",
             "complex floating", "numeric", np.float32, ("bool", np.int8)]  # fmt: skip
    for dt in (np.bool_, np.int8, np.uint32, np.int64, np.float16, np.float64, np.complex64):
        for kind in kinds:
            assert mnp.isdtype(dt, kind) == jnp.isdtype(dt, kind), (dt, kind)
    for x in (1.0, 1j, M, M + 0j, [1j], [1, 2]):
        assert mnp.isrealobj(x) == jnp.isrealobj(x)
    for x in (M, M[0, 0], np.array(1.0), [1], 3, "ab"):
        assert mnp.iterable(x) == jnp.iterable(x), x
    for shape in ((), (2,)):  # each library's own arrays
        assert mnp.iterable(mnp.ones(shape)) == jnp.iterable(jnp.ones(shape)), shape


ROOT_CASES = [
    np.array([0.0, 0.0, 1.0, -6.0, 11.0, -6.0]),  # leading zeros
    np.array([1.0, -3.0, 2.0, 0.0, 0.0]),  # zero roots
    np.array([2.0, 0.0, 0.0, 0.0, 1.0]),  # complex roots of a real polynomial
    np.array([1.0, 1j, 2.0]),  # complex coefficients
    np.array([3, 1, -2]),  # integers
    np.array([1.0, 2.0], np.float32),  # complex64 roots
    RNG.normal(size=8),
]


@pytest.mark.parametrize("p", ROOT_CASES, ids=range(len(ROOT_CASES)))
def test_roots_match_jax_as_sets(p):
    def ordered(r):
        r = np.asarray(r)
        return r[np.lexsort((np.round(r.imag, 4), np.round(r.real, 4)))]

    tol = 1e-5 if p.dtype == np.float32 else 1e-9
    want, got = jnp.roots(p), mnp.roots(p)
    assert got.dtype == want.dtype
    assert got.shape == want.shape
    np.testing.assert_allclose(ordered(got), ordered(want), rtol=tol, atol=tol)
    # traced: leading zeros give NaN roots, sorted last
    want = jax.jit(lambda c: jnp.roots(c, strip_zeros=False))(p)
    got = mj.jit(lambda c: mnp.roots(c, strip_zeros=False))(p)
    assert got.dtype == want.dtype
    assert got.shape == want.shape
    np.testing.assert_allclose(ordered(got), ordered(want), rtol=tol, atol=tol, equal_nan=True)


def test_roots_gradient_matches_jax():
    p = np.poly([0.5, -1.0, 2.0, 3.5])
    for loss in (lambda r, np_: np_.sum(np_.real(r) ** 2), lambda r, np_: np_.sum(np_.abs(r))):
        got = mj.grad(lambda c, loss=loss: loss(mnp.roots(c), mnp))(p)
        want = jax.jit(jax.grad(lambda c, loss=loss: loss(jnp.roots(c, strip_zeros=False), jnp)))(p)
        np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-10)


C5 = RNG.normal(size=5)
GRAD_CASES = {
    "diff": (lambda np_, x: np_.sum(C5[:4] * np_.diff(x, prepend=0.3) ** 2), V4),
    "gradient": (lambda np_, x: np_.sum(C5 * np_.gradient(C5**3, x)), np.cumsum(POS[0])),
    "trapezoid": (lambda np_, x: np_.trapezoid(Y8**2, x), X8),
    "average": (lambda np_, w: np_.sum(np_.average(M, axis=1, weights=w) ** 2), POS[0]),
    "nanvar": (lambda np_, a: np_.nansum(np_.nanvar(a, axis=1, ddof=1)), NAN),
    "nanstd": (lambda np_, a: np_.sum(np_.nanstd(a, axis=0)), NAN),
    "nanmedian": (lambda np_, a: np_.nansum(np_.nanmedian(a, axis=1) ** 2), NAN),
    "nanquantile": (lambda np_, a: np_.nansum(np_.nanquantile(a, Q[1:4], axis=1)), NAN),
    "nanpercentile": (lambda np_, a: np_.nansum(np_.nanpercentile(a, 35.0, axis=0)), NAN),
    "polyfit": (lambda np_, y: np_.sum(C5[:4] * np_.polyfit(X8, y, 3, w=W8)), Y8),
    "polydiv": (lambda np_, u: np_.sum(np_.polydiv(u, np.array([2.0, 0.5]))[0] ** 2), V4),
    "polyint": (lambda np_, p: np_.sum(C5 * np_.polyint(p, k=2.0)), V4),
    "poly": (lambda np_, r: np_.sum(C5 * np_.poly(r)), V4),
    "frexp": (lambda np_, x: np_.sum(np_.frexp(x)[0] ** 2), M),
    "ldexp": (lambda np_, x: np_.sum(np_.ldexp(x, np.arange(5)) ** 2), M),
    "modf": (lambda np_, x: np_.sum(np_.modf(3 * x)[0] ** 2), M),
    "unwrap": (lambda np_, p: np_.sum(C5 * np_.unwrap(p)), np.array([0.0, 3.0, 6.5, 1.0, -5.0])),
    "vecmat": (lambda np_, x: np_.sum(np_.abs(np_.vecmat(x + 1j, SQ)) ** 2), V4),
    "cumulative_prod": (lambda np_, x: np_.sum(np_.cumulative_prod(x, axis=1)), M),
}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", list(GRAD_CASES))
def test_gradients_match_jax(name):
    f, x = GRAD_CASES[name]
    got = mj.grad(lambda v: f(mnp, v))(x)
    want = jax.jit(jax.grad(lambda v: f(jnp, v)))(x)
    _compare(got, want, 1e-9, 1e-10)


def test_vmap_matches_jax():
    batch = np.stack([M, 2 * M + 1, -M])
    cases = {
        "gradient": lambda np_, x: np_.gradient(x, X8[:5], axis=1),
        "trapezoid": lambda np_, x: np_.trapezoid(x, X8[:5]),
        "average": lambda np_, x: np_.average(x, axis=1, weights=POS[0], returned=True),
        "nanquantile": lambda np_, x: np_.nanquantile(np_.where(x > 1, np.nan, x), Q, axis=1),
        "ldexp": lambda np_, x: np_.ldexp(x, 3),
        "unwrap": lambda np_, x: np_.unwrap(5 * x, axis=1),
        "vecdot": lambda np_, x: np_.vecdot(x, POS),
        "polyfit": lambda np_, x: np_.polyfit(X8[:5], x[0], 2),
    }
    for f in cases.values():
        got = mj.vmap(lambda x, f=f: f(mnp, x))(batch)
        want = jax.jit(jax.vmap(lambda x, f=f: f(jnp, x)))(batch)
        _compare(got, want, 1e-9, 1e-10)


def _jit_error(np_, f, *args):
    return (mj.jit if np_ is mnp else jax.jit)(lambda *xs: f(np_, *xs))(*args)


ERROR_CASES = {
    "concat_list": lambda np_: np_.concat([[1.0, 2.0], M[0]]),
    "permute_dims_short": lambda np_: np_.permute_dims(A3, (2, 0)),
    "permute_dims_negative": lambda np_: np_.permute_dims(A3, (-1, 0, 1)),
    "matrix_transpose_1d": lambda np_: np_.matrix_transpose(V4),
    "left_shift_float": lambda np_: np_.bitwise_left_shift(M, 1),
    "bitwise_count_float": lambda np_: np_.bitwise_count(M),
    "vecdot_mismatch": lambda np_: np_.vecdot(M, V4),
    "matvec_1d": lambda np_: np_.matvec(V4, V4),
    "matvec_mismatch": lambda np_: np_.matvec(SQ, M[0]),
    "unstack_0d": lambda np_: np_.unstack(np.float64(1.0)),
    "unstack_axis": lambda np_: np_.unstack(M, axis=2),
    "cumulative_sum_0d": lambda np_: np_.cumulative_sum(np.float64(1.0)),
    "cumulative_prod_2d": lambda np_: np_.cumulative_prod(M),
    "cumulative_sum_axis": lambda np_: np_.cumulative_sum(M, axis=3),
    "isdtype_kind": lambda np_: np_.isdtype(np.int32, "ints"),
    "isdtype_type": lambda np_: np_.isdtype(np.int32, 3),
    "copy_list": lambda np_: np_.copy([1.0, 2.0]),
    "copy_order": lambda np_: np_.copy(M, order="C"),
    "ldexp_float": lambda np_: np_.ldexp(M, 2.0),
    "ldexp_complex": lambda np_: np_.ldexp(M + 1j, 2),
    "frexp_complex": lambda np_: np_.frexp(M + 1j),
    "spacing_complex": lambda np_: np_.spacing(M + 1j),
    "modf_out": lambda np_: np_.modf(M, out=M),
    "diff_0d": lambda np_: np_.diff(np.float64(1.0)),
    "diff_negative": lambda np_: np_.diff(M, n=-1),
    "diff_float_n": lambda np_: np_.diff(M, n=1.5),
    "diff_list": lambda np_: np_.diff([1.0, 2.0]),
    "diff_append_shape": lambda np_: np_.diff(M, axis=0, append=np.ones((1, 3))),
    "ediff1d_bool": lambda np_: np_.ediff1d(np.array([True, False])),
    "gradient_small": lambda np_: np_.gradient(np.ones((1, 3))),
    "gradient_spacings": lambda np_: np_.gradient(M, 1.0, 2.0, 3.0),
    "gradient_coord_length": lambda np_: np_.gradient(M, np.ones(3), axis=1),
    "gradient_coord_rank": lambda np_: np_.gradient(M, np.ones((2, 2)), axis=1),
    "gradient_edge_order_2": lambda np_: np_.gradient(M, edge_order=2),
    "trapezoid_empty": lambda np_: np_.trapezoid(np.ones(0)),
    "average_no_axis": lambda np_: np_.average(M, weights=POS[0]),
    "average_weights_shape": lambda np_: np_.average(M, axis=1, weights=POS[0, :3]),
    "nanvar_out": lambda np_: np_.nanvar(M, out=M),
    "nanstd_out": lambda np_: np_.nanstd(M, out=M),
    "nanvar_real_dtype": lambda np_: np_.nanvar(M + 1j, dtype=np.float64),
    "nanquantile_method": lambda np_: np_.nanquantile(M, 0.5, method="foo"),
    "nanquantile_q_rank": lambda np_: np_.nanquantile(M, np.ones((2, 2)) / 2),
    "nanquantile_complex": lambda np_: np_.nanquantile(M + 1j, 0.5),
    "nanquantile_weights_method": lambda np_: np_.nanquantile(M, 0.5, weights=M),
    "nanquantile_weights_complex": lambda np_: np_.nanquantile(
        M, 0.5, method="inverted_cdf", weights=M + 1j
    ),
    "nanquantile_weights_shape": lambda np_: np_.nanquantile(
        M, 0.5, method="inverted_cdf", weights=M[0]
    ),
    "nanquantile_overwrite": lambda np_: np_.nanquantile(M, 0.5, overwrite_input=True),
    "nanargmax_empty": lambda np_: np_.nanargmax(np.ones(0)),
    "nanargmin_out": lambda np_: np_.nanargmin(M, out=M),
    "unwrap_complex": lambda np_: np_.unwrap(M + 1j),
    "polyadd_list": lambda np_: np_.polyadd([1.0, 2.0], V4),
    "polysub_bool": lambda np_: np_.polysub(np.array([True]), np.array([True])),
    "polyder_negative": lambda np_: np_.polyder(V4, -1),
    "polyder_float_m": lambda np_: np_.polyder(V4, 1.5),
    "polyint_negative": lambda np_: np_.polyint(V4, -1),
    "polyint_k": lambda np_: np_.polyint(V4, 2, k=np.ones(3)),
    "polymul_trim_jit": lambda np_: _jit_error(
        np_, lambda n, a: n.polymul(a, a, trim_leading_zeros=True), V4
    ),
    "poly_rectangular": lambda np_: np_.poly(np.ones((2, 3))),
    "poly_3d": lambda np_: np_.poly(np.ones((2, 2, 2))),
    "poly_empty_matrix": lambda np_: np_.poly(np.ones((0, 0))),
    "roots_2d": lambda np_: np_.roots(np.ones((2, 2))),
    "roots_jit": lambda np_: _jit_error(np_, lambda n, p: n.roots(p), V4),
    "polyfit_deg": lambda np_: np_.polyfit(X8, Y8, -1),
    "polyfit_x_2d": lambda np_: np_.polyfit(M, Y8, 1),
    "polyfit_x_empty": lambda np_: np_.polyfit(np.zeros(0), np.zeros(0), 1),
    "polyfit_y_3d": lambda np_: np_.polyfit(X8, np.ones((8, 1, 1)), 1),
    "polyfit_lengths": lambda np_: np_.polyfit(X8, Y8[:5], 1),
    "polyfit_w": lambda np_: np_.polyfit(X8, Y8, 1, w=W8[:3]),
    "polyfit_w_2d": lambda np_: np_.polyfit(X8, Y8, 1, w=np.ones((8, 1))),
    "polyfit_cov_points": lambda np_: np_.polyfit(X8[:3], Y8[:3], 2, cov=True),
}


def _builtin_type(exc: BaseException) -> type[BaseException]:
    """The most specific built-in class of ``exc`` (JAX's and mj's own classes differ)."""
    return next(c for c in type(exc).__mro__ if getattr(builtins, c.__name__, None) is c)


@pytest.mark.parametrize("name", list(ERROR_CASES))
def test_errors_match_jax(name):
    with pytest.raises(Exception) as jax_error:  # noqa: PT011 (any type: JAX's is the oracle)
        ERROR_CASES[name](jnp)
    with pytest.raises(_builtin_type(jax_error.value)):
        ERROR_CASES[name](mnp)
