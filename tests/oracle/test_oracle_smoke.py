"""Smoke test of the oracle environment: real JAX is installed, with 64-bit mode on.

Oracle tests compare mj against JAX itself (`hatch run oracle:test`). This file only checks
that the oracle works; comparisons of mj's transformations against JAX's live next to it.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

jax.config.update("jax_enable_x64", True)

pytestmark = pytest.mark.oracle


def f_np(x: np.ndarray) -> np.ndarray:
    return np.sin(x) * 2.0 + x**2


def test_jax_matches_numpy_in_float64():
    x = np.linspace(-2.0, 2.0, 7)
    out = jax.jit(lambda x: jnp.sin(x) * 2.0 + x**2)(x)
    assert out.dtype == np.float64
    np.testing.assert_allclose(np.asarray(out), f_np(x), rtol=1e-14)


def test_jax_grad_matches_analytic_derivative():
    x = np.linspace(-2.0, 2.0, 7)
    df = jax.vmap(jax.grad(lambda x: jnp.sin(x) * 2.0 + x**2))(x)
    np.testing.assert_allclose(np.asarray(df), 2.0 * np.cos(x) + 2.0 * x, rtol=1e-14)
