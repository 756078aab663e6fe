"""Index helpers and array construction in ``mj.numpy``: ``r_``/``c_``/``mgrid``/``ogrid``,
``unravel_index``/``ravel_multi_index``, the ``*_indices_from`` helpers, ``insert``/``delete``,
``choose``/``compress``/``extract``, the ``inplace=False`` writers, ``packbits``/
``unpackbits``, ``vectorize``/``apply_along_axis``/``piecewise`` and the readers
(``frombuffer``, ``fromstring``, ``from_dlpack``).

NumPy is the reference for values, dtypes and shapes (NumPy's in-place writers are run on a
copy); every traceable case also runs under ``jit`` and ``make_jaxpr``/``eval_jaxpr`` and must
give NumPy's answer. ``vmap`` is checked against a loop, gradients against central finite
differences. JAX's departures from NumPy (clamped indices, ``size=``, ``inplace=False``,
concretization errors under ``jit``) are checked against hand-computed values."""

import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj_core.errors import ConcretizationError

RNG = np.random.default_rng(11)
A = np.arange(6.0).reshape(2, 3)
M = RNG.normal(size=(3, 4))
CUBE = RNG.normal(size=(2, 3, 4))
X5 = np.linspace(-2.0, 2.0, 5)
BYTES = np.array([[7, 160, 3], [255, 0, 18]], np.uint8)
BITS = RNG.integers(0, 2, size=(3, 11))
FLAT = np.array([0, 5, 23, 17, 9])
ROWS, COLS = np.array([0, 1, 1, 0]), np.array([2, 0, 1, 2])


class _NumPyAsMj:
    """NumPy spelled like ``mj.numpy``, the reference for the cases below: the in-place
    writers return an updated copy (values cast like JAX's ``.at[].set``), and the JAX-only
    keywords mean what JAX documents (``size=`` cuts or pads NumPy's result with
    ``fill_value``; ``assume_unique_indices`` is a promise that changes nothing)."""

    def __getattr__(self, name):
        return getattr(np, name)

    @staticmethod
    def place(arr, mask, vals, *, inplace):
        out = np.array(arr)
        np.place(out, mask, np.asarray(vals).astype(out.dtype))
        return out

    @staticmethod
    def put(a, ind, v, mode="raise", *, inplace):
        out = np.array(a)
        np.put(out, ind, np.asarray(v).astype(out.dtype), mode=mode)
        return out

    @staticmethod
    def put_along_axis(arr, indices, values, axis, inplace):
        out = np.array(arr)
        np.put_along_axis(out, indices, values, axis)
        return out

    @staticmethod
    def fill_diagonal(a, val, *, inplace):
        out = np.array(a)
        np.fill_diagonal(out, val)
        return out

    @staticmethod
    def delete(arr, obj, axis=None, *, assume_unique_indices=False):
        return np.delete(arr, obj, axis)

    @staticmethod
    def compress(condition, a, axis=None, *, size=None, fill_value=0):
        out = np.compress(condition, a, axis)
        return out if size is None else _padded(out, 0 if axis is None else axis, size, fill_value)

    @staticmethod
    def extract(condition, arr, *, size=None, fill_value=0):
        out = np.extract(condition, arr)
        return out if size is None else _padded(out, 0, size, fill_value)


def _padded(values, axis, size, fill_value):
    """``values`` cut or padded with ``fill_value`` to ``size`` entries along ``axis``."""
    values = np.moveaxis(values, axis, 0)
    out = np.full((size, *values.shape[1:]), fill_value, values.dtype)
    out[: min(size, len(values))] = values[:size]
    return np.moveaxis(out, 0, axis)


NP = _NumPyAsMj()


def _piecewise(np_, x):
    return np_.piecewise(x, [x < -1, x > 1], [np_.sin, lambda v: v**3, 0.5])


