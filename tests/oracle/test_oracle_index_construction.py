"""Index helpers and array construction against real JAX 0.10.2 (x64): ``r_``/``c_``/
``mgrid``/``ogrid``, ``unravel_index``/``ravel_multi_index``, ``insert``/``delete``,
``choose``/``compress``/``extract``, the ``inplace=False`` writers (``place``, ``put``,
``put_along_axis``, ``fill_diagonal``), ``packbits``/``unpackbits``, ``vectorize`` and
friends give JAX's values and dtypes, eagerly and under ``jit``, and raise JAX's error types
on bad input (including the concretization errors under ``jit``)."""

import builtins

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

jax.config.update("jax_enable_x64", True)

pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(7)
A = np.arange(6.0).reshape(2, 3)
M = RNG.normal(size=(3, 4))
CUBE = RNG.normal(size=(2, 3, 4))
I64 = np.array([0, 5, 23, 24, -1, -25, -30])
IDX = (np.array([0, 1, 1, 0]), np.array([2, 0, 1, 7]))
X5 = np.linspace(-2.0, 2.0, 5)
BYTES = np.array([[7, 160, 3], [255, 0, 18]], np.uint8)
BITS = RNG.integers(0, 2, size=(3, 11))

# name -> f(np_): the same call spelled with jnp or mnp
CASES = {
    "r_": lambda np_: np_.r_[-1:5:1, 0, 0, np.array([1, 2, 3])],
    "r_linspace": lambda np_: np_.r_[-1:1:6j, 0, np.array([1.0, 2.0])],
    "r_0,2": lambda np_: np_.r_["0,2", np.array([1, 2, 3]), np.array([4, 5, 6])],
    "r_0,2,0": lambda np_: np_.r_["0,2,0", np.array([1, 2, 3]), np.array([4, 5, 6])],
    "r_1,2,0": lambda np_: np_.r_["1,2,0", np.array([1, 2, 3]), np.array([4, 5, 6])],
    "r_0,2,-2": lambda np_: np_.r_["0,2,-2", np.array([1, 2, 3]), np.array([4, 5, 6])],
    "r_0,3,1": lambda np_: np_.r_["0,3,1", np.array([1, 2]), np.array([[3, 4]])],
    "r_four_fields": lambda np_: np_.r_["0,2,0,5", np.array([1, 2, 3])],
    "r_r": lambda np_: np_.r_["r", np.array([1, 2, 3]), np.array([4, 5, 6])],
    "r_c": lambda np_: np_.r_["c", np.array([1, 2, 3]), np.array([4, 5, 6])],
    "r_-1": lambda np_: np_.r_["-1", A, A],
    "r_2d": lambda np_: np_.r_[A, A],
    "r_lists": lambda np_: np_.r_[[1, 2], [3]],
    "r_float_step": lambda np_: np_.r_[0:1:0.25],
    "r_f32": lambda np_: np_.r_[np.float32(1), np.float32(2)],
    "r_i32": lambda np_: np_.r_[np.array([1], np.int32), 2],
    "c_": lambda np_: np_.c_[np.array([1, 2, 3]), np.array([4, 5, 6])],
    "c_2d": lambda np_: np_.c_[A, A],
    "c_scalars": lambda np_: np_.c_[np.array([[1, 2, 3]]), 0, 0, np.array([[4, 5, 6]])],
    "c_0,2": lambda np_: np_.c_["0,2", np.array([1, 2, 3]), np.array([4, 5, 6])],
    "c_0,2,-1": lambda np_: np_.c_["0,2,-1", np.array([1, 2, 3]), np.array([4, 5, 6])],
    "c_r": lambda np_: np_.c_["r", np.array([1, 2, 3]), np.array([4, 5, 6])],
    "c_slices": lambda np_: np_.c_[0:3, 3:6],
    "mgrid": lambda np_: np_.mgrid[0:4:1],
    "mgrid_linspace": lambda np_: np_.mgrid[0:1:4j],
    "mgrid_2d": lambda np_: np_.mgrid[:2, :3],
    "mgrid_mixed": lambda np_: np_.mgrid[0:2, 0:1:3j],
    "mgrid_float_step": lambda np_: np_.mgrid[0:1:0.5],
    "mgrid_negative_step": lambda np_: np_.mgrid[3:0:-1],
    "mgrid_empty": lambda np_: np_.mgrid[()],
    "mgrid_open_stop": lambda np_: np_.mgrid[3:],
    "ogrid": lambda np_: np_.ogrid[:2, :3],
    "ogrid_1d": lambda np_: np_.ogrid[0:5:2],
    "ogrid_mixed": lambda np_: np_.ogrid[0:2, 0:1:3j],
    "unravel": lambda np_: np_.unravel_index(I64, (2, 3, 4)),
    "unravel_i32": lambda np_: np_.unravel_index(np.array([0, 5, 23], np.int32), (2, 3, 4)),
    "unravel_int": lambda np_: np_.unravel_index(7, (2, 3, 4)),
    "unravel_u8": lambda np_: np_.unravel_index(np.array([7, 200], np.uint8), (2, 3, 4)),
    "unravel_scalar_shape": lambda np_: np_.unravel_index(np.array([3, 9]), 5),
    "ravel": lambda np_: np_.ravel_multi_index(tuple(i[:3] for i in IDX), (2, 3)),
    "ravel_i32": lambda np_: np_.ravel_multi_index(
        (np.array([0, 1], np.int32), np.array([2, 0], np.int32)), (2, 3)
    ),
    "ravel_clip": lambda np_: np_.ravel_multi_index(IDX, (2, 3), mode="clip"),
    "ravel_wrap": lambda np_: np_.ravel_multi_index((IDX[0], -IDX[1]), (2, 3), mode="wrap"),
    "ravel_F": lambda np_: np_.ravel_multi_index(tuple(i[:3] for i in IDX), (2, 3), order="F"),
    "ravel_scalars": lambda np_: np_.ravel_multi_index((1, 2), (2, 3)),
    "ravel_dtype": lambda np_: np_.ravel_multi_index((1, 2), (2, 3), dtype=np.int16),
    "mask_indices": lambda np_: np_.mask_indices(3, np_.triu, 1),
    "mask_indices_size": lambda np_: np_.mask_indices(4, np_.tril, -1, size=8),
    "tril_indices_from": lambda np_: np_.tril_indices_from(M, 1),
    "triu_indices_from": lambda np_: np_.triu_indices_from(M, -1),
    "diag_indices_from": lambda np_: np_.diag_indices_from(np.ones((3, 3, 3))),
    "diagflat": lambda np_: np_.diagflat(np.array([[1, 2], [3, 4]]), 1),
    "diagflat_negative": lambda np_: np_.diagflat(np.array([1.0, 2.0]), -2),
    "diagflat_f32": lambda np_: np_.diagflat(np.array([1.0, 2.0], np.float32)),
    "diagflat_scalar": lambda np_: np_.diagflat(3),
    "array_split": lambda np_: np_.array_split(np.arange(7), 3),
    "array_split_indices": lambda np_: np_.array_split(np.arange(7), [2, 5]),
    "array_split_array": lambda np_: np_.array_split(np.arange(7), np.array([2, 5])),
    "array_split_0d": lambda np_: np_.array_split(np.arange(7), np.array(2)),
    "array_split_many": lambda np_: np_.array_split(np.arange(3), 5),
    "array_split_axis": lambda np_: np_.array_split(CUBE, 3, axis=-1),
    "resize": lambda np_: np_.resize(np.arange(5), (2, 4)),
    "resize_int": lambda np_: np_.resize(np.arange(5), 3),
    "resize_empty": lambda np_: np_.resize(np.arange(0.0), (2,)),
    "resize_scalar": lambda np_: np_.resize(3.0, (2, 2)),
    "rollaxis": lambda np_: np_.rollaxis(CUBE, 2, 0),
    "rollaxis_start": lambda np_: np_.rollaxis(CUBE, 0, 3),
    "rollaxis_negative": lambda np_: np_.rollaxis(CUBE, -1, -2),
    "insert": lambda np_: np_.insert(np.arange(5), 2, 99),
    "insert_axis": lambda np_: np_.insert(A, 1, 7.0, axis=1),
    "insert_axis_values": lambda np_: np_.insert(A, 1, np.array([7.0, 8.0]), axis=1),
    "insert_row": lambda np_: np_.insert(A, 1, np.array([7.0, 8.0, 9.0]), axis=0),
    "insert_many": lambda np_: np_.insert(
        np.arange(5), np.array([1, 3, 3]), np.array([10, 20, 30])
    ),
    "insert_negative": lambda np_: np_.insert(
        np.arange(5), np.array([-1, 7, 0]), np.array([1, 2, 3])
    ),
    "insert_slice": lambda np_: np_.insert(np.arange(5), slice(0, 4, 2), np.array([10, 20])),
    "insert_cast": lambda np_: np_.insert(np.arange(5), 1, 2.7),
    "insert_flat": lambda np_: np_.insert(A, 2, 5.0),
    "insert_broadcast": lambda np_: np_.insert(np.arange(5), np.array([1, 2]), 9),
    "insert_cols": lambda np_: np_.insert(
        M, np.array([0, 4]), np.array([[1.0], [2.0], [3.0]]), axis=1
    ),
    "delete": lambda np_: np_.delete(np.arange(5), 1),
    "delete_negative": lambda np_: np_.delete(np.arange(5), -1),
    "delete_axis": lambda np_: np_.delete(A, 1, axis=1),
    "delete_flat": lambda np_: np_.delete(A, 4),
    "delete_slice": lambda np_: np_.delete(np.arange(6), slice(1, None, 2)),
    "delete_array": lambda np_: np_.delete(np.arange(6), np.array([0, 0, 3])),
    "delete_bool": lambda np_: np_.delete(np.arange(4), np.array([True, False, True, False])),
    "delete_unique": lambda np_: np_.delete(
        np.arange(6), np.array([4, 1, -1]), assume_unique_indices=True
    ),
    "delete_unique_oob": lambda np_: np_.delete(
        np.arange(6), np.array([9, 1]), assume_unique_indices=True
    ),
    "delete_rows": lambda np_: np_.delete(CUBE, np.array([0, 2]), axis=1),
    "choose": lambda np_: np_.choose(
        np.array([0, 1, 2, 1]), [np.arange(4) * 1.0, np.arange(4) * 10, np.arange(4) * 100]
    ),
    "choose_wrap": lambda np_: np_.choose(
        np.array([0, 3, -1]), [np.arange(3), np.arange(3) * 10], mode="wrap"
    ),
    "choose_clip": lambda np_: np_.choose(
        np.array([0, 3, -1]), [np.arange(3), np.arange(3) * 10], mode="clip"
    ),
    "choose_broadcast": lambda np_: np_.choose(np.array([[0], [1]]), [np.arange(3), 5]),
    "choose_array": lambda np_: np_.choose(np.array([0, 1]), np.array([[1, 2], [3, 4]], np.int32)),
    "compress": lambda np_: np_.compress(np.array([True, False, True]), A, axis=1),
    "compress_flat": lambda np_: np_.compress(np.array([1, 0, 1, 1]), A),
    "compress_short": lambda np_: np_.compress(np.array([0, 1]), A, axis=0),
    "compress_long": lambda np_: np_.compress(np.array([0, 1, 0, 0]), A, axis=0),
    "compress_size": lambda np_: np_.compress(
        np.array([1, 0, 1, 1, 0, 1]), np.arange(6.0), size=3, fill_value=-1
    ),
    "compress_pad": lambda np_: np_.compress(
        np.array([1, 0, 1, 0, 0, 0]), np.arange(6.0), size=4, fill_value=-1
    ),
    "compress_float_condition": lambda np_: np_.compress(np.array([0.5, 0.0]), np.arange(2.0)),
    "compress_axis_size": lambda np_: np_.compress(np.array([0, 1, 1]), CUBE, axis=1, size=2),
    "extract": lambda np_: np_.extract(A > 2, A),
    "extract_size": lambda np_: np_.extract(A > 2, A, size=5, fill_value=-7),
    "extract_short": lambda np_: np_.extract(np.array([True, False]), A),
    "place": lambda np_: np_.place(A, A > 1, np.array([10.0, 20.0]), inplace=False),
    "place_cast": lambda np_: np_.place(
        np.arange(4), np.array([1, 0, 1, 0]), np.array([2.7]), inplace=False
    ),
    "put": lambda np_: np_.put(
        np.zeros(5), np.array([0, 2, 4]), np.array([10.0, 20.0, 30.0]), inplace=False
    ),
    "put_oob": lambda np_: np_.put(
        np.zeros(5), np.array([7, -1, -9]), np.array([10.0, 20.0, 30.0]), inplace=False
    ),
    "put_clip": lambda np_: np_.put(
        np.zeros(5), np.array([7, -1, -9]), np.array([1.0, 2.0, 3.0]), mode="clip", inplace=False
    ),
    "put_wrap": lambda np_: np_.put(
        np.zeros(5), np.array([7, -1, -9]), np.array([1.0, 2.0, 3.0]), mode="wrap", inplace=False
    ),
    "put_2d": lambda np_: np_.put(
        np.zeros((2, 3)), np.array([0, 4, 5, 1]), np.array([1.0, 2.0]), inplace=False
    ),
    "put_cast": lambda np_: np_.put(np.zeros(3, int), np.array([1]), 2.9, inplace=False),
    "put_scalar_index": lambda np_: np_.put(np.zeros(3), 1, 2.9, inplace=False),
    "put_along_axis": lambda np_: np_.put_along_axis(
        A, np.array([[2], [0]]), 99.0, axis=1, inplace=False
    ),
    "put_along_axis_flat": lambda np_: np_.put_along_axis(
        A, np.array([5, 0]), np.array([-1.0, -2.0]), axis=None, inplace=False
    ),
    "put_along_axis_oob": lambda np_: np_.put_along_axis(
        A, np.array([[5], [-1]]), 99.0, axis=1, inplace=False
    ),
    "put_along_axis_clip": lambda np_: np_.put_along_axis(
        A, np.array([[5], [-1]]), 99.0, axis=1, inplace=False, mode="clip"
    ),
    "put_along_axis_0": lambda np_: np_.put_along_axis(
        A, np.array([[1, 0, 1]]), np.array([[7.0, 8.0, 9.0]]), axis=0, inplace=False
    ),
    "fill_diagonal": lambda np_: np_.fill_diagonal(np.zeros((3, 4)), 5.0, inplace=False),
    "fill_diagonal_values": lambda np_: np_.fill_diagonal(
        np.zeros((4, 3)), np.array([1.0, 2.0]), inplace=False
    ),
    "fill_diagonal_3d": lambda np_: np_.fill_diagonal(np.zeros((2, 2, 2)), 5.0, inplace=False),
    "fill_diagonal_cast": lambda np_: np_.fill_diagonal(np.zeros((3, 3), int), 5.7, inplace=False),
    "fill_diagonal_2d_values": lambda np_: np_.fill_diagonal(
        np.zeros((3, 3)), np.array([[1.0, 2.0], [3.0, 4.0]]), inplace=False
    ),
    "packbits": lambda np_: np_.packbits(np.array([1, 0, 1, 1, 0, 0, 0, 1, 1, 1])),
    "packbits_little": lambda np_: np_.packbits(
        np.array([1, 0, 1, 1, 0, 0, 0, 1, 1, 1]), bitorder="little"
    ),
    "packbits_axis": lambda np_: np_.packbits(BITS, axis=1),
    "packbits_axis0": lambda np_: np_.packbits(BITS, axis=0),
    "packbits_bool": lambda np_: np_.packbits(BITS > 0),
    "packbits_ints": lambda np_: np_.packbits(np.array([[5, 0], [0, -3]])),
    "unpackbits": lambda np_: np_.unpackbits(BYTES),
    "unpackbits_little": lambda np_: np_.unpackbits(BYTES, bitorder="little"),
    "unpackbits_count": lambda np_: np_.unpackbits(BYTES, count=3),
    "unpackbits_pad": lambda np_: np_.unpackbits(BYTES[0, :1], count=10),
    "unpackbits_negative_count": lambda np_: np_.unpackbits(BYTES[0, :2], count=-3),
    "unpackbits_axis": lambda np_: np_.unpackbits(BYTES, axis=1),
    "unpackbits_axis0": lambda np_: np_.unpackbits(BYTES, axis=0, count=9),
    "fromfunction": lambda np_: np_.fromfunction(lambda i, j: i + 2 * j, (2, 3)),
    "fromfunction_int": lambda np_: np_.fromfunction(lambda i, j: i * j, (3, 4), dtype=int),
    "fromfunction_f32": lambda np_: np_.fromfunction(lambda i: i * 2, (3,), dtype=np.float32),
    "fromfunction_tuple": lambda np_: np_.fromfunction(lambda i, j: (i + j, i * j), (2, 3)),
    "piecewise": lambda np_: np_.piecewise(X5, [X5 < 0, X5 >= 0], [lambda x: -x, lambda x: x**2]),
    "piecewise_default": lambda np_: np_.piecewise(X5, [X5 < 0], [lambda x: -x, 7.0]),
    "piecewise_int": lambda np_: np_.piecewise(np.arange(4), [np.arange(4) > 1], [3.7]),
    "piecewise_cast": lambda np_: np_.piecewise(
        np.arange(4), [np.arange(4) > 1], [lambda x: x * 1.5]
    ),
    "piecewise_overlap": lambda np_: np_.piecewise(
        np.arange(4.0), [np.arange(4) > 0, np.arange(4) > 1], [1.0, 2.0]
    ),
    "piecewise_args": lambda np_: np_.piecewise(
        np.arange(4.0), [np.arange(4) > 1], [lambda x, k: x * k], 10.0
    ),
    "piecewise_scalar": lambda np_: np_.piecewise(2.0, [True], [lambda x: x * 3]),
    "piecewise_2d": lambda np_: np_.piecewise(A, [A > 2], [lambda x: x * 10, lambda x: -x]),
    "apply_along_axis": lambda np_: np_.apply_along_axis(np_.sum, 1, A),
    "apply_along_axis_0": lambda np_: np_.apply_along_axis(lambda v: v * 2, 0, A),
    "apply_along_axis_args": lambda np_: np_.apply_along_axis(
        lambda v, k: np_.sum(v) * k, 0, A, 3.0
    ),
    "apply_along_axis_matrix": lambda np_: np_.apply_along_axis(
        lambda v: np_.outer(v, v[:2]), 1, CUBE
    ),
    "apply_over_axes": lambda np_: np_.apply_over_axes(np_.sum, CUBE, [0, 2]),
    "apply_over_axes_negative": lambda np_: np_.apply_over_axes(np_.max, CUBE, [-1]),
    "vectorize": lambda np_: np_.vectorize(lambda a, b: a * b + 1)(M, M[0]),
    "vectorize_signature": lambda np_: np_.vectorize(
        lambda a, b: np_.dot(a, b), signature="(n),(n)->()"
    )(CUBE, M[0]),
    "vectorize_matrix": lambda np_: np_.vectorize(
        lambda m: (np_.sum(m, 0), np_.max(m)), signature="(m,n)->(n),()"
    )(CUBE),
    "vectorize_excluded": lambda np_: np_.vectorize(lambda x, p: x**p, excluded={1})(M, 3),
    "vectorize_kwarg_excluded": lambda np_: np_.vectorize(lambda x, p=1: x**p, excluded={"p"})(
        M, p=2
    ),
    "vectorize_broadcast": lambda np_: np_.vectorize(lambda a, b: a - b)(
        M[:, None, :1], M[None, :2, :]
    ),
    "trim_zeros": lambda np_: np_.trim_zeros(np.array([0, 0, 1, 2, 0, 3, 0])),
    "trim_zeros_f": lambda np_: np_.trim_zeros(np.array([0, 0, 1, 2, 0, 3, 0]), "f"),
    "trim_zeros_b": lambda np_: np_.trim_zeros(np.array([0, 0, 1, 2, 0, 3, 0]), "b"),
    "trim_zeros_all": lambda np_: np_.trim_zeros(np.array([0, 0])),
    "trim_zeros_2d": lambda np_: np_.trim_zeros(np.array([[0, 0, 0], [0, 1, 0], [0, 0, 0]])),
    "trim_zeros_axis": lambda np_: np_.trim_zeros(
        np.array([[0, 0, 0], [0, 1, 0], [0, 0, 0]]), axis=1
    ),
    "trim_zeros_other": lambda np_: np_.trim_zeros(np.array([0, 1, 0]), "x"),
    "frombuffer": lambda np_: np_.frombuffer(b"\x01\x02\x03\x04", dtype=np.uint8),
    "frombuffer_default": lambda np_: np_.frombuffer(np.arange(3.0).tobytes()),
    "frombuffer_count": lambda np_: np_.frombuffer(
        b"\x01\x02\x03\x04", dtype=np.int16, count=1, offset=2
    ),
    "fromstring": lambda np_: np_.fromstring("1 2 3", sep=" "),
    "fromstring_int": lambda np_: np_.fromstring("1,2,3", dtype=int, sep=","),
    "from_dlpack": lambda np_: np_.from_dlpack(np.arange(3.0)),
    "from_dlpack_f32": lambda np_: np_.from_dlpack(np.arange(3, dtype=np.float32)),
}


