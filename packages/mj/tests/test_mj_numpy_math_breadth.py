"""More of ``jax.numpy`` in ``mj.numpy``: the Array API aliases, dtype names, float
decomposition, finite differences and integration, weighted averages, NaN-skipping
statistics and polynomials.

NumPy is the reference for values, dtypes and shapes (where ``jax.numpy`` departs from NumPy
the test says so and checks JAX's answer); every case also runs under ``jit`` and must give
the eager answer; ``vmap`` is compared with a Python loop, gradients with central finite
differences."""

import itertools

import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj_core.errors import ConcretizationError

RNG = np.random.default_rng(1234)
M = RNG.normal(size=(3, 5))
V4 = RNG.normal(size=4)
A3 = RNG.normal(size=(2, 3, 4))
SQ = RNG.normal(size=(4, 4))
POS = RNG.uniform(0.5, 2.0, size=(3, 5))
INTS = RNG.integers(-50, 50, size=10)
NAN = RNG.normal(size=(4, 6))
NAN[0, [1, 4]] = NAN[1, 0] = NAN[3, [2, 3, 5]] = np.nan
NAN[2] = np.nan  # one all-NaN row; every column keeps two values
X8 = np.sort(RNG.uniform(0, 2, size=8))
Y8 = 1.5 * X8**3 - X8 + 0.25 + 0.05 * np.sin(9 * X8)
W8 = RNG.uniform(0.5, 1.5, size=8)
# (subnormals are left out: XLA on CPU flushes them to zero, NumPy does not)
FLOATS = np.array([0.0, -3.0, 1.5, 1e300, -7.25e-3, 2.5e-308, np.inf, -np.inf, np.nan, -0.0])