# (id, f(np_, *arrays), arrays, traceable): f(mnp, ...) against f(NumPy, ...); traceable cases
# also run with the arrays as jit arguments and through make_jaxpr/eval_jaxpr
I3 = np.array([0, 2, 1, 1, 0])
CASES = [
    ("r_", lambda np_, x: np_.r_[-1:3, x, 0], (X5,), True),
    ("r_linspace", lambda np_: np_.r_[0:1:5j, 2.0], (), True),
    ("r_directive", lambda np_, x: np_.r_["0,2,0", x, x], (X5,), True),
    ("r_1,2,0", lambda np_, x: np_.r_["1,2,0", x, x], (X5,), True),
    ("r_row", lambda np_, x: np_.r_["r", x, x], (X5,), True),
    ("r_col", lambda np_, x: np_.r_["c", x, 1.0], (X5,), True),
    ("r_2d", lambda np_, a: np_.r_["-1", a, a], (A,), True),
    ("r_lists", lambda np_: np_.r_[[1, 2], [3], 4], (), True),
    ("c_", lambda np_, x: np_.c_[x, x * 2], (X5,), True),
    ("c_2d", lambda np_, a: np_.c_[a, 0:2, a], (A,), True),
    ("c_directive", lambda np_, x: np_.c_["0,2,-1", x, x], (X5,), True),
    ("mgrid", lambda np_: np_.mgrid[0:3, 1:7:2], (), True),
    ("mgrid_mixed", lambda np_: np_.mgrid[0:2, 0:1:4j], (), True),
    ("mgrid_1d", lambda np_: np_.mgrid[5:0:-2], (), True),
    ("ogrid", lambda np_: tuple(np_.ogrid[0:2, 0:3]), (), True),
    ("ogrid_1d", lambda np_: np_.ogrid[0:1:3j], (), True),
    ("unravel", lambda np_, i: np_.unravel_index(i, (2, 3, 4)), (FLAT,), True),
    ("unravel_scalar", lambda np_: np_.unravel_index(22, (4, 6)), (), True),
    ("ravel", lambda np_, i, j: np_.ravel_multi_index((i, j), (2, 3)), (ROWS, COLS), False),
    (
        "ravel_F",
        lambda np_, i, j: np_.ravel_multi_index((i, j), (2, 3), order="F"),
        (ROWS, COLS),
        False,
    ),
    (
        "ravel_clip",
        lambda np_, i, j: np_.ravel_multi_index((i, j), (2, 3), mode="clip"),
        (ROWS * 3 - 1, COLS + 2),
        True,
    ),
    (
        "ravel_wrap",
        lambda np_, i, j: np_.ravel_multi_index((i, j), (2, 3), mode="wrap"),
        (ROWS * 3 - 1, COLS + 2),
        True,
    ),
    ("mask_indices", lambda np_: np_.mask_indices(4, np_.triu, 1), (), False),
    ("tril_indices_from", lambda np_, m: np_.tril_indices_from(m, 1), (M,), True),
    ("triu_indices_from", lambda np_, m: np_.triu_indices_from(m, -1), (M,), True),
    ("diag_indices_from", lambda np_, c: np_.diag_indices_from(c), (np.ones((3, 3, 3)),), True),
    ("diagflat", lambda np_, a: np_.diagflat(a, 1), (A,), True),
    ("diagflat_low", lambda np_, x: np_.diagflat(x, -2), (X5.astype(np.float32),), True),
    ("array_split", lambda np_, x: tuple(np_.array_split(x, 3)), (np.arange(7),), True),
    ("array_split_points", lambda np_, c: tuple(np_.array_split(c, [1, 3], axis=2)), (CUBE,), True),
    ("array_split_many", lambda np_, x: tuple(np_.array_split(x, 5)), (np.arange(3.0),), True),
    ("resize", lambda np_, m: np_.resize(m, (5, 3)), (M,), True),
    ("resize_int", lambda np_, x: np_.resize(x, 3), (np.arange(5),), True),
    ("resize_empty", lambda np_, x: np_.resize(x, (2, 2)), (np.zeros(0),), True),
    ("rollaxis", lambda np_, c: np_.rollaxis(c, 2), (CUBE,), True),
    ("rollaxis_start", lambda np_, c: np_.rollaxis(c, 0, 3), (CUBE,), True),
    ("rollaxis_negative", lambda np_, c: np_.rollaxis(c, -1, -2), (CUBE,), True),
    ("insert", lambda np_, x: np_.insert(x, 2, 99), (np.arange(5),), True),
    (
        "insert_many",
        lambda np_, x, i, v: np_.insert(x, i, v),
        (np.arange(5.0), np.array([1, 3, 3, 0, 5]), X5),
        True,
    ),
    ("insert_axis", lambda np_, m: np_.insert(m, 1, 7.5, axis=1), (M,), True),
    ("insert_column", lambda np_, m, v: np_.insert(m, 1, v, axis=1), (M, X5[:3]), True),
    ("insert_row", lambda np_, m, v: np_.insert(m, 1, v, axis=0), (M, X5[:4]), True),
    (
        "insert_slice",
        lambda np_, x: np_.insert(x, slice(0, 4, 2), np.array([10, 20])),
        (np.arange(5),),
        True,
    ),
    ("insert_negative", lambda np_, x: np_.insert(x, -2, 7.0), (np.arange(5.0),), True),
    ("insert_cast", lambda np_, x: np_.insert(x, 1, 2.7), (np.arange(5),), True),
    ("insert_flat", lambda np_, a: np_.insert(a, 2, 5.0), (A,), True),
    (
        "insert_empty",
        lambda np_, x: np_.insert(x, np.array([], int), np.array([])),
        (np.arange(3.0),),
        True,
    ),
    ("delete", lambda np_, x: np_.delete(x, 1), (np.arange(5),), True),
    ("delete_negative", lambda np_, x: np_.delete(x, -1), (np.arange(5.0),), True),
    ("delete_axis", lambda np_, m: np_.delete(m, 2, axis=1), (M,), True),
    ("delete_flat", lambda np_, a: np_.delete(a, 4), (A,), True),
    ("delete_slice", lambda np_, c: np_.delete(c, slice(1, None, 2), axis=2), (CUBE,), True),
    ("delete_array", lambda np_, x: np_.delete(x, np.array([0, 0, 3])), (np.arange(6),), True),
    (
        "delete_bool",
        lambda np_, m: np_.delete(m, np.array([True, False, True]), axis=0),
        (M,),
        True,
    ),
    (
        "delete_unique",
        lambda np_, m, i: np_.delete(m, i, axis=1, assume_unique_indices=True),
        (M, np.array([3, 0, -3])),
        True,
    ),
    (
        "delete_concrete",
        lambda np_, x, i: np_.delete(x, i),
        (np.arange(6.0), np.array([5, 1])),
        False,
    ),
    ("choose", lambda np_, i, x, y: np_.choose(i, [x, y, 7.5]), (I3, X5, X5 * 10), False),
    (
        "choose_wrap",
        lambda np_, i, x, y: np_.choose(i, [x, y], mode="wrap"),
        (I3 * 3 - 2, X5, X5 * 10),
        True,
    ),
    (
        "choose_clip",
        lambda np_, i, x, y: np_.choose(i, [x, y], mode="clip"),
        (I3 * 3 - 2, X5, X5 * 10),
        True,
    ),
    (
        "choose_broadcast",
        lambda np_, i, m: np_.choose(i, [m, m[0], 5], mode="clip"),
        (I3[:3, None], M),
        True,
    ),
    (
        "compress",
        lambda np_, c, m: np_.compress(c, m, axis=1),
        (np.array([True, False, True]), M),
        False,
    ),
    ("compress_flat", lambda np_, c, a: np_.compress(c, a), (np.array([1, 0, 1, 1]), A), False),
    (
        "compress_size",
        lambda np_, c, m: np_.compress(c, m, axis=0, size=2, fill_value=-9.0),
        (I3[:3] > 0, M),
        True,
    ),
    (
        "compress_pad",
        lambda np_, c, m: np_.compress(c, m, axis=-1, size=3, fill_value=0.5),
        (np.array([1, 0, 0, 1]), M),
        True,
    ),
    (
        "compress_flat_pad",
        lambda np_, c, x: np_.compress(c, x, size=4, fill_value=-1.0),
        (I3 == 1, X5),
        True,
    ),
    ("extract", lambda np_, m: np_.extract(m > 0, m), (M,), False),
    ("extract_size", lambda np_, m: np_.extract(m > 0, m, size=9, fill_value=0.5), (M,), True),
    ("place", lambda np_, a, m, v: np_.place(a, m, v, inplace=False), (M, M > 0, X5[:2]), True),
    (
        "place_cast",
        lambda np_, a, m: np_.place(a, m, np.array([2.7, -1.2]), inplace=False),
        (np.arange(6), np.arange(6) % 2 == 0),
        True,
    ),
    (
        "put",
        lambda np_, a, i, v: np_.put(a, i, v, inplace=False),
        (M, np.array([0, 5, 11]), X5[:3]),
        True,
    ),
    (
        "put_tile",
        lambda np_, a, i, v: np_.put(a, i, v, inplace=False),
        (A, np.array([0, 4, 5, 1]), X5[:2]),
        True,
    ),
    (
        "put_clip",
        lambda np_, a, i, v: np_.put(a, i, v, mode="clip", inplace=False),
        (np.zeros(5), np.array([7, -1, 2]), X5[:3]),
        True,
    ),
    (
        "put_wrap",
        lambda np_, a, i, v: np_.put(a, i, v, mode="wrap", inplace=False),
        (np.zeros(5), np.array([7, -1, -9]), X5[:3]),
        True,
    ),
    (
        "put_along_axis",
        lambda np_, a, i, v: np_.put_along_axis(a, i, v, 1, inplace=False),
        (M, np.array([[3], [0], [1]]), X5[:3, None]),
        True,
    ),
    (
        "put_along_axis_0",
        lambda np_, a, i: np_.put_along_axis(a, i, -1.0, 0, inplace=False),
        (M, np.array([[2, 0, 1, 1]])),
        True,
    ),
    (
        "put_along_axis_flat",
        lambda np_, a, i, v: np_.put_along_axis(a, i, v, None, inplace=False),
        (A, np.array([5, 0]), X5[:2]),
        True,
    ),
    ("fill_diagonal", lambda np_, a: np_.fill_diagonal(a, 5.0, inplace=False), (M,), True),
    (
        "fill_diagonal_tall",
        lambda np_, a, v: np_.fill_diagonal(a, v, inplace=False),
        (M.T, X5[:2]),
        True,
    ),
    (
        "fill_diagonal_cube",
        lambda np_, a: np_.fill_diagonal(a, -1.0, inplace=False),
        (np.zeros((3, 3, 3)),),
        True,
    ),
    ("packbits", lambda np_, b: np_.packbits(b), (BITS,), True),
    ("packbits_axis", lambda np_, b: np_.packbits(b, axis=0, bitorder="little"), (BITS,), True),
    ("packbits_bool", lambda np_, b: np_.packbits(b > 0, axis=-1), (BITS,), True),
    ("unpackbits", lambda np_, b: np_.unpackbits(b), (BYTES,), True),
    ("unpackbits_axis", lambda np_, b: np_.unpackbits(b, axis=1, count=-5), (BYTES,), True),
    (
        "unpackbits_pad",
        lambda np_, b: np_.unpackbits(b, axis=0, count=20, bitorder="little"),
        (BYTES,),
        True,
    ),
    ("fromfunction", lambda np_: np_.fromfunction(lambda i, j: i * 10 + j, (3, 4)), (), True),
    ("fromfunction_int", lambda np_: np_.fromfunction(lambda i: i**2, (5,), dtype=int), (), True),
    ("piecewise", _piecewise, (X5,), True),
    (
        "piecewise_int",
        lambda np_, x: np_.piecewise(x, [x > 1, x > 3], [lambda v: v * 1.5, 7]),
        (np.arange(5),),
        True,
    ),
    ("apply_along_axis", lambda np_, c: np_.apply_along_axis(np_.cumsum, 1, c), (CUBE,), True),
    (
        "apply_along_axis_scalar",
        lambda np_, c: np_.apply_along_axis(lambda v, k: np_.max(v) * k, 2, c, 2.0),
        (CUBE,),
        True,
    ),
    (
        "apply_along_axis_matrix",
        lambda np_, m: np_.apply_along_axis(lambda v: np_.outer(v, v[:2]), 0, m),
        (M,),
        True,
    ),
    ("apply_over_axes", lambda np_, c: np_.apply_over_axes(np_.sum, c, [0, 2]), (CUBE,), True),
    ("vectorize", lambda np_, x, y: np_.vectorize(lambda a, b: a * b + 1.0)(x, y), (M, M[0]), True),
    (
        "vectorize_signature",
        lambda np_, c, v: np_.vectorize(np_.dot, signature="(n),(n)->()")(c, v),
        (CUBE, M[0]),
        True,
    ),
    (
        "vectorize_outer",
        lambda np_, x, y: np_.vectorize(np_.outer, signature="(m),(n)->(m,n)")(x, y),
        (CUBE, X5),
        True,
    ),
    (
        "vectorize_excluded",
        lambda np_, m: np_.vectorize(lambda x, p: x**p, excluded={1})(m, 3),
        (M,),
        True,
    ),
    (
        "vectorize_broadcast",
        lambda np_, x, y: np_.vectorize(lambda a, b: a - b)(x, y),
        (M[:, None, :1], M[None, :2, :]),
        True,
    ),
    ("trim_zeros", lambda np_, x: np_.trim_zeros(x), (np.array([0, 0, 1, 2, 0, 3, 0]),), False),
    ("trim_zeros_f", lambda np_, x: np_.trim_zeros(x, "f"), (np.array([0.0, 0, 1.5, 0]),), False),
    (
        "trim_zeros_2d",
        lambda np_, x: np_.trim_zeros(x, "b", axis=1),
        (np.array([[0, 1, 0, 0], [0, 2, 3, 0]]),),
        False,
    ),
    (
        "frombuffer",
        lambda np_: np_.frombuffer(np.arange(4, dtype=np.int16).tobytes(), np.int16, count=3),
        (),
        False,
    ),
    ("fromstring", lambda np_: np_.fromstring("1.5, 2, -3", sep=","), (), False),
    ("from_dlpack", lambda np_: np_.from_dlpack(np.arange(3, dtype=np.float32)), (), False),
]