def _compare(got, want, rtol=1e-12, atol=1e-13):
    assert type(got) in (tuple, list) if type(want) in (tuple, list) else True
    got_leaves = jax.tree_util.tree_leaves(got)
    want_leaves = jax.tree_util.tree_leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves, strict=True):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape, (g.shape, w.shape)
        assert g.dtype == w.dtype, (g.dtype, w.dtype)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


def _jax(f, *args):
    """JAX's answer, computed under ``jax.jit`` when the case traces (one compilation instead
    of one per eager op keeps this file fast), else eagerly."""
    try:
        return jax.jit(f)(*args)
    except Exception:  # a case that needs concrete values: ask eager JAX
        return f(*args)


@pytest.mark.parametrize("name", list(CASES))
def test_values_and_dtypes_match_jax(name):
    _compare(CASES[name](mnp), _jax(lambda: CASES[name](jnp)))


# name -> (f(np_, *arrays), arrays): the arrays are jit arguments (traced)
JIT_CASES = {
    "r_": (lambda np_, x: np_.r_[x, 0:2, x], (np.array([1.0, 2.0]),)),
    "c_": (lambda np_, x, y: np_.c_[x, 0:5, y], (X5, X5 * 2)),
    "unravel": (lambda np_, i: np_.unravel_index(i, (2, 3, 4)), (I64,)),
    "ravel_clip": (lambda np_, i, j: np_.ravel_multi_index((i, j), (2, 3), mode="clip"), IDX),
    "diagflat": (lambda np_, v: np_.diagflat(v, -1), (A,)),
    "array_split": (lambda np_, x: np_.array_split(x, 3, axis=2), (CUBE,)),
    "resize": (lambda np_, x: np_.resize(x, (5, 3)), (M,)),
    "insert": (
        lambda np_, x, i, v: np_.insert(x, i, v),
        (np.arange(5.0), np.array([1, 3]), np.array([-1.0, -2.0])),
    ),
    "insert_axis": (lambda np_, x, i: np_.insert(x, i, 0.5, axis=1), (M, np.array(2))),
    "delete_unique": (
        lambda np_, x, i: np_.delete(x, i, axis=1, assume_unique_indices=True),
        (M, np.array([3, 0])),
    ),
    "delete_static": (lambda np_, x: np_.delete(x, np.array([0, 2]), axis=0), (M,)),
    "choose_wrap": (
        lambda np_, i, x, y: np_.choose(i, [x, y], mode="wrap"),
        (np.array([0, 3, -1]), X5[:3], X5[2:]),
    ),
    "compress_size": (
        lambda np_, c, x: np_.compress(c, x, axis=1, size=2, fill_value=9.0),
        (np.array([False, True, False, True]), M),
    ),
    "extract_size": (lambda np_, x: np_.extract(x > 0, x, size=4), (M,)),
    "place": (lambda np_, x, m: np_.place(x, m, np.array([7.0, 8.0]), inplace=False), (A, A > 2)),
    "put": (
        lambda np_, x, i, v: np_.put(x, i, v, mode="wrap", inplace=False),
        (A, np.array([-1, 8]), np.array([5.0, 6.0])),
    ),
    "put_along_axis": (
        lambda np_, x, i: np_.put_along_axis(x, i, -1.0, axis=0, inplace=False),
        (M, np.array([[2, 0, 1, 1]])),
    ),
    "fill_diagonal": (lambda np_, x, v: np_.fill_diagonal(x, v, inplace=False), (M, X5[:2])),
    "packbits": (lambda np_, b: np_.packbits(b, axis=-1, bitorder="little"), (BITS,)),
    "unpackbits": (lambda np_, b: np_.unpackbits(b, axis=0, count=13), (BYTES,)),
    "piecewise": (
        lambda np_, x: np_.piecewise(x, [x < -1, x > 1], [np_.sin, lambda v: v**3, 0.5]),
        (X5,),
    ),
    "vectorize": (
        lambda np_, x, y: np_.vectorize(np_.outer, signature="(m),(n)->(m,n)")(x, y),
        (CUBE, M[0]),
    ),
    "apply_along_axis": (lambda np_, x: np_.apply_along_axis(np_.cumsum, 2, x), (CUBE,)),
}


