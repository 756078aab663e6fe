"""Fixes found by JAX's own test files on mj (issue 35: ``lax_test``, ``lax_numpy_test``,
``api_test``, ...), each against JAX 0.10.2 in both dtype modes (the ``x64`` fixture)."""

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import mj
import mj.numpy as mnp

pytestmark = pytest.mark.oracle

NARROW_INTS = ("int4", "uint4", "int2", "uint2")
UNARY = ("bitwise_not", "neg", "sign")
BINARY = (
    "add", "sub", "mul", "div", "rem", "max", "min", "shift_left", "shift_right_arithmetic",
    "shift_right_logical", "bitwise_and", "bitwise_or", "bitwise_xor", "eq", "ne", "gt", "ge",
    "lt", "le",
)  # fmt: skip


def _all_pairs(dtype):
    """Every pair of values of the narrow integer ``dtype`` (as two flat arrays)."""
    info = ml_dtypes.iinfo(dtype)
    values = np.arange(info.min, info.max + 1)
    x = np.repeat(values, values.size).astype(dtype)
    y = np.tile(values, values.size).astype(dtype)
    return x, y


def _outcome(fn, *args):
    out = fn(*args)
    return np.dtype(out.dtype).name, np.asarray(out).astype(np.int64).tolist()


@pytest.mark.parametrize("dtype", NARROW_INTS)
@pytest.mark.parametrize("jit", [False, True])
def test_narrow_int_lax_ops_keep_dtype_and_wrap(x64, dtype, jit):
    """lax's arithmetic, shifts, bitwise ops and comparisons on int4/uint4/int2/uint2 give
    JAX's dtype and values for every pair of operands, eager and jitted: eager ``neg``,
    ``sign``, ``max``, the shifts and bitwise ops returned int8 (NumPy's ufuncs compute
    ml_dtypes' narrow integers in int8), the shifts and ``div``/``rem`` by zero read their
    operands' bits as 8-bit ones, and ``jit`` refused the dtypes (lax_test's
    ``test_int4_unary_ops``/``test_int4_binary_ops``)."""
    x, y = _all_pairs(np.dtype(getattr(ml_dtypes, dtype)))
    for name in UNARY + BINARY:
        args = (x,) if name in UNARY else (x, y)
        ours = getattr(mj.lax, name)
        if jit:
            ours = mj.jit(ours)
        assert _outcome(ours, *args) == _outcome(getattr(jax.lax, name), *args), name


@pytest.mark.parametrize("dtype", NARROW_INTS)
def test_narrow_int_iota_and_abs(x64, dtype):
    """``lax.iota`` makes narrow integers (wrapping, as JAX's); ``lax.abs`` refuses them with
    JAX's error (signed ones: narrow integers are not supported; unsigned ones: not a signed
    type), eager and jitted; ``jnp.abs`` of an unsigned one is the value itself."""
    dt = np.dtype(getattr(ml_dtypes, dtype))
    for make in (lambda lax: lax.iota(dt, 20), lambda lax: lax.iota(dt, 5) + lax.iota(dt, 5)):
        ours, theirs = make(mj.lax), make(jax.lax)
        assert ours.dtype == theirs.dtype
        np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))
        jitted = mj.jit(lambda make=make: make(mj.lax))()
        np.testing.assert_array_equal(np.asarray(jitted), np.asarray(theirs))
    x = np.array([1, 0, 1], dt)
    with pytest.raises(TypeError) as theirs_err:
        jax.lax.abs(x)
    expected = str(theirs_err.value)
    for abs_ in (mj.lax.abs, mj.jit(mj.lax.abs)):
        with pytest.raises(TypeError) as ours_err:
            abs_(x)
        assert str(ours_err.value).startswith(expected)
    if dtype.startswith("u"):
        ours, theirs = mnp.abs(x), jnp.abs(x)
        assert ours.dtype == theirs.dtype
        np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))
