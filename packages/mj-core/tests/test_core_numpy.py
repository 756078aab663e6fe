"""mj_core.numpy vs NumPy: creation, math, reductions, shape ops, products, indexing, .at."""

import numpy as np
import pytest

from mj_core import numpy as mnp
from mj_core.numpy._indexing import IndexUpdateHelper, getitem


def _same(out, want):
    out, want = np.asarray(out), np.asarray(want)
    assert out.shape == want.shape
    assert out.dtype == want.dtype
    if out.dtype.kind in "fc":
        np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-12)
    else:
        np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("zeros", ((2, 3),)),
        ("ones", (4, np.int32)),
        ("full", ((2, 2), 7.5)),
        ("arange", (5,)),
        ("arange", (2, 11, 3)),
        ("arange", (1.0, 2.0, 0.25)),
        ("arange", (5, 0, -2)),
        ("linspace", (0.0, 1.0, 7)),
        ("linspace", (2, 5, 4, False)),
        ("eye", (3, 4, 1)),
        ("identity", (3, np.int32)),
        ("array", ([[1, 2], [3, 4]],)),
        ("array", (3.0,)),
        ("asarray", ([1.0, 2.0], np.float32)),
    ],
)
def test_creation(name, args):
    _same(getattr(mnp, name)(*args), getattr(np, name)(*args))


def test_like_creation():
    x = np.ones((2, 3), np.float32)
    _same(mnp.zeros_like(x), np.zeros_like(x))
    _same(mnp.ones_like(x, dtype=np.int32), np.ones_like(x, dtype=np.int32))
    _same(mnp.full_like(x, 2), np.full_like(x, 2))


UNARY = [
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh",
    "arctanh", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "cbrt",
    "square", "reciprocal", "abs", "negative", "sign", "floor", "ceil", "trunc", "rint",
    "isfinite", "isnan", "isinf", "signbit", "deg2rad", "rad2deg",
]  # fmt: skip
BINARY = [
    "add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "remainder",
    "mod", "fmod", "power", "maximum", "minimum", "arctan2", "hypot", "logaddexp",
    "copysign", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_xor", "fmax", "fmin",
]  # fmt: skip


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", UNARY)
def test_unary_math(name, dtype, rng):
    x = rng.uniform(0.1, 0.9, (3, 4)).astype(dtype) * rng.choice([-1, 1], (3, 4))
    if name in ("log", "log2", "log10", "sqrt"):
        x = np.abs(x)
    _same(getattr(mnp, name)(x), getattr(np, name)(x))


@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
@pytest.mark.parametrize("name", BINARY)
def test_binary_math_broadcasting(name, dtype, rng):
    x = (rng.uniform(-5, 5, (3, 1)) + 0.5).astype(dtype)
    y = (rng.uniform(-5, 5, (4,)) + 0.5).astype(dtype)
    y = np.where(y == 0, 1, y).astype(dtype)
    if name == "power":
        x, y = np.abs(x) + 1, np.abs(y).astype(dtype)
    if name in ("arctan2", "hypot", "logaddexp", "copysign") and dtype == "int32":
        pytest.skip("float-only in this comparison")
    if name in ("divide", "true_divide") and dtype == "int32":
        x, y = x.astype(np.float32), y.astype(np.float32)  # JAX divides int32 in float32
    _same(getattr(mnp, name)(x, y), getattr(np, name)(x, y))
    _same(getattr(mnp, name)(x, 3), getattr(np, name)(x, 3))  # weak Python scalar


def test_int_division_rounding_matches_numpy():
    a = np.array([-7, -6, -1, 0, 1, 6, 7], np.int32)
    for b in (np.int32(3), np.int32(-3)):
        _same(mnp.floor_divide(a, b), np.floor_divide(a, b))
        _same(mnp.remainder(a, b), np.remainder(a, b))
        _same(mnp.true_divide(a, b), np.true_divide(a, b).astype(np.float32))  # JAX: float32
    f = np.array([-7.5, 7.5, -0.5])
    _same(mnp.remainder(f, -2.0), np.remainder(f, -2.0))


def test_where_clip_round_nan_to_num_isclose():
    x = np.array([-2.5, -0.5, 0.5, 1.5, np.nan, np.inf])
    _same(mnp.where(x > 0, x, 0.0), np.where(x > 0, x, 0.0))
    _same(mnp.clip(x, -1, 1), np.clip(x, -1, 1))
    _same(mnp.round(x), np.round(x))
    _same(mnp.round(np.array([1.234, -5.678]), 2), np.round(np.array([1.234, -5.678]), 2))
    _same(mnp.nan_to_num(x), np.nan_to_num(x))
    y = x + 1e-9
    _same(mnp.isclose(x, y), np.isclose(x, y))


