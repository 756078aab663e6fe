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


def _error(fn):
    """``(type name, message)`` of what ``fn()`` raises (mj's message: JAX's text first, then
    mj's context, the user's line)."""
    try:
        fn()
    except Exception as e:  # the class and the leading text are the contract
        return type(e).__name__, str(e)
    return None


def _same_error(ours, theirs):
    """mj raised JAX's exception class with JAX's message at its start."""
    o, t = _error(ours), _error(theirs)
    assert t is not None
    assert o is not None, f"JAX raises {t}, mj returns"
    # (JAX's message up to its final period; JAX quotes the type in some of its messages)
    expected = t[1].split("\n")[0].rstrip(".").replace("'<class", "<class").replace(">' is", "> is")
    assert o[0] == t[0], (o, t)
    assert o[1].startswith(expected), (o, t)


class _Slots:
    __slots__ = ()

    def __call__(self, x):
        return x + 1


JAX_RAISES = {
    "argmax_negative_axis": lambda m: m.lax.argmax(np.ones((2, 3)), -1, np.int32),
    "argmin_axis_out_of_range": lambda m: m.lax.argmin(np.ones((2, 3)), 2, np.int32),
    "argmax_negative_axis_jit": lambda m: m.jit(
        lambda x: m.lax.argmax(x, axis=-1, index_dtype=np.int32)
    )(np.ones((2, 3))),
    "contains_0d": lambda m: 1 in m.numpy.array(1),
    "contains_array_query": lambda m: m.numpy.arange(2) in m.numpy.arange(2),
    "contains_str": lambda m: "abc" in m.numpy.arange(2),
    "contains_none": lambda m: None in m.numpy.arange(2),
    "top_k_int32_overflow": lambda m: m.eval_shape(
        lambda x: m.lax.top_k(x, 100), m.ShapeDtypeStruct((2**31 + 1,), np.float32)
    ),
    "dynamic_slice_mixed_indices": lambda m: m.lax.dynamic_slice(
        np.ones((3, 4), np.float32), (np.int32(1), np.int16(2)), (2, 2)
    ),
    "dynamic_slice_int_and_int32": lambda m: m.jit(
        lambda i: m.lax.dynamic_slice(np.ones((3, 4), np.float32), (0, i), (2, 2))
    )(np.int16(1)),
    "dynamic_update_slice_mixed_indices": lambda m: m.lax.dynamic_update_slice(
        np.ones((3, 4), np.float32), np.zeros((2, 2), np.float32), (np.int32(1), np.int16(2))
    ),
    "dot_positional_precision": lambda m: m.lax.dot(
        np.arange(5.0), np.arange(5.0), m.lax.Precision.DEFAULT
    ),
    "shape_dtype_struct_dtype_none": lambda m: m.ShapeDtypeStruct(shape=(), dtype=None),
    "shape_dtype_struct_scalar_len": lambda m: len(m.ShapeDtypeStruct((), np.float32)),
    "linearize_int_tangent_for_float": lambda m: m.linearize(lambda x: x, 1.0)[1](1),
    "linearize_int_tangent_for_int": lambda m: m.linearize(lambda x: x, np.ones(2, np.int32))[1](
        np.ones(2, np.int32)
    ),
    "linearize_tangent_shape": lambda m: m.linearize(lambda x: x * 2, np.ones(3))[1](
        np.ones((3, 2))
    ),
    "jit_of_unreferenceable_callable": lambda m: m.jit(_Slots())(3),
    "stop_gradient_of_function": lambda m: m.lax.stop_gradient(lambda x: x),
    "stop_gradient_of_str_leaf": lambda m: m.lax.stop_gradient({"a": "foo"}),
    "grad_of_str": lambda m: m.grad(lambda x: x)("foo"),
    "pmap_in_axes_bool": lambda m: m.pmap(lambda x: x, in_axes=False)(np.zeros(1)),
    "pmap_out_axes_float": lambda m: m.pmap(lambda x: x, out_axes=0.0)(np.zeros(1)),
}


@pytest.mark.parametrize("case", sorted(JAX_RAISES))
def test_jax_raises_and_so_does_mj(x64, case):
    """Calls JAX refuses, which mj answered with a value (lax_test, lax_numpy_test, api_test,
    lax_autodiff_test): lax.argmax/argmin of a negative axis (mj counted it from the end),
    ``x in array`` of a 0-d array, an array query, a string or None (NumPy's ``in``), top_k
    past int32 indices (they wrapped), dynamic_slice/dynamic_update_slice with start indices
    of several dtypes, lax.dot's precision given positionally, ShapeDtypeStruct(dtype=None)
    (float64) and len() of a 0-d one, linearize's f_jvp of a tangent of another dtype or
    shape, jit of a callable that cannot be weakly referenced, stop_gradient of a function,
    pmap's in_axes/out_axes of a non-int leaf (False mapped axis 0): JAX's exception class,
    with JAX's message first."""
    make = JAX_RAISES[case]
    _same_error(lambda: make(mj), lambda: make(jax))


def test_allowed_neighbours_still_compute(x64):
    """What the new checks must not refuse, as JAX: argmax's last axis counted from 0,
    ``in`` of a scalar in a 1-D array, start indices of one dtype (Python ints with an array
    index of the default integer type), keyword precision, linearize's matching tangent."""
    for make in (
        lambda m: m.lax.argmax(np.array([[1.0, 3.0, 2.0]]), 1, np.int32),
        lambda m: m.numpy.array([1 in m.numpy.arange(4), 100 in m.numpy.arange(4)]),
        lambda m: m.numpy.array([2.0 in m.numpy.arange(3), np.float32(2) in m.numpy.arange(3)]),
        lambda m: m.lax.dynamic_slice(np.arange(12.0).reshape(3, 4), (1, 2), (2, 2)),
        lambda m: m.jit(
            lambda i: m.lax.dynamic_slice(np.arange(12.0).reshape(3, 4), (i, 1), (2, 2))
        )(m.numpy.asarray(1)),
        lambda m: m.lax.dot(np.arange(3.0), np.arange(3.0), precision=m.lax.Precision.HIGHEST),
        lambda m: m.linearize(lambda x: x * 2, np.ones(3))[1](np.arange(3.0)),
        lambda m: m.pmap(lambda x, y: x + y, in_axes=(0, None))(np.zeros(1), 2.0),
    ):
        ours, theirs = make(mj), make(jax)
        assert np.asarray(ours).dtype == np.asarray(theirs).dtype
        np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))
