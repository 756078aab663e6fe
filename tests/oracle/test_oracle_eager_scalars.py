"""Eager ``mj.numpy`` on a float32 array and a Python scalar against ``jax.numpy``, in both x64
modes: the fast path's cached float32 scalars (signed zeros, NaN, values float32 rounds,
overflowing floats, ints outside int32) and EagerArray views as operands."""

import math
import warnings

import jax.numpy as jnp
import numpy as np
import pytest

import mj.numpy as mnp

SCALARS = [0.1, -0.0, 0.0, 0, -7, math.nan, -math.inf, 1e300, 3.4e38, 2**24 + 1, 2**31, 2**40]
FUNCTIONS = ("add", "subtract", "multiply", "maximum", "minimum")


def _outcome(fn, *args):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = fn(*args)
            return np.asarray(out), np.dtype(out.dtype)
    except Exception as e:  # the exception class is part of the contract
        return type(e).__name__


@pytest.mark.parametrize("name", FUNCTIONS)
def test_float32_array_and_python_scalar_match_jax(x64, name):
    values = np.array([-1.5, -0.0, 0.0, 0.1, 2.0, 3.0e38], np.float32)
    mine, theirs = getattr(mnp, name), getattr(jnp, name)
    eager = mnp.sin(values) * 0 + values  # an EagerArray viewing a plain array
    differing = []
    for scalar in SCALARS:
        for args, jargs in [
            ((eager, scalar), (jnp.asarray(values), scalar)),
            ((scalar, eager), (scalar, jnp.asarray(values))),
        ]:
            got, want = _outcome(mine, *args), _outcome(theirs, *jargs)
            if isinstance(got, str) or isinstance(want, str):
                same = got == want
            else:
                # signs of zeros count; not NaN's sign, nor a max/min tie of +0.0 and -0.0
                # (eager max/min keep NumPy's choice: a documented difference)
                signed = ~np.isnan(want[0])
                if name in ("maximum", "minimum"):
                    signed &= want[0] != 0
                same = got[1] == want[1] and np.array_equal(
                    np.signbit(got[0])[signed], np.signbit(want[0])[signed]
                )
                same = same and np.allclose(got[0], want[0], rtol=1e-6, equal_nan=True)
            if not same:
                differing.append(f"{name}{tuple(map(repr, args))}: mj {got} jax {want}")
    assert not differing, "\n".join(differing)


def test_views_of_eager_arrays_match_jax(x64):
    values = np.linspace(-2.0, 2.0, 12, dtype=np.float32).reshape(3, 4)
    eager = mnp.sin(values)
    transposed = np.ndarray.transpose(eager)  # an EagerArray whose base is an EagerArray
    jt = jnp.sin(jnp.asarray(values)).T
    for got, want in [
        (mnp.exp(transposed), jnp.exp(jt)),
        (mnp.multiply(transposed, transposed), jt * jt),
        (mnp.add(transposed, 0.5), jt + 0.5),
        (mnp.subtract(2, transposed), 2 - jt),
    ]:
        assert got.dtype == want.dtype
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