# (name, args, kwargs): mnp.<name>(*args, **kwargs) against np.<name>(*args, **kwargs);
# array arguments are passed to the jitted function, everything else is closed over.
CASES = [
    ("acos", (np.clip(M, -1, 1),), {}),
    ("acosh", (1 + POS,), {}),
    ("asin", (np.clip(M, -1, 1),), {}),
    ("asinh", (M,), {}),
    ("atan", (M,), {}),
    ("atan2", (M, POS), {}),
    ("atanh", (np.clip(M, -0.9, 0.9),), {}),
    ("pow", (POS, M), {}),
    ("pow", (M, 3), {}),
    ("concat", ([M, POS],), {"axis": 1}),
    ("concat", ([M.astype(np.float32), INTS[:5].reshape(1, 5).astype(np.int8)],), {}),
    ("concat", ([M, A3],), {"axis": None}),
    ("permute_dims", (A3, (2, 0, 1)), {}),
    ("matrix_transpose", (A3,), {}),
    ("bitwise_left_shift", (INTS, np.int64(3)), {}),
    ("bitwise_left_shift", (INTS.astype(np.int8), np.int8(2)), {}),
    ("bitwise_right_shift", (INTS, np.int64(2)), {}),
    ("bitwise_right_shift", (np.array([255, 7, 128], np.uint8), np.uint8(3)), {}),
    ("bitwise_invert", (INTS.astype(np.int16),), {}),
    ("bitwise_count", (INTS,), {}),
    ("bitwise_count", (np.array([-128, -1, 0, 127], np.int8),), {}),
    ("bitwise_count", (np.array([2**64 - 1, 2**40 + 3, 0], np.uint64),), {}),
    ("bitwise_count", (np.array([True, False]),), {}),
    ("vecdot", (A3, V4), {}),
    ("vecdot", (M + 1j * POS, M - 2j), {"axis": 0}),
    ("vecdot", (INTS[:4].astype(np.int32), INTS[4:8].astype(np.int32)), {}),
    ("matvec", (A3, V4), {}),
    ("matvec", (SQ, SQ[:, :1].T), {}),
    ("vecmat", (V4 + 1j, SQ), {}),
    ("vecmat", (M[:, :4], A3[:1].transpose(0, 2, 1)), {}),
    ("cumulative_sum", (V4,), {}),
    ("cumulative_sum", (M,), {"axis": 1, "include_initial": True}),
    ("cumulative_sum", (np.arange(6, dtype=np.uint8),), {}),
    ("cumulative_sum", (np.array([True, True, False]),), {}),
    ("cumulative_sum", (INTS,), {"dtype": np.float32}),
    ("cumulative_prod", (M,), {"axis": 0, "include_initial": True}),
    ("cumulative_prod", (np.array([True, False, True]),), {}),
    ("copy", (M,), {}),
    ("ldexp", (M, INTS[:5].reshape(1, 5)), {}),
    ("ldexp", (M.astype(np.float32), np.int32(5)), {}),
    (
        "ldexp",
        (np.array([1e-300, 0.75, 1.0, 3.0, -2.5]), np.array([1500, 1024, 1024, -1030, 7])),
        {},
    ),
    ("ldexp", (INTS[:4], INTS[4:8]), {}),
    ("frexp", (FLOATS,), {}),
    ("frexp", (M.astype(np.float32),), {}),
    ("frexp", (np.array([3.0, 6.0e-5, -2.0, 0.0], np.float16),), {}),
    ("frexp", (INTS,), {}),
    ("modf", (M * 7,), {}),
    ("modf", (INTS.astype(np.int32),), {}),
    ("spacing", (np.array([1.0, -1.0, 0.0, 1e308, 3e-320, -5.5]),), {}),
    ("spacing", (M.astype(np.float32),), {}),
    ("spacing", (np.array([1.0, 0.0, -1.0, 300.0], np.float16),), {}),
    ("diff", (M,), {}),
    ("diff", (A3,), {"n": 2, "axis": 1}),
    ("diff", (INTS.astype(np.int32),), {}),
    ("diff", (np.array([1, 0, 5], np.uint8),), {}),
    ("diff", (np.array([True, False, False, True]),), {}),
    ("diff", (V4.astype(np.float32),), {"prepend": 1.5, "append": np.array([2.0, 3.0])}),
    ("diff", (M,), {"axis": 0, "append": np.ones((1, 5))}),
    ("diff", (V4,), {"n": 7}),
    ("ediff1d", (M,), {}),
    ("ediff1d", (INTS.astype(np.int32),), {"to_begin": np.array([-1, -2]), "to_end": 7}),
    ("gradient", (V4,), {}),
    ("gradient", (V4, 0.5), {}),
    ("gradient", (V4, np.array([0.0, 0.5, 2.0, 2.25])), {}),
    ("gradient", (M, 2.0), {"axis": 1}),
    ("gradient", (INTS.astype(np.int64),), {}),
    ("trapezoid", (M,), {}),
    ("trapezoid", (M, X8[:5]), {}),
    ("trapezoid", (M,), {"dx": 0.3, "axis": 0}),
    ("trapezoid", (M, POS), {"axis": 1}),
    ("trapezoid", (INTS,), {}),
    ("trapezoid", (M.astype(np.float32),), {"dx": 2.0}),
    ("average", (M,), {}),
    ("average", (M,), {"axis": 1, "weights": POS[0], "returned": True}),
    ("average", (A3,), {"axis": (2, 0), "weights": RNG.uniform(size=(4, 2))}),
    ("average", (M,), {"axis": 0, "weights": POS, "keepdims": True}),
    ("average", (INTS,), {"returned": True}),
    ("average", (INTS.astype(np.int32),), {"weights": np.arange(10, dtype=np.int32)}),
    ("average", (M + 1j * POS,), {"axis": 1, "weights": POS}),
    ("nanvar", (NAN,), {}),
    ("nanvar", (NAN,), {"axis": 1, "ddof": 1}),
    ("nanvar", (NAN,), {"axis": 0, "keepdims": True}),
    ("nanvar", (NAN.astype(np.float32),), {"axis": 1}),
    ("nanvar", (np.where(np.isnan(NAN), np.nan, NAN + 1j),), {"axis": 1}),
    ("nanvar", (INTS,), {}),
    ("nanstd", (NAN,), {"axis": 1}),
    ("nanstd", (NAN,), {"ddof": 2}),
    ("nanmedian", (NAN,), {}),
    ("nanmedian", (NAN,), {"axis": 1}),
    ("nanmedian", (NAN,), {"axis": 0, "keepdims": True}),
    ("nanmedian", (INTS,), {}),
    ("nanquantile", (NAN, np.array([0.0, 0.3, 0.5, 1.0])), {"axis": 1}),
    ("nanquantile", (NAN, 0.4), {"axis": (0, 1), "keepdims": True}),
    ("nanquantile", (NAN, np.array([0.2, 0.9])), {"axis": 0, "method": "lower"}),
    ("nanquantile", (NAN, np.array([0.2, 0.9])), {"axis": 0, "method": "higher"}),
    ("nanquantile", (NAN, np.array([0.25, 0.8])), {"axis": 1, "method": "midpoint"}),
    ("nanquantile", (NAN, np.array([0.1, 0.6])), {"axis": 1, "method": "inverted_cdf"}),
    ("nanquantile", (NAN.astype(np.float32), 0.7), {}),
    ("nanpercentile", (NAN, np.array([10, 50, 95])), {"axis": 1}),
    ("nanpercentile", (NAN, 30), {"axis": 0, "keepdims": True}),
    ("nanargmax", (NAN[[0, 1, 3]],), {"axis": 1}),
    ("nanargmin", (NAN[[0, 1, 3]],), {"axis": 0, "keepdims": True}),
    ("nanargmax", (NAN,), {}),
    ("nanargmin", (INTS,), {}),
    ("unwrap", (np.cumsum(RNG.uniform(-4, 4, size=12)),), {}),
    ("unwrap", (np.cumsum(RNG.uniform(-4, 4, size=(2, 9)), 1),), {"discont": 2.0, "period": 5.0}),
    ("unwrap", (np.array([0, 7, 14, 2, -9]),), {"period": 6}),
    ("unwrap", (np.array([0, 7, 14, 2, -9], np.int32),), {"period": 6}),
    ("unwrap", (np.cumsum(RNG.uniform(-4, 4, size=(6, 2)), 0),), {"axis": 0}),
    ("polyadd", (V4, M[0]), {}),
    ("polyadd", (INTS[:3], INTS[:5].astype(np.int32)), {}),
    ("polysub", (M[0], V4.astype(np.float32)), {}),
    ("polysub", (np.array([1, 2], np.uint8), np.array([3], np.uint8)), {}),
    ("polymul", (V4, M[0]), {}),
    ("polymul", (INTS[:3], INTS[3:5]), {}),
    ("polyder", (M[0],), {}),
    ("polyder", (INTS[:6],), {"m": 3}),
    ("polyint", (V4,), {}),
    ("polyint", (V4,), {"m": 2, "k": np.array([3.0, -1.0])}),
    ("polyint", (V4.astype(np.float32),), {"m": 3, "k": 2}),
    ("polyval", (V4, M), {}),
    ("polyfit", (X8, Y8, 3), {}),
    ("polyfit", (X8, np.stack([Y8, -(Y8**2)], 1), 2), {}),
    ("polyfit", (X8, Y8, 2), {"w": W8}),
    ("polyfit", (X8.astype(np.float32), Y8.astype(np.float32), 2), {}),
]