@pytest.mark.parametrize("name", list(JIT_CASES))
def test_jit_matches_jax_jit(name):
    f, args = JIT_CASES[name]
    got = mj.jit(lambda *xs: f(mnp, *xs))(*args)
    want = jax.jit(lambda *xs: f(jnp, *xs))(*args)
    _compare(got, want)
    _compare(f(mnp, *args), want)


def _sum_sq(np_, out):
    return np_.sum(np_.stack([np_.sum(o**2) for o in jax.tree_util.tree_leaves(out)]))


# name -> (f(np_, x), x): gradients of sum(f(x) ** 2) must match JAX's
GRAD_CASES = {
    "insert_values": (lambda np_, v: np_.insert(M, np.array([1, 1, 3]), v, axis=1), M[:, :3]),
    "insert_arr": (lambda np_, x: np_.insert(x, 2, x[:, 0] * 3.0, axis=1), M),
    "delete": (lambda np_, x: np_.delete(x, np.array([0, 2]), axis=1), M),
    "delete_unique": (
        lambda np_, x: np_.delete(x, np.array([3, 1]), assume_unique_indices=True),
        M,
    ),
    "choose": (
        lambda np_, x: np_.choose(np.array([[0, 1, 1, 0]]), [x, x[::-1] * 2.0], mode="clip"),
        M,
    ),
    "compress_size": (lambda np_, x: np_.compress(np.array([1, 0, 1]), x, axis=0, size=2), M),
    "extract": (lambda np_, x: np_.extract(M > 0, x, size=7, fill_value=0.5), M),
    "place": (lambda np_, x: np_.place(x, M > 0, x[0, :2] * 2.0, inplace=False), M),
    "put": (lambda np_, x: np_.put(x, np.array([0, 5]), x[1, :2], inplace=False), M),
    "put_along_axis": (
        lambda np_, x: np_.put_along_axis(x, np.array([[1], [0], [3]]), x[:, :1] ** 2, 1, False),
        M,
    ),
    "fill_diagonal": (lambda np_, x: np_.fill_diagonal(x, x[0, 0] * 3.0, inplace=False), M),
    "diagflat": (lambda np_, x: np_.diagflat(x, 1), M[:2]),
    "resize": (lambda np_, x: np_.resize(x, (5, 5)), M),
    "piecewise": (
        lambda np_, x: np_.piecewise(x, [x < 0], [lambda v: v**3, lambda v: np_.sin(v)]),
        M,
    ),
    "vectorize": (
        lambda np_, x: np_.vectorize(lambda r: np_.sum(r**2) * r, signature="(n)->(n)")(x),
        M,
    ),
    "apply_along_axis": (lambda np_, x: np_.apply_along_axis(np_.cumprod, 0, x), M),
    "r_": (lambda np_, x: np_.r_[x[0], 0:2, x[1] * 3.0], M),
    "array_split": (lambda np_, x: np_.array_split(x, 3, axis=1)[0], M),
}


