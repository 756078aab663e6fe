"""A Python int beside an integer array converts as in JAX: first checked against the default
integer type (int32, or int64 with x64: OverflowError outside it), then cast to the array's
dtype, wrapping (``uint8 + 300`` adds 44). NumPy raises (arithmetic) or compares exactly."""

import numpy as np
import pytest

import mj_core.numpy as mnp
from mj_core import config


def _wrapped(value, dtype):
    return np.asarray(value).astype(dtype)  # C-style wrap of the int64 value


@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "uint16", "uint32"])
@pytest.mark.parametrize("scalar", [300, -1, -200, 70000, 2**31 - 1])
def test_weak_int_wraps_into_the_array_dtype(x64, dtype, scalar):
    values = np.array([0, 1, 2, 44], dtype)
    s = _wrapped(scalar, dtype)
    with config.override("enable_x64", x64):
        x = mnp.asarray(values)
        cases = {
            "add": (mnp.add(x, scalar), values + s),
            "radd": (scalar + x, s + values),
            "subtract": (x - scalar, values - s),
            "multiply": (mnp.multiply(x, scalar), values * s),
            "maximum": (mnp.maximum(x, scalar), np.maximum(values, s)),
            "equal": (x == scalar, values == s),
            "less": (x < scalar, values < s),
            "clip": (mnp.clip(x, 0, scalar), np.minimum(np.maximum(values, 0), s)),
            "where": (mnp.where(x > 1, x, scalar), np.where(values > 1, values, s)),
            "full": (mnp.full(3, scalar, dtype), np.full(3, s)),
        }
        for name, (got, want) in cases.items():
            assert np.asarray(got).dtype == want.dtype, name
            np.testing.assert_array_equal(np.asarray(got), want, err_msg=name)


@pytest.mark.parametrize("dtype", ["uint8", "int16", "uint32", "float16"])
@pytest.mark.parametrize("scalar", [2**31, -(2**31) - 1, 2**40])
def test_int_outside_the_default_int_type_overflows(dtype, scalar):
    with config.override("enable_x64", False):
        x = mnp.asarray(np.array([1, 2], dtype))
        for op in (lambda: x + scalar, lambda: scalar * x, lambda: x == scalar, lambda: x < scalar):
            with pytest.raises(OverflowError):
                op()


def test_int_within_int64_is_taken_with_x64():
    with config.override("enable_x64", True):
        x = mnp.asarray(np.array([1, 2], np.uint32))
        got = x + 2**31
        assert np.asarray(got).dtype == np.uint32
        np.testing.assert_array_equal(np.asarray(got), np.array([2**31 + 1, 2**31 + 2], np.uint32))
        with pytest.raises(OverflowError):
            mnp.asarray(np.array([1], np.uint64)) + 2**63


def test_explicit_fill_values_wrap_from_int64():
    with config.override("enable_x64", False):
        np.testing.assert_array_equal(
            np.asarray(mnp.full(2, 2**31, np.uint8)), np.zeros(2, np.uint8)
        )