TRACEABLE = [c for c in CASES if c[3]]


def _ids(cases):
    return [c[0] for c in cases]


def _check(got, want, rtol=1e-12, atol=1e-12):
    if isinstance(want, tuple | list):
        assert isinstance(got, tuple | list), type(got)
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            _check(g, w, rtol, atol)
        return
    want = np.asarray(want)
    got_arr = np.asarray(got)
    assert got_arr.shape == want.shape, (got_arr.shape, want.shape)
    assert got_arr.dtype == want.dtype, (got_arr.dtype, want.dtype)
    np.testing.assert_allclose(got_arr, want, rtol=rtol, atol=atol)


# NumPy's r_["r", ...] / r_["c", ...] return its deprecated np.matrix (mj: a plain array)
@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
@pytest.mark.parametrize(("name", "f", "args", "traceable"), CASES, ids=_ids(CASES))
def test_matches_numpy(name, f, args, traceable):
    _check(f(mnp, *args), f(NP, *args))


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
@pytest.mark.parametrize(("name", "f", "args", "traceable"), TRACEABLE, ids=_ids(TRACEABLE))
def test_jit_and_jaxpr_match_numpy(name, f, args, traceable):
    want = f(NP, *args)

    def g(*xs):
        return f(mnp, *xs)

    closed = mj.make_jaxpr(g)(*args)
    flat = mj.eval_jaxpr(closed.jaxpr, [*closed.consts, *args])
    _check(tuple(flat) if isinstance(want, tuple | list) else flat[0], want)
    _check(mj.jit(g)(*args), want)