# where jax.numpy's dtype is not NumPy's, the case names it (JAX keeps integer widths in
# vecdot; its polymul/polyder promote integer coefficients to inexact)
DTYPE_OVERRIDES = {
    ("vecdot", 2): np.int32,
    ("polymul", 1): np.float64,
    ("polyder", 1): np.float64,
    ("polyint", 2): np.float32,  # NumPy's constants are float64 arrays; here k=2 is weak
    ("polyfit", 3): np.float32,  # NumPy fits float32 data in float64
    ("modf", 1): np.float32,  # JAX computes int32 in float32 (NumPy: float64)
    ("average", 5): np.float32,  # likewise JAX averages int32 in float32
}
CASE_IDS = [
    f"{name}-{sum(c[0] == name for c in CASES[:i])}" for i, (name, _, _) in enumerate(CASES)
]


def _check(got, want, rtol=1e-12, atol=1e-12, dtype=None):
    if isinstance(want, tuple | list):
        assert isinstance(got, tuple | list)
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            _check(g, w, rtol, atol, dtype)
        return
    want = np.asarray(want)
    got = np.asarray(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == (want.dtype if dtype is None else np.dtype(dtype)), (got.dtype, want.dtype)
    if got.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)


def _tolerance(name, args):
    dtype = np.asarray(args[0] if not isinstance(args[0], list) else args[0][0]).dtype
    if name == "average" and dtype == np.int32:
        dtype = np.dtype(np.float32)
    if dtype == np.float16:
        return 1e-3
    if dtype in (np.float32, np.complex64):
        return 1e-4 if name == "polyfit" else 2e-6
    return 1e-9 if name == "polyfit" else 1e-10


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize(("name", "args", "kwargs"), CASES, ids=CASE_IDS)
def test_matches_numpy(name, args, kwargs, request):
    occurrence = int(request.node.callspec.id.rsplit("-", 1)[1])
    want = getattr(np, name)(*args, **kwargs)
    tol = _tolerance(name, args)
    dtype = DTYPE_OVERRIDES.get((name, occurrence))
    _check(getattr(mnp, name)(*args, **kwargs), want, tol, tol, dtype)


def _jittable(name, args, kwargs):
    """``mnp.<name>`` as a function of the array arguments (the rest closed over)."""
    arrays = [a for a in args if isinstance(a, np.ndarray)]

    def f(*xs):
        it = iter(xs)
        full = [next(it) if isinstance(a, np.ndarray) else a for a in args]
        return getattr(mnp, name)(*full, **kwargs)

    return f, arrays


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize(("name", "args", "kwargs"), CASES, ids=CASE_IDS)
def test_jit_agrees_with_eager(name, args, kwargs):
    f, arrays = _jittable(name, args, kwargs)
    tol = _tolerance(name, args) * 10
    _check(mj.jit(f)(*arrays), f(*arrays), tol, tol)


