"""A Python int next to a narrow integer array against ``jax.numpy``, in both x64 modes: JAX
converts the int to the array's dtype, wrapping (``uint8 + 300`` adds 44), unless the default
integer type cannot hold it (OverflowError). Eager, jitted and traced, and through the
functions that take scalars as bounds or fill values (clip, where, full, comparisons)."""

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

CASES = {
    "add": lambda np_, x, s: np_.add(x, s),
    "radd": lambda np_, x, s: s + x,
    "subtract": lambda np_, x, s: x - s,
    "multiply": lambda np_, x, s: x * s,
    "maximum": lambda np_, x, s: np_.maximum(x, s),
    "equal": lambda np_, x, s: x == s,
    "less": lambda np_, x, s: x < s,
    "clip": lambda np_, x, s: np_.clip(x, 0, s),
    "where": lambda np_, x, s: np_.where(x > 1, x, s),
    "full": lambda np_, x, s: np_.full(x.shape, s, x.dtype),
}
DTYPES = ("uint8", "int8", "int16", "uint16", "int32", "uint32")
SCALARS = (300, -1, -200, 70000, 2**31 - 1, 2**31, -(2**31) - 1)


def _outcome(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = fn()
            return np.asarray(out).tolist(), np.dtype(out.dtype).name
    except (OverflowError, TypeError) as e:  # the class is the contract, not the message
        return type(e).__name__


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_python_int_converts_like_jax(x64, name, dtype):
    values = np.array([0, 1, 2, 44], dtype)
    case = CASES[name]
    differing = []
    for scalar in SCALARS:
        want = _outcome(lambda s=scalar: case(jnp, jnp.asarray(values), s))
        runs = {
            "eager": lambda s=scalar: case(mnp, mnp.asarray(values), s),
            "jit": lambda s=scalar: mj.jit(lambda x: case(mnp, x, s))(values),
        }
        for mode, run in runs.items():
            got = _outcome(run)
            if got != want:
                differing.append(f"{mode} {scalar}: mj {got}, JAX {want}")
    assert not differing, "\n".join(differing)


def test_traced_literal_is_the_wrapped_value(x64):
    x = np.array([1, 2], np.uint8)
    eqn = mj.make_jaxpr(lambda a: a + 300)(x).jaxpr.eqns[0]
    (literal,) = (v for v in eqn.invars if hasattr(v, "val"))
    want = jax.make_jaxpr(lambda a: a + 300)(x).jaxpr.eqns[0].invars[1].val
    assert np.asarray(literal.val).dtype == np.uint8
    assert int(literal.val) == int(want) == 44