@pytest.mark.parametrize("name", list(GRAD_CASES))
def test_grad_matches_jax(name):
    f, x = GRAD_CASES[name]
    got = mj.grad(lambda v: _sum_sq(mnp, f(mnp, v)))(x)
    want = _jax(jax.grad(lambda v: _sum_sq(jnp, f(jnp, v))), x)
    _compare(got, want, rtol=1e-10, atol=1e-12)


def test_vmap_matches_jax():
    idx = np.array([[0, 2], [1, 3], [3, 3]])
    cases = [
        (lambda np_, x, i: np_.insert(x, i, -1.0), (M, idx)),
        (lambda np_, x, i: np_.delete(x, i, assume_unique_indices=True), (M, idx[:, :1])),
        (lambda np_, x, i: np_.unravel_index(i, (2, 2)), (M, idx)),
        (lambda np_, x, i: np_.put(x, i, x[:2], inplace=False), (M, idx)),
        (lambda np_, x, i: np_.compress(x > 0, x, size=2), (M, idx)),
        (lambda np_, x, i: np_.packbits(i), (M, idx)),
    ]
    for f, args in cases:
        got = mj.vmap(lambda *xs, f=f: f(mnp, *xs))(*args)
        want = jax.jit(jax.vmap(lambda *xs, f=f: f(jnp, *xs)))(*args)
        _compare(got, want)


