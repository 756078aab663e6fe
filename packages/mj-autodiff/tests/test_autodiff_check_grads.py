"""check_grads passes on correct derivatives and catches wrong ones (in jvp and in vjp)."""

from __future__ import annotations

import numpy as np
import pytest

import mj_core.numpy as mnp
from mj_autodiff import check_grads, custom_jvp, custom_vjp


def test_check_grads_passes_third_order():
    check_grads(lambda x, y: mnp.sin(x) * mnp.exp(y), (np.linspace(0, 1, 3), 0.3), order=3)


def test_check_grads_catches_a_wrong_jvp():
    @custom_jvp
    def f(x):
        return mnp.sin(x)

    f.defjvps(lambda t, ans, x: 1.1 * mnp.cos(x) * t)
    with pytest.raises(AssertionError):
        check_grads(f, (np.linspace(0, 1, 4),), order=1, modes=["fwd"])
    with pytest.raises(AssertionError):
        check_grads(f, (np.linspace(0, 1, 4),), order=1, modes=["rev"])


def test_check_grads_catches_a_wrong_vjp():
    @custom_vjp
    def f(x):
        return x * x

    f.defvjp(lambda x: (x * x, x), lambda x, g: (3.0 * x * g,))
    with pytest.raises(AssertionError, match="VJP"):
        check_grads(f, (np.linspace(0.5, 1, 3),), order=1, modes=["rev"])


def test_check_grads_rejects_unknown_mode():
    with pytest.raises(ValueError, match="mode"):
        check_grads(mnp.sin, (1.0,), order=1, modes=["sideways"])
