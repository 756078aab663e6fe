"""Complex numbers through ``mj.numpy``: ``real``/``imag``/``conj``/``angle``/``iscomplexobj``
against NumPy (eager, jit, vmap), complex arithmetic under every transformation, ``grad`` of
real-valued functions of complex inputs in JAX's convention (``df/dx - i df/dy``) checked by
central differences, and ``holomorphic=True``."""

from __future__ import annotations

import numpy as np
import pytest

import mj
import mj.numpy as mnp

rng = np.random.default_rng(13)
Z = rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3))


@pytest.mark.parametrize("name", ["real", "imag", "conj", "conjugate", "angle"])
@pytest.mark.parametrize(
    "x", [Z, Z.astype(np.complex64), rng.standard_normal(4), np.array([1, -2, 0])], ids=str
)
def test_parts_match_numpy(name, x):
    want = getattr(np, name)(x)
    for got in (getattr(mnp, name)(x), mj.jit(getattr(mnp, name))(x)):
        assert np.asarray(got).dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_angle_in_degrees_and_iscomplexobj():
    np.testing.assert_allclose(mnp.angle(Z, deg=True), np.angle(Z, deg=True))
    assert mnp.iscomplexobj(Z)
    assert mnp.iscomplexobj(1j)
    assert not mnp.iscomplexobj(np.ones(3))
    assert mj.vmap(mnp.real)(Z).dtype == np.float64


def test_array_methods_and_arithmetic_under_jit():
    def f(z):
        return z.conj() * z + mnp.exp(1j * z) / (z - 2.0)

    np.testing.assert_allclose(mj.jit(f)(Z), f(Z))
    np.testing.assert_allclose(f(Z), np.conj(Z) * Z + np.exp(1j * Z) / (Z - 2.0))


def _grad_by_differences(loss, z, eps=1e-6):
    out = np.zeros_like(z)
    for idx in np.ndindex(z.shape):
        e = np.zeros_like(z)
        e[idx] = 1
        dx = (loss(z + eps * e) - loss(z - eps * e)) / (2 * eps)
        dy = (loss(z + 1j * eps * e) - loss(z - 1j * eps * e)) / (2 * eps)
        out[idx] = dx - 1j * dy
    return out


LOSSES = {
    "abs": lambda z: mnp.sum(mnp.abs(z)),
    "abs_squared": lambda z: mnp.sum(mnp.real(z * mnp.conj(z))),
    "angle": lambda z: mnp.sum(mnp.angle(z) ** 2),
    "exp_log": lambda z: mnp.real(mnp.sum(mnp.exp(z) * mnp.log(z))),
    "trig": lambda z: mnp.imag(mnp.sum(mnp.sin(z) * mnp.cos(z) + mnp.tanh(z))),
    "sqrt_div": lambda z: mnp.sum(mnp.abs(mnp.sqrt(z) / (z + 3.0))),
    "fft": lambda z: mnp.sum(mnp.abs(mnp.fft.fft(z, axis=0)) ** 2),
}


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_grad_of_real_loss_of_complex_input(name):
    loss = LOSSES[name]
    want = _grad_by_differences(lambda z: float(loss(z)), Z)
    for g in (mj.grad(loss)(Z), mj.jit(mj.grad(loss))(Z)):
        assert np.asarray(g).dtype == np.complex128
        np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-6)


def test_grad_of_complex_output_needs_holomorphic():
    with pytest.raises(TypeError, match=r"real-valued outputs.*pass holomorphic=True"):
        mj.grad(lambda z: z * z)(1.0 + 2.0j)
    np.testing.assert_allclose(mj.grad(lambda z: z * z, holomorphic=True)(1.0 + 2.0j), 2 + 4j)
    value, g = mj.value_and_grad(mnp.sin, holomorphic=True)(0.5 + 0.5j)
    np.testing.assert_allclose(value, np.sin(0.5 + 0.5j))
    np.testing.assert_allclose(g, np.cos(0.5 + 0.5j))
    with pytest.raises(TypeError, match="holomorphic=True requires inputs with complex dtype"):
        mj.grad(lambda z: z * z, holomorphic=True)(2.0)
    with pytest.raises(TypeError, match="holomorphic=True requires outputs with complex dtype"):
        mj.grad(lambda z: mnp.abs(z), holomorphic=True)(2.0j)


def test_holomorphic_jacobians():
    z = Z[0]
    want = np.diag(np.exp(z))
    np.testing.assert_allclose(mj.jacfwd(mnp.exp, holomorphic=True)(z), want)
    np.testing.assert_allclose(mj.jacrev(mnp.exp, holomorphic=True)(z), want)


def test_real_and_imag_properties_under_every_interpretation():
    def f(z):
        return (z.real * 2.0 + z.imag).sum()

    z = mnp.array([1 + 2j, 3 - 1j])
    want = 2.0 * (1 + 3) + (2 - 1)
    assert float(f(z)) == want
    assert float(mj.jit(f)(z)) == want
    closed = mj.make_jaxpr(f)(z)
    assert [e.primitive.name for e in closed.jaxpr.eqns][:1] == ["real"]
    assert float(closed(z)[0]) == want
    np.testing.assert_allclose(mj.vmap(lambda w: w.imag)(z), [2.0, -1.0])
