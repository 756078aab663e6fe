"""jit(f) equals eager f for every non-elementwise core primitive, and the lowered module
emits the natural StableHLO op."""

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from mj_core import lax
from mj_core.prims.indexing import GatherDimensionNumbers, ScatterDimensionNumbers
from mj_xla import jit

FLOAT_INT_BOOL = [np.float32, np.float64, np.int32, np.bool_]


def _data(rng: np.random.Generator, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        return rng.integers(-9, 10, shape).astype(dtype)
    return rng.normal(size=shape).astype(dtype)


GATHER_ROWS = GatherDimensionNumbers(
    offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,)
)
SCATTER_ROWS = ScatterDimensionNumbers(
    update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
)
# x[b, idx[b]] for b in range(4): operand batching dim 0 paired with index batch dim 0
GATHER_BATCHED = GatherDimensionNumbers(
    offset_dims=(),
    collapsed_slice_dims=(1,),
    start_index_map=(1,),
    operand_batching_dims=(0,),
    start_indices_batching_dims=(0,),
)
ROW_IDX = np.array([[4], [0], [2], [2], [7], [-1]], np.int32)  # includes out-of-bounds rows


def _rows_update_args(r: np.random.Generator, d: Any) -> tuple[Any, ...]:
    """A (5, 3) operand, ``ROW_IDX`` and one update row per index: the scatter cases' args."""
    return _data(r, (5, 3), d), ROW_IDX, _data(r, (6, 3), d)


CASES: dict[str, tuple[Callable[..., Any], Callable[..., tuple[Any, ...]]]] = {
    "broadcast_in_dim": (
        lambda x: lax.broadcast_in_dim(x, (2, 3, 4), (1, 2)),
        lambda r, d: (_data(r, (3, 4), d),),
    ),
    "broadcast_size1": (
        lambda x: lax.broadcast_in_dim(x, (3, 4), (0, 1)),
        lambda r, d: (_data(r, (1, 4), d),),
    ),
    "reshape": (lambda x: lax.reshape(x, (4, 3)), lambda r, d: (_data(r, (3, 4), d),)),
    "transpose": (lambda x: lax.transpose(x, (2, 0, 1)), lambda r, d: (_data(r, (2, 3, 4), d),)),
    "squeeze": (lambda x: lax.squeeze(x, (0, 2)), lambda r, d: (_data(r, (1, 3, 1), d),)),
    "rev": (lambda x: lax.rev(x, (0, 1)), lambda r, d: (_data(r, (3, 4), d),)),
    "concatenate": (
        lambda x, y: lax.concatenate([x, y, x], 1),
        lambda r, d: (_data(r, (2, 3), d), _data(r, (2, 1), d)),
    ),
    "pad": (
        lambda x, v: lax.pad(x, v, ((1, 2, 1), (-1, 0, 0))),
        lambda r, d: (_data(r, (3, 4), d), _data(r, (), d)),
    ),
    "slice": (lambda x: lax.slice(x, (0, 1), (3, 4), (2, 1)), lambda r, d: (_data(r, (3, 4), d),)),
    "dynamic_slice": (
        lambda x, i: lax.dynamic_slice(x, (i, 1), (2, 2)),
        lambda r, d: (_data(r, (4, 5), d), np.int32(3)),  # start 3 is clamped to 2
    ),
    "dynamic_update_slice": (
        lambda x, u, i: lax.dynamic_update_slice(x, u, (i, np.int32(0))),
        lambda r, d: (_data(r, (4, 5), d), _data(r, (2, 3), d), np.int32(1)),
    ),
    "convert_to_f32": (
        lambda x: lax.convert_element_type(x, np.float32),
        lambda r, d: (_data(r, (5,), d),),
    ),
    "convert_to_i32": (
        lambda x: lax.convert_element_type(x, np.int32),
        lambda r, d: (_data(r, (5,), d) * 3,),
    ),
    "convert_to_bool": (
        lambda x: lax.convert_element_type(x, np.bool_),
        lambda r, d: (_data(r, (5,), d),),
    ),
    "reduce_sum": (lambda x: lax.reduce_sum(x, (0, 2)), lambda r, d: (_data(r, (2, 3, 4), d),)),
    "reduce_prod": (lambda x: lax.reduce_prod(x, (1,)), lambda r, d: (_data(r, (2, 3), d),)),
    "reduce_max": (lambda x: lax.reduce_max(x, (1,)), lambda r, d: (_data(r, (3, 4), d),)),
    "reduce_min": (lambda x: lax.reduce_min(x, (0, 1)), lambda r, d: (_data(r, (3, 4), d),)),
    "reduce_and": (lambda x: lax.reduce_and(x, (1,)), lambda r, d: (_data(r, (3, 4), d),)),
    "reduce_or": (lambda x: lax.reduce_or(x, (0,)), lambda r, d: (_data(r, (3, 4), d),)),
    "argmax": (lambda x: lax.argmax(x, 1, np.int32), lambda r, d: (_data(r, (3, 5), d),)),
    "argmin": (lambda x: lax.argmin(x, 0, np.int64), lambda r, d: (_data(r, (3, 5), d),)),
    "cumsum": (lambda x: lax.cumsum(x, 1), lambda r, d: (_data(r, (3, 5), d),)),
    "cumsum_reverse": (
        lambda x: lax.cumsum(x, 0, reverse=True),
        lambda r, d: (_data(r, (3, 5), d),),
    ),
    "cumprod": (lambda x: lax.cumprod(x, 0), lambda r, d: (_data(r, (3, 4), d),)),
    "cummax": (lambda x: lax.cummax(x, 1), lambda r, d: (_data(r, (3, 5), d),)),
    "cummin": (lambda x: lax.cummin(x, 1, reverse=True), lambda r, d: (_data(r, (3, 5), d),)),
    "sort": (lambda x: lax.sort(x, dimension=1), lambda r, d: (_data(r, (3, 6), d),)),
    "sort_key_val": (
        lambda k, v: tuple(lax.sort_key_val(k, v, dimension=0)),
        lambda r, d: (_data(r, (7,), d), np.arange(7, dtype=np.int32)),
    ),
    "dot_general": (
        lambda x, y: lax.dot_general(x, y, (((2,), (1,)), ((0,), (0,)))),
        lambda r, d: (_data(r, (2, 3, 4), d), _data(r, (2, 4, 5), d)),
    ),
    "gather_clip": (
        lambda x, i: lax.gather(x, i, GATHER_ROWS, (1, 3), mode="clip"),
        lambda r, d: (_data(r, (5, 3), d), ROW_IDX),
    ),
    "gather_fill": (
        lambda x, i: lax.gather(x, i, GATHER_ROWS, (1, 3), mode="fill"),
        lambda r, d: (_data(r, (5, 3), d), ROW_IDX),
    ),
    "gather_batched": (
        lambda x, i: lax.gather(x, i, GATHER_BATCHED, (1, 1), mode="clip"),
        lambda r, d: (_data(r, (4, 6), d), np.array([[0], [5], [2], [3]], np.int32)),
    ),
    "scatter": (
        lambda x, i, u: lax.scatter(x, i, u, SCATTER_ROWS, unique_indices=True, mode="fill"),
        lambda r, d: (
            _data(r, (5, 3), d),
            np.array([[4], [0], [9]], np.int32),
            _data(r, (3, 3), d),
        ),
    ),
    "scatter_add_clip": (
        lambda x, i, u: lax.scatter_add(x, i, u, SCATTER_ROWS, mode="clip"),
        _rows_update_args,
    ),
    "scatter_add_fill": (
        lambda x, i, u: lax.scatter_add(x, i, u, SCATTER_ROWS, mode="fill"),
        _rows_update_args,
    ),
    "scatter_mul": (
        lambda x, i, u: lax.scatter_mul(x, i, u, SCATTER_ROWS, mode="fill"),
        _rows_update_args,
    ),
    "scatter_min": (
        lambda x, i, u: lax.scatter_min(x, i, u, SCATTER_ROWS, mode="fill"),
        _rows_update_args,
    ),
    "scatter_max": (
        lambda x, i, u: lax.scatter_max(x, i, u, SCATTER_ROWS, mode="clip"),
        _rows_update_args,
    ),
    "iota": (lambda: lax.broadcasted_iota(np.int32, (3, 4), 1), lambda r, d: ()),
}


