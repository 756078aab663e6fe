"""JAX's lattice promotion (in this suite's 64-bit mode): result_type, weak Python scalars, and the
dtypes primitives return."""

import warnings

import ml_dtypes
import numpy as np
import pytest

from mj_core import config, get_aval, lax
from mj_core import numpy as mnp
from mj_core._avals import ConcreteArray, ShapedArray, raise_to_shaped
from mj_core.dtypes import result_type
from mj_core.extend import elementwise_out_aval
from mj_core.lax import add_p

f32, f64, i32, i64, b = (np.dtype(t) for t in ("float32", "float64", "int32", "int64", "bool"))
u8, c64 = np.dtype("uint8"), np.dtype("complex64")


@pytest.mark.parametrize(
    ("operands", "expected"),
    [
        (((f32, False), (f64, True)), (f32, False)),  # f32 array * 2.0
        (((i32, False), (i64, True)), (i32, False)),  # i32 array + 1
        (((i32, False), (f64, True)), (f64, True)),  # i32 array * 1.5: a weak default float
        (((u8, False), (i64, True)), (u8, False)),
        (((f32, False), (i64, False)), (f32, False)),  # strong: JAX's lattice, not NumPy's
        (((i32, False), (i64, False)), (i64, False)),
        (((b, False), (i64, True)), (i64, True)),  # bool array + 1 -> weak default int
        (((i64, True), (f64, True)), (f64, True)),  # two Python scalars stay weak
        (((f32, False), (c64, False)), (c64, False)),
        (((f32, False), (np.dtype("complex128"), True)), (c64, False)),
        (((b, False), (b, False)), (b, False)),
    ],
)
def test_result_type_lattice(operands, expected):
    assert result_type(*operands) == expected


@pytest.mark.parametrize(
    ("x", "y"),
    [
        (np.ones(3, np.float32), 2.0),
        (np.ones(3, np.int32), 2),
        (np.ones(3, np.int32), 2.5),
        (np.ones(3, np.uint8), 3),
        (np.ones(3, np.float32), np.ones(3, np.int64)),  # lattice: float32 (NumPy: float64)
        (np.ones(3, np.int16), np.float32(2)),  # float32 (NumPy: float32 too)
        (np.ones(3, np.int32), np.ones(3, np.float16)),  # float16 (NumPy: float64)
        (np.ones(3, np.uint32), np.ones(3, np.int32)),
        (np.ones(3, bool), 1),
        (np.float32(1), 2.0),
        (2, 2.5),
    ],
)
def test_numpy_level_eager_dtype_is_the_lattice_result(x, y):
    """``mnp.add`` promotes on JAX's lattice eagerly too, whatever NumPy's ufunc would pick."""
    want, _ = result_type(*(mnp_dtype_weak(v) for v in (x, y)))
    out = mnp.add(x, y)
    assert np.asarray(out).dtype == want
    np.testing.assert_allclose(np.asarray(out, np.float64), np.add(x, y, dtype=np.float64))
    assert np.asarray(x + mnp.asarray(y) if np.ndim(y) else out).dtype == want


def mnp_dtype_weak(v):
    aval = get_aval(v)
    return aval.dtype, aval.weak_type


@pytest.mark.parametrize(
    ("x", "y"),
    [
        (np.ones(3, np.float32), np.ones(3, np.float64)),
        (np.ones(3, np.int32), np.ones(3, np.float32)),
        (np.ones(3, np.int32), 2.5),  # a weak float does not fit an int32 operand
    ],
)
def test_lax_never_promotes(x, y):
    """lax's binary operations need one dtype (JAX's TypeError), eagerly and abstractly."""
    with pytest.raises(TypeError, match=r"lax\.add requires arguments to have the same dtypes"):
        lax.add(x, y)
    avals = [raise_to_shaped(get_aval(x)), raise_to_shaped(get_aval(y))]
    with pytest.raises(TypeError, match=np.asarray(x).dtype.name):
        elementwise_out_aval(add_p, avals)


def test_lax_add_refuses_bool_operands():
    """JAX's ``lax.add`` takes numbers only: a bool array is refused at its position (before
    the dtypes are compared), eagerly and abstractly, in JAX's words."""
    x = np.ones(3, bool)
    message = "add does not accept dtype bool at position 0"
    with pytest.raises(TypeError, match=message):
        lax.add(x, 1)
    avals = [raise_to_shaped(get_aval(x)), raise_to_shaped(get_aval(1))]
    with pytest.raises(TypeError, match=message):
        elementwise_out_aval(add_p, avals)


@pytest.mark.parametrize(
    ("x", "y", "dtype"),
    [
        (np.ones(3, np.float32), 2.0, f32),  # a weak operand takes the strong dtype
        (np.ones(3, np.float32), 2, f32),
        (np.ones(3, np.uint8), 3, u8),
        (np.ones(3, np.complex64), 2.0, c64),
        (np.ones(3, np.float32), np.ones(3, np.float32), f32),
    ],
)
def test_lax_weak_operands_take_the_strong_dtype(x, y, dtype):
    out = lax.add(x, y)
    assert np.asarray(out).dtype == dtype
    avals = [raise_to_shaped(get_aval(x)), raise_to_shaped(get_aval(y))]
    assert elementwise_out_aval(add_p, avals).dtype == dtype


