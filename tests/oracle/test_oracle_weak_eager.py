"""Weak types of eager values against JAX, both x64 modes: what Python scalars make
(``jnp.sqrt(2.0)``, ``jnp.asarray(3.0)``, ``jnp.full(3, 2.0)``) is weakly typed eagerly as under
``jit``, so mixing it with a narrower array keeps that array's dtype (bfloat16, float16,
int8). mj's eager and jit results agree with each other and with JAX."""

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import mj
import mj.numpy as mnp

CASES = {
    "sqrt(2.)": lambda np_: np_.sqrt(2.0),
    "exp(1.)": lambda np_: np_.exp(1.0),
    "abs(-3)": lambda np_: np_.abs(-3),
    "asarray(3.)": lambda np_: np_.asarray(3.0),
    "array(3)": lambda np_: np_.array(3),
    "array([1., 2.])": lambda np_: np_.array([1.0, 2.0]),
    "asarray(f32 scalar)": lambda np_: np_.asarray(np.float32(2.0)),
    "full(3, 2.)": lambda np_: np_.full(3, 2.0),
    "full(3, 2., f32)": lambda np_: np_.full(3, 2.0, np.float32),
    "zeros_like(2.)": lambda np_: np_.zeros_like(2.0),
    "ones_like(2)": lambda np_: np_.ones_like(2),
    "full_like(2., 1)": lambda np_: np_.full_like(2.0, 1),
    "maximum(1., 2.)": lambda np_: np_.maximum(1.0, 2.0),
    "where(True, 1., 2.)": lambda np_: np_.where(True, 1.0, 2.0),
    "where(mask, 1., 2.)": lambda np_: np_.where(np_.arange(3) > 0, 1.0, 2.0),
    "dot(2., 3.)": lambda np_: np_.dot(2.0, 3.0),
    "clip(2., 0., 1.)": lambda np_: np_.clip(2.0, 0.0, 1.0),
    "round(2.5)": lambda np_: np_.round(2.5),
    "sum(2.)": lambda np_: np_.sum(2.0),
    "max(2.)": lambda np_: np_.max(2.0),
    "mean(2.)": lambda np_: np_.mean(2.0),
    "cumsum(2.)": lambda np_: np_.cumsum(2.0),
    "weak * weak": lambda np_: np_.asarray(2.0) * np_.asarray(3.0),
    "weak.astype(f32)": lambda np_: np_.asarray(2.0).astype(np.float32),
    "weak[None]": lambda np_: np_.asarray(2.0)[None],
    "reshape(weak)": lambda np_: np_.reshape(np_.full(4, 2.0), (2, 2)),
    "sin(weak vector)": lambda np_: np_.sin(np_.full(3, 2.0)),
    "stack([1., 2.])": lambda np_: np_.stack([1.0, 2.0]),
    "array(weak)": lambda np_: np_.array(np_.asarray(2.0)),
}
PARTNERS = (ml_dtypes.bfloat16, np.float16, np.int8, np.float32)


def _outcome(out):
    return np.dtype(out.dtype).name, bool(out.weak_type)


@pytest.mark.parametrize("name", sorted(CASES))
def test_weak_type_matches_jax(x64, name):
    case = CASES[name]
    want = _outcome(case(jnp))
    assert _outcome(case(mnp)) == want, "eager"
    assert _outcome(mj.jit(lambda: case(mnp))()) == want, "jit"
    for partner in PARTNERS:
        other = np.ones((), partner)
        want_mixed = np.dtype((case(jnp) * other).dtype).name
        assert np.dtype((case(mnp) * other).dtype).name == want_mixed, partner
        jitted = mj.jit(lambda o: case(mnp) * o)(other)
        assert np.dtype(jitted.dtype).name == want_mixed, partner


def test_values_are_the_same(x64):
    for name, case in CASES.items():
        np.testing.assert_allclose(
            np.asarray(case(mnp), dtype=float),
            np.asarray(case(jnp), dtype=float),
            rtol=1e-6,
            err_msg=name,
        )
    assert jax.numpy.sqrt(2.0).weak_type
    assert mnp.sqrt(2.0).weak_type