# --- where jax.numpy departs from NumPy ------------------------------------------------------
@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # modf(inf) computes inf - inf
def test_jax_semantics_that_differ_from_numpy():
    # integer widths: cumulative_prod keeps int32/uint8, cumulative_sum widens
    assert mnp.cumulative_prod(np.arange(1, 5, dtype=np.int32)).dtype == np.int32
    assert mnp.cumulative_prod(np.arange(1, 5, dtype=np.uint8)).dtype == np.uint8
    assert mnp.cumulative_sum(np.arange(1, 5, dtype=np.int32)).dtype == np.int64
    # dtype=bool accumulates as integers, so [-1, 1] does not cancel
    _check(mnp.cumulative_sum(np.array([1, -1, 0]), dtype=bool), np.array([True, True, True]))
    _check(mnp.cumulative_prod(np.array([1, -1, 0]), dtype=bool), np.array([True, True, False]))
    # shifts of bools are int32 shifts
    _check(mnp.bitwise_left_shift(np.array([True]), np.array([True])), np.array([2], np.int32))
    # modf of -0.0 has a +0.0 fraction, of inf a NaN fraction; spacing(-0.0) is negative
    frac, whole = mnp.modf(np.array([-0.0, np.inf, -2.5]))
    np.testing.assert_array_equal(np.signbit(np.asarray(frac)[[0, 2]]), [False, True])
    _check(frac, np.array([0.0, np.nan, -0.5]))
    _check(whole, np.array([-0.0, np.inf, -2.0]))
    assert np.asarray(mnp.spacing(np.array([-0.0])))[0] == -np.finfo(np.float64).smallest_subnormal
    # gradient over several axes gives a list; edge_order=2 is not implemented
    grads = mnp.gradient(M)
    assert isinstance(grads, list)
    _check(grads, list(np.gradient(M)))
    assert mnp.gradient(M, axis=()) == []
    # nearest rounds ties down; nanmedian is the midpoint
    _check(mnp.nanquantile(np.array([1.0, 2.0, 3.0, 4.0]), 0.5, method="nearest"), np.float64(2.0))
    # polydiv keeps the remainder's length; trimming leaves nothing of an exact division
    q, r = mnp.polydiv(np.array([1.0, 3.0, 2.0]), np.array([1.0, 1.0]), trim_leading_zeros=True)
    _check((q, r), (np.array([1.0, 2.0]), np.zeros(0)))
    q, r = mnp.polydiv(np.array([1.0, 2.0, 3.0, 4.0]), np.array([2.0, 1.0]))
    _check((q, r), (np.array([0.5, 0.75, 1.125]), np.array([0.0, 0.0, 0.0, 2.875])))
    # poly of a matrix is complex; a scalar counts as one root
    _check(mnp.poly(np.array([[1.0, 2.0], [3.0, 4.0]])), np.array([1.0, -5.0, -2.0], complex))
    _check(mnp.poly(2.0), np.array([1.0, -2.0]))
    _check(mnp.poly(np.zeros(0)), np.float64(1.0))
    # nanquantile does not check q's range; weights only with inverted_cdf
    _check(mnp.nanquantile(np.array([1.0, 5.0]), 1.5), np.float64(5.0))
    w = np.array([1.0, 2.0, 3.0, 4.0, 0.5, 1.0])
    _check(
        mnp.nanquantile(NAN[[0, 1, 3]], 0.5, axis=1, method="inverted_cdf", weights=w),
        np.array([_weighted_icdf(row, w, 0.5) for row in NAN[[0, 1, 3]]]),
    )


def _weighted_icdf(row, w, q):
    keep = ~np.isnan(row)
    values, weights = row[keep], w[keep]
    order = np.argsort(values)
    cumulative = np.cumsum(weights[order])
    return values[order][np.searchsorted(cumulative, q * cumulative[-1])]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy's, on the all-NaN row
def test_nanquantile_methods_and_nanvar_options():
    q = np.array([0.0, 0.1, 0.37, 0.5, 0.9, 1.0])
    for method in ("linear", "lower", "higher", "midpoint", "inverted_cdf"):
        got = mnp.nanquantile(NAN, q, axis=1, method=method)
        _check(got, np.nanquantile(NAN, q, axis=1, method=method))
        _check(
            mj.jit(lambda a, method=method: mnp.nanquantile(a, q, axis=1, method=method))(NAN), got
        )
    # where= drops entries like NaNs; a given mean replaces the computed one
    where = RNG.uniform(size=NAN.shape) < 0.7
    masked = np.where(where, NAN, np.nan)
    _check(mnp.nanvar(NAN, axis=1, where=where), np.nanvar(masked, axis=1))
    mean = np.zeros((4, 1))
    want = np.nansum(NAN**2, axis=1) / np.sum(~np.isnan(NAN), axis=1)
    _check(mnp.nanvar(NAN, axis=1, mean=mean), want)
    _check(mnp.nanvar(NAN, dtype=np.float32), np.float32(np.nanvar(NAN)), 1e-6, 1e-6)


def test_dtype_names_and_predicates():
    # JAX-style scalar types (issue 23): equal to NumPy's, not NumPy's own objects
    assert mnp.bool == np.bool_
    assert mnp.int_ == np.int64
    assert mnp.uint == np.uint64
    assert mnp.float_ == np.float64
    assert mnp.complex_ == np.complex128
    assert (mnp.single, mnp.double, mnp.csingle, mnp.cdouble) == (
        np.float32,
        np.float64,
        np.complex64,
        np.complex128,
    )
    assert (mnp.generic, mnp.signedinteger, mnp.unsignedinteger) == (
        np.generic,
        np.signedinteger,
        np.unsignedinteger,
    )
    assert (mnp.flexible, mnp.character, mnp.object_) == (np.flexible, np.character, np.object_)
    assert mnp.issubdtype(mnp.asarray([1, 2]).dtype, mnp.signedinteger)
    kinds = [
        "bool",
        "signed integer",
        "unsigned integer",
        "integral",
        "real floating",
        "complex floating",
        "numeric",
        np.float32,
        ("bool", np.int8),
    ]
    dtypes = [np.bool_, np.int8, np.int64, np.uint16, np.float16, np.float64, np.complex64]
    for dt, kind in itertools.product(dtypes, kinds):
        assert mnp.isdtype(dt, kind) == np.isdtype(np.dtype(dt), kind), (dt, kind)
    assert [mnp.isrealobj(x) for x in (M, 1.0, [1, 2], 1j, [1j], M + 0j)] == [1, 1, 1, 0, 0, 0]
    assert mj.jit(lambda x: mnp.ones(()) * mnp.isrealobj(x))(M + 0j) == 0
    assert [mnp.iterable(x) for x in (mnp.ones(3), mnp.ones(()).sum(), [1], 3)] == [1, 0, 1, 0]
    assert bool(mnp.array_equiv(np.ones((2, 3)), np.ones(3)))
    assert not bool(mnp.array_equiv(np.ones((2, 3)), np.ones(2)))
    assert not bool(mnp.array_equiv(np.ones(3), np.array([1.0, 1.0, 2.0])))
    assert bool(mj.jit(mnp.array_equiv)(M, M))
    assert not bool(mj.jit(mnp.array_equiv)(M, M + 1))


