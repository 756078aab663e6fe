"""lax_test / api_test / nn_test cases of JAX's own test files (issue 35) where mj differed from
JAX 0.10.2, each checked against JAX in both dtype modes (the ``x64`` fixture)."""

import jax
import ml_dtypes
import numpy as np
import pytest

import mj
from mj import lax as mlax

pytestmark = pytest.mark.oracle


def _first_primitive(make_jaxpr, fun, *args):
    return make_jaxpr(fun)(*args).jaxpr.eqns[0].primitive.name


_REDUCE_CASES = [
    ("add", 0),
    ("mul", 1),
    ("max", -np.inf),
    ("min", np.inf),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16])
@pytest.mark.parametrize(("name", "init"), _REDUCE_CASES)
def test_reduce_with_public_lax_op_is_the_monoid_primitive(x64, name, init, dtype):
    """``lax.reduce(x, identity, lax.mul, dims)`` is ``reduce_prod`` in the jaxpr, as in JAX
    (lax_test testReduce): ``mj.lax.mul`` wraps its ``out_dtype`` layer around the checked
    ``mul``, which wraps mj_core's, and only one ``__wrapped__`` level was looked through, so
    the product became a general ``reduce`` with a traced body."""
    x = np.random.RandomState(0).uniform(0.5, 1.5, (3, 4, 5)).astype(dtype)
    init_val = np.asarray(init).astype(dtype)

    def fun(lax):
        return lambda x: lax.reduce(x, init_val, getattr(lax, name), (0, 2))

    want = _first_primitive(jax.make_jaxpr, fun(jax.lax), x)
    assert _first_primitive(mj.make_jaxpr, fun(mlax), x) == want
    got, exp = np.asarray(mj.jit(fun(mlax))(x)), np.asarray(fun(jax.lax)(x))
    assert got.dtype == exp.dtype
    np.testing.assert_allclose(got.astype(np.float32), exp.astype(np.float32), rtol=2e-2)


@pytest.mark.parametrize(("name", "init"), [("add", 0), ("max", -np.inf), ("min", np.inf)])
def test_reduce_window_with_public_lax_op_is_the_monoid_primitive(x64, name, init):
    x = np.random.RandomState(1).randn(4, 6).astype(np.float32)
    init_val = np.asarray(init, np.float32)

    def fun(lax):
        return lambda x: lax.reduce_window(x, init_val, getattr(lax, name), (2, 2), (1, 2), "SAME")

    want = _first_primitive(jax.make_jaxpr, fun(jax.lax), x)
    assert _first_primitive(mj.make_jaxpr, fun(mlax), x) == want
    np.testing.assert_allclose(np.asarray(fun(mlax)(x)), np.asarray(fun(jax.lax)(x)), rtol=1e-6)


@pytest.mark.parametrize("strides", [[1], [1, 1, 1]])
@pytest.mark.parametrize("padding", ["SAME", [(0, 0), (0, 0)]])
def test_conv_window_strides_length_error_is_jaxs(x64, strides, padding):
    """A ``window_strides`` of the wrong length is JAX's ValueError with JAX's wording
    (lax_test test_window_strides_dimension_shape_rule; mj raised a TypeError)."""
    lhs, rhs = np.zeros((1, 1, 3, 3), np.float32), np.zeros((1, 1, 1, 1), np.float32)
    with pytest.raises(ValueError, match="window_strides") as got:
        mlax.conv_general_dilated(lhs, rhs, strides, padding)
    if padding != "SAME" or len(strides) < 2:  # (JAX's 'SAME' with 3 strides: NumPy's error)
        with pytest.raises(ValueError, match="window") as want:
            jax.lax.conv_general_dilated(lhs, rhs, strides, padding)
        assert str(got.value).startswith(str(want.value))
    with pytest.raises(ValueError, match="window and window_strides must have the same"):
        mj.jit(lambda a: mlax.conv(a, rhs, strides, "SAME"))(lhs)


def test_conv_rhs_dilation_length_error_is_a_value_error(x64):
    lhs, rhs = np.zeros((1, 1, 3, 3), np.float32), np.zeros((1, 1, 1, 1), np.float32)
    with pytest.raises(ValueError, match="window-dilation factors"):
        jax.lax.conv_general_dilated(lhs, rhs, (1, 1), "SAME", rhs_dilation=(1,))
    with pytest.raises(ValueError, match="rhs_dilation"):
        mlax.conv_general_dilated(lhs, rhs, (1, 1), "SAME", rhs_dilation=(1,))