# --- JAX's rules where NumPy raises, mutates or has no such argument -----------------------
def test_unravel_index_clamps_out_of_bounds_like_jax():
    got = mnp.unravel_index(np.array([24, 99, -1, -24, -25, -30]), (2, 3, 4))
    want = ([1, 1, 1, 0, 0, 0], [2, 2, 2, 0, 0, 0], [3, 3, 3, 0, 0, 0])
    _check(got, tuple(np.array(w) for w in want))
    got32 = mnp.unravel_index(np.array([7, 200], np.uint8), (2, 3, 4))
    _check(
        got32, (np.array([0, 1], np.uint8), np.array([1, 2], np.uint8), np.array([3, 3], np.uint8))
    )
    _check(mnp.unravel_index(np.array([5], np.int32), 4), (np.array([3], np.int32),))


def test_ravel_multi_index_dtypes():
    i32 = (ROWS.astype(np.int32), COLS.astype(np.int32))
    _check(mnp.ravel_multi_index(i32, (2, 3)), np.array([2, 3, 4, 2], np.int32))
    _check(mnp.ravel_multi_index((1, 2), (2, 3), dtype=np.int16), np.int16(5))
    _check(mnp.ravel_multi_index((ROWS, COLS), (2, 3), mode="ignore"), np.array([2, 3, 4, 2]))


def test_insert_clips_indices_and_traces_them():
    # as JAX: out-of-bounds insertion points are clipped (NumPy raises)
    got = mnp.insert(np.arange(5), np.array([-1, 7, 0]), np.array([10, 20, 30]))
    _check(got, np.array([30, 0, 1, 2, 3, 10, 4, 20]))
    f = mj.jit(lambda x, i, v: mnp.insert(x, i, v, axis=0))
    _check(f(M, np.array(1), X5[:4]), np.insert(M, 1, X5[:4], axis=0))


def test_put_default_mode_clamps_like_jax():
    # flat indices go through unravel_index, which clamps (NumPy's default mode raises)
    got = mnp.put(np.zeros(5), np.array([7, -1, -9]), np.array([10.0, 20.0, 30.0]), inplace=False)
    _check(got, np.array([30.0, 0.0, 0.0, 0.0, 20.0]))
    a = mnp.arange(4)
    assert mnp.put(a, np.array([], int), 1, inplace=False) is a


def test_put_along_axis_drops_or_clips_out_of_bounds():
    idx = np.array([[5], [-1]])
    _check(mnp.put_along_axis(A, idx, 9.0, 1, inplace=False), np.array([[0.0, 1, 2], [3, 4, 9]]))
    clipped = mnp.put_along_axis(A, idx, 9.0, 1, inplace=False, mode="clip")
    _check(clipped, np.array([[0.0, 1, 9], [3, 4, 9]]))


def test_delete_assume_unique_indices_traces_and_matches_jax_quirks():
    f = mj.jit(lambda x, i: mnp.delete(x, i, assume_unique_indices=True))
    _check(f(np.arange(6.0), np.array([4, 1, -1])), np.array([0.0, 2, 3]))
    # an out-of-bounds index is clipped to the end and still counts, as in JAX
    _check(
        mnp.delete(np.arange(6), np.array([9, 1]), assume_unique_indices=True),
        np.array([0, 2, 3, 4]),
    )