@pytest.mark.parametrize("dtype", ["bool", "int32", "float32", "float64"])
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2)], ids=str)
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "mean", "all", "any", "var", "std"])
def test_reductions(name, axis, keepdims, dtype, rand):
    x = rand((2, 3, 4), dtype)
    if name in ("var", "std") and dtype == "bool":
        pytest.skip("NumPy rejects var of bool")
    want = getattr(np, name)(x, axis=axis, keepdims=keepdims)
    if name in ("mean", "var", "std") and dtype in ("bool", "int32"):
        want = np.asarray(want, np.float32)  # JAX's float for 32-bit integers, not NumPy's f64
    _same(getattr(mnp, name)(x, axis=axis, keepdims=keepdims), want)


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_arg_and_cumulative_reductions(axis, rand):
    x = rand((3, 4), np.float32)
    _same(mnp.argmax(x, axis), np.argmax(x, axis))
    _same(mnp.argmin(x, axis, keepdims=True), np.argmin(x, axis, keepdims=True))
    _same(mnp.cumsum(x, axis), np.cumsum(x, axis))
    i = rand((3, 4), np.int32)
    # int32 accumulates in int32 as in JAX (NumPy's is int64)
    _same(mnp.cumsum(i, axis), np.cumsum(i, axis).astype(np.int32))
    _same(mnp.cumprod(i, axis), np.cumprod(i, axis).astype(np.int32))
    _same(mnp.var(x, axis, ddof=1), np.var(x, axis, ddof=1))


def test_reduction_errors():
    with pytest.raises(ValueError, match=r"max.*zero-size"):
        mnp.max(np.zeros((0, 2)), axis=0)
    with pytest.raises(ValueError, match=r"argmax.*empty"):
        mnp.argmax(np.zeros(0))
    with pytest.raises(ValueError, match=r"axis 3 is out of bounds for array of dimension 2"):
        mnp.sum(np.ones((2, 2)), axis=3)
    with pytest.raises(TypeError, match=r"list"):
        mnp.sum([1, 2])


def test_shape_manipulation(rand):
    x = rand((2, 3, 4), np.float64)
    _same(mnp.reshape(x, (4, -1)), np.reshape(x, (4, -1)))
    _same(mnp.ravel(x), np.ravel(x))
    _same(mnp.transpose(x), np.transpose(x))
    _same(mnp.transpose(x, (1, 2, 0)), np.transpose(x, (1, 2, 0)))
    _same(mnp.swapaxes(x, 0, -1), np.swapaxes(x, 0, -1))
    _same(mnp.moveaxis(x, (0, 1), (-1, 0)), np.moveaxis(x, (0, 1), (-1, 0)))
    _same(mnp.expand_dims(x, (0, -1)), np.expand_dims(x, (0, -1)))
    _same(mnp.squeeze(x[:, :1]), np.squeeze(x[:, :1]))
    _same(mnp.concatenate([x, x], axis=1), np.concatenate([x, x], axis=1))
    _same(mnp.concatenate([x, x], axis=None), np.concatenate([x, x], axis=None))
    _same(mnp.stack([x, x], axis=-1), np.stack([x, x], axis=-1))
    _same(mnp.hstack([x[0], x[1]]), np.hstack([x[0], x[1]]))
    _same(mnp.vstack([x[0, 0], x[1, 0]]), np.vstack([x[0, 0], x[1, 0]]))
    _same(mnp.broadcast_to(x[:, :1], (5, 2, 3, 4)), np.broadcast_to(x[:, :1], (5, 2, 3, 4)))
    _same(mnp.flip(x, 1), np.flip(x, 1))
    for got, want in zip(mnp.split(x, [1, 3], axis=2), np.split(x, [1, 3], axis=2), strict=True):
        _same(got, want)
    with pytest.raises(ValueError, match=r"squeeze"):
        mnp.squeeze(x, 0)
    with pytest.raises(ValueError, match=r"stack.*same shape"):
        mnp.stack([x, x[0]])


@pytest.mark.parametrize(
    ("sa", "sb"),
    [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((5, 2, 3), (3, 4)),
     ((5, 2, 3), (5, 3, 4)), ((1, 2, 3), (6, 3, 4)), ((2, 3), (6, 3, 4)),
     ((4, 1, 2, 3), (5, 3, 2))],
)  # fmt: skip
def test_matmul_and_dot(sa, sb, rand):
    a, b = rand(sa, np.float64), rand(sb, np.float32)
    _same(mnp.matmul(a, b), np.matmul(a, b))
    if len(sb) <= 2 or len(sa) <= 2:
        _same(mnp.dot(a, b), np.dot(a, b))


def test_other_products(rand):
    a, b = rand((2, 3, 4), np.float64), rand((4, 3, 5), np.float64)
    _same(mnp.tensordot(a, b, ((1, 2), (1, 0))), np.tensordot(a, b, ((1, 2), (1, 0))))
    _same(
        mnp.tensordot(a, b[:, :, :1].reshape(3, 4), 2),
        np.tensordot(a, b[:, :, :1].reshape(3, 4), 2),
    )
    _same(mnp.inner(a, a), np.inner(a, a))
    _same(mnp.outer(a[0, 0], b[0, 0]), np.outer(a[0, 0], b[0, 0]))
    _same(mnp.vdot(a, a), np.vdot(a, a))
    _same(mnp.dot(2.0, a), np.dot(2.0, a))
    with pytest.raises(ValueError, match=r"matmul"):
        mnp.matmul(np.ones(3), 2.0)


