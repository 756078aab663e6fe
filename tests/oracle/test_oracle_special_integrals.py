"""``sici``, ``expi``, ``exp1``, ``expn``, ``dawsn``, ``erfcx`` and ``wofz`` against
``jax.scipy.special``: values (eager and jit), dtypes, NaN/inf handling and derivatives,
both dtype modes."""

import jax
import jax.numpy as jnp
import jax.scipy.special as jsp
import numpy as np
import pytest

import mj
import mj.scipy.special as msp

XS = np.array(
    [-np.inf, -30.0, -3.0, -0.5, 0.0, 0.1, 1.0, 2.5, 3.9, 4.5, 7.9, 9.0, 30.0, 100.0, 2e9,
     np.inf, np.nan],
    np.float32,
)  # fmt: skip

ZS = (XS[1:-3, None] + 1j * np.array([-2.0, -0.1, 0.0, 0.7, 5.0], np.float32)).astype(np.complex64)

ZC = np.array(
    [0.5 + 1j, -2.5 + 0.5j, -3.0 + 0j, -3.0 - 1e-3j, -3.0 + 1e-3j, 0j, 4.0 - 2j, -7.3 + 0j,
     -7.3 - 0j, 1.0, np.nan + 1j, 10.0 + 30j, -0.5 - 0.5j],
    np.complex64,
)  # fmt: skip
AS = np.array([0.0, 0.5, 1.0, 2.5, 7.0], np.float32)
BS = np.array([0.0, 1.0, 2.5, 4.0], np.float32)
HX = np.array([0.0, 0.3, 5.0, 50.0, 120.0], np.float32)
H2A = np.array([-3.0, 0.0, 0.5, 1.5], np.float32)
H2B = np.array([-2.0, 1.0, 2.5], np.float32)
H2C = np.array([-1.0, 0.0, 1.5, 4.0, 5.5], np.float32)
H2X = np.array([-0.5, 0.0, 0.3, 0.95, 1.0, 1.5], np.float32)
NS = np.array([-1, 0, 1, 2, 5, 30], np.int32)

CASES = {
    "sici": lambda s: s.sici(XS),
    "sici int": lambda s: s.sici(np.arange(-3, 6, dtype=np.int32)),
    "sici weak": lambda s: s.sici(2.5),
    "dawsn": lambda s: s.dawsn(XS),
    "dawsn int": lambda s: s.dawsn(np.arange(-3, 8, dtype=np.int32)),
    "dawsn weak": lambda s: s.dawsn(4.0),
    "erfcx": lambda s: s.erfcx(XS),
    "erfcx bfloat16": lambda s: s.erfcx(XS[5:13].astype(jnp.bfloat16)),
    "erfcx complex": lambda s: s.erfcx(ZS),
    "erfcx weak": lambda s: s.erfcx(1.5),
    "wofz": lambda s: s.wofz(ZS),
    "wofz real": lambda s: s.wofz(XS[1:-3]),
    "wofz int": lambda s: s.wofz(3),
    "expi": lambda s: s.expi(XS),
    "expi int": lambda s: s.expi(np.arange(-3, 8, dtype=np.int32)),
    "exp1": lambda s: s.exp1(XS),
    "exp1 weak": lambda s: s.exp1(0.5),
    "expn": lambda s: s.expn(NS, np.abs(XS[2:-3])[:, None]),
    "bernoulli 0": lambda s: s.bernoulli(0),
    "bernoulli 2": lambda s: s.bernoulli(2),
    "bernoulli 30": lambda s: s.bernoulli(30),
    "bernoulli 31": lambda s: s.bernoulli(np.int32(31)),
    "owens_t": lambda s: s.owens_t(
        XS[1:-2, None], np.array([-3.0, -1.0, 0.0, 0.3, 1.0, 2.0, np.nan], np.float32)
    ),
    "owens_t int": lambda s: s.owens_t(2, np.arange(-2, 3, dtype=np.int32)),
    "owens_t weak": lambda s: s.owens_t(0.5, 1.5),
    "owens_t f64": lambda s: s.owens_t(np.float64(0.5), np.float64(0.25)),
    "fresnel": lambda s: s.fresnel(XS),
    "fresnel f64": lambda s: s.fresnel(XS.astype(np.float64)),
    "fresnel bfloat16": lambda s: s.fresnel(XS.astype(jnp.bfloat16)),
    "fresnel int": lambda s: s.fresnel(np.arange(-3, 4, dtype=np.int32)),
    "gamma complex": lambda s: s.gamma(ZC),
    "gamma complex128": lambda s: s.gamma(ZC.astype(np.complex128)),
    "loggamma complex": lambda s: s.loggamma(ZC),
    "loggamma complex128": lambda s: s.loggamma(ZC.astype(np.complex128)),
    "hyp1f1": lambda s: s.hyp1f1(AS[:, None, None], BS[None, :, None], HX[None, None, :]),
    "hyp1f1 int": lambda s: s.hyp1f1(1, 2, 3),
    "hyp2f1": lambda s: s.hyp2f1(*np.ix_(H2A, H2B, H2C, H2X)),
    "hyp2f1 int": lambda s: s.hyp2f1(1, 2, 3, 0),
    "expn large n": lambda s: s.expn(np.float32(6000.0), np.float32(2.0)),
}


def _compare(got, want, rtol=5e-6):
    got_leaves, want_leaves = jax.tree.leaves(got), jax.tree.leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves, strict=True):
        assert g.dtype == w.dtype
        assert g.weak_type == w.weak_type
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol, atol=1e-20)


# float32 cancellation in the digamma transformation near x = 1 (a value ~5e-3 from terms ~1)
RTOL = {"hyp2f1": 2e-5}