def test_fromfunction_returns_pytrees_and_passes_kwargs_unmapped():
    s, p = mnp.fromfunction(lambda i, j, k: (i + j, i * j * k), (2, 3), k=3.0)
    _check(
        (s, p),
        (
            np.add.outer(np.arange(2.0), np.arange(3.0)),
            3 * np.outer(np.arange(2.0), np.arange(3.0)),
        ),
    )


def test_piecewise_casts_to_x_dtype_and_passes_args():
    got = mnp.piecewise(np.arange(4.0), [np.arange(4) > 1], [lambda x, k: x * k], 10.0)
    _check(got, np.array([0.0, 0.0, 20.0, 30.0]))
    _check(mnp.piecewise(np.arange(4), [np.arange(4) > 1], [3.7]), np.array([0, 0, 3, 3]))


def test_grids_and_concatenators_edge_cases():
    _check(mnp.mgrid[()], np.arange(0))
    assert mnp.ogrid[()] == []
    _check(mnp.mgrid[3:], np.arange(3))
    _check(mnp.r_[np.array([1], np.int32), 2], np.array([1, 2], np.int32))
    _check(mnp.r_["0,2,0,5", np.array([1, 2, 3])], np.array([[1], [2], [3]]))
    assert len(mnp.r_) == 0
    assert mnp.s_ is np.s_
    assert mnp.index_exp is np.index_exp
    assert mnp.s_[1:3, ::2] == (slice(1, 3), slice(None, None, 2))


def test_printoptions_are_numpys_and_apply_to_mj_arrays():
    assert mnp.get_printoptions() == np.get_printoptions()
    x = mnp.asarray([1.23456789])
    with mnp.printoptions(precision=2):
        assert "1.23" in repr(x)
        assert "1.2346" not in repr(x)
    assert "1.23456789" in repr(x)


def test_einsum_path_matches_numpy_and_drives_einsum():
    ops = [np.ones((2, 30)), np.ones((30, 4)), np.ones((4, 50))]
    for optimize in ("greedy", "optimal"):
        path, report = mnp.einsum_path("ij,jk,kl->il", *ops, optimize=optimize)
        assert path == np.einsum_path("ij,jk,kl->il", *ops, optimize=optimize)[0][1:]
        assert "Complete contraction:  ij,jk,kl->il" in report
    assert mnp.einsum_path("ij,jk,kl->il", *ops, optimize=False)[0] == [(0, 1), (0, 1)]
    assert mnp.einsum_path("ij", ops[0], optimize=False)[0] == [(0,)]
    path = mnp.einsum_path("ij,jk,kl->il", *ops, optimize=[(1, 2), (0, 1)])[0]
    assert path == [(1, 2), (0, 1)]
    # only shapes are read, so traced operands work
    traced = mj.jit(
        lambda a, b: mnp.einsum("ij,jk->ik", a, b, optimize=mnp.einsum_path("ij,jk->ik", a, b)[0])
    )
    np.testing.assert_allclose(traced(M, M.T), M @ M.T)
    interleaved = mnp.einsum_path(ops[0], [0, 1], ops[1], [1, 2], [0, 2])[0]
    assert interleaved == [(0, 1)]


def test_from_dlpack_takes_dlpack_objects_and_mj_arrays():
    y = mj.jit(lambda x: x * 2)(np.arange(3.0))
    assert mnp.from_dlpack(y) is y
    _check(mnp.from_dlpack(mnp.arange(3)), np.arange(3))
    with pytest.raises(TypeError, match="from_dlpack: expected an object implementing the DLPack"):
        mnp.from_dlpack([1, 2])


# --- vmap ----------------------------------------------------------------------------------
# f(np_, x, i) for one row x and index pair i, vmapped over both and compared with a loop
VMAP_CASES = {
    "insert": lambda np_, x, i: np_.insert(x, i, -1.0),
    "delete": lambda np_, x, i: np_.delete(x, i, assume_unique_indices=True),
    "put": lambda np_, x, i: np_.put(x, i, x[:2], inplace=False),
    "choose": lambda np_, x, i: np_.choose(i % 2, [x[:2], x[3:]], mode="wrap"),
    "compress": lambda np_, x, i: np_.compress(x > 0, x, size=2),
    "place": lambda np_, x, i: np_.place(x, x > 0, x[i], inplace=False),
    "put_along_axis": lambda np_, x, i: np_.put_along_axis(x, i[:1], 0.5, 0, inplace=False),
    "fill_diagonal": lambda np_, x, i: np_.fill_diagonal(np_.outer(x, x), x[i], inplace=False),
    "packbits": lambda np_, x, i: np_.packbits(x > 0),
    "unravel_index": lambda np_, x, i: np_.unravel_index(i, (2, 3)),
    "ravel_multi_index": lambda np_, x, i: np_.ravel_multi_index((i, i), (5, 5), mode="wrap"),
    "piecewise": lambda np_, x, i: _piecewise(np_, x),
    "vectorize": lambda np_, x, i: np_.vectorize(np_.dot, signature="(n),(n)->()")(x, x[::-1]),
    "r_": lambda np_, x, i: np_.r_[x[i], 0:2],
    "array_split": lambda np_, x, i: tuple(np_.array_split(x, 2)),
}


@pytest.mark.parametrize("name", list(VMAP_CASES))
def test_vmap_agrees_with_a_loop(name):
    f = VMAP_CASES[name]
    xs, idx = RNG.normal(size=(3, 5)), np.array([[0, 2], [1, 3], [4, 0]])
    rows = [f(NP, x, i) for x, i in zip(xs, idx, strict=True)]
    if isinstance(rows[0], tuple):
        want = tuple(np.stack(r) for r in zip(*rows, strict=True))
    else:
        want = np.stack(rows)
    _check(mj.vmap(lambda x, i: f(mnp, x, i))(xs, idx), want)
    _check(mj.jit(mj.vmap(lambda x, i: f(mnp, x, i)))(xs, idx), want)


