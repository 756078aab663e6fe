"""Complex numbers and FFTs against real JAX (x64): values and dtypes of mj.numpy.fft and the
complex helpers, eagerly and under jit/vmap, and gradients of real-valued losses of complex
and FFT'd inputs (JAX's complex-gradient convention), abs of complex included."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj_core import lax as mlax

pytestmark = pytest.mark.oracle

rng = np.random.default_rng(17)
X = rng.standard_normal((3, 4, 6))
Z = X + 1j * rng.standard_normal((3, 4, 6))
X32 = X.astype(np.float32)
Z64 = Z.astype(np.complex64)

FFT_CASES = [
    ("fft", Z, {}),
    ("fft", X32, {"n": 5, "axis": 0}),
    ("ifft", Z64, {"norm": "ortho"}),
    ("rfft", X32, {"norm": "forward"}),
    ("rfft", X, {"n": 9, "axis": 1}),
    ("irfft", Z, {"n": 7}),
    ("irfft", Z64, {"axis": 0, "norm": "ortho"}),
    ("hfft", Z, {}),
    ("hfft", Z, {"n": 5, "norm": "ortho"}),
    ("hfft", X, {"axis": 1, "norm": "forward"}),
    ("ihfft", X, {"norm": "ortho"}),
    ("ihfft", X32, {"n": 4, "norm": "forward"}),
    ("fft2", Z64, {"s": (3, 5)}),
    ("ifft2", Z, {"axes": (0, 2)}),
    ("rfft2", X, {"axes": (2, 0), "norm": "ortho"}),
    ("irfft2", Z, {"s": (5, 5)}),
    ("fftn", X32, {}),
    ("ifftn", Z, {"s": (2, 3, 4), "norm": "forward"}),
    ("rfftn", X, {}),
    ("irfftn", Z64, {"axes": (0, 1)}),
    ("fftn", rng.standard_normal((2, 2, 3, 2)) + 1j, {}),
    ("fftshift", X, {"axes": (0, 2)}),
    ("ifftshift", Z, {}),
]


@pytest.mark.parametrize(("name", "x", "kw"), FFT_CASES)
def test_fft_functions_match_jax(name, x, kw):
    want = getattr(jnp.fft, name)(x, **kw)
    tol = 1e-4 if want.dtype in (np.float32, np.complex64) else 1e-10
    for got in (
        getattr(mnp.fft, name)(x, **kw),
        mj.jit(lambda a: getattr(mnp.fft, name)(a, **kw))(x),
    ):
        assert np.asarray(got).dtype == want.dtype
        assert np.shape(got) == want.shape
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("n", [5, 8])
def test_frequencies_match_jax(n):
    for name in ("fftfreq", "rfftfreq"):
        want = getattr(jnp.fft, name)(n, 0.1)
        got = getattr(mnp.fft, name)(n, 0.1)
        assert np.asarray(got).dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-14)


@pytest.mark.parametrize("name", ["real", "imag", "conj", "angle", "abs"])
@pytest.mark.parametrize("x", [Z, Z64, X, np.float32(-1.5), np.array([2, -3])], ids=str)
def test_complex_helpers_match_jax(name, x):
    want = getattr(jnp, name)(x)
    got = getattr(mnp, name)(x)
    assert np.asarray(got).dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_allclose(mj.vmap(getattr(mnp, name))(np.atleast_1d(x)), want, rtol=1e-6)


@pytest.mark.parametrize("name", ["real", "imag", "conj", "complex"])
def test_lax_complex_primitives_match_jax(name):
    args = (X32, X32[::-1]) if name == "complex" else (Z64,)
    want = getattr(jax.lax, name)(*args)
    got = getattr(mlax, name)(*args)
    assert np.asarray(got).dtype == want.dtype
    np.testing.assert_allclose(got, want)


def _losses(np_, lax_):
    return {
        "abs": lambda z: np_.sum(np_.abs(z)),
        "abs_sq_weighted": lambda z: np_.sum(np_.abs(z) ** 2 * np_.arange(z.shape[-1])),
        "angle": lambda z: np_.sum(np_.angle(z)),
        "exp_mul": lambda z: np_.real(np_.sum(np_.exp(z) * z)),
        "log_div": lambda z: np_.imag(np_.sum(np_.log(z) / (z + 2.0))),
        "sin_cos_tanh": lambda z: np_.real(np_.sum(np_.sin(z) * np_.cos(z) + np_.tanh(z))),
        "sqrt_pow": lambda z: np_.sum(np_.real(np_.sqrt(z) * z**3)),
        "conj": lambda z: np_.imag(np_.sum(np_.conj(z) * z * (1 + 2j))),
        "fft_power": lambda z: np_.sum(np_.abs(np_.fft.fft(z)) ** 2 * np_.arange(6.0)),
        "ifft2": lambda z: np_.sum(np_.real(np_.fft.ifft2(z, norm="ortho")) ** 3),
        "fftn_abs": lambda z: np_.sum(np_.abs(np_.fft.fftn(z, s=(3, 4, 8)))),
        "irfft": lambda z: np_.sum(np_.fft.irfft(z, n=9) ** 2),
        "irfft_even": lambda z: np_.sum(np_.fft.irfft(z, norm="forward") * np_.arange(10.0)),
        "hfft": lambda z: np_.sum(np_.sin(np_.fft.hfft(z, n=7))),
        "lax_real_imag": lambda z: np_.sum(lax_.real(z) * lax_.imag(z) ** 2),
    }


@pytest.mark.parametrize("name", sorted(_losses(jnp, jax.lax)))
def test_grads_of_real_losses_of_complex_inputs_match_jax(name):
    z = Z + 2.0  # keep log/sqrt away from their branch cut
    want = jax.grad(_losses(jnp, jax.lax)[name])(z)
    loss = _losses(mnp, mlax)[name]
    for got in (mj.grad(loss)(z), mj.jit(mj.grad(loss))(z)):
        assert np.asarray(got).dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)


def _real_losses(np_):
    return {
        "rfft_abs": lambda x: np_.sum(np_.abs(np_.fft.rfft(x)) * np_.arange(4.0)),
        "rfft_odd_n": lambda x: np_.sum(np_.real(np_.fft.rfft(x, n=7)) ** 2),
        "rfft2": lambda x: np_.sum(np_.imag(np_.fft.rfft2(x, norm="ortho"))),
        "rfftn": lambda x: np_.sum(np_.abs(np_.fft.rfftn(x)) ** 2),
        "ihfft": lambda x: np_.sum(np_.angle(np_.fft.ihfft(x) + 1.0)),
        "fft_of_real": lambda x: np_.sum(np_.abs(np_.fft.fft(x, axis=0))),
        "round_trip": lambda x: np_.sum(np_.fft.irfft(np_.fft.rfft(x) * 1j, n=6) ** 2),
    }


@pytest.mark.parametrize("name", sorted(_real_losses(jnp)))
def test_grads_through_ffts_of_real_inputs_match_jax(name):
    want = jax.grad(_real_losses(jnp)[name])(X)
    got = mj.grad(_real_losses(mnp)[name])(X)
    assert np.asarray(got).dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)


def test_vjp_and_jvp_with_complex_cotangents_match_jax():
    def f(np_):
        return lambda z: np_.fft.fft2(z * np_.conj(z[::-1]))

    ct = rng.standard_normal(Z.shape) + 1j * rng.standard_normal(Z.shape)
    (want,) = jax.vjp(f(jnp), Z)[1](ct)
    (got,) = mj.vjp(f(mnp), Z)[1](ct)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)
    _, want_t = jax.jvp(f(jnp), (Z,), (ct,))
    _, got_t = mj.jvp(f(mnp), (Z,), (ct,))
    np.testing.assert_allclose(got_t, want_t, rtol=1e-10, atol=1e-10)


def test_holomorphic_grad_matches_jax():
    z = np.array(0.3 + 0.7j)
    want = jax.grad(lambda u: jnp.exp(u) * jnp.sin(u), holomorphic=True)(z)
    got = mj.grad(lambda u: mnp.exp(u) * mnp.sin(u), holomorphic=True)(z)
    np.testing.assert_allclose(got, want, rtol=1e-12)