def test_lax_pow_takes_an_integer_exponent():
    """JAX's ``lax.pow``: a float base with an integer exponent of any dtype."""
    out = lax.pow(np.full(3, 2.0, np.float32), np.arange(3, dtype=np.int32))
    assert np.asarray(out).dtype == f32
    np.testing.assert_allclose(np.asarray(out), [1.0, 2.0, 4.0])


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int16", "int32", "uint32", "int64"])
def test_float_functions_of_integers_compute_in_jax_float(dtype):
    """JAX's table, not NumPy's: ``sin(int8)`` is float32 (NumPy: float16), ``sin(int32)`` is
    float32 (NumPy: float64), 64-bit integers give float64."""
    want = np.float64 if dtype.endswith("64") else np.float32
    x = np.arange(3).astype(dtype)
    for f in (mnp.sin, mnp.exp, mnp.sqrt, mnp.log1p):
        out = f(x)
        assert np.asarray(out).dtype == want, f
        np.testing.assert_allclose(np.asarray(out), f(x.astype(np.float64)), rtol=1e-6)
    assert np.asarray(mnp.true_divide(x, x)).dtype == want
    assert np.asarray(mnp.arctan2(x, x)).dtype == want


def test_python_scalar_avals_are_weak_except_bool():
    assert get_aval(1.0).weak_type
    assert get_aval(1.0).dtype == f64
    assert get_aval(3).weak_type
    assert get_aval(3).dtype == i64
    assert not get_aval(True).weak_type
    assert not get_aval(np.float32(1)).weak_type
    assert isinstance(get_aval(np.ones(2)), ConcreteArray)


def test_shaped_array_hash_eq_and_str_short():
    a = ShapedArray((3, 4), np.float32)
    assert a == ShapedArray((3, 4), "float32")
    assert hash(a) == hash(ShapedArray((3, 4), f32))
    assert a != ShapedArray((3, 4), np.float32, weak_type=True)
    assert a.str_short() == "f32[3,4]"
    assert ShapedArray((), np.int64, True).str_short() == "i64[]~"
    assert raise_to_shaped(get_aval(np.ones((2,), np.float32))) == ShapedArray((2,), f32)


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("true_divide", (np.arange(3, dtype=np.int64), 2)),
        ("sum", (np.arange(3, dtype=np.int32),)),
        ("sum", (np.array([True, False]),)),
        ("sqrt", (np.arange(3, dtype=np.int16),)),
        ("floor_divide", (np.arange(3, dtype=np.uint8), 2)),
        ("remainder", (np.arange(3, dtype=np.float32), 2.0)),
        ("maximum", (np.arange(3, dtype=np.int8), np.int16(1))),
        ("concatenate", ([np.ones(2, np.float32), np.ones(2, np.int8)],)),
        ("dot", (np.ones(2, np.float32), np.ones(2, np.float64))),
        ("where", (np.array([True, False]), np.float32(1), 2)),
    ],
)
def test_numpy_api_dtypes_match_numpy(name, args):
    out = getattr(mnp, name)(*args)
    assert np.asarray(out).dtype == np.asarray(getattr(np, name)(*args)).dtype


@pytest.mark.parametrize(
    ("name", "dtype", "want"),
    [  # JAX's rules where NumPy's differ: mean in JAX's float, cumsum keeps integer dtypes
        ("mean", np.int32, np.float32),
        ("mean", np.int64, np.float64),
        ("mean", np.bool_, np.float32),
        ("cumsum", np.int32, np.int32),
        ("cumsum", np.int8, np.int8),
        ("cumsum", np.bool_, np.int64),
        ("cumprod", np.uint16, np.uint16),
        ("sum", np.int8, np.int64),
        ("sum", np.uint8, np.uint64),
    ],
)
def test_numpy_api_dtypes_follow_jax_with_x64(name, dtype, want):
    assert np.asarray(getattr(mnp, name)(np.arange(3).astype(dtype))).dtype == want


def test_accumulation_dtypes_without_x64_are_the_32_bit_defaults():
    with config.override("enable_x64", False):
        _check_32_bit_accumulation_dtypes()


def _check_32_bit_accumulation_dtypes() -> None:
    small = np.arange(3, dtype=np.int8)
    assert np.asarray(mnp.sum(small)).dtype == np.int32
    assert np.asarray(mnp.sum(small.astype(np.uint8))).dtype == np.uint32
    assert np.asarray(mnp.cumsum(np.array([True, True]))).dtype == np.int32
    assert np.asarray(mnp.var(small)).dtype == np.float32
    assert np.asarray(mnp.count_nonzero(small)).dtype == np.int32


def test_finfo_iinfo_and_issubdtype_know_the_ml_dtypes_types():
    assert mnp.finfo(ml_dtypes.bfloat16).eps == 2.0**-7
    assert mnp.finfo(np.float32).eps == np.finfo(np.float32).eps
    assert mnp.iinfo(ml_dtypes.int4).max == 7
    for t in (ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn, "bfloat16"):
        assert mnp.issubdtype(t, np.floating)
        assert mnp.issubdtype(t, np.inexact)
        assert mnp.issubdtype(t, np.number)
        assert not mnp.issubdtype(t, np.integer)
        assert not mnp.issubdtype(t, np.float16)
    assert mnp.issubdtype(ml_dtypes.int4, np.signedinteger)
    assert not mnp.issubdtype(ml_dtypes.uint4, np.signedinteger)
    assert mnp.issubdtype(ml_dtypes.uint4, np.unsignedinteger)
    assert mnp.issubdtype(np.float32, np.floating)
    assert not mnp.issubdtype(np.int32, np.floating)


def test_at_updates_warn_where_the_values_do_not_cast_safely():
    with pytest.warns(FutureWarning, match="cannot safely cast value from dtype=float"):
        out = mnp.arange(3).at[0].add(1.5)
    np.testing.assert_array_equal(out, [1, 1, 2])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mnp.arange(3).at[0].set(2)  # a weak int into an int array: safe
        mnp.ones(3, np.float32).at[1].set(2)