# --- gradients -----------------------------------------------------------------------------
def _central_difference(f, x, eps=1e-6):
    x = np.asarray(x, dtype=np.float64)
    grad = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[idx] = eps
        grad[idx] = (float(f(x + step)) - float(f(x - step))) / (2 * eps)
    return grad


W = RNG.normal(size=(128,))


def _weighted(out):
    """A scalar that weighs every output entry differently (so a permuted or dropped
    gradient entry shows)."""
    flat = mnp.concatenate(
        [mnp.ravel(o) for o in (out if isinstance(out, tuple | list) else [out])]
    )
    return mnp.sum(flat * W[: flat.shape[0]])


GRAD_CASES = {
    "insert_values": (lambda v: mnp.insert(M, np.array([1, 1, 4]), v, axis=1), M[:, :3]),
    "insert_arr": (lambda x: mnp.insert(x, 2, x[:, 0] ** 2, axis=1), M),
    "delete": (lambda x: mnp.delete(x, np.array([0, 2]), axis=1), M),
    "delete_unique": (lambda x: mnp.delete(x, np.array([3, 1]), assume_unique_indices=True), M),
    "choose": (lambda x: mnp.choose(np.array([[0, 1, 1, 0]]), [x, x[::-1] * 2.0], mode="clip"), M),
    "compress": (lambda x: mnp.compress(np.array([1, 0, 1]), x, axis=0, size=2, fill_value=3.0), M),
    "extract": (lambda x: mnp.extract(M > 0, x), M),
    "place": (lambda x: mnp.place(x, M > 0, x[0, :2] * 2.0, inplace=False), M),
    "put": (lambda x: mnp.put(x, np.array([0, 5]), x[1, :2] ** 2, inplace=False), M),
    "put_along_axis": (
        lambda x: mnp.put_along_axis(x, np.array([[1], [0], [3]]), x[:, :1] ** 2, 1, False),
        M,
    ),
    "fill_diagonal": (lambda x: mnp.fill_diagonal(x, x[0, 1:3] * 3.0, inplace=False), M),
    "diagflat": (lambda x: mnp.diagflat(x, -1), M[:2]),
    "resize": (lambda x: mnp.resize(x, (5, 5)), M),
    "rollaxis": (lambda x: mnp.rollaxis(x, 2) ** 2, CUBE),
    "array_split": (lambda x: mnp.array_split(x, 3, axis=1), M),
    "r_": (lambda x: mnp.r_[x[0], 0:2, x[1] * 3.0], M),
    "c_": (lambda x: mnp.c_[x[0], x[1] ** 2], M),
    "piecewise": (lambda x: mnp.piecewise(x, [x < 0], [lambda v: v**3, mnp.sin]), M),
    "vectorize": (lambda x: mnp.vectorize(lambda r: mnp.sum(r**2) * r, signature="(n)->(n)")(x), M),
    "apply_along_axis": (lambda x: mnp.apply_along_axis(mnp.cumprod, 0, x), M),
    "apply_over_axes": (lambda x: mnp.apply_over_axes(mnp.prod, x, [1]), M),
    "fromfunction": (
        lambda s: mnp.fromfunction(lambda i, j: mnp.sin(i * s[0] + j * s[1]), (3, 2)),
        X5[:2],
    ),
}


@pytest.mark.parametrize("name", list(GRAD_CASES))
def test_grad_matches_central_differences(name):
    f, x = GRAD_CASES[name]

    def loss(v):
        return _weighted(f(v))

    np.testing.assert_allclose(mj.grad(loss)(x), _central_difference(loss, x), rtol=1e-6, atol=1e-6)


# --- errors --------------------------------------------------------------------------------
def test_inplace_true_is_refused_as_in_jax():
    with pytest.raises(ValueError, match=r"place cannot modify arrays in-place.*inplace=False"):
        mnp.place(A, A > 1, np.array([1.0]))
    with pytest.raises(ValueError, match=r"put cannot modify arrays in-place.*inplace=False"):
        mnp.put(A, np.array([0]), 1.0)
    with pytest.raises(ValueError, match=r"put_along_axis cannot modify arrays in-place"):
        mnp.put_along_axis(A, np.array([[0], [1]]), 1.0, axis=1)
    with pytest.raises(NotImplementedError, match=r"fill_diagonal cannot modify arrays in-place"):
        mnp.fill_diagonal(np.zeros((2, 2)), 1.0)
    with pytest.raises(NotImplementedError, match="fill_diagonal: wrap=True is not implemented"):
        mnp.fill_diagonal(np.zeros((5, 2)), 1.0, wrap=True, inplace=False)


CONCRETE_CASES = {
    "ravel_multi_index": (
        lambda i: mnp.ravel_multi_index((i, i), (2, 3)),
        (ROWS,),
        "mode='wrap' or 'clip'",
    ),
    "choose": (
        lambda i: mnp.choose(i, [X5, X5]),
        (np.array([0, 1, 0, 1, 1]),),
        "mode='wrap' or mode='clip'",
    ),
    "delete": (lambda i: mnp.delete(X5, i), (np.array([1]),), "assume_unique_indices=True"),
    "compress": (lambda c: mnp.compress(c, X5), (X5 > 0,), "static size="),
    "extract": (lambda c: mnp.extract(c, X5), (X5 > 0,), "static size="),
    "trim_zeros": (lambda x: mnp.trim_zeros(x), (X5,), "trim_zeros: filt must be concrete"),
    "mgrid": (lambda n: mnp.mgrid[0:n], (3,), "mgrid: the slice stop must be concrete"),
    "r_": (lambda n: mnp.r_[0:4:n], (2,), "r_: the slice step must be concrete"),
    "array_split": (lambda n: mnp.array_split(X5, n), (2,), "array_split: the number of sections"),
    "unpackbits": (
        lambda n: mnp.unpackbits(BYTES, count=n),
        (3,),
        "unpackbits: count must be concrete",
    ),
    "mask_indices": (lambda k: mnp.mask_indices(3, mnp.triu, k), (1,), "nonzero"),
    "from_dlpack": (lambda x: mnp.from_dlpack(x), (X5,), "from_dlpack: x must be concrete"),
}


