"""Elementwise primitives vs NumPy: random inputs, broadcasting, scalars, empty arrays, dtypes."""

import math

import numpy as np
import pytest

from mj_core import bind1, lax
from mj_core._avals import ShapedArray, get_aval, raise_to_shaped
from mj_core.extend import elementwise_out_aval, elementwise_specs


def _erf(x):
    return np.vectorize(math.erf, otypes=[np.result_type(x, np.float16)])(x)


def _lax_div(x, y):
    if np.result_type(x, y).kind in "iu":
        return (np.sign(x) * np.sign(y) * (np.abs(x) // np.abs(y))).astype(np.result_type(x, y))
    return np.true_divide(x, y)


UNARY = {
    "neg": np.negative, "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin,
    "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh,
    "exp": np.exp, "log": np.log, "log1p": np.log1p, "expm1": np.expm1,
    "logistic": lambda x: 1 / (1 + np.exp(-np.asarray(x, np.result_type(x, np.float16)))),
    "sqrt": np.sqrt,
    "rsqrt": lambda x: 1 / np.sqrt(x), "abs": np.abs, "sign": np.sign, "floor": np.floor,
    "ceil": np.ceil, "is_finite": np.isfinite, "not": np.invert, "erf": _erf,
}  # fmt: skip
BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": _lax_div, "rem": np.fmod,
    "pow": np.power, "max": np.maximum, "min": np.minimum, "atan2": np.arctan2,
    "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor, "eq": np.equal,
    "ne": np.not_equal, "less": np.less, "less_equal": np.less_equal, "greater": np.greater,
    "greater_equal": np.greater_equal,
}  # fmt: skip
DTYPES = ["bool", "int32", "int64", "float32", "float64"]
SHAPES = [((3, 4), (3, 4)), ((3, 1), (4,)), ((), (2, 3)), ((0, 3), (3,))]


def _prim(name):
    return getattr(lax, f"{name}_p")


def _valid(name, dtype, nin=1):
    spec = elementwise_specs[_prim(name)]
    return all(np.dtype(dtype).kind in spec.operand_kind(i) for i in range(nin))


def _check(name, args, ref):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        out = np.asarray(bind1(_prim(name), *args))
        want = np.asarray(ref(*args))
    aval = elementwise_out_aval(_prim(name), [raise_to_shaped(get_aval(a)) for a in args])
    assert out.shape == want.shape == aval.shape
    assert out.dtype == aval.dtype
    if out.dtype.kind in "fc":
        tol = 1e-5 if out.dtype in (np.float32, np.complex64) else 1e-12
        np.testing.assert_allclose(out, want.astype(out.dtype), rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(out, want.astype(out.dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_vs_numpy(name, dtype, rand):
    if not _valid(name, dtype):  # the typing rule rejects it, and so does eager evaluation
        with pytest.raises(TypeError, match=f"{name} does not accept dtype"):
            elementwise_out_aval(_prim(name), [ShapedArray((3,), dtype)])
        with pytest.raises(TypeError, match=f"{name} does not accept dtype"):
            bind1(_prim(name), rand((3,), dtype))
        return
    x = rand((3, 4), dtype)
    if name in ("log", "sqrt", "rsqrt", "log1p", "acos", "asin") and x.dtype.kind == "f":
        x = np.abs(x) / 2 + 0.1  # in the domain
    _check(name, (x,), UNARY[name])
    _check(name, (x[:0],), UNARY[name])  # empty


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_vs_numpy_with_broadcasting(name, dtype, shapes, rand):
    if not _valid(name, dtype, 2):
        with pytest.raises(TypeError, match=f"{name} does not accept dtype"):
            elementwise_out_aval(_prim(name), [ShapedArray((2,), dtype)] * 2)
        with pytest.raises(TypeError, match=f"{name} does not accept dtype"):
            bind1(_prim(name), rand((2,), dtype), rand((2,), dtype))
        return
    x = rand(shapes[0], dtype)
    y = rand(shapes[1], dtype)
    if name in ("div", "rem") and np.dtype(dtype).kind in "iu":
        y = np.where(y == 0, 3, y).astype(dtype)
    if name == "pow":
        x = np.abs(x) + (1 if np.dtype(dtype).kind == "f" else 0)
        y = np.abs(y).astype(dtype)
    _check(name, (x, y), BINARY[name])


@pytest.mark.parametrize("name", ["add", "mul", "max", "less", "pow", "atan2"])
def test_python_scalars_are_weak(name):
    x = np.linspace(0.5, 2, 4).astype(np.float32)
    _check(name, (x, 2.0), BINARY[name])
    _check(name, (3.0, x), BINARY[name])
    _check(name, (2.0, 3.0), BINARY[name])


def test_integer_pow_round_shifts_select_clamp():
    x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5])
    np.testing.assert_array_equal(bind1(lax.round_p, x, rounding_method=0), [-3, -2, -1, 1, 2, 3])
    np.testing.assert_array_equal(bind1(lax.round_p, x, rounding_method=1), np.round(x))
    np.testing.assert_allclose(bind1(lax.integer_pow_p, x, y=3), x**3)
    ints = np.array([1, -8, 64], np.int32)
    np.testing.assert_array_equal(bind1(lax.shift_left_p, ints, np.int32(2)), ints << 2)
    np.testing.assert_array_equal(
        bind1(lax.shift_right_logical_p, ints, np.int32(1)),
        (ints.view(np.uint32) >> 1).view(np.int32),
    )
    np.testing.assert_array_equal(bind1(lax.shift_right_arithmetic_p, ints, np.int32(1)), ints >> 1)
    which = np.array([True, False, True])
    np.testing.assert_array_equal(bind1(lax.select_n_p, which, 1.0, np.zeros(3)), [0, 1, 0])
    np.testing.assert_array_equal(
        bind1(lax.select_n_p, np.array([0, 2, 1]), np.zeros(3), np.ones(3), np.full(3, 2.0)),
        [0, 2, 1],
    )
    np.testing.assert_array_equal(
        bind1(lax.clamp_p, 0.0, np.array([-1.0, 0.5, 2.0]), 1.0), [0, 0.5, 1]
    )


def test_shape_error_names_primitive_and_shapes():
    with pytest.raises(TypeError, match=r"mul.*f64\[2,3\].*f64\[4\]"):
        bind1(lax.mul_p, np.ones((2, 3)), np.ones(4))
