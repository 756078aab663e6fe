"""lax operations that leave their operand's value as it is return an mj array, as JAX's
return a ``jax.Array`` (found by typing the lax wrappers ``-> Array``).

``lax.reshape(3.0, ())`` and the other identity-like wrappers (a transpose by the identity, an
empty squeeze/rev, a broadcast to the own shape) returned the Python float itself; a
one-operand ``lax.concatenate`` returned the caller's NumPy array (float64/int64 without x64).
JAX gives a weakly typed 0-d array for a Python scalar and the canonical array for NumPy data.
"""

import jax
import jax.lax as jlax
import numpy as np
import pytest

import mj
import mj.lax as mlax

pytestmark = pytest.mark.oracle

# name -> f(lax_namespace): the same program for JAX and mj
CASES = {
    "reshape(3.0, ())": lambda lax: lax.reshape(3.0, ()),
    "reshape(2, ())": lambda lax: lax.reshape(2, ()),
    "reshape(True, ())": lambda lax: lax.reshape(True, ()),
    "reshape(1j, ())": lambda lax: lax.reshape(1j, ()),
    "transpose(3.0, ())": lambda lax: lax.transpose(3.0, ()),
    "squeeze(3.0, ())": lambda lax: lax.squeeze(3.0, ()),
    "rev(3.0, ())": lambda lax: lax.rev(3.0, ()),
    "broadcast_in_dim(3.0, (), ())": lambda lax: lax.broadcast_in_dim(3.0, (), ()),
    "expand_dims(3.0, ()) (no new axis)": lambda lax: lax.expand_dims(3.0, ()),
    "concatenate([float64 data])": lambda lax: lax.concatenate([np.array([0.1, 1.7])], 0),
    "concatenate([int64 data])": lambda lax: lax.concatenate([np.array([3, 2**40 + 5])], 0),
    "concatenate([float32 data])": lambda lax: lax.concatenate([np.ones(2, np.float32)], 0),
    "concatenate([3.0])": lambda lax: lax.concatenate([np.float64(3.0)[None]], 0),
    "reshape(float64 data, own shape)": lambda lax: lax.reshape(np.array([0.1, 1.7]), (2,)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_identity_like_lax_operations_return_arrays_as_jax(x64, name):
    f = CASES[name]
    want = f(jlax)
    assert isinstance(want, jax.Array)
    for got in (f(mlax), mj.jit(lambda: f(mlax))()):
        assert isinstance(got, mj.Array), type(got)
        assert not isinstance(got, float | int | complex | bool)
        assert got.dtype == want.dtype
        assert got.weak_type == want.weak_type
        assert got.shape == want.shape
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_one_operand_concatenate_does_not_return_the_callers_array(x64):
    data = np.array([0.1, 1.7])
    got = mlax.concatenate([data], 0)
    assert got is not data
    data[0] = 5.0  # a later write by the caller does not reach the result
    assert float(np.asarray(got)[0]) == pytest.approx(0.1, rel=1e-6)


# NumPy-level functions that return their operand's value as it is: mj returned the Python
# scalar (or the NumPy scalar) itself for these; JAX returns an array.
NUMPY_CASES = {
    "positive(3.0)": lambda np_: np_.positive(3.0),
    "real(3.0)": lambda np_: np_.real(3.0),
    "conj(3.0)": lambda np_: np_.conj(3.0),
    "conjugate(2)": lambda np_: np_.conjugate(2),
    "abs(True)": lambda np_: np_.abs(True),
    "reshape(3.0, ())": lambda np_: np_.reshape(3.0, ()),
    "squeeze(3.0)": lambda np_: np_.squeeze(3.0),
    "transpose(3.0)": lambda np_: np_.transpose(3.0),
    "round(2)": lambda np_: np_.round(2),
    "floor(2)": lambda np_: np_.floor(2),
    "ceil(2)": lambda np_: np_.ceil(2),
    "floor(int64 scalar)": lambda np_: np_.floor(np.int64(2**40 + 3)),
    "ceil(int64 scalar)": lambda np_: np_.ceil(np.int64(2)),
    "trunc(2)": lambda np_: np_.trunc(2),
    "nan_to_num(2)": lambda np_: np_.nan_to_num(2),
    "broadcast_to(3.0, ())": lambda np_: np_.broadcast_to(3.0, ()),
    "clip(2)": lambda np_: np_.clip(2),
    "clip(2.5, max=None)": lambda np_: np_.clip(2.5, None, None),
}


@pytest.mark.parametrize("name", sorted(NUMPY_CASES))
def test_identity_like_numpy_functions_return_arrays_as_jax(x64, name):
    import jax.numpy as jnp

    import mj.numpy as mnp

    f = NUMPY_CASES[name]
    want = f(jnp)
    assert isinstance(want, jax.Array)
    for got in (f(mnp), mj.jit(lambda: f(mnp))()):
        assert isinstance(got, mj.Array), type(got)
        assert got.dtype == want.dtype
        assert got.weak_type == want.weak_type
        assert got.shape == want.shape
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