@pytest.mark.parametrize("name", list(CONCRETE_CASES))
def test_concrete_inputs_raise_concretization_errors_under_jit(name):
    f, args, message = CONCRETE_CASES[name]
    f(*args)  # works eagerly
    with pytest.raises(ConcretizationError, match=message):
        mj.jit(f)(*args)


def test_concrete_inputs_stay_concrete_under_grad():
    # grad keeps primal values concrete, so value-dependent shapes still work (as in JAX)
    x = np.array([0.0, 2.0, 0.0, -1.0, 0.0])
    g = mj.grad(lambda v: mnp.sum(mnp.trim_zeros(v) ** 2))(x)
    np.testing.assert_allclose(g, 2 * x)
    g = mj.grad(lambda v: mnp.sum(mnp.compress(v != 0, v) ** 3))(x)
    np.testing.assert_allclose(g, 3 * x**2)


def test_index_helpers_reject_bad_input():
    with pytest.raises(ValueError, match=r"^invalid entry in coordinates array \(ravel_multi"):
        mnp.ravel_multi_index((ROWS + 2, COLS), (2, 3))
    with pytest.raises(ValueError, match="ravel_multi_index: dtype=float64 is not an integer"):
        mnp.ravel_multi_index((X5, X5), (2, 3))
    with pytest.raises(TypeError, match="ravel_multi_index: only integer indices are permitted"):
        mnp.ravel_multi_index((X5, X5), (2, 3), dtype=int)
    with pytest.raises(ValueError, match="ravel_multi_index: invalid mode='x'"):
        mnp.ravel_multi_index((ROWS, COLS), (2, 3), mode="x")
    with pytest.raises(ValueError, match="ravel_multi_index: invalid order='K'"):
        mnp.ravel_multi_index((ROWS, COLS), (2, 3), order="K")
    with pytest.raises(ValueError, match="ravel_multi_index: expected one index array per dim"):
        mnp.ravel_multi_index((ROWS,), (2, 3))
    with pytest.raises(ValueError, match="ravel_multi_index: dtype=int8 cannot hold"):
        mnp.ravel_multi_index((1, 2), (300, 3), dtype=np.int8)
    with pytest.raises(ValueError, match="unravel_index: shape should be a scalar or 1-D"):
        mnp.unravel_index(FLAT, [(2, 3)])
    with pytest.raises(TypeError, match="unravel_index requires array-like arguments, got a list"):
        mnp.unravel_index([1, 2], (2, 3))
    with pytest.raises(ValueError, match="diag_indices_from: all dimensions of the input must"):
        mnp.diag_indices_from(M)
    with pytest.raises(ValueError, match="diag_indices_from: input must be at least 2-d"):
        mnp.diag_indices_from(X5)
    with pytest.raises(ValueError, match="tril_indices_from: only 2-D inputs are accepted"):
        mnp.tril_indices_from(CUBE)
    with pytest.raises(ValueError, match="triu_indices_from: only 2-D inputs are accepted"):
        mnp.triu_indices_from(X5)
    with pytest.raises(ValueError, match="could not understand directive 'a,b'"):
        mnp.r_["a,b", X5]
    with pytest.raises(ValueError, match="r_: a string directive must come first"):
        mnp.r_[X5, "r"]
    with pytest.raises(ValueError, match=r"c_: nothing to concatenate, got c_\[\(\)\]"):
        mnp.c_[()]
    with pytest.raises(ValueError, match="r_: nothing to concatenate after the directive"):
        mnp.r_["r"]
    with pytest.raises(TypeError, match="mgrid: expected slices such as mgrid"):
        mnp.mgrid[0:2, 3]


def test_reshaping_and_insert_delete_reject_bad_input():
    with pytest.raises(ValueError, match="array_split: split indices must be non-decreasing"):
        mnp.array_split(X5, [3, 1])
    with pytest.raises(ValueError, match="array_split: the number of sections must be positive"):
        mnp.array_split(X5, 0)
    with pytest.raises(ValueError, match="resize: all elements of new_shape must be non-negative"):
        mnp.resize(X5, (-1, 2))
    with pytest.raises(ValueError, match=r"rollaxis: start=5 must satisfy -3 <= start <= 3"):
        mnp.rollaxis(CUBE, 1, 5)
    with pytest.raises(ValueError, match="rollaxis: axis 3 is out of bounds for array of dim"):
        mnp.rollaxis(CUBE, 3)
    with pytest.raises(TypeError, match="insert requires array-like arguments, got a list"):
        mnp.insert(X5, [1, 2], 0.0)
    with pytest.raises(ValueError, match="insert: the index array must be integer typed"):
        mnp.insert(X5, 1.0, 0.0)
    with pytest.raises(ValueError, match="insert: obj must be a slice, a one-dimensional array"):
        mnp.insert(X5, np.ones((1, 1), int), 0.0)
    with pytest.raises(TypeError, match="delete requires array-like arguments, got a list"):
        mnp.delete(X5, [1, 2])
    with pytest.raises(ValueError, match="delete: index 5 is out of bounds for axis 0 of size 5"):
        mnp.delete(X5, 5)
    with pytest.raises(IndexError, match=r"delete: an index in .* is out of bounds for axis 0"):
        mnp.delete(X5, np.array([1, 9]))
    with pytest.raises(ValueError, match="delete: a boolean obj must be one-dimensional with"):
        mnp.delete(X5, np.array([True]))
    with pytest.raises(ValueError, match="delete: obj must be integer or bool; got dtype float64"):
        mnp.delete(X5, np.array([1.0]))


