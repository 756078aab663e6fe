"""Derivatives of the complex-number and FFT primitives: JVPs against central finite
differences (complex inputs are pairs of reals), the transpose identity
``<ct, L v> == Re<L^T ct, v>`` with JAX's unconjugated pairing ``<a, b> = Re(sum(a * b))``,
and ``grad`` of real-valued losses of complex inputs in JAX's convention
(``df/dx - i df/dy``)."""

from __future__ import annotations

import numpy as np
import pytest

from mj_autodiff import grad, jvp, vjp
from mj_core import lax
from mj_core.prims.fft import FftType

rng = np.random.default_rng(7)


def _c(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def _r(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape)


def _central_difference(f, x, v, eps=1e-6):
    return (np.asarray(f(x + eps * v)) - np.asarray(f(x - eps * v))) / (2 * eps)


LINEAR = {
    "real": (lax.real, lambda: _c(3, 4)),
    "imag": (lax.imag, lambda: _c(3, 4)),
    "conj_complex": (lax.conj, lambda: _c(3, 4)),
    "conj_real": (lax.conj, lambda: _r(3, 4)),
    "complex_x": (lambda x: lax.complex(x, 0.0), lambda: _r(3, 4)),
    "complex_y": (lambda y: lax.complex(np.zeros((2, 3, 4)), y), lambda: _r(3, 4)),
    "fft": (lambda x: lax.fft(x, FftType.FFT, (4,)), lambda: _c(3, 4)),
    "ifft2": (lambda x: lax.fft(x, FftType.IFFT, (3, 4)), lambda: _c(2, 3, 4)),
    "rfft_even": (lambda x: lax.fft(x, FftType.RFFT, (6,)), lambda: _r(2, 6)),
    "rfft_odd2": (lambda x: lax.fft(x, FftType.RFFT, (3, 5)), lambda: _r(3, 5)),
    "irfft_even": (lambda x: lax.fft(x, FftType.IRFFT, (6,)), lambda: _c(2, 4)),
    "irfft_odd": (lambda x: lax.fft(x, FftType.IRFFT, (7,)), lambda: _c(2, 4)),
    "irfft3": (lambda x: lax.fft(x, FftType.IRFFT, (2, 3, 4)), lambda: _c(2, 3, 3)),
}


def _like(out: np.ndarray) -> np.ndarray:
    return _c(*out.shape) if out.dtype.kind == "c" else _r(*out.shape)


@pytest.mark.parametrize("name", sorted(LINEAR))
def test_jvp_matches_finite_differences(name):
    f, make = LINEAR[name]
    x = make()
    v = _like(np.asarray(x))
    y, t = jvp(f, (x,), (v,))
    np.testing.assert_allclose(y, f(x), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(t, _central_difference(f, x, v), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", sorted(LINEAR))
def test_transpose_identity(name):
    f, make = LINEAR[name]
    x = make()
    v = _like(np.asarray(x))
    out, f_vjp = vjp(f, x)
    ct = _like(np.asarray(out))
    (ct_in,) = f_vjp(ct)
    assert np.asarray(ct_in).dtype == np.asarray(x).dtype
    lhs = np.real(np.sum(ct * np.asarray(f(v))))
    rhs = np.real(np.sum(np.asarray(ct_in) * v))
    np.testing.assert_allclose(lhs, rhs, rtol=1e-10)


def _grad_by_differences(loss, z, eps=1e-6):
    """``dL/dx - i dL/dy`` elementwise, by central differences (JAX's grad convention)."""
    out = np.zeros_like(z)
    for idx in np.ndindex(z.shape):
        e = np.zeros_like(z)
        e[idx] = 1
        dx = (float(loss(z + eps * e)) - float(loss(z - eps * e))) / (2 * eps)
        dy = (float(loss(z + 1j * eps * e)) - float(loss(z - 1j * eps * e))) / (2 * eps)
        out[idx] = dx - 1j * dy
    return out


LOSSES = {
    "abs": lambda z: lax.reduce_sum(lax.abs(z), (0,)),
    "abs_squared": lambda z: lax.reduce_sum(lax.real(lax.mul(z, lax.conj(z))), (0,)),
    "exp_mul": lambda z: lax.real(lax.reduce_sum(lax.mul(lax.exp(z), z), (0,))),
    "log_sin_div": lambda z: lax.imag(
        lax.reduce_sum(lax.div(lax.log(z), lax.add(lax.sin(z), 3.0)), (0,))
    ),
    "fft_power": lambda z: lax.reduce_sum(lax.abs(lax.fft(z, FftType.FFT, (4,))), (0,)),
    "ifft_real": lambda z: lax.reduce_sum(
        lax.mul(lax.real(lax.fft(z, FftType.IFFT, (4,))), np.arange(4.0)), (0,)
    ),
    "irfft": lambda z: lax.reduce_sum(
        lax.integer_pow(lax.fft(lax.slice(z, (0,), (3,)), FftType.IRFFT, (5,)), 2), (0,)
    ),
}


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_grad_of_real_loss_of_complex_input(name):
    loss = LOSSES[name]
    z = _c(4)
    g = grad(loss)(z)
    assert np.asarray(g).dtype == np.complex128
    np.testing.assert_allclose(g, _grad_by_differences(loss, z), rtol=1e-6, atol=1e-6)


def test_grad_of_abs_squared_is_twice_the_conjugate():
    # JAX: grad(|z|^2)(z) == 2 * conj(z)
    z = np.array([3.0 + 4.0j, -1.0 + 0.5j])
    g = grad(lambda u: lax.reduce_sum(lax.real(lax.mul(u, lax.conj(u))), (0,)))(z)
    np.testing.assert_allclose(g, 2 * np.conj(z))


def test_abs_of_complex_zero_has_zero_derivative():
    _, t = jvp(lax.abs, (np.array([0j, 3 + 4j]),), (np.array([1 + 1j, 1 + 0j]),))
    np.testing.assert_allclose(t, [0.0, 0.6])


def test_grad_through_rfft_of_a_real_input():
    x = _r(6)

    def loss(u):
        return lax.reduce_sum(lax.abs(lax.fft(u, FftType.RFFT, (6,))), (0,))

    want = np.array([_central_difference(loss, x, e) for e in np.eye(6)])
    np.testing.assert_allclose(grad(loss)(x), want, rtol=1e-6, atol=1e-6)
