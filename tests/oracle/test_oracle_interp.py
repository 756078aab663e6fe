"""``mnp.interp`` against ``jnp.interp`` in both x64 modes: edges, repeated sample points,
``left``/``right`` values and ``"extrapolate"``, ``period``, complex ``fp``, mixed dtypes, and
the derivatives through ``x`` and ``fp``."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

XP = np.array([0.0, 1.0, 1.0, 2.0, 4.0])
FP = np.array([0.0, 10.0, 20.0, 0.0, 8.0])
X = np.array([-1.0, 0.0, 0.5, 1.0, 1.5, 3.0, 4.0, 5.0])

CASES = {
    "ends": {},
    "values": {"left": -5.0, "right": 99},
    "extrapolate": {"left": "extrapolate", "right": "extrapolate"},
    "period": {"period": 3.0},
}


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", sorted(CASES))
def test_interp_matches_jax(x64, name):
    kw = CASES[name]
    for x, xp, fp in [
        (X, XP, FP),
        (X.astype(np.float32), XP.astype(np.float32), FP.astype(np.int32)),
        (X, XP, FP + 2j * FP),
        (np.arange(6), np.arange(5), np.arange(5) ** 2),
    ]:
        want = jnp.interp(x, xp, fp, **kw)
        _same(mnp.interp(x, xp, fp, **kw), want)
        _same(mj.jit(lambda t, xp=xp, fp=fp: mnp.interp(t, xp, fp, **kw))(x), want)


def test_interp_derivatives_match_jax(x64):
    for t in (0.5, 1.0, 3.0, 4.5):
        _same(
            mj.grad(lambda v: mnp.interp(v, XP, FP))(t),
            jax.grad(lambda v: jnp.interp(v, XP, FP))(t),
        )
    _same(
        mj.grad(lambda f: mnp.interp(X, XP, f).sum())(FP),
        jax.grad(lambda f: jnp.interp(X, XP, f).sum())(FP),
    )
