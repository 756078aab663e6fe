"""mj.numpy functions JAX computes in an inexact dtype: integer and bool inputs promote to
float first (NumPy's ``reciprocal`` truncates, ``1 // 2 == 0``: JAX gives ``0.5``)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

INPUTS = [
    2,
    True,
    2.5,
    np.int32(4),
    np.uint8(3),
    np.int8(-2),
    np.bool_(True),
    np.array([2, 4, -8], np.int16),
    np.array([1, 2], np.uint32),
    np.float16(0.25),
]


def _same(got, want):
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.weak_type == want.weak_type
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


@pytest.mark.parametrize("name", ["reciprocal", "fabs"])
@pytest.mark.parametrize("x", INPUTS, ids=repr)
def test_integer_inputs_promote_to_float(x64, name, x):
    _same(getattr(mnp, name)(x), getattr(jnp, name)(x))
    _same(mj.jit(getattr(mnp, name))(x), jax.jit(getattr(jnp, name))(x))


def test_fabs_refuses_complex(x64):
    with pytest.raises(TypeError, match="ufunc 'fabs' does not support complex dtypes"):
        jnp.fabs(1j)
    with pytest.raises(TypeError, match="ufunc 'fabs' does not support complex dtypes"):
        mnp.fabs(1j)


NORM_DTYPES = [np.int8, np.uint8, np.int32, np.int64, np.bool_, np.float16]


@pytest.mark.parametrize("dtype", NORM_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize(
    "kwargs", [{}, {"ord": 1}, {"ord": np.inf}, {"ord": "fro", "axis": (0, 1)}], ids=repr
)
def test_norm_of_integers_in_jax_float(x64, dtype, kwargs):
    """``norm`` promotes ints as JAX's ``promote_dtypes_inexact`` (int32 -> float32 also with
    enable_x64), unlike ``vector_norm``."""
    x = np.array([[3, 4], [1, 2]], dtype)
    if "axis" not in kwargs and kwargs:
        x = x[0]
    _same(mnp.linalg.norm(x, **kwargs), jnp.linalg.norm(x, **kwargs))
    _same(
        mnp.linalg.matrix_norm(np.array([[3, 4], [1, 2]], dtype)),
        jnp.linalg.matrix_norm(np.array([[3, 4], [1, 2]], dtype)),
    )
    _same(mnp.linalg.vector_norm(x), jnp.linalg.vector_norm(x))