def test_selection_and_writers_reject_bad_input():
    with pytest.raises(ValueError, match=r"^invalid entry in choice array \(choose: a must be in"):
        mnp.choose(np.array([0, 2]), [X5[:2], X5[:2]])
    with pytest.raises(ValueError, match="choose: a must be an integer array, got float64"):
        mnp.choose(X5, [X5])
    with pytest.raises(ValueError, match="choose: mode='x' not understood"):
        mnp.choose(np.array([0]), [X5[:1]], mode="x")
    with pytest.raises(NotImplementedError, match="choose: the 'out' argument is not supported"):
        mnp.choose(np.array([0]), [X5[:1]], out=np.zeros(1))
    with pytest.raises(ValueError, match="compress: condition has true entries beyond the 5"):
        mnp.compress(np.ones(6, bool), X5)
    with pytest.raises(ValueError, match="compress: size must be non-negative and at most"):
        mnp.compress(np.ones(2, bool), X5, size=3)
    with pytest.raises(ValueError, match="compress: condition must be a 1-D array, got shape"):
        mnp.compress(np.ones((1, 2), bool), X5)
    with pytest.raises(ValueError, match="place: arr and mask must have the same size, got 6"):
        mnp.place(A, np.array([True]), 1.0, inplace=False)
    with pytest.raises(ValueError, match="place: cannot place values from an empty vals array"):
        mnp.place(A, A > 1, np.array([]), inplace=False)
    with pytest.raises(NotImplementedError, match="put: mode='raise' is not supported"):
        mnp.put(X5, np.array([1]), 1.0, mode="raise", inplace=False)
    with pytest.raises(ValueError, match="put: mode should be one of 'wrap' or 'clip'; got"):
        mnp.put(X5, np.array([1]), 1.0, mode="x", inplace=False)
    with pytest.raises(TypeError, match="put: ind must be an integer array, got float64"):
        mnp.put(X5, np.array([1.0]), 1.0, inplace=False)
    with pytest.raises(ValueError, match="put_along_axis: arr and indices must have the same"):
        mnp.put_along_axis(A, np.array([0]), 1.0, 1, inplace=False)
    with pytest.raises(ValueError, match="put_along_axis: values must be broadcastable to"):
        mnp.put_along_axis(A, np.array([[0], [1]]), X5[:3], 1, inplace=False)
    with pytest.raises(TypeError, match="put_along_axis: indices must be an integer array"):
        mnp.put_along_axis(A, np.array([[0.0]]), 1.0, 1, inplace=False)
    with pytest.raises(ValueError, match="fill_diagonal: array must be at least 2-d"):
        mnp.fill_diagonal(X5, 1.0, inplace=False)
    with pytest.raises(ValueError, match="fill_diagonal: all dimensions of a >2-d input must be"):
        mnp.fill_diagonal(CUBE, 1.0, inplace=False)


def test_bits_vectorize_and_readers_reject_bad_input():
    with pytest.raises(TypeError, match="packbits: expected an input array of integer or bool"):
        mnp.packbits(X5)
    with pytest.raises(ValueError, match="packbits: bitorder must be either 'little' or 'big'"):
        mnp.packbits(BITS, bitorder="x")
    with pytest.raises(TypeError, match=r"unpackbits: expected .* \(uint8\) data type, got int64"):
        mnp.unpackbits(BITS)
    with pytest.raises(ValueError, match="unpackbits: bitorder must be either 'little' or 'big'"):
        mnp.unpackbits(BYTES, bitorder="middle")
    with pytest.raises(ValueError, match=r"piecewise: with 1 condition.*either 1 or 2 functions"):
        mnp.piecewise(X5, [X5 > 0], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="apply_over_axes: func must return an array of rank 3"):
        mnp.apply_over_axes(lambda x, ax: mnp.sum(x), CUBE, [0])
    with pytest.raises(ValueError, match="vectorize: not a valid gufunc signature"):
        mnp.vectorize(mnp.sum, signature="(n)->")(M)
    with pytest.raises(ValueError, match=r"vectorize: input with shape .* does not have enough"):
        mnp.vectorize(mnp.sum, signature="(n,m)->()")(X5)
    with pytest.raises(ValueError, match="vectorize: inconsistent size for core dimension 'n'"):
        mnp.vectorize(mnp.dot, signature="(n),(n)->()")(M, X5)
    with pytest.raises(TypeError, match="vectorize: wrong number of output arguments: expected 2"):
        mnp.vectorize(lambda x: (x,), signature="(n)->(n),(n)")(M)
    with pytest.raises(TypeError, match="vectorize: output must be a tuple when multiple outputs"):
        mnp.vectorize(lambda x: x, signature="(n)->(n),(n)")(M)
    with pytest.raises(TypeError, match="vectorize: wrong number of positional arguments"):
        mnp.vectorize(mnp.dot, signature="(n),(n)->()")(M)
    with pytest.raises(ValueError, match=r"vectorize: excluded=\{-1\} contains negative numbers"):
        mnp.vectorize(mnp.sum, excluded={-1})
    with pytest.raises(TypeError, match="vectorize: can only exclude integer or string arguments"):
        mnp.vectorize(mnp.sum, excluded={1.5})
    with pytest.raises(NotImplementedError, match="fromiter is not implemented"):
        mnp.fromiter(iter([1, 2]), dtype=float)
    with pytest.raises(ValueError, match="einsum_path: unknown optimize='bogus'"):
        mnp.einsum_path("ij", M, optimize="bogus")
