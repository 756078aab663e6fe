"""The eager wrappers' fast path (``binds``, :mod:`mj_core._eager.wrappers`): an EagerArray
operand is read through its plain NumPy data, a Python scalar next to a float32 array through a
cached float32 array.
Each test checks values and dtypes that a wrong shortcut would change."""

import math

import ml_dtypes
import numpy as np
import pytest

import mj_core.numpy as mnp
from mj_core import EagerArray, config, lax
from mj_core._eager.scalars import _FLOAT32_SCALARS_LIMIT
from mj_core._eager.scalars import float32_scalars as _float32_scalars

F32 = np.dtype(np.float32)


@pytest.fixture(autouse=True)
def x32():
    with config.override("enable_x64", False):
        yield


def _eager(values, dtype=np.float32):
    return mnp.sin(mnp.asarray(np.asarray(values, dtype)))


def test_views_numpy_makes_of_eager_arrays_keep_their_layout():
    base = np.linspace(-2.0, 2.0, 12, dtype=np.float32).reshape(3, 4)
    e = mnp.sin(base)
    assert type(e) is EagerArray
    assert type(e._data) is np.ndarray
    s = np.sin(base)
    transposed = np.ndarray.transpose(e)  # a view NumPy makes: its base is the EagerArray
    assert type(transposed) is EagerArray
    assert transposed._data is e
    np.testing.assert_allclose(mnp.cos(transposed), np.cos(s.T), rtol=1e-6)
    np.testing.assert_allclose(mnp.multiply(transposed, transposed), s.T * s.T, rtol=1e-6)
    np.testing.assert_allclose(mnp.add(transposed, 0.5), s.T + 0.5, rtol=1e-6)
    np.testing.assert_allclose(mnp.subtract(1.5, transposed), 1.5 - s.T, rtol=1e-6)
    strided = np.ndarray.__getitem__(e, (slice(None), slice(None, None, 2)))
    assert strided._data is e
    np.testing.assert_allclose(mnp.exp(strided), np.exp(s[:, ::2]), rtol=1e-6)
    owner = np.ndarray.copy(e)  # an EagerArray owning its data: no base
    assert type(owner) is EagerArray
    assert owner._data is None
    np.testing.assert_allclose(mnp.multiply(owner, 2), s * 2, rtol=1e-6)


def test_results_are_read_only_eager_arrays_of_jax_dtypes():
    e = _eager([0.5, 1.0, 2.0])
    for r in (mnp.sin(e), e * e, e + 0.5, 2 * e, 1.0 - e, mnp.sin(np.arange(3, dtype=np.int16))):
        assert type(r) is EagerArray
        assert r.dtype == F32
        assert not np.asarray(r).flags.writeable
    # NumPy's float16 and float64 of integers, and int32 + float32 -> float64, are not JAX's
    assert mnp.sin(np.arange(3, dtype=np.int8)).dtype == F32
    assert mnp.sin(np.arange(3, dtype=np.int32)).dtype == F32
    assert (np.arange(3, dtype=np.int32) + e).dtype == F32
    assert (mnp.ones(3, np.float16) * 2.5).dtype == np.float16
    with pytest.raises(TypeError):
        mnp.sin([np.float32(1.0)])  # a list is no array operand, as in JAX


@pytest.mark.parametrize("scalar", [0.5, -3, 7, 1e-30, 3.0e38, 1e300, -1e300, math.inf, 2**31 - 1])
def test_python_scalars_compute_in_float32_as_numpy_and_jax_do(scalar):
    x = np.array([-2.0, -0.5, 0.0, 1.25, 3.0e38], np.float32)
    e = mnp.sin(x) * 0 + x  # an EagerArray with x's values
    with np.errstate(all="ignore"):
        for got, want in [
            (e + scalar, x + np.float32(scalar)),
            (scalar - e, np.float32(scalar) - x),
            (e * scalar, x * np.float32(scalar)),
            (mnp.maximum(e, scalar), np.maximum(x, np.float32(scalar))),
        ]:
            assert got.dtype == F32
            np.testing.assert_array_equal(np.asarray(got), want)


def test_signed_zeros_and_nan_scalars_are_never_confused():
    e = _eager([0.5, 1.0])
    for _ in range(2):  # the second round would hit a cache entry of the other zero
        for zero in (0.0, -0.0, 0, -0.0):
            got = np.asarray(e * zero)
            assert np.all(np.signbit(got) == (math.copysign(1.0, zero) < 0)), zero
    assert np.all(np.isnan(np.asarray(e + math.nan)))
    assert np.all(np.isnan(np.asarray(e + float("nan"))))
    assert 0.0 not in _float32_scalars
    assert all(k == k for k in _float32_scalars)


def test_the_scalar_cache_stays_bounded():
    e = _eager([1.0])
    for i in range(3 * _FLOAT32_SCALARS_LIMIT):
        value = 1.0 + i / 7
        np.testing.assert_allclose(
            np.asarray(e + value), np.sin(np.float32(1.0)) + np.float32(value)
        )
    assert 0 < len(_float32_scalars) <= _FLOAT32_SCALARS_LIMIT


def test_ints_outside_int32_overflow_as_in_jax():
    e = _eager([1.0, 2.0])
    for big in (2**31, 2**40, -(2**63), 10**39):
        with pytest.raises(OverflowError, match="too large to convert to int32"):
            _ = e + big
        with pytest.raises(OverflowError, match="too large to convert to int32"):
            _ = big * e
    with config.override("enable_x64", True):  # int64 holds it: a weak int into float32
        got = mnp.asarray(np.ones(2, np.float32)) + 2**40
        assert got.dtype == F32
        np.testing.assert_array_equal(np.asarray(got), np.float32(2**40) + 1)