def test_aliases_are_the_numpy_named_functions():
    pairs = [("acos", "arccos"), ("asinh", "arcsinh"), ("atan2", "arctan2"), ("pow", "power")]
    for alias, name in pairs:
        assert getattr(mnp, alias) is getattr(mnp, name)


def test_unstack_and_copy():
    parts = mnp.unstack(A3, axis=1)
    assert isinstance(parts, tuple)
    assert len(parts) == 3
    for got, want in zip(parts, np.unstack(A3, axis=1), strict=True):
        _check(got, want)
    _check(mj.jit(lambda a: mnp.unstack(a, axis=-1))(A3), np.unstack(A3, axis=-1))
    source = M.copy()
    copied = mnp.copy(source)
    source[0, 0] = 99.0
    assert np.asarray(copied)[0, 0] == M[0, 0]
    _check(mj.jit(mnp.copy)(M), M)


def test_frexp_and_ldexp_round_trip():
    values = np.concatenate([M.ravel(), [1e-310, -1e300, 2.0**-1022]])
    m, e = mnp.frexp(values)
    assert e.dtype == np.int32
    assert np.all((np.abs(np.asarray(m)) >= 0.5) & (np.abs(np.asarray(m)) < 1))
    _check(mnp.ldexp(m, e), values, 0, 0)
    m32, e32 = mnp.frexp(values[:15].astype(np.float32))
    _check(mnp.ldexp(m32, e32), values[:15].astype(np.float32), 0, 0)


def test_bitwise_count_every_integer_dtype():
    for dt in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64):
        info = np.iinfo(dt)
        x = RNG.integers(info.min, info.max, size=40, dtype=dt, endpoint=True)
        x[:2] = info.min, info.max
        _check(mnp.bitwise_count(x), np.bitwise_count(x))
        _check(mj.jit(mnp.bitwise_count)(x), np.bitwise_count(x))


def _sorted_roots(r):
    r = np.asarray(r)
    return r[np.lexsort((np.round(r.imag, 5), np.round(r.real, 5)))]


ROOT_CASES = [
    np.array([1.0, -6.0, 11.0, -6.0]),
    np.array([2.0, 0.0, 0.0, 0.0, 1.0]),
    np.array([1.0, -3.0, 2.0, 0.0, 0.0]),
    np.array([1.0, 1j, 2.0]),
    np.array([3, 1, -2]),
    RNG.normal(size=9),
    np.poly(np.array([0.1, 0.2, 5.0, -40.0, 3 + 2j, 3 - 2j])),
]


@pytest.mark.parametrize("p", ROOT_CASES, ids=range(len(ROOT_CASES)))
def test_roots_match_numpy(p):
    got = mnp.roots(p)
    want = np.roots(p).astype(complex)
    assert got.dtype == np.complex128
    np.testing.assert_allclose(_sorted_roots(got), _sorted_roots(want), rtol=1e-9, atol=1e-9)
    traced = mj.jit(lambda c: mnp.roots(c, strip_zeros=False))(p)
    np.testing.assert_allclose(_sorted_roots(traced), _sorted_roots(want), rtol=1e-9, atol=1e-9)


def test_roots_leading_zeros_precision_and_multiplicity():
    p = np.array([0.0, 0.0, 1.0, -3.0, 2.0])
    np.testing.assert_allclose(_sorted_roots(mnp.roots(p)), [1.0, 2.0], atol=1e-12)
    kept = np.asarray(mj.jit(lambda c: mnp.roots(c, strip_zeros=False))(p))
    np.testing.assert_allclose(_sorted_roots(kept[:2]), [1.0, 2.0], atol=1e-12)
    assert np.all(np.isnan(kept[2:]))
    assert np.all(np.isnan(np.asarray(mnp.roots(np.zeros(3), strip_zeros=False))))
    assert mnp.roots(np.zeros(3)).shape == (0,)
    assert mnp.roots(3.0).shape == (0,)
    # float32 coefficients give complex64 roots
    r32 = mnp.roots(np.array([1.0, -3.0, 2.0], np.float32))
    assert r32.dtype == np.complex64
    np.testing.assert_allclose(_sorted_roots(r32), [1.0, 2.0], atol=1e-5)
    # a triple root is found to the precision its conditioning allows
    np.testing.assert_allclose(mnp.roots(np.array([1.0, -3.0, 3.0, -1.0])), np.ones(3), atol=1e-4)
    # poly(roots(p)) gives p back (monic)
    p = RNG.normal(size=7)
    np.testing.assert_allclose(mnp.poly(mnp.roots(p)), (p / p[0]).astype(complex), atol=1e-10)


