"""NumPy's own functions applied to mj arrays give NumPy's answer, as they do on ``jax.Array``s
(JAX 0.10.2): ``np.linalg.inv(x)``, ``np.extract(c, x)``, ``np.argsort(x)`` ... compute on the
arrays' data. mj arrays are ``np.ndarray`` subclasses whose methods are JAX's (``take`` with
JAX's modes, an immutable ``copy``) and whose ``__array_wrap__`` is ``None``: NumPy's code
calling them raised (``TypeError: 'NoneType' object is not callable`` from ``np.linalg``,
``Unknown gather/scatter mode 'raise'`` from ``np.extract``) or answered differently.
The mj arrays are left unchanged and the array results are immutable mj arrays of the
canonical dtype of NumPy's (float32 for NumPy's float64 unless x64)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj.numpy as mnp

pytestmark = pytest.mark.oracle

MATRIX = np.array([[4.0, 1.0, -2.0], [1.0, 3.0, 0.5], [-2.0, 0.5, 5.0]])
VECTOR = np.array([3.0, -1.0, 2.5, 0.0, 7.0, 5.0, -4.0, 1.5])
INTS = np.array([3, 1, 1, 2, 1, 3] * 20)

FUNCTIONS = {
    # np.linalg wraps its results with the argument's __array_wrap__ (mj's is None)
    "linalg.inv": lambda m, v, i: np.linalg.inv(m),
    "linalg.det": lambda m, v, i: np.linalg.det(m),
    "linalg.solve": lambda m, v, i: np.linalg.solve(m, v[:3]),
    "linalg.eigh": lambda m, v, i: np.linalg.eigh(m).eigenvalues,
    "linalg.svd": lambda m, v, i: np.linalg.svd(m).S,
    "linalg.qr": lambda m, v, i: np.linalg.qr(m),
    "linalg.cholesky": lambda m, v, i: np.linalg.cholesky(m),
    "linalg.pinv": lambda m, v, i: np.linalg.pinv(m),
    "linalg.norm": lambda m, v, i: np.linalg.norm(m, axis=0),
    "linalg.matrix_power": lambda m, v, i: np.linalg.matrix_power(m, 3),
    "linalg.slogdet": lambda m, v, i: np.linalg.slogdet(m),
    # np.extract / np.take / np.put-like code calls the array's take with mode="raise"
    "extract": lambda m, v, i: np.extract(np.asarray(v) > 1, v),
    "take": lambda m, v, i: np.take(v, [1, 3]),
    "choose": lambda m, v, i: np.choose(np.array([0, 1, 0]), [m[0], m[1]]),
    "compress": lambda m, v, i: np.compress([True, False, True], m, axis=0),
    # NumPy's default (unstable) sort order, as on NumPy data
    "argsort": lambda m, v, i: np.argsort(i),
    "sort": lambda m, v, i: np.sort(m, axis=0),
    "median": lambda m, v, i: np.median(v),
    "percentile": lambda m, v, i: np.percentile(m, [20, 80], axis=1),
    "unique": lambda m, v, i: np.unique(i, return_counts=True),
    # NumPy functions of every kind
    "mean_int": lambda m, v, i: np.mean(i),
    "histogram": lambda m, v, i: np.histogram(v, bins=3),
    "polyfit": lambda m, v, i: np.polyfit(np.arange(8.0), v, 2),
    "interp": lambda m, v, i: np.interp([0.5, 2.5], np.arange(8.0), v),
    "convolve": lambda m, v, i: np.convolve(v, v[:3]),
    "cov": lambda m, v, i: np.cov(m),
    "corrcoef": lambda m, v, i: np.corrcoef(m),
    "diff": lambda m, v, i: np.diff(v, 2),
    "einsum": lambda m, v, i: np.einsum("ij,jk->ik", m, m),
    "kron": lambda m, v, i: np.kron(m[:2, :2], m[1:, 1:]),
    "outer": lambda m, v, i: np.outer(v[:3], m[0]),
    "cross": lambda m, v, i: np.cross(m[0], m[1]),
    "trapezoid": lambda m, v, i: np.trapezoid(v),
    "isin": lambda m, v, i: np.isin(v, m),
    "setdiff1d": lambda m, v, i: np.setdiff1d(v, m),
    "split": lambda m, v, i: np.split(v, 4),
    "array_split": lambda m, v, i: np.array_split(m, 2, axis=1),
    "meshgrid": lambda m, v, i: np.meshgrid(v[:2], m[0]),
    "argwhere": lambda m, v, i: np.argwhere(m > 1),
    "nonzero": lambda m, v, i: np.nonzero(v),
    "select": lambda m, v, i: np.select([m > 2, m < 0], [m, -m], 9.0),
    "insert": lambda m, v, i: np.insert(v, 2, 99.0),
    "delete": lambda m, v, i: np.delete(m, 1, axis=0),
    "append": lambda m, v, i: np.append(v, m),
    "resize": lambda m, v, i: np.resize(v, (3, 5)),
    "pad": lambda m, v, i: np.pad(m, 1, mode="reflect"),
    "rot90": lambda m, v, i: np.rot90(m),
    "tril": lambda m, v, i: np.tril(m),
    "fft": lambda m, v, i: np.fft.fft(v),
    "allclose": lambda m, v, i: np.allclose(m, m.T),
    "array_equal": lambda m, v, i: np.array_equal(m, m),
    "round": lambda m, v, i: np.round(v / 3, 2),
    "clip": lambda m, v, i: np.clip(m, 0, 3),
    "cumsum": lambda m, v, i: np.cumsum(m, axis=1),
    "apply_along_axis": lambda m, v, i: np.apply_along_axis(np.sort, 1, m),
    "roll": lambda m, v, i: np.roll(m, 1),
    "shape": lambda m, v, i: np.shape(m),
    "result_type": lambda m, v, i: np.result_type(m, i),
}


def _leaves(out):
    if isinstance(out, tuple | list):
        return [leaf for o in out for leaf in _leaves(o)]
    return [out]


def _compare(want, got):
    want_leaves, got_leaves = _leaves(want), _leaves(got)
    assert len(got_leaves) == len(want_leaves)
    for w, g in zip(want_leaves, got_leaves, strict=True):
        if isinstance(w, np.dtype | tuple | bool | int | str) or w is None:
            assert g == w
            continue
        w = np.asarray(w)
        want_dtype = jax.dtypes.canonicalize_dtype(w.dtype)
        assert np.asarray(g).dtype == want_dtype
        np.testing.assert_allclose(np.asarray(g), w.astype(want_dtype), rtol=2e-5, atol=1e-6)
        if isinstance(g, np.ndarray):  # an array result is an immutable mj array
            assert type(g).__name__ == "EagerArray"
            assert not g.flags.writeable


@pytest.mark.parametrize("name", FUNCTIONS)
def test_numpy_function_on_mj_arrays_matches_numpy_on_jax_arrays(x64, name):
    f = FUNCTIONS[name]
    want = f(*(jnp.asarray(a) for a in (MATRIX, VECTOR, INTS)))
    args = [mnp.asarray(a) for a in (MATRIX, VECTOR, INTS)]
    got = f(*args)
    _compare(want, got)
    for a, data in zip(args, (MATRIX, VECTOR, INTS), strict=True):  # left unchanged
        np.testing.assert_array_equal(np.asarray(a), data.astype(a.dtype))


def test_numpy_functions_cannot_write_into_mj_arrays(x64):
    x = mnp.asarray(VECTOR)
    for write in (
        lambda: np.copyto(x, 0.0),
        lambda: np.put(x, [0], 1.0),
        lambda: np.place(x, np.asarray(x) > 0, 0.0),
        lambda: np.fill_diagonal(mnp.asarray(MATRIX), 0.0),
    ):
        with pytest.raises((ValueError, TypeError)):
            write()
    np.testing.assert_array_equal(np.asarray(x), VECTOR.astype(x.dtype))