def test_str_of_bfloat16_arrays_prints_values():
    x = mnp.asarray(np.array([1.5, 2.0], ml_dtypes.bfloat16))
    assert str(x) == "[1.5 2]"
    assert str(mnp.ones((2, 2), np.float32)) == "[[1. 1.]\n [1. 1.]]"
    assert f"{x}" == "[1.5 2]"


def test_typing_plans_are_kept_per_operand_signature():
    bf16 = np.dtype(ml_dtypes.bfloat16)
    x = mnp.asarray(np.array([1.5, 2.5], bf16))
    for _ in range(2):  # the second round runs from the kept plans
        assert lax.add(x, 2.0).dtype == bf16
        np.testing.assert_array_equal(np.asarray(lax.add(x, 2), np.float32), [3.5, 4.5])
        with pytest.raises(TypeError, match="add"):
            lax.add(x, np.float32(2.0))  # lax never promotes: an error every time
        with pytest.raises(OverflowError, match="int32"):
            lax.add(x, 2**40)
        assert lax.add(mnp.ones((2, 2), bf16), 1.0).shape == (2, 2)
        assert mnp.where(np.array([True, False]), x, 0.0).dtype == bf16


def test_typing_plans_follow_the_x64_switch():
    pred = np.array([True, False])
    wide = np.array([1.0, 2.0])  # float64: float32 without x64
    assert lax.select(pred, wide, 3.0).dtype == F32
    with config.override("enable_x64", True):
        assert lax.select(pred, wide, 3.0).dtype == np.float64
    assert lax.select(pred, wide, 3.0).dtype == F32


_SAME_DTYPE_BINARY = [
    mnp.add, mnp.subtract, mnp.multiply, mnp.divide, mnp.floor_divide, mnp.remainder, mnp.power,
    mnp.maximum, mnp.minimum, mnp.bitwise_and, mnp.bitwise_or, mnp.bitwise_xor, mnp.left_shift,
    mnp.right_shift,
]  # fmt: skip


@pytest.mark.parametrize("f", _SAME_DTYPE_BINARY, ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.int32, np.float16, np.float32])
@pytest.mark.parametrize("shape", [(), (3,)])
def test_two_eager_arrays_of_one_dtype_give_numpys_values_in_jaxs_dtype(f, dtype, shape):
    """The common case's shortcut (two EagerArrays of one dtype, 0-d ones too, which NumPy
    answers with a scalar) against the general path's answer on the same values as NumPy
    arrays: bool operands of ``divide``/``power``/shifts are where NumPy's dtype is not JAX's."""
    values = np.resize(np.array([3, 1, 2], dtype), shape)
    e = mnp.asarray(values) * mnp.asarray(np.ones(shape, dtype))  # an EagerArray of plain data
    assert type(e) is EagerArray
    assert e.dtype == values.dtype
    try:
        want = f(values, values)  # the general path: NumPy arrays are no EagerArrays
    except TypeError:  # (a bool subtract, a float shift: refused on both paths)
        with pytest.raises(TypeError):
            f(e, e)
        return
    got = f(e, e)
    assert type(got) is EagerArray
    assert got.dtype == want.dtype
    assert got.shape == shape
    assert not np.asarray(got).flags.writeable
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


@pytest.mark.parametrize("shape", [(), (2,)])
def test_unary_and_scalar_shortcuts_of_0d_and_64_bit_arrays(shape):
    x = np.resize(np.array([0.25, 2.0], np.float32), shape)
    e = mnp.asarray(x) * mnp.asarray(np.ones(shape, np.float32))
    for got, want in [(mnp.sin(e), np.sin(x)), (e + 0.5, x + np.float32(0.5)), (e * 3, x * 3)]:
        assert type(got) is EagerArray
        assert (got.dtype, got.shape) == (F32, shape)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
    with config.override("enable_x64", True):  # 64-bit data: eager_result, not the view
        x64 = x.astype(np.float64)
        w = mnp.asarray(x64) * mnp.asarray(np.ones(shape))
        for got, want in [(mnp.exp(w), np.exp(x64)), (w * w, x64 * x64)]:
            assert type(got) is EagerArray
            assert (got.dtype, got.shape) == (np.float64, shape)
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)
            assert not np.asarray(got).flags.writeable


def test_an_integer_operand_of_a_float_valued_function_asks_the_typing_rule_once(monkeypatch):
    """``mnp.sin`` of int32 converts to float32 first (the primitive refuses int32, as JAX's):
    the shortcut remembers the refusal, so the typing rule is not run (and its error not
    built) on every call."""
    from mj_core._primitive import impl_rules

    shortcut = impl_rules.shortcut(lax.sin_p)
    asked = []
    accepts = shortcut.accepts
    monkeypatch.setattr(shortcut, "accepts", lambda d: asked.append(d) or accepts(d))
    monkeypatch.setattr(shortcut, "refused", set())
    monkeypatch.setattr(shortcut, "accepted", set(shortcut.accepted) - {np.dtype(np.int32)})
    x = mnp.asarray(np.arange(4, dtype=np.int32))
    for _ in range(3):
        out = mnp.sin(x)
        assert out.dtype == np.float32
        np.testing.assert_array_equal(out, np.sin(np.arange(4, dtype=np.float32)))
    assert asked.count(np.dtype(np.int32)) == 1
    with pytest.raises(TypeError, match="sin does not accept dtype int32"):
        lax.sin(x)