def test_poly_of_a_matrix_is_its_characteristic_polynomial():
    for a in (SQ, RNG.normal(size=(6, 6)) + 1j * RNG.normal(size=(6, 6)), np.triu(SQ), SQ[:1, :1]):
        got = mnp.poly(a)
        np.testing.assert_allclose(got, np.poly(a).astype(complex), rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(mj.jit(mnp.poly)(a), got, rtol=1e-12, atol=1e-12)
    # a companion matrix's characteristic polynomial is its own
    p = np.array([1.0, 2.0, -3.0, 0.5, 4.0])
    companion = np.diag(np.ones(3), -1)
    companion[0] = -p[1:]
    np.testing.assert_allclose(mnp.poly(companion), p.astype(complex), atol=1e-12)


def test_polyfit_full_and_cov():
    c, resids, rank, s, rcond = mnp.polyfit(X8, Y8, 3, full=True)
    wc, wresids, wrank, ws, wrcond = np.polyfit(X8, Y8, 3, full=True)
    _check(c, wc, 1e-9, 1e-9)
    _check(resids, wresids, 1e-6, 1e-12)
    assert int(rank) == wrank
    assert rank.dtype == np.int64
    _check(s, ws, 1e-12, 1e-12)
    assert float(rcond) == wrcond
    for cov in (True, "unscaled"):
        c, v = mnp.polyfit(X8, Y8, 2, cov=cov)
        wc, wv = np.polyfit(X8, Y8, 2, cov=cov)
        _check(v, wv, 1e-7, 1e-12)
        y2 = np.stack([Y8, 2 * Y8], 1)
        c2, v2 = mnp.polyfit(X8, y2, 2, cov=cov, w=W8)
        wc2, wv2 = np.polyfit(X8, y2, 2, cov=cov, w=W8)
        _check(c2, wc2, 1e-9, 1e-9)
        _check(v2, wv2, 1e-7, 1e-12)
    # the fit of exact polynomial data is exact
    _check(mnp.polyfit(np.arange(5), np.arange(5.0) ** 2, 2), np.array([1.0, 0.0, 0.0]), 0, 1e-12)


def _central_difference(f, x, eps=1e-6):
    x = np.asarray(x, dtype=np.float64)
    grad = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[idx] = eps
        grad[idx] = (float(f(x + step)) - float(f(x - step))) / (2 * eps)
    return grad


C5 = RNG.normal(size=5)
GRAD_CASES = {
    "diff": (lambda x: mnp.sum(C5[:4] * mnp.diff(x, prepend=0.3) ** 2), V4),
    "diff_n2": (lambda x: mnp.sum(mnp.diff(x, n=2, axis=0) ** 2), M),
    "ediff1d": (lambda x: mnp.sum(mnp.ediff1d(x, to_end=1.0) ** 2), V4),
    "gradient_step": (lambda h: mnp.sum(C5 * mnp.gradient(C5**2, h)), np.array(0.7)),
    "gradient_coords": (lambda x: mnp.sum(C5 * mnp.gradient(C5**3, x)), np.cumsum(POS[0])),
    "gradient_values": (lambda f: mnp.sum(mnp.gradient(f, 0.5, axis=1) ** 2), M),
    "trapezoid_y": (lambda y: mnp.trapezoid(y**2, X8), Y8),
    "trapezoid_x": (lambda x: mnp.trapezoid(Y8, x), X8),
    "trapezoid_dx": (lambda d: mnp.sum(mnp.trapezoid(M, dx=d, axis=0)), np.array(0.3)),
    "average_a": (lambda a: mnp.sum(mnp.average(a, axis=1, weights=POS[0]) ** 2), M),
    "average_w": (lambda w: mnp.sum(mnp.average(M, axis=1, weights=w) ** 2), POS[0]),
    "nanvar": (lambda a: mnp.nansum(mnp.nanvar(a, axis=1, ddof=1)), NAN),
    "nanstd": (lambda a: mnp.sum(mnp.nanstd(a, axis=0)), NAN),
    "nanmedian": (lambda a: mnp.nansum(mnp.nanmedian(a, axis=1) ** 2), NAN),
    "nanquantile": (lambda a: mnp.nansum(mnp.nanquantile(a, np.array([0.3, 0.8]), axis=1)), NAN),
    "nanpercentile": (lambda a: mnp.nansum(mnp.nanpercentile(a, 35.0, axis=0) ** 2), NAN),
    "polyval": (lambda p: mnp.sum(mnp.polyval(p, X8) ** 2), V4),
    "polyfit_y": (lambda y: mnp.sum(C5[:4] * mnp.polyfit(X8, y, 3)), Y8),
    "polyfit_x": (lambda x: mnp.sum(C5[:3] * mnp.polyfit(x, Y8, 2, w=W8)), X8),
    "polymul": (lambda p: mnp.sum(C5[:3] * mnp.polymul(p, np.array([1.0, -2.0]))[1:]), V4[:3]),
    "polydiv": (lambda u: mnp.sum(mnp.polydiv(u, np.array([2.0, 0.5]))[0] ** 2), V4),
    "polyint": (lambda p: mnp.sum(C5 * mnp.polyint(p, k=2.0)), V4),
    "polyder": (lambda p: mnp.sum(C5[:3] * mnp.polyder(p) ** 2), V4),
    "poly": (lambda r: mnp.sum(C5 * mnp.poly(r)), V4),
    "poly_matrix": (lambda a: mnp.sum(mnp.real(mnp.poly(a)) * C5), SQ),
    "roots": (lambda p: mnp.sum(mnp.real(mnp.roots(p)) ** 2), np.poly([0.5, -1.0, 2.0, 3.5])),
    "frexp": (lambda x: mnp.sum(mnp.frexp(x)[0] ** 2), M),
    "ldexp": (lambda x: mnp.sum(mnp.ldexp(x, np.arange(5)) ** 2), M),
    "modf": (lambda x: mnp.sum(mnp.modf(3 * x)[0] ** 2), M),
    "unwrap": (lambda p: mnp.sum(C5 * mnp.unwrap(p)), np.array([0.0, 3.0, 6.5, 1.0, -5.0])),
    "vecdot": (lambda x: mnp.sum(mnp.vecdot(x, A3) ** 2), V4),
    "matvec": (lambda a: mnp.sum(mnp.matvec(a, V4) ** 2), A3),
    "cumulative_prod": (lambda x: mnp.sum(mnp.cumulative_prod(x, axis=1, include_initial=True)), M),
}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", list(GRAD_CASES))
def test_grad_matches_central_differences(name):
    f, x = GRAD_CASES[name]
    want = np.nan_to_num(_central_difference(f, x), nan=0.0)
    np.testing.assert_allclose(mj.grad(f)(x), want, rtol=1e-5, atol=1e-6)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_vmap_agrees_with_a_loop():
    batch = np.stack([M, 2 * M + 1, -M])
    loops = {
        "diff": lambda x: mnp.diff(x, axis=0, append=np.zeros((1, 5))),
        "gradient": lambda x: mnp.gradient(x, X8[:5], axis=1),
        "trapezoid": lambda x: mnp.trapezoid(x, X8[:5]),
        "average": lambda x: mnp.average(x, axis=1, weights=POS[0], returned=True),
        "nanvar": lambda x: mnp.nanvar(mnp.where(x > 1.0, np.nan, x), axis=0),
        "nanquantile": lambda x: mnp.nanquantile(mnp.where(x > 1.0, np.nan, x), 0.4, axis=1),
        "frexp": mnp.frexp,
        "ldexp": lambda x: mnp.ldexp(x, 3),
        "unwrap": lambda x: mnp.unwrap(5 * x, axis=1),
        "vecdot": lambda x: mnp.vecdot(x, POS),
        "cumulative_sum": lambda x: mnp.cumulative_sum(x, axis=1, include_initial=True),
        "polyval": lambda x: mnp.polyval(x[0], x[1]),
        "poly": lambda x: mnp.poly(x[:, :3]),
        "roots": lambda x: mnp.roots(x[0], strip_zeros=False),
    }
    for name, f in loops.items():
        got = mj.vmap(f)(batch)
        want = [f(b) for b in batch]
        if isinstance(want[0], tuple):
            want = tuple(np.stack([w[i] for w in want]) for i in range(len(want[0])))
            for g, w in zip(got, want, strict=True):
                np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-10, err_msg=name)
        elif name == "roots":
            for g, w in zip(np.asarray(got), want, strict=True):
                np.testing.assert_allclose(_sorted_roots(g), _sorted_roots(w), atol=1e-9)
        else:
            np.testing.assert_allclose(got, np.stack(want), rtol=1e-10, atol=1e-10, err_msg=name)