X = np.arange(60.0).reshape(3, 4, 5)
INDICES = [
    1, -1, (1, 2), (slice(None), 2), (slice(1, None), slice(None, None, -2)), (Ellipsis, 1),
    (None, 1, Ellipsis, None), (slice(4, 0, -3), None, 2), (slice(10, 20),), (slice(-10, 2),),
    np.array([0, 2, -1]), [1, 0], (slice(None), [0, 3], [4, 1]), ([[0], [2]], [[1, 2, 3]]),
    ([0, 1], slice(1, 3), [2, 4]), (1, slice(None), [0, -1]), (Ellipsis, [0, 1]),
    (X[:, 0, 0] > 10,), (X[..., 0] > 12,), (None, [2, 0], None, 1), (np.int64(2), 1),
    (slice(None), np.array([], np.int64)), ([[2, 1], [0, 0]],),
]  # fmt: skip


@pytest.mark.parametrize("idx", INDICES, ids=repr)
def test_getitem_matches_numpy(idx):
    _same(getitem(X, idx), X[idx])


def test_getitem_errors_and_clamping():
    # static out-of-bounds ints clamp like JAX's (NumPy would raise IndexError)
    _same(getitem(X, 3), X[2])
    _same(getitem(X, -4), X[0])
    _same(getitem(X, 3, mode="fill", fill_value=-1.0), np.full(X.shape[1:], -1.0))
    with pytest.raises(IndexError, match=r"too many indices"):
        getitem(X, (0, 0, 0, 0))
    with pytest.raises(IndexError, match=r"single ellipsis"):
        getitem(X, (Ellipsis, Ellipsis))
    with pytest.raises(IndexError, match=r"dtype float64"):
        getitem(X, np.array([1.0]))
    _same(getitem(X, np.array([7, -9])), X[[2, 0]])  # array indices clamp, as in JAX
    _same(mnp.take(X, np.array([0, 4]), axis=2), np.take(X, [0, 4], axis=2))
    _same(mnp.take(X, np.array([5, 7])), np.take(X, [5, 7]))


@pytest.mark.parametrize(
    "idx",
    [1, -1, (1, slice(None, None, 2)), (Ellipsis, [0, 4, 0]), (X[..., 0] > 12,), (None, 2)],
    ids=repr,
)
def test_at_updates_match_numpy_in_place_ops(idx):
    vals = np.asarray(X[idx]) * 0 + 100
    at = IndexUpdateHelper(X)
    for method, ufunc in (
        ("set", None),
        ("add", np.add),
        ("multiply", np.multiply),
        ("min", np.minimum),
        ("max", np.maximum),
    ):
        want = X.copy()
        if ufunc is None:
            want[idx] = vals
        else:
            ufunc.at(want, idx, vals)
        _same(getattr(at[idx], method)(vals), want)
    _same(at[idx].get(), X[idx])
    np.testing.assert_array_equal(X, np.arange(60.0).reshape(3, 4, 5))  # unchanged


def test_at_repeated_indices_accumulate_and_out_of_bounds_are_dropped():
    y = np.zeros(5, np.float32)
    at = IndexUpdateHelper(y)
    _same(at[np.array([1, 1, 3])].add(1.0), np.array([0, 2, 0, 1, 0], np.float32))
    _same(at[7].set(9.0), y)
    _same(at[np.array([0, 7])].set(9.0), np.array([9, 0, 0, 0, 0], np.float32))
    _same(at[7].set(9.0, mode="clip"), np.array([0, 0, 0, 0, 9], np.float32))
    _same(at[2].get(mode="fill", fill_value=-1.0), np.float32(0))
    _same(at[np.array([9])].get(mode="fill", fill_value=-1.0), np.array([-1], np.float32))


def test_bfloat16_is_a_float_to_isnan_isinf_signbit_and_sort():
    """bfloat16's NumPy kind is "V": its NaNs and infinities must still be found, and sort
    must put NaN last with -0.0 == 0.0 (stable), as for float32."""
    import ml_dtypes

    from mj_core import lax

    values = [np.nan, 0.0, -np.inf, -0.0, 1.5, -np.nan, np.inf, -1.0, 0.0]
    x = np.array(values, ml_dtypes.bfloat16)
    as32 = np.array(values, np.float32)
    np.testing.assert_array_equal(mnp.isnan(x), np.isnan(as32))
    np.testing.assert_array_equal(mnp.isinf(x), np.isinf(as32))
    np.testing.assert_array_equal(mnp.signbit(x), np.signbit(as32))
    np.testing.assert_array_equal(mnp.signbit(as32), np.signbit(as32))  # -NaN too
    keys, perm = lax.sort_key_val(x, np.arange(x.size), is_stable=True)
    np.testing.assert_array_equal(perm, np.argsort(as32, kind="stable"))
    np.testing.assert_array_equal(np.asarray(keys).astype(np.float32), np.sort(as32))
