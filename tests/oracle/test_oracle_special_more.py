"""scipy.special's combinatorics, divergences, transforms and softmax (``comb``, ``factorial``,
``poch``, ``loggamma``, ``rel_entr``, ``kl_div``, ``boxcox``, ``boxcox1p``, ``softmax``,
``log_softmax``) against ``jax.scipy.special``: values, dtypes and derivatives, both modes."""

import jax
import jax.scipy.special as jsp
import numpy as np
import pytest

import mj
import mj.scipy.special as msp

P = np.array([0.0, 0.5, 1.0, 2.0, -1.0, 3.5], np.float32)
Q = np.array([1.0, 0.25, 0.0, 2.0, 1.0, 1.5], np.float32)
N = np.array([5.0, 4.0, 3.0, -1.0, 6.0, 10.0], np.float32)
K = np.array([2.0, 4.0, 5.0, 1.0, 0.0, 3.0], np.float32)
X = np.array([[0.5, -1.0, 2.0], [3.0, 0.25, -2.0]], np.float32)

CASES = {
    "comb": lambda s: s.comb(N, K),
    "comb repetition": lambda s: s.comb(N, K, repetition=True),
    "factorial": lambda s: s.factorial(np.array([0.0, 1.0, 4.0, 5.5, -2.0], np.float32)),
    "poch": lambda s: s.poch(Q + 0.5, K),
    "loggamma": lambda s: s.loggamma(P),
    "rel_entr": lambda s: s.rel_entr(P, Q),
    "kl_div": lambda s: s.kl_div(P, Q),
    "boxcox": lambda s: s.boxcox(Q + 0.5, P),
    "boxcox1p": lambda s: s.boxcox1p(Q, P),
    "softmax": lambda s: s.softmax(X),
    "softmax axis": lambda s: s.softmax(X, axis=1),
    "log_softmax": lambda s: s.log_softmax(X, axis=0),
    "int operands": lambda s: s.comb(5, 2),
}


@pytest.mark.parametrize("make", CASES.values(), ids=CASES.keys())
def test_values_as_jax(make, x64):
    want = np.asarray(make(jsp))
    got = np.asarray(make(msp))
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["comb", "poch", "rel_entr", "kl_div", "boxcox", "boxcox1p"])
def test_derivatives_as_jax(name, x64):
    args = {
        "comb": (np.float32(7.0), np.float32(3.0)),
        "poch": (np.float32(1.5), np.float32(2.5)),
        "rel_entr": (np.float32(0.75), np.float32(1.25)),
        "kl_div": (np.float32(0.75), np.float32(1.25)),
        "boxcox": (np.float32(2.5), np.float32(0.5)),
        "boxcox1p": (np.float32(0.5), np.float32(-0.5)),
    }[name]
    want = jax.grad(getattr(jsp, name), argnums=(0, 1))(*args)
    got = mj.grad(getattr(msp, name), argnums=(0, 1))(*args)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-6)


def test_exact_factorial_is_refused_as_in_jax():
    for special in (jsp, msp):
        with pytest.raises(NotImplementedError, match="exact=True"):
            special.factorial(3, exact=True)
