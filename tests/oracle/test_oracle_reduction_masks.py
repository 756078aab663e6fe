"""``where=``/``initial=`` of the reductions against ``jax.numpy`` in both x64 modes: eager,
jitted, and the gradient of a masked mean and variance."""

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

A = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4) - 7.5
INTS = np.arange(24, dtype=np.int32).reshape(2, 3, 4) - 7
MASK = (np.arange(24).reshape(2, 3, 4) % 3) != 0
ROW = np.array([True, False, True, True])

CASES = {
    "sum": lambda np_, a, w, ax: np_.sum(a, axis=ax, where=w),
    "sum_initial": lambda np_, a, w, ax: np_.sum(a, axis=ax, where=w, initial=3),
    "prod": lambda np_, a, w, ax: np_.prod(a, axis=ax, where=w),
    "max": lambda np_, a, w, ax: np_.max(a, axis=ax, where=w, initial=-100),
    "min": lambda np_, a, w, ax: np_.min(a, axis=ax, where=w, initial=100, keepdims=True),
    "all": lambda np_, a, w, ax: np_.all(a > -3, axis=ax, where=w),
    "any": lambda np_, a, w, ax: np_.any(a > 9, axis=ax, where=w),
    "mean": lambda np_, a, w, ax: np_.mean(a, axis=ax, where=w),
    "var": lambda np_, a, w, ax: np_.var(a, axis=ax, where=w, ddof=1),
    "std": lambda np_, a, w, ax: np_.std(a, axis=ax, where=w, keepdims=True),
}


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got, want)
    assert got.shape == want.shape, (got, want)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, equal_nan=True)


@pytest.mark.parametrize("data", ["float", "int"])
@pytest.mark.parametrize("mask", ["full", "row"])
@pytest.mark.parametrize("axis", [None, 0, 2, (0, 2)])
@pytest.mark.parametrize("name", sorted(CASES))
def test_masked_reduction_matches_jax(x64, name, axis, mask, data):
    case = CASES[name]
    a = A if data == "float" else INTS
    w = MASK if mask == "full" else ROW
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = case(jnp, jnp.asarray(a), jnp.asarray(w), axis)
        _same(case(mnp, a, w, axis), want)
        _same(mj.jit(lambda x: case(mnp, x, w, axis))(a), want)


def test_gradients_of_masked_mean_and_var(x64):
    def loss(np_, x):
        return np_.mean(x**2, axis=0, where=MASK).sum() + np_.var(x, where=MASK)

    _same(mj.grad(lambda x: loss(mnp, x))(A), jax.grad(lambda x: loss(jnp, x))(A))
