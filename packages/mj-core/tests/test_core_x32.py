"""mj-core in its default 32-bit mode (JAX's dtype semantics): default dtypes, narrowing of
64-bit inputs, weak Python scalars on the lattice, explicit 64-bit requests, the x64 switch and
``numpy_rank_promotion``. (The rest of this suite runs with 64-bit types; see conftest.py.)"""

import warnings

import ml_dtypes
import numpy as np
import pytest

from mj_core import config, lax
from mj_core import numpy as mnp
from mj_core.dtypes import (
    TypePromotionError,
    canonical_dtype,
    default_dtype_for_pytype,
    promote_types,
    result_type,
)
from mj_core.extend import get_aval

F32, F64, I32, I64 = (np.dtype(t) for t in ("float32", "float64", "int32", "int64"))


@pytest.fixture(autouse=True)
def x32():
    with config.override("enable_x64", False):
        yield


def test_default_dtypes_are_32_bit():
    assert mnp.ones(3).dtype == F32
    assert mnp.zeros((2, 2)).dtype == F32
    assert mnp.arange(4).dtype == I32
    assert mnp.arange(0.0, 1.0, 0.25).dtype == F32
    assert mnp.array([1.0, 2.0]).dtype == F32
    assert mnp.array([1, 2]).dtype == I32
    assert mnp.array([1j]).dtype == np.complex64
    assert mnp.eye(2).dtype == F32
    assert mnp.linspace(0, 1, 5).dtype == F32
    assert [default_dtype_for_pytype(t) for t in (int, float, complex)] == [
        I32,
        F32,
        np.dtype(np.complex64),
    ]


def test_64_bit_inputs_are_narrowed():
    x = np.linspace(0.0, 1.0, 5)  # float64
    assert mnp.asarray(x).dtype == F32
    assert get_aval(x).dtype == F32
    assert mnp.sin(x).dtype == F32
    assert (mnp.ones(5) + x).dtype == F32
    assert mnp.sum(np.arange(5, dtype=np.int64)).dtype == I32
    np.testing.assert_allclose(mnp.sin(x), np.sin(x), rtol=1e-6)
    assert (mnp.ones(2) * np.float64(2.0)).dtype == F32


def test_python_scalars_are_weak_on_the_lattice():
    x16 = mnp.ones(2, dtype=np.float16)
    assert (x16 * 2.0).dtype == np.float16  # a weak float adopts the array's float type
    assert (mnp.ones(2, dtype=np.int8) + 1).dtype == np.int8
    assert (mnp.ones(2, dtype=np.int8) * 1.5).dtype == F32  # int array * float: default float
    assert (mnp.ones(2, dtype=np.int32) + mnp.ones(2, dtype=np.float32)).dtype == F32
    assert (mnp.ones(2, dtype=np.uint32) + mnp.ones(2, dtype=np.int32)).dtype == I32
    assert mnp.add(2, 3.0).dtype == F32
    assert result_type((F32, False), (F64, True)) == (F32, False)
    assert result_type((I32, False), (F32, True)) == (F32, True)


def test_mode_switch_changes_the_lattice_and_defaults():
    assert promote_types(np.uint32, np.int32) == I32
    with config.override("enable_x64", True):
        assert promote_types(np.uint32, np.int32) == I64
        assert mnp.ones(2).dtype == F64
        assert mnp.asarray(np.ones(2)).dtype == F64
        assert (mnp.ones(2, dtype=np.uint32) + mnp.ones(2, dtype=np.int32)).dtype == I64
    assert mnp.ones(2).dtype == F32


def test_explicit_64_bit_request_warns_and_narrows():
    with pytest.warns(UserWarning, match="Explicitly requested dtype float64 requested in zeros"):
        z = mnp.zeros(2, dtype=np.float64)
    assert z.dtype == F32
    with pytest.warns(UserWarning, match="int64 requested in array is not available"):
        assert mnp.array([1, 2], dtype="int64").dtype == I32
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert mnp.zeros(2, dtype=float).dtype == F32  # Python types are no explicit request
        assert canonical_dtype(np.float64) == F32


def test_python_int_out_of_int32_range_is_an_overflow_error():
    with pytest.raises(OverflowError, match="too large to convert to int32"):
        get_aval(2**40)


def test_bfloat16_arrays():
    x = mnp.asarray(np.array([1.5, 2.25], ml_dtypes.bfloat16))
    assert x.dtype == ml_dtypes.bfloat16
    assert (x * x).dtype == ml_dtypes.bfloat16
    assert (x + mnp.ones(2, dtype=np.float16)).dtype == F32  # bf16 + f16: float32 (lattice)
    np.testing.assert_allclose(np.asarray(mnp.sin(x), np.float32), np.sin([1.5, 2.25]), rtol=1e-2)


def test_float8_does_not_promote_implicitly():
    with pytest.raises(TypePromotionError, match="float8"):
        promote_types(ml_dtypes.float8_e4m3fn, np.float16)


@pytest.mark.parametrize("mode", ["warn", "raise"])
def test_numpy_rank_promotion(mode):
    a, b = mnp.ones(3), mnp.ones((2, 3))
    with config.override("numpy_rank_promotion", mode):
        assert (a + 1.0).shape == (3,)  # scalars are not rank promotion
        assert (a + mnp.ones(())).shape == (3,)
        if mode == "raise":
            with pytest.raises(ValueError, match=r"add on shapes \(3,\) \(2, 3\)"):
                mnp.add(a, b)
        else:
            with pytest.warns(UserWarning, match=r"rank promotion for multiply on shapes"):
                assert mnp.multiply(a, b).shape == (2, 3)
    assert mnp.add(a, b).shape == (2, 3)  # "allow" again: the fast path is back


def test_numpy_rank_promotion_rejects_unknown_modes():
    with pytest.raises(ValueError, match="numpy_rank_promotion must be one of"):
        config.update("numpy_rank_promotion", "sometimes")


def test_lax_refuses_mixed_strong_dtypes_in_non_elementwise_ops():
    with pytest.raises(TypeError, match=r"same dtypes, got float32, int32"):
        lax.concatenate([mnp.ones(2), mnp.ones(2, dtype=np.int32)], 0)