@pytest.mark.parametrize("name", CASES)
def test_values_as_jax(name, x64):
    make, rtol = CASES[name], RTOL.get(name, 5e-6)
    want = make(jsp)
    _compare(make(msp), want, rtol)
    _compare(mj.jit(lambda: make(msp))(), want, rtol)


GRADS = {
    "sici si": (lambda s, x: s.sici(x)[0], 1.5),
    "sici ci": (lambda s, x: s.sici(x)[1], 6.5),
    "dawsn": (lambda s, x: s.dawsn(x), 0.75),
    "erfcx": (lambda s, x: s.erfcx(x), 1.25),
    "wofz real part": (lambda s, x: s.wofz(x * (1 + 0.5j)).real, 0.8),
    "expi": (lambda s, x: s.expi(x), 1.5),
    "gamma complex imag part": (lambda s, x: s.gamma(x * (1 + 0.5j)).imag, -1.3),
    "hyp1f1 a": (lambda s, x: s.hyp1f1(x, 2.5, 1.5), 0.7),
    "hyp1f1 b": (lambda s, x: s.hyp1f1(0.7, x, 1.5), 2.5),
    "hyp1f1 x": (lambda s, x: s.hyp1f1(0.7, 2.5, x), 1.5),
    "hyp2f1 a": (lambda s, x: s.hyp2f1(x, 1.5, 3.5, 0.4), 0.7),
    "hyp2f1 b": (lambda s, x: s.hyp2f1(0.7, x, 3.5, 0.4), 1.5),
    "hyp2f1 c": (lambda s, x: s.hyp2f1(0.7, 1.5, x, 0.4), 3.5),
    "hyp2f1 x": (lambda s, x: s.hyp2f1(0.7, 1.5, 3.5, x), 0.4),
    "fresnel s": (lambda s, x: s.fresnel(x)[0], 1.3),
    "fresnel c": (lambda s, x: s.fresnel(x)[1], -0.4),
    "owens_t h": (lambda s, x: s.owens_t(x, 0.7), 0.9),
    "owens_t a": (lambda s, x: s.owens_t(1.1, x), 2.5),
    "exp1": (lambda s, x: s.exp1(x), 0.7),
    "expn": (lambda s, x: s.expn(3, x), 2.5),
}


@pytest.mark.parametrize("name", GRADS)
def test_derivatives_as_jax(name, x64):
    f, x = GRADS[name]
    want = jax.grad(lambda x: f(jsp, x))(x)
    got = mj.grad(lambda x: f(msp, x))(x)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5)


def test_complex_input_is_refused_as_in_jax():
    for special in (jsp, msp):
        with pytest.raises(ValueError, match="must be real-valued"):
            special.sici(np.complex64(1.0))
        with pytest.raises(ValueError, match="does not support complex"):
            special.dawsn(np.complex64(1.0))


def test_config_x64_enabled_as_jax(x64):
    assert mj.config.x64_enabled is jax.config.x64_enabled is x64


def test_negative_bernoulli_is_refused_as_in_jax():
    for special in (jsp, msp):
        with pytest.raises(ValueError, match="n must be a non-negative integer"):
            special.bernoulli(-1)


def test_complex_loggamma_jvp_as_jax(x64):
    """Forward mode only: JAX's complex ``loggamma`` runs a ``while_loop``."""
    z, dz = np.complex64(-2.3 + 0.4j), np.complex64(0.5 - 1j)
    want = jax.jvp(jsp.loggamma, (z,), (dz,))
    got = mj.jvp(msp.loggamma, (z,), (dz,))
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-5)


VX = np.array([0.3, 1.5, 4.0], np.float32)
VMAPPED = {
    "expn": (np.array([1, 2, 3], np.int32), VX),
    "hyp1f1": (VX, VX + 1, VX),
    "hyp2f1": (VX, VX, VX + 2, VX / 5),
    "owens_t": (VX, VX),
    "sici": (VX,),
    "fresnel": (VX,),
    "expi": (VX,),
    "wofz": (VX,),
}


@pytest.mark.parametrize("name", VMAPPED)
def test_vmap_as_jax(name, x64):
    args = VMAPPED[name]
    want = jax.vmap(getattr(jsp, name))(*args)
    _compare(mj.vmap(getattr(msp, name))(*args), want, 2e-5)


def test_exp1_higher_derivatives_are_finite_and_exact():
    """d/dx E_n = -E_{n-1} needs E_0's own derivative at n = 1: grad(grad(exp1)) is
    exp(-x)/x * (1 + 1/x) (JAX fails to trace it), the third by finite differences."""
    mss = msp
    xs = np.array([0.3, 0.7, 2.0, 5.0])
    g2 = mj.vmap(mj.grad(mj.grad(mss.exp1)))(xs.astype(np.float32))
    np.testing.assert_allclose(g2, np.exp(-xs) / xs * (1 + 1 / xs), rtol=1e-5)
    with mj.enable_x64(True):
        g3 = mj.grad(mj.grad(mj.grad(mss.exp1)))
        h = 1e-5
        for x in (0.7, 2.0):
            g2_ = mj.grad(mj.grad(mss.exp1))
            fd = (g2_(x + h) - g2_(x - h)) / (2 * h)
            np.testing.assert_allclose(g3(x), fd, rtol=1e-6)
    # the first derivative of expn is -expn(n - 1) for every n >= 1
    for n in (1, 2, 3):
        got = mj.grad(lambda x, n=n: mss.expn(n, x))(0.7)
        np.testing.assert_allclose(got, -mss.expn(n - 1, 0.7), rtol=1e-6)
