"""``mj.numpy``'s sorting, searching, set and counting functions, and the NumPy-level array
methods (``x.sort()``, ``x.searchsorted(v)``, ...) on eager arrays, tracers and device arrays.

NumPy is the reference for values; dtypes are NumPy's except where JAX's differ on purpose
(``searchsorted``/``digitize``/``argpartition`` give int32, unweighted multi-dimensional
histograms count in int64, ``histogram`` counts in floats), which are spelled out. Every case
runs eagerly and under ``jit`` (with the static ``size``/``length`` data-dependent shapes
need there), batched cases under ``vmap`` against a Python loop, and gradients against
central finite differences.
"""

import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj_core.errors import ConcretizationError

RNG = np.random.default_rng(7)
SORTED = np.sort(RNG.choice([-2.0, -0.5, 0.0, 1.0, 1.0, 3.5, np.inf], size=9))
QUERIES = np.array([[-3.0, -2.0, 0.0, -0.0], [1.0, 2.0, np.nan, np.inf]])
INTS = RNG.integers(-4, 5, size=12)
FLOATS = RNG.normal(size=(3, 8))
TIES = np.array([3.0, 1.0, 2.0, 1.0, np.nan, 3.0, 0.0, 2.0])
SET1 = np.array([5, 1, 3, 3, 9, 1, -2])
SET2 = np.array([[3, 7], [1, 1], [0, 5]])
ROWS = np.array([[1, 2], [0, 5], [1, 2], [0, 5], [0, 4]])
POINTS = RNG.normal(size=(40, 3))

I32, I64, F64 = np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.float64)


def _leaves(x):
    return [leaf for item in x for leaf in _leaves(item)] if isinstance(x, tuple | list) else [x]


def _assert_same(got, want, dtypes=None):
    """Same structure, shapes and values (NaN equal NaN); dtypes NumPy's unless given."""
    got, want = _leaves(got), _leaves(want)
    assert len(got) == len(want)
    dtypes = dtypes or [None] * len(want)
    for g, w, dtype in zip(got, want, dtypes, strict=True):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape, (g.shape, w.shape)
        assert g.dtype == (w.dtype if dtype is None else np.dtype(dtype)), (g.dtype, w.dtype)
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


