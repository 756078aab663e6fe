"""``x.copy()`` (and ``copy.copy``/``copy.deepcopy``) of an eager array is an immutable array,
as in JAX 0.10.2: ``x.copy().sort()`` returns the sorted copy and leaves both arrays as they
were, item assignment raises ``TypeError``, the weak type is kept. NumPy's own functions that
sort or partition a copy of their argument (``np.sort``, ``np.median``, ``np.percentile``, ...)
still give NumPy's answers on mj arrays, as on ``jax.Array``s, and leave them unchanged; so do
those that write into an array they made like their argument (``np.roll``, ``np.gradient``,
``np.nanmean``, ...), which raised before."""

import copy

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

pytestmark = pytest.mark.oracle

DATA = np.array([[3.0, -1.0, 2.5, 0.0], [7.0, 5.0, -4.0, 1.5], [0.5, 9.0, 6.0, -2.0]])

COPIES = {
    "method": lambda x: x.copy(),
    "copy.copy": copy.copy,
    "copy.deepcopy": copy.deepcopy,
}

SORTS = {
    "sort": lambda c: c.sort(),
    "sort_axis0": lambda c: c.sort(axis=0),
    "sort_none": lambda c: c.sort(axis=None),
    "argsort": lambda c: c.argsort(),
}


def _same(jax_out, mj_out):
    assert type(mj_out).__name__ != "NoneType", "mj sorted in place (returned None)"
    assert mj_out.dtype == jax_out.dtype
    np.testing.assert_array_equal(np.asarray(mj_out), np.asarray(jax_out))


@pytest.mark.parametrize("how", COPIES)
@pytest.mark.parametrize("op", SORTS)
def test_sorting_a_copy_returns_the_sorted_copy(x64, how, op):
    outs = []
    for np_ in (jnp, mnp):
        x = np_.asarray(DATA)
        c = COPIES[how](x)
        out = SORTS[op](c)
        # neither the copy nor the original changed
        np.testing.assert_array_equal(np.asarray(c), DATA.astype(x.dtype))
        np.testing.assert_array_equal(np.asarray(x), DATA.astype(x.dtype))
        outs.append(out)
    _same(*outs)


@pytest.mark.parametrize("how", COPIES)
def test_a_copy_is_immutable_and_keeps_dtype_and_weak_type(x64, how):
    for np_ in (jnp, mnp):
        c = COPIES[how](np_.asarray(DATA))
        with pytest.raises(TypeError):
            c[0, 0] = 1.0
    for value in (2.0, np.float32(2.0), 3):
        j, m = COPIES[how](jnp.asarray(value)), COPIES[how](mnp.asarray(value))
        assert (m.dtype, m.weak_type) == (j.dtype, j.weak_type), value


def test_copy_of_a_jit_result_sorts_like_jax(x64):
    x = DATA[0]
    want = jax.jit(lambda v: v * 2)(x).copy().sort()
    got = mj.jit(lambda v: v * 2)(x).copy().sort()
    _same(want, got)


NUMPY_FUNCTIONS = {
    "sort": np.sort,
    "sort_axis0": lambda a: np.sort(a, axis=0),
    "median": np.median,
    "median_axis1": lambda a: np.median(a, axis=1),
    "nanmedian": np.nanmedian,
    "percentile": lambda a: np.percentile(a, 30),
    "percentile_axis0": lambda a: np.percentile(a, [10, 75], axis=0),
    "quantile_axis1": lambda a: np.quantile(a, 0.4, axis=1),
    "nanpercentile_axis1": lambda a: np.nanpercentile(a, 60, axis=1),
    "partition": lambda a: np.partition(a, 2, axis=1),
    "argpartition": lambda a: np.argpartition(a, 1, axis=0),
    "unique": np.unique,
    "unique_counts": lambda a: np.unique(a.round(), return_counts=True)[1],
    # functions that write into an array made like their argument
    "roll": lambda a: np.roll(a, 1, axis=1),
    "piecewise": lambda a: np.piecewise(a, [np.asarray(a) > 1], [lambda v: v * 2, 0.0]),
    "gradient": lambda a: np.gradient(a, axis=1),
    "apply_along_axis": lambda a: np.apply_along_axis(np.sum, 0, a),
    "nanmean": lambda a: np.nanmean(a, axis=0),
    "nanvar": np.nanvar,
    "nanstd": lambda a: np.nanstd(a, axis=1),
}


@pytest.mark.parametrize("name", NUMPY_FUNCTIONS)
def test_numpy_functions_on_mj_arrays_match_numpy_on_jax_arrays(x64, name):
    f = NUMPY_FUNCTIONS[name]
    jx, mx = jnp.asarray(DATA), mnp.asarray(DATA)
    want, got = f(jx), f(mx)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(mx), DATA.astype(mx.dtype))  # left unchanged
    if name == "partition":  # the kth element in place, smaller ones before it
        assert (np.asarray(got)[:, :2] <= np.asarray(got)[:, 2:3]).all()
