"""Sorting, searching, set and counting functions and the NumPy-level array methods against
JAX 0.10.2 (x64): the same values, dtypes (int32 ``searchsorted``/``digitize``/
``argpartition``, JAX's padding and index dtypes for ``size=``) and error types, eagerly and
under ``jit``/``vmap``/``grad``.

Known, deliberate differences (not asserted as equal): mixed-dtype inputs promote like NumPy
(``int64`` with ``float32`` gives ``float64``; JAX gives ``float32``), so do the inexact dtypes
of integer inputs (``histogram`` of ``int32`` is ``float64``, ``sort_complex`` of ``int32`` is
``complex128``); ``unique`` without ``size`` differentiates its values under ``grad`` where
JAX's gradient is zero (asserted below); ``histogram_bin_edges`` computes evenly spaced edges as
``start + i * step`` (NumPy's formula), which may differ from JAX's in the last bit.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

jax.config.update("jax_enable_x64", True)

pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(11)
SORTED = np.array([-2.0, -0.0, 0.0, 1.0, 1.0, 3.5, np.nan])
QUERIES = np.array([[-3.0, 0.0, -0.0, 1.0], [2.0, np.nan, np.inf, 3.5]])
X = np.array([6, 8, 4, 3, 1, 9, 7, 5, 2, 3])
NANS = np.array([1.0, np.nan, 2.0, np.nan, -0.0, 0.0])
SET1 = np.array([1, 2, 3, 4, 4, -1])
SET2 = np.array([[3, 4], [5, 6], [3, -1]])
ROWS = np.array([[1, 2], [2, 3], [1, 2], [0, 9]])
COUNTS = np.array([0, 1, 1, 3, 2, 1, 7])
DATA = RNG.normal(size=(3, 16))
POINTS = RNG.normal(size=(30, 3))
GRID = np.array([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
BATCH = RNG.integers(0, 6, size=(3, 6))


# name -> f(np_, lib): np_ is jax.numpy or mj.numpy, lib is jax or mj
CASES = {
    # searchsorted / digitize
    "searchsorted": lambda np_, lib: [
        np_.searchsorted(SORTED, QUERIES, side=side) for side in ("left", "right")
    ],
    "searchsorted_scalar": lambda np_, lib: np_.searchsorted(SORTED, 1.0),
    "searchsorted_promote": lambda np_, lib: np_.searchsorted(np.arange(5), 2.5),
    "searchsorted_sorter": lambda np_, lib: np_.searchsorted(
        DATA[0], DATA[1], sorter=np.argsort(DATA[0])
    ),
    "searchsorted_bool": lambda np_, lib: np_.searchsorted(np.array([False, True]), True),
    "searchsorted_empty": lambda np_, lib: np_.searchsorted(np.zeros(0), DATA[0]),
    "searchsorted_complex": lambda np_, lib: [
        f(np.array([1 + 1j, 1 + 2j, 2 + 0j, 2 + 1j]), np.array([1 + 1.5j, 3j, 2 + 0j, 2 + 3j]))
        for f in (np_.searchsorted, lib.jit(np_.searchsorted))
    ],
    "searchsorted_jit": lambda np_, lib: lib.jit(np_.searchsorted, static_argnums=2)(
        SORTED, QUERIES, "right"
    ),
    "searchsorted_vmap": lambda np_, lib: lib.vmap(np_.searchsorted)(np.sort(DATA), DATA[:, 0]),
    "searchsorted_bad_side": lambda np_, lib: np_.searchsorted(SORTED, 1.0, side="middle"),
    "searchsorted_bad_method": lambda np_, lib: np_.searchsorted(SORTED, 1.0, method="x"),
    "searchsorted_2d": lambda np_, lib: np_.searchsorted(GRID, 1.0),
    "searchsorted_list": lambda np_, lib: np_.searchsorted([1, 2], 1),
    "digitize": lambda np_, lib: np_.digitize(DATA, np.array([-1, 0, 1])),
    "digitize_right_decreasing": lambda np_, lib: np_.digitize(
        DATA, np.array([1.0, 0.0, 0.0, -1.0]), right=True
    ),
    "digitize_empty_bins": lambda np_, lib: np_.digitize(DATA, np.zeros(0)),
    "digitize_2d_bins": lambda np_, lib: np_.digitize(DATA, GRID),
    # sorting
    "partition": lambda np_, lib: np_.partition(X, 4),
    "partition_negative_kth": lambda np_, lib: np_.partition(X.astype(float), -3),
    "partition_nan": lambda np_, lib: np_.partition(np.array([3.0, np.nan, 2, 5, 1]), 2),
    "partition_uint8": lambda np_, lib: np_.partition(np.array([3, 0, 2, 1], np.uint8), 1),
    "partition_jit": lambda np_, lib: lib.jit(lambda x: np_.partition(x, 5, axis=1))(DATA),
    "partition_vmap": lambda np_, lib: lib.vmap(lambda x: np_.partition(x, 2))(BATCH),
    "partition_grad": lambda np_, lib: lib.grad(
        lambda x: (np_.partition(x, 1) * np.arange(4.0)).sum()
    )(np.array([3.0, 1.0, 2.0, 5.0])),
    "argpartition": lambda np_, lib: np_.argpartition(X, 4),
    "argpartition_ties": lambda np_, lib: np_.argpartition(np.array([1, 1, 1, 0, 1]), 1),
    "argpartition_nan": lambda np_, lib: np_.argpartition(np.array([3.0, np.nan, 2, 5, 1]), 2),
    "argpartition_axis0": lambda np_, lib: np_.argpartition(BATCH, -2, axis=0),
    "argpartition_jit": lambda np_, lib: lib.jit(lambda x: np_.argpartition(x, 3))(BATCH),
    "partition_complex": lambda np_, lib: np_.partition(np.array([1j, 2]), 0),
    "partition_bool": lambda np_, lib: np_.partition(np.array([True, False]), 0),
    "partition_kth_range": lambda np_, lib: np_.partition(X, 10),
    "partition_kth_float": lambda np_, lib: np_.partition(X, 1.0),
    "lexsort": lambda np_, lib: np_.lexsort([BATCH[0], BATCH[1] % 2]),
    "lexsort_axis0": lambda np_, lib: np_.lexsort([ROWS, ROWS[::-1]], axis=0),
    "lexsort_array_keys": lambda np_, lib: np_.lexsort(BATCH),
    "lexsort_0d": lambda np_, lib: np_.lexsort([np.array(3)]),
    "lexsort_jit": lambda np_, lib: lib.jit(lambda a, b: np_.lexsort((a, b)))(NANS, NANS > 0),
    "lexsort_empty": lambda np_, lib: np_.lexsort([]),
    "lexsort_shapes": lambda np_, lib: np_.lexsort([np.ones(3), np.ones(2)]),
    "sort_complex": lambda np_, lib: np_.sort_complex(np.array([2 + 1j, 1 - 1j, 2 - 3j])),
    "sort_complex_2d": lambda np_, lib: np_.sort_complex(GRID),
    "sort_complex_float32": lambda np_, lib: np_.sort_complex(GRID.astype(np.float32)),
    "sort_complex_int8": lambda np_, lib: np_.sort_complex(np.array([3, 1], np.int8)),
    "sort_complex_0d": lambda np_, lib: np_.sort_complex(np.array(3.0)),
    "argsort_dtype": lambda np_, lib: np_.argsort(X, dtype=np.int32),
    "argsort_descending_unstable": lambda np_, lib: np_.argsort(
        np.array([1, 1, 0, 1]), stable=False, descending=True
    ),
    "argsort_kind": lambda np_, lib: np_.argsort(X, kind="stable"),
    "sort_order": lambda np_, lib: np_.sort(X, order="x"),
    # unique
    "unique": lambda np_, lib: np_.unique(SET1, True, True, True),
    "unique_axis0": lambda np_, lib: np_.unique(ROWS, True, True, True, axis=0),
    "unique_2d_inverse": lambda np_, lib: np_.unique(ROWS, return_inverse=True),
    "unique_nan": lambda np_, lib: np_.unique(NANS, True, True, True),
    "unique_complex_nan": lambda np_, lib: np_.unique(
        np.array([complex(np.nan, 1), 1 - 1j, complex(1, np.nan), 0j]), True, True, True
    ),
    "unique_empty": lambda np_, lib: np_.unique(np.zeros(0), True, True, True),
    "unique_empty_fill": lambda np_, lib: np_.unique(
        np.zeros(0), True, True, True, size=2, fill_value=7
    ),
    "unique_empty_rows": lambda np_, lib: np_.unique(np.zeros((3, 0)), True, True, True, axis=0),
    "unique_jit_size": lambda np_, lib: lib.jit(
        lambda x: np_.unique(x, True, True, True, size=8, fill_value=-1)
    )(SET1),
    "unique_vmap_size": lambda np_, lib: lib.jit(
        lib.vmap(lambda x: np_.unique(x, True, True, True, size=5))
    )(BATCH),
    "unique_grad_size": lambda np_, lib: lib.jit(
        lib.grad(lambda x: (np_.unique(x, size=5) ** 2).sum())
    )(np.array([3.0, 1.0, 3.0, 2.0])),
    "unique_all": lambda np_, lib: tuple(np_.unique_all(NANS)),
    "unique_all_size": lambda np_, lib: tuple(np_.unique_all(SET1, size=7, fill_value=9)),
    "unique_counts": lambda np_, lib: tuple(np_.unique_counts(SET2)),
    "unique_inverse": lambda np_, lib: tuple(np_.unique_inverse(ROWS)),
    "unique_values": lambda np_, lib: np_.unique_values(SET2, size=6, fill_value=-1),
    "unique_jit": lambda np_, lib: lib.jit(np_.unique)(SET1),
    "unique_vmap": lambda np_, lib: lib.vmap(np_.unique)(BATCH),
    "unique_empty_no_fill": lambda np_, lib: np_.unique(np.zeros(0), size=2),
    "unique_axis_range": lambda np_, lib: np_.unique(ROWS, axis=2),
    "unique_list": lambda np_, lib: np_.unique([1, 2]),
    # set operations
    "union1d_mixed": lambda np_, lib: np_.union1d(SET1, SET2.astype(float)),
    "union1d_jit_size": lambda np_, lib: lib.jit(lambda a, b: np_.union1d(a, b, size=4))(
        SET1, SET2
    ),
    "intersect1d_indices": lambda np_, lib: np_.intersect1d(SET1, SET2, return_indices=True),
    "intersect1d_assume_unique": lambda np_, lib: np_.intersect1d(
        np.array([5, 1, 3]), np.array([3, 7, 5]), True, True
    ),
    "intersect1d_assume_unique_size": lambda np_, lib: np_.intersect1d(
        np.array([5, 1, 3]), np.array([3, 7, 5]), True, True, size=4
    ),
    "intersect1d_jit_size": lambda np_, lib: lib.jit(
        lambda a, b: np_.intersect1d(a, b, return_indices=True, size=5, fill_value=-9)
    )(SET1, SET2),
    "setdiff1d": lambda np_, lib: np_.setdiff1d(SET1, SET2),
    "setdiff1d_size": lambda np_, lib: np_.setdiff1d(SET1, SET2, size=4),
    "setdiff1d_size_fill": lambda np_, lib: np_.setdiff1d(SET1, SET2, size=4, fill_value=9),
    "setdiff1d_assume_unique": lambda np_, lib: np_.setdiff1d(
        np.array([5, 1, 3, 2]), np.array([3, 9]), True, size=4
    ),
    "setdiff1d_keeps_ar1_dtype": lambda np_, lib: np_.setdiff1d(
        SET1.astype(np.int32), SET2.astype(float)
    ),
    "setdiff1d_empty": lambda np_, lib: np_.setdiff1d(np.zeros(0), SET2, size=3),
    "setdiff1d_vmap_size": lambda np_, lib: lib.jit(
        lib.vmap(lambda b: np_.setdiff1d(SET1, b, size=4))
    )(BATCH),
    "setxor1d": lambda np_, lib: np_.setxor1d(SET1, SET2),
    "setxor1d_assume_unique_size": lambda np_, lib: np_.setxor1d(
        np.array([5, 1, 3]), np.array([3, 9]), True, size=5
    ),
    "setxor1d_jit_size": lambda np_, lib: lib.jit(lambda a, b: np_.setxor1d(a, b, size=3))(
        SET1, SET2
    ),
    "union1d_jit": lambda np_, lib: lib.jit(np_.union1d)(SET1, SET2),
    "setdiff1d_jit": lambda np_, lib: lib.jit(np_.setdiff1d)(SET1, SET2),
    "intersect1d_jit": lambda np_, lib: lib.jit(np_.intersect1d)(SET1, SET2),
    "isin": lambda np_, lib: np_.isin(SET2, SET1),
    "isin_invert": lambda np_, lib: np_.isin(SET2, SET1, invert=True),
    "isin_nan": lambda np_, lib: np_.isin(NANS, np.array([np.nan, 1.0, 0.0])),
    "isin_methods": lambda np_, lib: lib.jit(
        lambda x: [
            np_.isin(x, np.array([np.nan, -0.0, 2.0]), invert=i, method=m)
            for m in ("auto", "compare_all", "binary_search", "sort")
            for i in (False, True)
        ]
    )(NANS),
    "isin_scalar": lambda np_, lib: np_.isin(2, SET1),
    "isin_empty": lambda np_, lib: np_.isin(SET1, np.zeros(0), invert=True),
    "isin_vmap": lambda np_, lib: lib.vmap(np_.isin)(BATCH, BATCH[::-1]),
    "isin_bad_method": lambda np_, lib: np_.isin(SET1, SET2, method="hash"),
    # counting
    "bincount": lambda np_, lib: np_.bincount(COUNTS),
    "bincount_int32_weights": lambda np_, lib: np_.bincount(COUNTS, np.arange(7, dtype=np.int32)),
    "bincount_minlength": lambda np_, lib: np_.bincount(COUNTS, minlength=10),
    "bincount_length": lambda np_, lib: np_.bincount(COUNTS, length=4),
    "bincount_negative": lambda np_, lib: np_.bincount(np.array([-1, 0, 2])),
    "bincount_bool": lambda np_, lib: np_.bincount(np.array([True, False, True])),
    "bincount_empty": lambda np_, lib: np_.bincount(np.zeros(0, int)),
    "bincount_jit_length": lambda np_, lib: lib.jit(lambda x: np_.bincount(x, length=5))(COUNTS),
    "bincount_grad": lambda np_, lib: lib.grad(lambda w: (np_.bincount(COUNTS, w) ** 2).sum())(
        np.arange(7.0)
    ),
    "bincount_float": lambda np_, lib: np_.bincount(np.array([1.0])),
    "bincount_2d": lambda np_, lib: np_.bincount(SET2),
    "bincount_weights_shape": lambda np_, lib: np_.bincount(COUNTS, np.ones(3)),
    "bincount_jit": lambda np_, lib: lib.jit(np_.bincount)(COUNTS),
    "histogram": lambda np_, lib: np_.histogram(DATA, bins=5),
    "histogram_range": lambda np_, lib: np_.histogram(DATA, range=(-1, 1), bins=5),
    "histogram_edges": lambda np_, lib: np_.histogram(DATA, bins=np.array([-2, -0.5, 0, 3])),
    "histogram_constant": lambda np_, lib: np_.histogram(np.full(6, 2.0), bins=5),
    "histogram_outliers": lambda np_, lib: np_.histogram(
        np.array([-5.0, 0, 3, 30, 1.0, 2.5]), bins=5, range=(0, 3)
    ),
    "histogram_jit": lambda np_, lib: lib.jit(
        lambda x, w: np_.histogram(x, bins=7, weights=w, density=True)
    )(DATA, DATA**2),
    "histogram_grad": lambda np_, lib: lib.jit(
        lib.grad(lambda w: (np_.histogram(DATA[0], 3, weights=w)[0] ** 2).sum())
    )(DATA[1]),
    "histogram_bin_edges": lambda np_, lib: np_.histogram_bin_edges(DATA, bins=5),
    "histogram_bin_edges_range": lambda np_, lib: np_.histogram_bin_edges(DATA, 4, (-2, 2)),
    "histogram_bin_edges_array": lambda np_, lib: np_.histogram_bin_edges(DATA, np.array([1, 3])),
    "histogram_string_bins": lambda np_, lib: np_.histogram(DATA, bins="auto"),
    "histogram_list_bins": lambda np_, lib: np_.histogram(DATA, bins=[0, 1]),
    "histogram_bad_range": lambda np_, lib: np_.histogram(DATA, bins=3, range=(1, 2, 3)),
    "histogram_bad_weights": lambda np_, lib: np_.histogram(DATA, bins=3, weights=np.ones(3)),
    "histogram_2d_bins": lambda np_, lib: np_.histogram(DATA, bins=GRID),
    "histogram2d_density": lambda np_, lib: lib.jit(
        lambda x, y, w: np_.histogram2d(x, y, 2, None, w, True)
    )(POINTS[:, 0], POINTS[:, 1], np.abs(POINTS[:, 2])),
    "histogram2d_jit": lambda np_, lib: lib.jit(
        lambda x, y: np_.histogram2d(x, y, (2, 3), [(-1, 1), None])
    )(POINTS[:, 0], POINTS[:, 1]),
    "histogramdd_weights": lambda np_, lib: np_.histogramdd(
        POINTS[:, :2], bins=2, weights=np.arange(30)
    ),
    "histogramdd_vmap": lambda np_, lib: lib.jit(
        lib.vmap(lambda s: np_.histogramdd(s, bins=3, range=[(-2, 2), (-2, 2)])[0])
    )(POINTS[:, :2].reshape(3, 10, 2)),
    "histogramdd_bad_range": lambda np_, lib: np_.histogramdd(POINTS, bins=2, range=[(0, 1)]),
    "histogramdd_bad_bins": lambda np_, lib: np_.histogramdd(POINTS, bins=[2, 2]),
    "histogramdd_bad_weights": lambda np_, lib: np_.histogramdd(POINTS, weights=np.ones(3)),
    "histogramdd_1d": lambda np_, lib: np_.histogramdd(POINTS[:, 0], bins=2),
}


def _run(f, np_, lib):
    try:
        return f(np_, lib), None
    except Exception as e:  # the error type is what is compared
        return None, e


def _builtin_base(error):
    """The Python exception class JAX's error type is (``ConcretizationTypeError`` is a
    ``TypeError``)."""
    return next(c for c in type(error).__mro__ if c.__module__ == "builtins")


def _assert_same(jax_out, mj_out, rtol=1e-12):
    jax_leaves, mj_leaves = jax.tree_util.tree_leaves(jax_out), jax.tree_util.tree_leaves(mj_out)
    assert len(mj_leaves) == len(jax_leaves)
    for a, b in zip(jax_leaves, mj_leaves, strict=True):
        a, b = np.asarray(a), np.asarray(b)
        assert (b.shape, b.dtype) == (a.shape, a.dtype)
        tol = 1e-6 if a.dtype in (np.float32, np.complex64) else rtol
        np.testing.assert_allclose(b, a, rtol=tol, atol=tol)


@pytest.mark.parametrize("name", list(CASES))
def test_matches_jax(name):
    (jax_out, jax_error), (mj_out, mj_error) = (
        _run(CASES[name], jnp, jax),
        _run(CASES[name], mnp, mj),
    )
    if jax_error is not None:
        assert mj_error is not None, f"JAX raised {jax_error!r}, mj returned {mj_out!r}"
        assert isinstance(mj_error, _builtin_base(jax_error)), (jax_error, mj_error)
        return
    assert mj_error is None, f"mj raised {mj_error!r}"
    _assert_same(jax_out, mj_out)


def test_unique_without_size_differentiates_where_jax_gives_zero():
    """JAX's ``unique`` reads a concrete input's value and so drops its tangent (gradient 0);
    mj keeps the values differentiable, giving the gradient JAX gives with ``size=``."""
    x = np.array([3.0, 1.0, 3.0, 2.0])

    def loss(np_, size):
        return lambda v: (np_.unique(v, size=size) ** 2 * np.arange(3.0)).sum()

    np.testing.assert_array_equal(jax.grad(loss(jnp, None))(x), np.zeros(4))
    np.testing.assert_allclose(mj.grad(loss(mnp, None))(x), jax.grad(loss(jnp, 3))(x))


# --- array methods ---------------------------------------------------------------------------

METHODS = {
    "sort": lambda x: x.sort(),
    "sort_axis0_descending": lambda x: x.sort(0, descending=True),
    "sort_none": lambda x: x.sort(None),
    "argsort": lambda x: x.argsort(),
    "argsort_descending": lambda x: x.argsort(axis=0, descending=True),
    "argpartition": lambda x: x.argpartition(1),
    "searchsorted": lambda x: x[0].sort().searchsorted(np.array([1.5, 3.0])),
    "nonzero_size": lambda x: x.nonzero(size=7, fill_value=-1),
    "ptp": lambda x: x.ptp(axis=1),
    "ptp_keepdims": lambda x: x.ptp(keepdims=True),
    "diagonal": lambda x: x.diagonal(1),
    "trace": lambda x: x.trace(),
    "repeat": lambda x: x.repeat(2, axis=1),
    "repeat_flat": lambda x: x.repeat(2),
    "view_int64": lambda x: x.view(np.int64),
    "view_uint8": lambda x: x.astype(np.int16).view(np.uint8),
    "view_float32": lambda x: x.view(np.float32),
    "view_complex": lambda x: x[:, :2].view(np.complex128),
    "view_none": lambda x: x.view(),
    "choose_clip": lambda x: (x[0] > 1).astype(np.int64).choose([x[0], x[1]], mode="clip"),
    "compress_size": lambda x: x.compress(x[0] > 1.5, axis=1, size=2, fill_value=-1),
    "nbytes_itemsize": lambda x: np.array([x.nbytes, x.itemsize]),
    "sort_kind": lambda x: x.sort(kind="quicksort"),
    "argsort_order": lambda x: x.argsort(order="a"),
    "flat": lambda x: x.flat,
    "view_bad_size": lambda x: x.astype(np.float32).view(np.float64),
    "ptp_out": lambda x: x.ptp(out=x),
}


# Eagerly, the methods mj overrides on its NumPy-based eager arrays (the others are NumPy's;
# flat keeps NumPy's iterator there); under jit, all of them.
EAGER_METHODS = (
    "sort",
    "argsort",
    "argpartition",
    "searchsorted",
    "nonzero",
    "ptp",
    "repeat",
    "choose",
    "compress",
)
METHOD_RUNS = [(n, "eager") for n in METHODS if n.startswith(EAGER_METHODS)] + [
    (n, "jit") for n in METHODS
]


@pytest.mark.parametrize(("name", "mode"), METHOD_RUNS)
def test_methods_match_jax(name, mode):
    method = METHODS[name]

    def run(np_, lib):
        x = np_.asarray(GRID)
        return lib.jit(method)(x) if mode == "jit" else method(x)

    (jax_out, jax_error), (mj_out, mj_error) = _run(run, jnp, jax), _run(run, mnp, mj)
    if jax_error is not None:
        assert mj_error is not None, f"JAX raised {jax_error!r}, mj returned {mj_out!r}"
        assert isinstance(mj_error, _builtin_base(jax_error)), (jax_error, mj_error)
        return
    assert mj_error is None, f"mj raised {mj_error!r}"
    _assert_same(jax_out, mj_out)


def test_host_methods_match_jax():
    for lib, np_ in ((jax, jnp), (mj, mnp)):
        x = lib.jit(lambda v: v)(GRID)
        assert (x.item(3), x.item(1, 2), x.tolist()) == (0.0, 4.0, GRID.tolist())
        assert lib.grad(lambda v: v[0] * v.item(1))(np_.asarray([2.0, 3.0])).tolist() == [3, 0]
        with pytest.raises(TypeError):  # JAX's ConcretizationTypeError is a TypeError too
            lib.jit(lambda v: v.item(0))(GRID)
        with pytest.raises(TypeError):
            lib.jit(lambda v: v.tolist())(GRID)
