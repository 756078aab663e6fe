"""Structural primitives and conversions vs NumPy, incl. empty arrays, dtypes and errors."""

import numpy as np
import pytest

from mj_core import bind1, lax
from mj_core.errors import AxisError

DTYPES = ["bool", "int32", "int64", "float32", "float64"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_broadcast_in_dim(dtype, rand):
    x = rand((3, 1), dtype)
    out = lax.broadcast_in_dim(x, (2, 3, 4), (1, 2))
    assert out.dtype == x.dtype
    np.testing.assert_array_equal(out, np.broadcast_to(x[None], (2, 3, 4)))
    np.testing.assert_array_equal(lax.broadcast(x, (5,)), np.broadcast_to(x, (5, 3, 1)))
    np.testing.assert_array_equal(lax.broadcast_in_dim(2.0, (0, 2), ()), np.zeros((0, 2)))


@pytest.mark.parametrize(
    ("shape", "target", "dims"),
    [((3,), (3, 4), (1,)), ((3,), (3,), ()), ((2, 3), (3, 2), (1, 0)), ((3,), (-1,), (0,))],
)
def test_broadcast_errors(shape, target, dims):
    with pytest.raises(TypeError, match=r"broadcast.*f64\[" + ",".join(map(str, shape))):
        bind1(lax.broadcast_p, np.ones(shape), shape=target, broadcast_dimensions=dims)


@pytest.mark.parametrize("dtype", DTYPES)
def test_reshape_transpose_squeeze_rev(dtype, rand):
    x = rand((2, 3, 1, 4), dtype)
    np.testing.assert_array_equal(lax.reshape(x, (6, 4)), x.reshape(6, 4))
    np.testing.assert_array_equal(
        lax.reshape(x, (4, 6), dimensions=(3, 0, 1, 2)), x.transpose(3, 0, 1, 2).reshape(4, 6)
    )
    np.testing.assert_array_equal(lax.transpose(x, (3, 1, 0, 2)), x.transpose(3, 1, 0, 2))
    np.testing.assert_array_equal(lax.squeeze(x, (-2,)), x[:, :, 0])
    np.testing.assert_array_equal(lax.rev(x, (0, 3)), x[::-1, :, :, ::-1])
    empty = rand((0, 3), dtype)
    assert lax.reshape(empty, (3, 0, 5)).shape == (3, 0, 5)
    assert lax.transpose(empty, (1, 0)).shape == (3, 0)


def test_structural_param_errors():
    x = np.ones((2, 3))
    with pytest.raises(TypeError, match=r"reshape.*6 elements.*f64\[2,3\]"):
        bind1(lax.reshape_p, x, new_sizes=(4,))
    with pytest.raises(ValueError, match=r"transpose"):
        bind1(lax.transpose_p, x, permutation=(0, 0))
    with pytest.raises(TypeError, match=r"squeeze: cannot select an axis to squeeze out"):
        bind1(lax.squeeze_p, x, dimensions=(0,))
    with pytest.raises(AxisError, match=r"rev"):
        bind1(lax.rev_p, x, dimensions=(2,))
    with pytest.raises(ValueError, match=r"squeeze.*axis 5"):
        lax.squeeze(x, (5,))  # the wrapper checks user axes
    with pytest.raises(TypeError, match=r"concatenate.*f64\[2,3\], f64\[3,3\]"):
        lax.concatenate([x, np.ones((3, 3))], 1)
    with pytest.raises(TypeError, match=r"concatenate.*same dtype"):
        lax.concatenate([x, np.ones((2, 3), np.float32)], 0)


@pytest.mark.parametrize("dtype", DTYPES)
def test_concatenate(dtype, rand):
    xs = [rand((2, n), dtype) for n in (1, 0, 3)]
    np.testing.assert_array_equal(lax.concatenate(xs, 1), np.concatenate(xs, 1))
    np.testing.assert_array_equal(lax.concatenate(xs, -1), np.concatenate(xs, 1))


def _pad_reference(x, value, config):
    """Interior padding by hand, then np.pad for lo/hi (negative lo/hi crop)."""
    for axis, (lo, hi, interior) in enumerate(config):
        n = x.shape[axis]
        if interior and n > 1:
            shape = list(x.shape)
            shape[axis] = n + (n - 1) * interior
            grown = np.full(shape, value, x.dtype)
            idx = [slice(None)] * x.ndim
            idx[axis] = slice(None, None, interior + 1)
            grown[tuple(idx)] = x
            x = grown
        widths = [(0, 0)] * x.ndim
        widths[axis] = (max(lo, 0), max(hi, 0))
        x = np.pad(x, widths, constant_values=value)
        idx = [slice(None)] * x.ndim
        idx[axis] = slice(max(-lo, 0), x.shape[axis] - max(-hi, 0))
        x = x[tuple(idx)]
    return x


@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
@pytest.mark.parametrize(
    "config",
    [
        ((1, 2, 0), (0, 0, 0)),
        ((0, 0, 2), (1, 1, 1)),
        ((-1, 2, 1), (2, -3, 0)),
        ((0, 0, 0), (-4, 0, 0)),
    ],
)
def test_pad(dtype, config, rand):
    x = rand((3, 4), dtype)
    out = lax.pad(x, 7, config)  # a Python scalar adopts the array's dtype
    assert out.dtype == x.dtype
    np.testing.assert_array_equal(out, _pad_reference(x, np.array(7, dtype), config))


def test_pad_errors():
    with pytest.raises(TypeError, match=r"pad: Dimension size after padding is not at least 0"):
        lax.pad(np.ones(3), 0.0, [(-2, -2, 0)])
    with pytest.raises(TypeError, match=r"pad.*Python scalar"):
        lax.pad(np.ones(3, np.int32), 0.5, [(1, 1, 0)])
    with pytest.raises(TypeError, match=r"pad.*scalar"):
        lax.pad(np.ones(3), np.ones(2), [(1, 1, 0)])


@pytest.mark.parametrize("dtype", DTYPES)
def test_slice(dtype, rand):
    x = rand((5, 6), dtype)
    np.testing.assert_array_equal(lax.slice(x, (1, 0), (4, 6), (2, 3)), x[1:4:2, 0:6:3])
    np.testing.assert_array_equal(lax.slice(x, (2, 2), (2, 5)), x[2:2, 2:5])
    np.testing.assert_array_equal(lax.slice_in_dim(x, -3, None, 1, axis=0), x[-3:])
    np.testing.assert_array_equal(lax.index_in_dim(x, -1, 1, keepdims=False), x[:, -1])
    with pytest.raises(TypeError, match=r"slice.*start_indices.*f64\[5,6\]"):
        lax.slice(x.astype(np.float64), (0, 0), (6, 6))


@pytest.mark.parametrize("dtype", DTYPES)
def test_dynamic_slice_clamps_like_xla(dtype, rand):
    x = rand((5, 6), dtype)
    np.testing.assert_array_equal(lax.dynamic_slice(x, (1, 2), (2, 3)), x[1:3, 2:5])
    np.testing.assert_array_equal(lax.dynamic_slice(x, (np.int32(4), -7), (2, 3)), x[3:5, 0:3])
    np.testing.assert_array_equal(lax.dynamic_index_in_dim(x, 9, 1, False), x[:, 5])
    upd = rand((2, 2), dtype)
    expected = x.copy()
    expected[3:5, 4:6] = upd
    out = lax.dynamic_update_slice(x, upd, (np.int64(10), 5))
    np.testing.assert_array_equal(out, expected)
    assert out.dtype == x.dtype
    np.testing.assert_array_equal(x, x.copy())  # the operand is not modified


def test_dynamic_slice_errors():
    with pytest.raises(TypeError, match=r"dynamic_slice.*integer scalars"):
        lax.dynamic_slice(np.ones((3,)), (1.0,), (2,))
    with pytest.raises(TypeError, match=r"dynamic_slice.*fit"):
        lax.dynamic_slice(np.ones((3,)), (0,), (4,))
    with pytest.raises(TypeError, match=r"dynamic_update_slice.*fit"):
        lax.dynamic_update_slice(np.ones((3,)), np.ones(4), (0,))


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
def test_iota(dtype):
    out = lax.broadcasted_iota(dtype, (2, 3), 1)
    assert out.dtype == dtype
    np.testing.assert_array_equal(out, np.broadcast_to(np.arange(3), (2, 3)))
    np.testing.assert_array_equal(lax.iota(dtype, 0), np.zeros(0))
    with pytest.raises(ValueError, match=r"iota"):
        lax.broadcasted_iota(dtype, (2, 3), 2)


@pytest.mark.parametrize("src", DTYPES)
@pytest.mark.parametrize("dst", DTYPES)
def test_convert_element_type_matches_numpy_in_range(src, dst, rand):
    x = rand((4, 3), src)
    out = lax.convert_element_type(x, dst)
    assert out.dtype == np.dtype(dst)
    np.testing.assert_array_equal(out, x.astype(dst))


def test_convert_float_to_int_saturates_and_nan_is_zero():
    x = np.array([np.nan, 1e30, -1e30, np.inf, -2.7, 2.7])
    np.testing.assert_array_equal(
        lax.convert_element_type(x, np.int32), [0, 2**31 - 1, -(2**31), 2**31 - 1, -2, 2]
    )
    np.testing.assert_array_equal(
        lax.convert_element_type(np.array([1e300]), np.int64), [np.iinfo(np.int64).max]
    )
    np.testing.assert_array_equal(lax.convert_element_type(np.array([1 + 2j]), np.float64), [1.0])


def test_convert_element_type_weak_param():
    out = bind1(lax.convert_element_type_p, 1, new_dtype=np.dtype(np.float32), weak_type=True)
    assert out.dtype == np.float32


def test_bitcast_convert_type():
    x = np.array([1.0, -2.5], np.float32)
    np.testing.assert_array_equal(lax.bitcast_convert_type(x, np.int32), x.view(np.int32))
    halves = lax.bitcast_convert_type(x, np.uint16)
    assert halves.shape == (2, 2)
    np.testing.assert_array_equal(halves.reshape(-1), x.view(np.uint16))
    np.testing.assert_array_equal(lax.bitcast_convert_type(halves, np.float32), x)
    assert lax.bitcast_convert_type(np.float64(1.0), np.uint32).shape == (2,)
    with pytest.raises(TypeError, match=r"bitcast_convert_type.*last dimension of size 2"):
        lax.bitcast_convert_type(np.ones(3, np.float32), np.float64)


@pytest.mark.parametrize("start", [-2, -1, -7, 7, np.int32(-2), np.array(-1, np.int32)])
def test_dynamic_slice_negative_starts_count_from_the_end(start):
    # as JAX's lax.dynamic_slice / dynamic_update_slice: a negative start is wrapped (i + n),
    # then the window is clamped into the array
    x = np.arange(5.0)
    n = 5
    i = int(start)
    first = min(max(i + n if i < 0 else i, 0), n - 2)
    np.testing.assert_array_equal(lax.dynamic_slice(x, (start,), (2,)), x[first : first + 2])
    expected = x.copy()
    expected[first : first + 2] = -1.0
    np.testing.assert_array_equal(lax.dynamic_update_slice(x, np.full(2, -1.0), (start,)), expected)