def _eager(fun: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    try:
        return fun(*args)
    except (TypeError, ValueError) as err:
        pytest.skip(f"not defined eagerly for these dtypes: {err}")


@pytest.mark.parametrize("dtype", FLOAT_INT_BOOL, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", sorted(CASES))
def test_jit_matches_eager(name, dtype, rng, assert_same):
    fun, make_args = CASES[name]
    args = make_args(rng, dtype)
    want = _eager(fun, args)
    got = jit(fun)(*args)
    if isinstance(want, tuple):
        for g, w in zip(got, want, strict=True):
            assert_same(g, w, rtol=1e-5, atol=1e-5)
    else:
        assert_same(got, want, rtol=1e-5, atol=1e-5)


def test_sort_float_special_values_like_numpy(assert_same):
    x = np.array([3, 1, np.nan, 2, 1, -np.inf, 0.0, -0.0, np.nan], np.float32)
    _, perm = jit(lambda v: lax.sort_key_val(v, np.arange(9, dtype=np.int32)))(x)
    np.testing.assert_array_equal(np.asarray(perm), np.argsort(x, kind="stable"))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_sort_complex_keys_by_real_then_imaginary_part(dtype):
    x = np.array([3 + 1j, 1 + 2j, 1 - 1j, np.nan, 0 + 5j, 1 + 2j, 0 + 4j], dtype)
    order = np.arange(7, dtype=np.int32)
    keys, perm = jit(lambda v: lax.sort_key_val(v, order))(x)
    np.testing.assert_array_equal(np.asarray(perm), np.argsort(x, kind="stable"))
    np.testing.assert_array_equal(np.asarray(keys), np.sort(x))


def test_argmax_first_nan_and_ties(assert_same):
    x = np.array([[1.0, 3.0, 3.0, 0.0], [np.nan, 2.0, np.nan, 5.0]])
    assert_same(jit(lambda v: lax.argmax(v, 1, np.int32))(x), lax.argmax(x, 1, np.int32))


def test_matmul_lowers_to_one_dot_general():
    a = np.ones((3, 4), np.float32)
    b = np.ones((4, 5), np.float32)
    text = jit(lambda x, y: lax.dot(x, y)).lower(a, b).as_text()
    assert text.count("stablehlo.dot_general") == 1


def test_reduction_lowers_to_one_reduce():
    text = jit(lambda x: lax.reduce_sum(x, (0, 1))).lower(np.ones((3, 4))).as_text()
    assert text.count("stablehlo.reduce") == 1


def test_gather_and_scatter_are_the_real_ops():
    x = np.ones((5, 3), np.float32)
    text = jit(lambda v: lax.gather(v, ROW_IDX, GATHER_ROWS, (1, 3), mode="clip")).lower(x)
    assert '"stablehlo.gather"' in text.as_text() or "stablehlo.gather" in text.as_text()
    upd = np.ones((6, 3), np.float32)
    text2 = jit(lambda v: lax.scatter_add(v, ROW_IDX, upd, SCATTER_ROWS)).lower(x).as_text()
    assert "stablehlo.scatter" in text2