BAD_INPUTS = [
    (lambda: mnp.concat([[1.0, 2.0], M[0]]), TypeError, "concat requires array-like"),
    (lambda: mnp.permute_dims(A3, (2, 0)), TypeError, "permute_dims: axes must be a permutation"),
    (lambda: mnp.permute_dims(A3, (-1, 0, 1)), TypeError, "permute_dims: axes must be"),
    (lambda: mnp.matrix_transpose(V4), ValueError, "matrix_transpose: x must be at least two"),
    (lambda: mnp.bitwise_left_shift(M, 1), TypeError, "bitwise_left_shift: expected integer"),
    (lambda: mnp.bitwise_count(M), TypeError, "bitwise_count: expected integer or bool"),
    (lambda: mnp.vecdot(M, V4), ValueError, "vecdot: the contracted dimensions differ"),
    (lambda: mnp.matvec(V4, V4), ValueError, "matvec: x1 .* must have at least 2"),
    (lambda: mnp.matvec(SQ, M[0]), ValueError, "matvec: the contracted dimensions differ"),
    (lambda: mnp.unstack(np.float64(1.0)), ValueError, "unstack: axis 0 is out of bounds"),
    (lambda: mnp.cumulative_sum(np.float64(1.0)), ValueError, "cumulative_sum: the input must"),
    (lambda: mnp.cumulative_prod(M), ValueError, "cumulative_prod: axis is required"),
    (lambda: mnp.isdtype(np.int32, "ints"), ValueError, "isdtype: unrecognized kind 'ints'"),
    (lambda: mnp.isdtype(np.int32, 3), TypeError, "isdtype: kind must be a dtype"),
    (lambda: mnp.copy(M, order="C"), NotImplementedError, "copy: only order='K'"),
    (lambda: mnp.ldexp(M, 2.0), ValueError, r"ldexp: x1 must be real and x2 an integer"),
    (lambda: mnp.frexp(M + 1j), TypeError, "frexp: complex inputs are not supported"),
    (lambda: mnp.spacing(M + 1j), ValueError, "spacing: complex inputs are not supported"),
    (lambda: mnp.modf(M, out=M), NotImplementedError, "modf: the out argument"),
    (lambda: mnp.diff(np.float64(1.0)), ValueError, "diff: the input must be at least one"),
    (lambda: mnp.diff(M, n=-1), ValueError, "diff: the order n must be non-negative, got -1"),
    (lambda: mnp.diff(M, n=1.5), TypeError, "diff: the order n must be an integer"),
    (lambda: mnp.ediff1d(np.array([True, False])), TypeError, "ediff1d: bool input"),
    (lambda: mnp.gradient(np.ones((1, 3))), ValueError, "gradient: at least 2 samples"),
    (lambda: mnp.gradient(M, 1.0, 2.0, 3.0), TypeError, "gradient: expected no spacing, one"),
    (lambda: mnp.gradient(M, np.ones(3), axis=1), ValueError, r"coordinate array must have"),
    (lambda: mnp.gradient(M, np.ones((2, 2)), axis=1), ValueError, "gradient: a spacing must"),
    (lambda: mnp.gradient(M, edge_order=2), NotImplementedError, "gradient: only first-order"),
    (lambda: mnp.trapezoid(np.ones(0)), IndexError, "trapezoid: the integration axis"),
    (lambda: mnp.average(M, weights=POS[0]), ValueError, "average: axis must be given"),
    (lambda: mnp.average(M, axis=1, weights=POS[0, :3]), ValueError, "average: weights must"),
    (lambda: mnp.nanvar(M, out=M), NotImplementedError, "nanvar: the out argument"),
    (lambda: mnp.nanvar(M + 1j, dtype=np.float64), ValueError, "nanvar: a real dtype"),
    (lambda: mnp.nanquantile(M, 0.5, method="foo"), ValueError, "nanquantile: method must be"),
    (lambda: mnp.nanquantile(M, np.ones((2, 2))), ValueError, "nanquantile: q must be at most"),
    (lambda: mnp.nanquantile(M + 1j, 0.5), ValueError, "nanquantile: complex input"),
    (lambda: mnp.nanquantile(M, 0.5, weights=M), NotImplementedError, "'linear' does not"),
    (lambda: mnp.nanquantile(M, 0.5, overwrite_input=True), ValueError, "nanquantile: overwr"),
    (lambda: mnp.nanargmax(np.ones(0)), ValueError, "argmax"),
    (lambda: mnp.unwrap(M + 1j), ValueError, "unwrap: complex inputs are not supported"),
    (lambda: mnp.polyadd(1.0, V4), ValueError, "polyadd: expected a 1-D array"),
    (lambda: mnp.polysub(np.array([True]), np.array([True])), TypeError, "polysub: bool"),
    (lambda: mnp.polyder(V4, -1), ValueError, "polyder: the order m must be non-negative"),
    (lambda: mnp.polyint(V4, -1), ValueError, "polyint: the order m must be non-negative"),
    (lambda: mnp.polyint(V4, 2, k=np.ones(3)), ValueError, "polyint: k must be a scalar"),
    (lambda: mnp.poly(np.ones((2, 3))), ValueError, r"poly: input must be 1-D or a non-empty"),
    (lambda: mnp.roots(np.ones((2, 2))), ValueError, "roots: p must be 1-D"),
    (lambda: mnp.polyfit(X8, Y8, -1), ValueError, "polyfit: deg must be non-negative"),
    (lambda: mnp.polyfit(M, Y8, 1), TypeError, "polyfit: expected a non-empty 1-D x"),
    (lambda: mnp.polyfit(X8, np.ones((8, 1, 1)), 1), TypeError, "polyfit: expected a 1-D or 2"),
    (lambda: mnp.polyfit(X8, Y8[:5], 1), TypeError, "polyfit: x and y must have the same"),
    (lambda: mnp.polyfit(X8, Y8, 1, w=W8[:3]), TypeError, "polyfit: expected a 1-D w"),
    (lambda: mnp.polyfit(X8[:3], Y8[:3], 2, cov=True), ValueError, "polyfit: scaling the cov"),
]


