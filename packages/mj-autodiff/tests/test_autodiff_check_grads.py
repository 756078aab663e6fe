"""check_grads passes on correct derivatives and catches wrong ones (in jvp and in vjp)."""

from __future__ import annotations

import numpy as np
import pytest

import mj_core.numpy as mnp
from mj_autodiff import check_grads, check_jvp, check_vjp, custom_jvp, custom_vjp, jvp, vjp
from mj_core import config


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


@pytest.mark.parametrize(
    ("f", "x"),
    [
        (lambda x: mnp.exp(1j * x), np.linspace(0.1, 1.0, 3)),  # real in, complex out
        (lambda z: mnp.abs(z), np.linspace(0.1, 1.0, 3) + 0.5j),  # complex in, real out
        (lambda z: z * mnp.conj(z) + mnp.sin(z), np.array([0.3 + 0.2j, -1.0 + 0.7j])),
    ],
)
def test_check_grads_complex_values_as_jax_checks_them(f, x):
    # the cotangent projection is conj(vjp(conj(ct))): mj's and JAX's convention for complex
    # values (without the conjugates these correct derivatives would fail the check)
    check_grads(f, (x,), order=2)


def test_check_grads_catches_a_wrong_vjp_of_a_complex_output():
    @custom_vjp
    def f(x):
        return mnp.exp(1j * x)

    f.defvjp(lambda x: (f(x), x), lambda x, g: (mnp.real(g * mnp.conj(1j * mnp.exp(1j * x))),))
    with pytest.raises(AssertionError, match="cotangent projection"):
        check_grads(f, (np.linspace(0.1, 1.0, 3),), order=1, modes=["rev"])


def test_finite_differences_keep_python_scalars_weak():
    seen = []

    def f(x):
        seen.append(type(x))
        return x * mnp.ones(2, np.float32)

    with config.override("enable_x64", False):
        check_grads(f, (1.5,), order=1)
    # JAX's check_grads steps a Python float as a Python float: float32 stays float32
    assert float in seen


def test_lin_mode_checks_linearize():
    @custom_jvp
    def f(x):
        return mnp.sin(x)

    f.defjvps(lambda t, ans, x: 1.1 * mnp.cos(x) * t)
    check_grads(mnp.sin, (np.linspace(0, 1, 4),), order=2, modes=["lin"])
    with pytest.raises(AssertionError, match="LIN"):
        check_grads(f, (np.linspace(0, 1, 4),), order=1, modes=["lin"])


def test_tolerances_per_dtype_and_scaled_by_size():
    @custom_jvp
    def f(x):
        return mnp.sin(x)

    f.defjvps(lambda t, ans, x: (1 + 1e-3) * mnp.cos(x) * t)
    x = (np.linspace(0, 1, 4),)
    with pytest.raises(AssertionError):
        check_grads(f, x, order=1, modes=["fwd"])  # float64: 1e-5 per element
    check_grads(f, x, order=1, modes=["fwd"], atol={np.float64: 1e-2}, rtol={np.float64: 1e-2})
    check_grads(f, x, order=1, modes=["fwd"], atol=1e-2, rtol=1e-2)
    check_jvp(f, lambda p, t: jvp(f, p, t), x, atol=1e-2, rtol=1e-2)


def test_check_vjp_single_direction():
    check_vjp(mnp.tanh, lambda *a: vjp(mnp.tanh, *a), (np.linspace(-1, 1, 5),))


@pytest.mark.parametrize("x64", [False, True])
def test_second_order_through_a_weak_scalar_and_another_dtype(x64):
    # a traced Python scalar (weak) next to an array of another dtype is converted first, so
    # each lax operation sees one dtype and derivatives of derivatives trace
    with config.override("enable_x64", x64):
        for f in (mnp.add, mnp.multiply, mnp.subtract):
            check_grads(f, (0.4, np.ones((3, 2)) + 1j), order=2)
            check_grads(f, (np.ones((3, 2)) + 1j, 0.4), order=2)