def test_einsum_path_matches_jax():
    shapes = {
        "ij,jk,kl->il": [(2, 30), (30, 4), (4, 50)],
        "ij,jk,kl,lm->im": [(20, 3), (3, 40), (40, 5), (5, 6)],
        "i,i": [(3,), (3,)],
        "ii": [(3, 3)],
    }
    for subscripts, dims in shapes.items():
        ops = [np.ones(d) for d in dims]
        for optimize in ("auto", True, False, "greedy", "optimal"):
            got = mnp.einsum_path(subscripts, *ops, optimize=optimize)[0]
            assert got == jnp.einsum_path(subscripts, *ops, optimize=optimize)[0]
    ops = [np.ones((2, 3)), np.ones((3, 4)), np.ones((4, 5))]
    path = [(1, 2), (0, 1)]
    assert mnp.einsum_path("ij,jk,kl->il", *ops, optimize=path)[0] == path
    assert jnp.einsum_path("ij,jk,kl->il", *ops, optimize=path)[0] == path
    interleaved = (ops[0], [0, 1], ops[1], [1, 2], [0, 2])
    assert mnp.einsum_path(*interleaved)[0] == jnp.einsum_path(*interleaved)[0]
    # the path is one einsum accepts, and gives the same contraction
    got = mnp.einsum("ij,jk,kl->il", *ops, optimize=path)
    np.testing.assert_allclose(got, jnp.einsum("ij,jk,kl->il", *ops, optimize=path))