@pytest.mark.parametrize(("thunk", "error", "match"), BAD_INPUTS, ids=range(len(BAD_INPUTS)))
def test_bad_inputs_name_the_function(thunk, error, match):
    with pytest.raises(error, match=match):
        thunk()


def test_concrete_input_is_required_only_where_shapes_depend_on_values():
    with pytest.raises(ConcretizationError, match=r"roots: p .* must be concrete"):
        mj.jit(mnp.roots)(V4)
    with pytest.raises(ConcretizationError, match="trim_zeros"):
        mj.jit(lambda a: mnp.polymul(a, a, trim_leading_zeros=True))(V4)
    with pytest.raises(ConcretizationError, match="polydiv: the remainder must be concrete"):
        mj.jit(lambda u: mnp.polydiv(u, V4[:2], trim_leading_zeros=True))(V4)
    with pytest.raises(ConcretizationError, match="diff: the order n"):
        mj.jit(lambda x, n: mnp.diff(x, n))(V4, 1)
    # grad keeps primals concrete, so the stripping roots can still be differentiated
    p = np.array([0.0, 1.0, -3.0, 2.0])
    # the roots of x^2 - 3x + 2 add up to -p[2] / p[1]
    got = mj.grad(lambda c: mnp.sum(mnp.real(mnp.roots(c))))(p)
    np.testing.assert_allclose(got, [0.0, -3.0, -1.0, 0.0], atol=1e-12)