# name -> (f(lib) called with lib = mnp and lib = np, dtypes mj gives where NumPy's differ)
CASES = {
    "searchsorted_left": (lambda m: m.searchsorted(SORTED, QUERIES), [I32]),
    "searchsorted_right": (lambda m: m.searchsorted(SORTED, QUERIES, side="right"), [I32]),
    "searchsorted_scalar": (lambda m: m.searchsorted(SORTED, 1.0, side="right"), [I32]),
    "searchsorted_ints": (lambda m: m.searchsorted(np.arange(0, 20, 3), INTS), [I32]),
    "searchsorted_sorter": (
        lambda m: m.searchsorted(FLOATS[0], FLOATS[1], sorter=np.argsort(FLOATS[0])),
        [I32],
    ),
    "searchsorted_empty": (lambda m: m.searchsorted(np.zeros(0), FLOATS[0]), [I32]),
    "digitize": (lambda m: m.digitize(FLOATS, np.array([-1.0, 0.0, 0.5, 2.0])), [I32]),
    "digitize_right": (lambda m: m.digitize(INTS, np.array([-2, 0, 0, 3]), right=True), [I32]),
    "digitize_decreasing": (lambda m: m.digitize(FLOATS, np.array([1.0, 0.0, -1.0])), [I32]),
    "digitize_decreasing_right": (
        lambda m: m.digitize(INTS, np.array([3, 1, -1]), right=True),
        [I32],
    ),
    "lexsort": (lambda m: m.lexsort((INTS % 3, INTS // 3)), None),
    "lexsort_axis0": (lambda m: m.lexsort((ROWS, ROWS[::-1]), axis=0), None),
    "lexsort_floats": (lambda m: m.lexsort([TIES, np.arange(8) % 2]), None),
    "sort_complex": (lambda m: m.sort_complex(np.array([2 + 1j, 1 - 1j, 2 - 3j, 1 - 2j])), None),
    "sort_complex_ints": (lambda m: m.sort_complex(SET2), None),
    "unique": (lambda m: m.unique(SET1), None),
    "unique_all_outputs": (lambda m: m.unique(SET1, True, True, True), None),
    "unique_2d_inverse": (lambda m: m.unique(SET2, return_inverse=True), None),
    "unique_axis0": (lambda m: m.unique(ROWS, True, True, True, axis=0), None),
    "unique_axis1": (lambda m: m.unique(ROWS.T, True, True, True, axis=-1), None),
    "unique_nan": (lambda m: m.unique(TIES, True, True, True), None),
    "unique_nan_distinct": (lambda m: m.unique(TIES, True, True, True, equal_nan=False), None),
    "unique_bool": (lambda m: m.unique(np.array([True, False, True]), return_counts=True), None),
    "unique_complex": (lambda m: m.unique(np.array([1 + 1j, 1 - 1j, 1 + 1j, 0j])), None),
    "unique_empty": (lambda m: m.unique(np.zeros(0), True, True, True), None),
    "unique_0d": (lambda m: m.unique(np.array(3.0), True, True, True), None),
    "unique_empty_slices": (lambda m: m.unique(np.zeros((3, 0)), True, True, True, axis=0), None),
    "unique_all": (lambda m: tuple(m.unique_all(SET2)), None),
    "unique_counts": (lambda m: tuple(m.unique_counts(TIES)), None),
    "unique_inverse": (lambda m: tuple(m.unique_inverse(SET2)), None),
    "union1d": (lambda m: m.union1d(SET1, SET2), None),
    "union1d_mixed": (lambda m: m.union1d(SET1, FLOATS[0]), None),
    "intersect1d": (lambda m: m.intersect1d(SET1, SET2), None),
    "intersect1d_indices": (lambda m: m.intersect1d(SET1, SET2, return_indices=True), None),
    "intersect1d_assume_unique": (
        lambda m: m.intersect1d(np.array([5, 1, 3]), np.array([3, 7, 5]), True, True),
        [None, I32, I32],
    ),
    "setdiff1d": (lambda m: m.setdiff1d(SET1, SET2), None),
    "setdiff1d_assume_unique": (lambda m: m.setdiff1d(np.array([5, 1, 3]), SET2, True), None),
    "setxor1d": (lambda m: m.setxor1d(SET1, SET2), None),
    "setxor1d_assume_unique": (
        lambda m: m.setxor1d(np.array([5, 1, 3]), np.array([3, 8]), True),
        None,
    ),
    "isin": (lambda m: m.isin(SET2, SET1), None),
    "isin_invert": (lambda m: m.isin(SET2, SET1, invert=True), None),
    "isin_nan": (lambda m: m.isin(TIES, np.array([np.nan, 2.0])), None),
    "isin_empty": (lambda m: m.isin(SET2, np.zeros(0, int), invert=True), None),
    "bincount": (lambda m: m.bincount(np.abs(INTS)), None),
    "bincount_weights": (lambda m: m.bincount(np.abs(INTS), FLOATS[0, :1].repeat(12)), None),
    "bincount_minlength": (lambda m: m.bincount(np.array([1, 1, 3]), minlength=7), None),
    "bincount_bool": (lambda m: m.bincount(np.array([True, False, True])), None),
    "histogram": (lambda m: m.histogram(FLOATS, bins=5), [F64, F64]),
    "histogram_range_density": (
        lambda m: m.histogram(FLOATS, bins=4, range=(-1.0, 1.0), density=True),
        None,
    ),
    "histogram_edges_weights": (
        lambda m: m.histogram(FLOATS, np.array([-2.0, -0.5, 0.0, 3.0]), weights=FLOATS**2),
        None,
    ),
    "histogram_ints": (lambda m: m.histogram(INTS, bins=3), [F64, F64]),
    "histogram_constant": (lambda m: m.histogram(np.full(4, 2.0), bins=2), [F64, F64]),
    "histogram_bin_edges": (lambda m: m.histogram_bin_edges(INTS, bins=6), None),
    "histogram2d": (
        lambda m: m.histogram2d(POINTS[:, 0], POINTS[:, 1], bins=(3, 4)),
        [I64, F64, F64],
    ),
    "histogram2d_weights_density": (
        lambda m: m.histogram2d(
            POINTS[:, 0], POINTS[:, 1], 3, [(-1, 1), (-2, 3)], weights=POINTS[:, 2], density=True
        ),
        None,
    ),
    "histogramdd": (lambda m: m.histogramdd(POINTS, bins=(2, 3, 4)), [I64, F64, F64, F64]),
    "histogramdd_edges": (
        lambda m: m.histogramdd(POINTS, bins=[np.array([-1.0, 0.0, 1.0])] * 3, density=True),
        None,
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_matches_numpy(name):
    f, dtypes = CASES[name]
    _assert_same(f(mnp), f(np), dtypes)


# name -> (f(lib) traceable under jit, the argument it traces)
TRACEABLE = {
    "searchsorted": (lambda m, x: m.searchsorted(SORTED, x, side="right"), QUERIES),
    "searchsorted_traced_a": (lambda m, a: m.searchsorted(a, QUERIES), SORTED),
    "digitize": (lambda m, x: m.digitize(x, np.array([1.0, 0.0, -1.0]), right=True), FLOATS),
    "lexsort": (lambda m, k: m.lexsort((k, k % 2.0)), FLOATS.round()),
    "histogram": (lambda m, x: m.histogram(x, bins=4, weights=x**2, density=True), FLOATS),
    "histogramdd": (lambda m, p: m.histogramdd(p, bins=3, range=[(-2, 2)] * 3), POINTS),
    "isin": (lambda m, x: m.isin(x, SET1, invert=True), SET2),
}


@pytest.mark.parametrize("name", list(TRACEABLE))
def test_jit_gives_the_eager_answer(name):
    f, arg = TRACEABLE[name]
    eager = f(mnp, arg)
    _assert_same(eager, f(np, arg), [np.asarray(e).dtype for e in _leaves(eager)])
    _assert_same(mj.jit(lambda x: f(mnp, x))(arg), eager, None)


def test_searchsorted_ties_nans_and_signed_zeros_agree_eagerly_and_under_jit():
    a = np.array([-1.0, -0.0, 0.0, 0.0, 2.0, np.nan, np.nan])
    v = np.array([0.0, -0.0, np.nan, 2.0, -np.inf, 5.0])
    for side, want in [("left", [1, 1, 5, 4, 0, 5]), ("right", [4, 4, 7, 5, 0, 5])]:
        np.testing.assert_array_equal(np.searchsorted(a, v, side=side), want)
        np.testing.assert_array_equal(mnp.searchsorted(a, v, side=side), want)
        jitted = mj.jit(lambda a_, v_, s=side: mnp.searchsorted(a_, v_, side=s))(a, v)
        np.testing.assert_array_equal(jitted, want)
    for method in ("scan", "scan_unrolled", "sort", "compare_all"):
        np.testing.assert_array_equal(mnp.searchsorted(a, v, method=method), [1, 1, 5, 4, 0, 5])


@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 8, 9, 16, 17, 100])
def test_searchsorted_binary_search_at_every_length(n):
    """The halving steps end exactly on the answer whatever len(a) (powers of two and their
    neighbours included), for values in a, between them, outside them, and NaN."""
    a = np.sort(RNG.integers(0, max(2, n // 2), size=n).astype(float))
    a[-1] = np.nan if n > 2 else a[-1]
    v = np.concatenate([a, a + 0.5, [-1.0, 1e9, np.nan]])
    for side in ("left", "right"):
        want = np.searchsorted(a, v, side=side)
        np.testing.assert_array_equal(mnp.searchsorted(a, v, side=side), want)
        if n in (8, 17):
            got = mj.jit(lambda a_, v_, s=side: mnp.searchsorted(a_, v_, side=s))(a, v)
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("kth", [0, 2, -1])
def test_partition_and_argpartition_partition_like_numpy(axis, kth):
    x = RNG.integers(0, 4, size=(5, 6)).astype(float)
    x[1, 2] = np.nan
    want = np.sort(x, axis=axis)
    k = kth % x.shape[axis]
    for got in (mnp.partition(x, kth, axis), mj.jit(lambda v: mnp.partition(v, kth, axis))(x)):
        got = np.asarray(got)
        np.testing.assert_array_equal(np.sort(got, axis=axis), want)  # a permutation
        pivot = np.take(got, [k], axis=axis)
        np.testing.assert_array_equal(pivot, np.take(want, [k], axis=axis))
        ordered = np.where(np.isnan(got), np.inf, got)  # NaN sorts last
        before, rest = np.split(ordered, [k], axis=axis)
        assert np.all(before <= rest[(slice(None),) * (axis % 2) + (slice(0, 1),)])
        assert np.all(rest >= rest[(slice(None),) * (axis % 2) + (slice(0, 1),)])
    idx = mnp.argpartition(x, kth, axis)
    assert idx.dtype == np.int32
    picked = np.take_along_axis(x, np.asarray(idx), axis)
    np.testing.assert_array_equal(np.sort(picked, axis=axis), want)
    np.testing.assert_array_equal(np.take(picked, [k], axis=axis), np.take(want, [k], axis=axis))
    np.testing.assert_array_equal(mj.jit(lambda v: mnp.argpartition(v, kth, axis))(x), idx)


def test_partition_orders_like_jax():
    """JAX's (deterministic) order: the kth+1 smallest ascending, then the rest descending;
    argpartition lists the rest by increasing position."""
    x = np.array([6, 8, 4, 3, 1, 9, 7, 5, 2, 3])
    np.testing.assert_array_equal(mnp.partition(x, 4), [1, 2, 3, 3, 4, 9, 8, 7, 6, 5])
    np.testing.assert_array_equal(mnp.argpartition(x, 4), [4, 8, 3, 9, 2, 0, 1, 5, 6, 7])
    ties = np.array([1, 1, 1, 0, 1])
    np.testing.assert_array_equal(mnp.argpartition(ties, 1), [3, 0, 1, 2, 4])


def test_unique_with_size_pads_and_truncates_eagerly_and_under_jit():
    values, first, inverse, counts = np.unique(SET1, True, True, True)
    n = len(values)

    def f(x):
        return mnp.unique(x, True, True, True, size=n + 2, fill_value=-7)

    for out in (f(SET1), mj.jit(f)(SET1)):
        _assert_same(out[0], np.concatenate([values, [-7, -7]]))
        _assert_same(out[1], np.concatenate([first, [first[0]] * 2]))
        _assert_same(out[2], inverse)
        _assert_same(out[3], np.concatenate([counts, [0, 0]]))
    # without fill_value the padding repeats the smallest value; a small size truncates
    _assert_same(mnp.unique(SET1, size=n + 1), np.append(values, values[0]))
    _assert_same(mj.jit(lambda x: mnp.unique(x, size=2))(SET1), values[:2])
    _assert_same(mnp.unique_values(SET1, size=n + 1, fill_value=0), np.append(values, 0))
    rows = mj.jit(lambda x: mnp.unique(x, axis=0, size=4, fill_value=-1))(ROWS)
    _assert_same(rows, np.concatenate([np.unique(ROWS, axis=0), [[-1, -1]]]))


def test_set_operations_with_size_under_jit_match_numpy_padded():
    def padded(values, size, fill):
        return np.concatenate([values, np.full(size - len(values), fill, values.dtype)])

    a, b = SET1, SET2.ravel()
    cases = [
        (lambda x, y: mnp.union1d(x, y, size=12), padded(np.union1d(a, b), 12, np.min(a))),
        (lambda x, y: mnp.union1d(x, y, size=3, fill_value=0), np.union1d(a, b)[:3]),
        (lambda x, y: mnp.setdiff1d(x, y, size=5), padded(np.setdiff1d(a, b), 5, 0)),
        (lambda x, y: mnp.setdiff1d(x, y, size=4, fill_value=8), padded(np.setdiff1d(a, b), 4, 8)),
        (lambda x, y: mnp.setxor1d(x, y, size=9), padded(np.setxor1d(a, b), 9, -2)),
        (
            lambda x, y: mnp.intersect1d(x, y, size=5, fill_value=-1),
            padded(np.array([1, 3, 5]), 5, -1),
        ),
    ]
    for f, want in cases:
        _assert_same(f(a, b), np.asarray(want))
        _assert_same(mj.jit(f)(a, b), np.asarray(want))
    vals, i1, i2 = mj.jit(lambda x, y: mnp.intersect1d(x, y, return_indices=True, size=4))(a, b)
    _, w1, w2 = np.intersect1d(a, b, return_indices=True)
    _assert_same(vals, np.array([1, 3, 5, 1]))
    _assert_same(i1, np.append(w1, a.size))  # padded indices are out of bounds
    _assert_same(i2, np.append(w2, b.size))


@pytest.mark.parametrize(
    "f",
    [
        lambda x: mnp.unique(x),
        lambda x: mnp.union1d(x, x),
        lambda x: mnp.setdiff1d(x, x),
        lambda x: mnp.bincount(x),
        lambda x: mnp.unique_counts(x),
    ],
)
def test_data_dependent_sizes_need_static_sizes_under_jit(f):
    with pytest.raises(ConcretizationError, match=r"size|length"):
        mj.jit(f)(np.array([1, 2, 2]))


def test_vmap_matches_a_loop():
    batch = RNG.integers(0, 5, size=(4, 6))
    cases = [
        lambda x: mnp.searchsorted(np.array([0.5, 1.5, 3.5]), x, side="right"),
        lambda x: mnp.searchsorted(mnp.sort(x), x),
        lambda x: mnp.digitize(x, np.array([3, 1])),
        lambda x: mnp.partition(x, 2),
        lambda x: mnp.argpartition(x, 3),
        lambda x: mnp.lexsort((x, x % 2)),
        lambda x: mnp.unique(x, True, True, True, size=6, fill_value=9),
        lambda x: mnp.setdiff1d(x, np.array([1, 3]), size=4),
        lambda x: mnp.isin(x, np.array([0, 4])),
        lambda x: mnp.bincount(x, x * 0.5, length=5),
        lambda x: mnp.histogram(x, bins=np.array([0.0, 1.0, 4.0]))[0],
    ]
    for f in cases:
        looped = [f(row) for row in batch]
        got = mj.vmap(f)(batch)
        for i, want in enumerate(looped):
            _assert_same(mj.tree_util.tree_map(lambda g, i=i: g[i], got), want)


def _finite_difference_check(f, x, eps=1e-6):
    grad = np.asarray(mj.grad(f)(x))
    numeric = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = eps
        numeric[i] = (float(f(x + step)) - float(f(x - step))) / (2 * eps)
    np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-6)
    assert np.any(grad != 0)


WEIGHTS = np.linspace(-1.0, 2.0, 8)
GRADIENT_CASES = {
    "sort": lambda x: mnp.sum(mnp.asarray(x).sort() * WEIGHTS),
    "partition": lambda x: mnp.sum(mnp.partition(x, 3) * WEIGHTS),
    "unique": lambda x: mnp.sum(mnp.unique(x) ** 2),
    "unique_size": lambda x: mnp.sum(mnp.unique(mnp.floor(x) + x, size=10) * WEIGHTS[0]),
    "union1d_size": lambda x: mnp.sum(mnp.union1d(x, 2 * x, size=12) ** 3),
    "interpolate": lambda x: mnp.sum(
        x * mnp.array([1.0, -2.0, 3.0, 0.5])[mnp.searchsorted(np.array([-1.0, 0.0, 1.0]), x)]
    ),
    "histogram_weights": lambda x: mnp.sum(mnp.histogram(FLOATS[0], 3, weights=x)[0] ** 2),
    "bincount_weights": lambda x: mnp.sum(mnp.bincount(np.arange(8) % 3, x) ** 2),
    "histogramdd_density": lambda x: mnp.sum(
        mnp.histogramdd(POINTS[:8], 2, weights=x, density=True)[0] ** 2
    ),
}


@pytest.mark.parametrize("name", list(GRADIENT_CASES))
def test_gradients_match_finite_differences(name):
    x = np.array([0.3, -1.2, 2.5, 0.7, -0.4, 1.9, -2.2, 1.1])
    _finite_difference_check(GRADIENT_CASES[name], x)


# --- array methods ---------------------------------------------------------------------------


def test_eager_sort_returns_a_sorted_copy_and_numpy_still_sorts_in_place():
    x = mnp.array([3.0, 1.0, np.nan, 2.0, 0.0, 5.0])
    before = np.array(x)
    out = x.sort()
    assert isinstance(out, mnp.ndarray)
    np.testing.assert_array_equal(out, np.sort(before))
    np.testing.assert_array_equal(x, before)  # x is unchanged
    np.testing.assert_array_equal(x.sort(descending=True), np.sort(before)[::-1])
    np.testing.assert_array_equal(x.argsort(descending=True), [2, 5, 0, 3, 1, 4])
    # NumPy's own functions sort/partition copies in place through the same methods
    np.testing.assert_array_equal(np.sort(x), np.sort(before))
    np.testing.assert_array_equal(np.argsort(x), np.argsort(before))
    ints = mnp.array([4, 1, 4, 2, 1])
    for got, want in zip(
        np.unique(ints, True, True, True), np.unique(np.array(ints), True, True, True), strict=True
    ):
        np.testing.assert_array_equal(got, want)
    finite = mnp.array([3.0, 1.0, 7.0, 2.0, 0.0])
    assert np.median(finite) == 2.0
    assert np.percentile(finite, 75) == 3.0
    np.testing.assert_array_equal(np.partition(finite, 2)[2], 2.0)
    assert np.searchsorted(finite.sort(), 2.5) == 3
    np.testing.assert_array_equal(x, before)
    with pytest.raises(TypeError, match="immutable"):
        x.partition(2)


_METHOD_CALLS = """
import numpy as np


def run(x):
    return (
        x.sort(),
        x.argsort(),
        x.sort().searchsorted(2.5),
        x.nonzero(),
        x.repeat(2),
        np.sort(x),
        np.unique(x, return_counts=True),
        np.median(x),
        np.percentile(x, 75),
    )
"""


@pytest.mark.parametrize("module_name", ["user_code", "numpy._caller", "mj_core.prims._caller"])
def test_array_methods_do_not_depend_on_the_callers_module(module_name):
    """Issue 38: an mj array's NumPy-protocol methods give the same results whoever calls
    them (NumPy's own functions included): the array decides, not the caller's frame."""
    import types

    module = types.ModuleType(module_name)
    exec(compile(_METHOD_CALLS, f"<{module_name}>", "exec"), module.__dict__)
    x = mnp.array([3.0, 1.0, 7.0, 2.0, 0.0, 2.0])
    data = np.array(x)
    got = module.run(x)
    want = (
        np.sort(data),
        np.argsort(data, kind="stable"),
        np.searchsorted(np.sort(data), 2.5),
        np.nonzero(data),
        np.repeat(data, 2),
        np.sort(data),
        np.unique(data, return_counts=True),
        np.median(data),
        np.percentile(data, 75),
    )
    for g, w in zip(got[:5], want[:5], strict=True):  # JAX's methods: mj arrays
        assert all(isinstance(v, mnp.ndarray) for v in (g if isinstance(g, tuple) else (g,)))
        np.testing.assert_array_equal(g, w)
    for g, w in zip(got[5:], want[5:], strict=True):  # NumPy's functions: NumPy's results
        np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(x, data)  # nothing sorted x in place


def test_methods_on_eager_device_and_traced_arrays():
    data = np.array([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
    device = mj.jit(lambda v: v)(data)

    def methods(x):
        return (
            x.sort(),
            x.sort(axis=0, descending=True),
            x.sort(None),
            x.argsort(axis=0),
            x.argpartition(1),
            x[0].sort().searchsorted(np.array([1.5, 3.0]), "right"),
            x.nonzero(size=6, fill_value=-1),
            x.ptp(axis=1),
            x.diagonal(1),
            x.trace(),
            x.repeat(2, axis=1),
            x.view(np.int64),
            (x[0] > 2).astype(np.int64).choose([x[0], x[1]], mode="clip"),
            x.compress(np.array([True, False, True]), axis=1, size=2),
        )

    want = (
        np.sort(data),
        np.sort(data, axis=0)[::-1],
        np.sort(data, None),
        np.argsort(data, axis=0),
        np.array([[1, 2, 0], [0, 2, 1]], np.int32),
        np.searchsorted(np.array([1.0, 2.0, 3.0]), [1.5, 3.0], "right").astype(np.int32),
        (np.array([0, 0, 0, 1, 1, -1]), np.array([0, 1, 2, 1, 2, -1])),
        np.ptp(data, axis=1),
        np.diagonal(data, 1),
        np.trace(data),
        np.repeat(data, 2, axis=1),
        data.view(np.int64),
        np.array([0.0, 1.0, 2.0]),
        np.compress([True, False, True], data, axis=1),
    )
    _assert_same(methods(mnp.asarray(data)), want, [np.asarray(w).dtype for w in _leaves(want)])
    _assert_same(methods(device), want, [np.asarray(w).dtype for w in _leaves(want)])
    _assert_same(mj.jit(methods)(data), want, [np.asarray(w).dtype for w in _leaves(want)])


def test_view_reinterprets_bits_like_numpy():
    cases = [
        (np.array([1, 256, -2], np.int16), np.uint8),
        (np.array([[1.5, -2.0]], np.float32), np.int64),
        (np.array([1.0, 2.0, -3.0, 4.0]), np.complex128),
        (np.array([1 + 2j, 3 - 4j]), np.float64),
        (np.array([True, False]), np.uint8),
        (np.array([0, 1, 1, 0], np.uint8), np.bool_),
        (np.array(1.0), np.int64),
    ]
    for x, dtype in cases:
        _assert_same(mj.jit(lambda v, d=dtype: v.view(d))(x), x.view(dtype))
    with pytest.raises(ValueError, match="view"):
        mj.jit(lambda v: v.view(np.float64))(np.ones(3, np.float32))


def test_tracer_host_methods():
    def f(x):
        assert (x.nbytes, x.itemsize) == (24, 8)
        return x * x.item(1) + len(x.tolist())

    _assert_same(mj.grad(lambda x: mnp.sum(f(x)))(np.array([1.0, 2.0, 3.0])), np.full(3, 2.0))
    with pytest.raises(ConcretizationError, match=r"item\(\)"):
        mj.jit(lambda x: x.item(0))(np.ones(2))
    with pytest.raises(ConcretizationError, match=r"tolist\(\)"):
        mj.vmap(lambda x: mnp.asarray(x.tolist()))(np.ones((2, 2)))
    with pytest.raises(NotImplementedError, match="flat"):
        mj.jit(lambda x: x.flat)(np.ones(2))
    with pytest.raises(NotImplementedError, match="flat"):
        _ = mj.jit(lambda x: x)(np.ones(2)).flat


# --- bad input -------------------------------------------------------------------------------

BAD_INPUT = [
    (lambda: mnp.searchsorted(SORTED, 1.0, side="middle"), ValueError, "searchsorted.*side"),
    (lambda: mnp.searchsorted(np.ones((2, 2)), 1.0), ValueError, "searchsorted.*1-dim"),
    (lambda: mnp.searchsorted(SORTED, 1.0, method="bisect"), ValueError, "searchsorted.*method"),
    (lambda: mnp.searchsorted([1, 2], 1), TypeError, "searchsorted.*list"),
    (lambda: mnp.digitize(FLOATS, np.ones((2, 2))), ValueError, "digitize.*1-dim"),
    (lambda: mnp.partition(INTS, 12), ValueError, "partition.*kth=12"),
    (lambda: mnp.partition(INTS, 1.5), TypeError, "partition.*kth"),
    (lambda: mnp.partition(np.array([1j]), 0), NotImplementedError, "partition.*complex"),
    (lambda: mnp.argpartition(np.array([True]), 0), TypeError, "argpartition.*bool"),
    (lambda: mnp.lexsort([]), TypeError, "lexsort"),
    (lambda: mnp.lexsort([np.ones(2), np.ones(3)]), ValueError, "lexsort.*same shape"),
    (lambda: mnp.sort(INTS, kind="quicksort"), TypeError, "sort.*kind"),
    (lambda: mnp.argsort(INTS, order="f"), TypeError, "argsort.*order"),
    (lambda: mnp.unique(ROWS, axis=2), ValueError, "unique.*axis 2"),
    (lambda: mnp.unique(np.zeros(0), size=2), ValueError, "unique.*fill_value"),
    (lambda: mnp.unique(SET1, size=2.5), TypeError, "unique: size must be an int"),
    (lambda: mnp.setxor1d(SET1, SET2, size="3"), TypeError, "setxor1d: size must be an int"),
    (lambda: mj.jit(lambda n: mnp.bincount(SET1 % 3, length=n))(3), ConcretizationError, "length"),
    (lambda: mnp.isin(SET1, SET2, method="hash"), ValueError, "isin.*method"),
    (lambda: mnp.bincount(FLOATS[0]), TypeError, "bincount.*integer"),
    (lambda: mnp.bincount(ROWS), ValueError, "bincount.*1-dim"),
    (lambda: mnp.bincount(SET1, np.ones(3)), ValueError, "bincount.*weights"),
    (lambda: mnp.histogram(FLOATS, bins="auto"), TypeError, "histogram.*bins"),
    (lambda: mnp.histogram_bin_edges(FLOATS, bins="auto"), NotImplementedError, "string"),
    (lambda: mnp.histogram(FLOATS, 3, range=(0, 1, 2)), ValueError, "histogram.*range"),
    (lambda: mnp.histogram(FLOATS, 3, weights=np.ones(2)), ValueError, "histogram.*weights"),
    (lambda: mnp.histogramdd(POINTS[:, 0]), ValueError, "histogramdd.*2-D"),
    (lambda: mnp.histogramdd(POINTS, bins=[2, 2]), ValueError, "histogramdd.*bins"),
    (lambda: mnp.histogramdd(POINTS, range=[(0, 1)]), ValueError, "histogramdd.*range"),
    (lambda: mnp.asarray(FLOATS).ptp(out=np.zeros(3)), NotImplementedError, "ptp.*out"),
]


@pytest.mark.parametrize(("f", "error", "match"), BAD_INPUT)
def test_bad_input_gets_a_clear_error(f, error, match):
    with pytest.raises(error, match=match):
        f()


def test_bincount_counts_negative_values_as_zero_like_jax():
    _assert_same(mnp.bincount(np.array([-3, 0, 2, -1])), np.array([3, 0, 1]))
    _assert_same(mnp.bincount(np.array([1, 9]), length=3), np.array([0, 1, 0]))