def test_numpy_reexports_match_jax():
    assert mnp.s_ is jnp.s_ is np.s_
    assert mnp.index_exp is jnp.index_exp is np.index_exp
    assert mnp.get_printoptions() == jnp.get_printoptions()
    with mnp.printoptions(precision=2), jnp.printoptions(precision=3):
        assert np.get_printoptions()["precision"] == 3
    with mnp.printoptions(precision=2):
        assert jnp.get_printoptions()["precision"] == 2


def _jit_error(np_, f, *args):
    jit = mj.jit if np_ is mnp else jax.jit
    return jit(lambda *xs: f(np_, *xs))(*args)


ERROR_CASES = {
    "ravel_oob": lambda np_: np_.ravel_multi_index((np.array([0, 5]), np.array([2, 0])), (2, 3)),
    "ravel_float": lambda np_: np_.ravel_multi_index((np.array([0.0]), np.array([1])), (2, 3)),
    "ravel_float_dtype": lambda np_: np_.ravel_multi_index(
        (np.array([0.0]), np.array([1])), (2, 3), dtype=np.int64
    ),
    "ravel_mode": lambda np_: np_.ravel_multi_index((np.array([0]),) * 2, (2, 3), mode="x"),
    "ravel_order": lambda np_: np_.ravel_multi_index((np.array([0]),) * 2, (2, 3), order="K"),
    "ravel_small_dtype": lambda np_: np_.ravel_multi_index((1, 2), (300, 3), dtype=np.int8),
    "ravel_jit": lambda np_: _jit_error(
        np_, lambda n, i: n.ravel_multi_index((i, i), (2, 3)), np.array([0])
    ),
    "unravel_shape": lambda np_: np_.unravel_index(np.array([1]), [(2, 3)]),
    "unravel_list": lambda np_: np_.unravel_index([1, 2], (2, 3)),
    "diag_indices_from": lambda np_: np_.diag_indices_from(np.ones((3, 4))),
    "diag_indices_from_1d": lambda np_: np_.diag_indices_from(np.ones(3)),
    "triu_indices_from_3d": lambda np_: np_.triu_indices_from(np.ones((3, 4, 2))),
    "array_split_order": lambda np_: np_.array_split(np.arange(7), [5, 2]),
    "array_split_beyond": lambda np_: np_.array_split(np.arange(7), [9]),
    "resize_negative": lambda np_: np_.resize(np.arange(5), (-1,)),
    "rollaxis_start": lambda np_: np_.rollaxis(CUBE, 2, 5),
    "rollaxis_axis": lambda np_: np_.rollaxis(CUBE, 3),
    "insert_list": lambda np_: np_.insert(np.arange(5), [1, 3], 9),
    "insert_float_index": lambda np_: np_.insert(np.arange(5), 1.0, 9),
    "insert_bool_index": lambda np_: np_.insert(np.arange(5), np.array([True, False]), 9),
    "insert_2d_index": lambda np_: np_.insert(np.arange(5), np.array([[1]]), 9),
    "delete_list": lambda np_: np_.delete(np.arange(6), [0, 3]),
    "delete_oob": lambda np_: np_.delete(np.arange(5), 5),
    "delete_bool_shape": lambda np_: np_.delete(np.arange(4), np.array([True, False])),
    "delete_float": lambda np_: np_.delete(np.arange(4), np.array([1.0])),
    "delete_jit": lambda np_: _jit_error(
        np_, lambda n, x, i: n.delete(x, i), np.arange(5.0), np.array([1, 3])
    ),
    "delete_jit_int": lambda np_: _jit_error(
        np_, lambda n, x, i: n.delete(x, i), np.arange(5.0), np.array(2)
    ),
    "choose_oob": lambda np_: np_.choose(np.array([0, 3]), [np.arange(2), np.arange(2)]),
    "choose_float": lambda np_: np_.choose(np.array([0.0]), [np.arange(1)]),
    "choose_mode": lambda np_: np_.choose(np.array([0]), [np.arange(1)], mode="x"),
    "choose_jit": lambda np_: _jit_error(
        np_, lambda n, i: n.choose(i, [np.arange(2), np.arange(2)]), np.array([0, 1])
    ),
    "choose_out": lambda np_: np_.choose(np.array([0]), [np.arange(1)], out=np.zeros(1)),
    "compress_beyond": lambda np_: np_.compress(np.array([0, 1, 0, 1]), A, axis=0),
    "compress_size": lambda np_: np_.compress(np.array([1, 0]), np.arange(6.0), size=7),
    "compress_2d": lambda np_: np_.compress(np.array([[1, 0]]), np.arange(6.0)),
    "compress_jit": lambda np_: _jit_error(
        np_, lambda n, c, x: n.compress(c, x), np.array([1, 0]), np.arange(2.0)
    ),
    "place_inplace": lambda np_: np_.place(A, A > 1, np.array([10.0])),
    "place_size": lambda np_: np_.place(A, np.array([True]), 1.0, inplace=False),
    "place_empty": lambda np_: np_.place(A, A > 1, np.array([]), inplace=False),
    "put_inplace": lambda np_: np_.put(np.zeros(5), np.array([0]), 1.0),
    "put_raise": lambda np_: np_.put(np.zeros(5), np.array([1]), 1.0, mode="raise", inplace=False),
    "put_mode": lambda np_: np_.put(np.zeros(5), np.array([1]), 1.0, mode="x", inplace=False),
    "put_float_index": lambda np_: np_.put(np.zeros(5), np.array([1.0]), 1.0, inplace=False),
    "put_along_axis_float_index": lambda np_: np_.put_along_axis(
        A, np.array([[0.0]]), 1.0, 1, inplace=False
    ),
    "put_along_axis_inplace": lambda np_: np_.put_along_axis(A, np.array([[2], [0]]), 9.0, 1),
    "put_along_axis_ndim": lambda np_: np_.put_along_axis(
        A, np.array([2, 0]), 99.0, axis=1, inplace=False
    ),
    "put_along_axis_values": lambda np_: np_.put_along_axis(
        A, np.array([[2], [0]]), np.array([1.0, 2.0, 3.0]), axis=1, inplace=False
    ),
    "fill_diagonal_inplace": lambda np_: np_.fill_diagonal(np.zeros((3, 3)), 5.0),
    "fill_diagonal_wrap": lambda np_: np_.fill_diagonal(
        np.zeros((5, 2)), 5.0, wrap=True, inplace=False
    ),
    "fill_diagonal_1d": lambda np_: np_.fill_diagonal(np.zeros(3), 5.0, inplace=False),
    "fill_diagonal_3d": lambda np_: np_.fill_diagonal(np.zeros((2, 3, 2)), 5.0, inplace=False),
    "packbits_float": lambda np_: np_.packbits(np.array([1.0])),
    "packbits_order": lambda np_: np_.packbits(np.array([1]), bitorder="x"),
    "unpackbits_int": lambda np_: np_.unpackbits(np.array([7])),
    "unpackbits_order": lambda np_: np_.unpackbits(BYTES, bitorder="middle"),
    "piecewise_count": lambda np_: np_.piecewise(
        np.arange(4.0), [np.arange(4) > 1], [1.0, 2.0, 3.0]
    ),
    "apply_over_axes": lambda np_: np_.apply_over_axes(lambda x, ax: np_.sum(x), CUBE, [0]),
    "vectorize_signature": lambda np_: np_.vectorize(np_.sum, signature="(n)->")(M),
    "vectorize_core_dims": lambda np_: np_.vectorize(np_.sum, signature="(n,m)->()")(X5),
    "vectorize_inconsistent": lambda np_: np_.vectorize(np_.dot, signature="(n),(n)->()")(M, X5),
    "vectorize_outputs": lambda np_: np_.vectorize(lambda x: x, signature="(n)->(n),(n)")(M),
    "vectorize_excluded": lambda np_: np_.vectorize(np_.sum, excluded={-1}),
    "trim_zeros_jit": lambda np_: _jit_error(np_, lambda n, x: n.trim_zeros(x), np.array([0, 1])),
    "r_directive": lambda np_: np_.r_["a,b", np.array([1, 2, 3])],
    "r_late_string": lambda np_: np_.r_[np.array([1, 2, 3]), "r"],
    "mgrid_jit": lambda np_: _jit_error(np_, lambda n, s: n.mgrid[0:s], 3),
    "fromiter": lambda np_: np_.fromiter(iter([1, 2]), dtype=float),
}


def _builtin_type(exc: BaseException) -> type[BaseException]:
    """The most specific built-in class of ``exc`` (JAX's and mj's own classes differ)."""
    return next(c for c in type(exc).__mro__ if getattr(builtins, c.__name__, None) is c)


@pytest.mark.parametrize("name", list(ERROR_CASES))
def test_errors_match_jax(name):
    with pytest.raises(Exception) as jax_error:  # noqa: PT011 (any type: JAX's is the oracle)
        ERROR_CASES[name](jnp)
    expected = _builtin_type(jax_error.value)
    with pytest.raises(expected):
        ERROR_CASES[name](mnp)
