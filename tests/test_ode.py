"""``mj.experimental.ode.odeint`` (issue 23) against closed-form solutions, and its adjoint
gradient against the analytic sensitivities."""

import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj.experimental.ode import odeint

TS = np.linspace(0.0, 2.0, 5)


def decay(y, t, k):
    return -k * y


def test_exponential_decay():
    ys = odeint(decay, 1.0, TS, 2.0)
    np.testing.assert_allclose(ys, np.exp(-2.0 * TS), rtol=1e-6, atol=1e-8)


def test_pytree_state_harmonic_oscillator():
    def oscillator(y, t, a):
        return {"x": y["v"], "v": -a * y["x"]}

    out = odeint(oscillator, {"x": 1.0, "v": 0.0}, TS, 3.0, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(out["x"], np.cos(np.sqrt(3.0) * TS), atol=1e-8)
    np.testing.assert_allclose(out["v"], -np.sqrt(3.0) * np.sin(np.sqrt(3.0) * TS), atol=1e-8)


def test_adjoint_gradients_match_the_analytic_sensitivities():
    # y(t) = y0 exp(-k t): dy(T)/dk = -T y(T), dy/dy0 = exp(-k t)
    g_k = mj.grad(lambda k: odeint(decay, 1.0, TS, k)[-1])(2.0)
    assert float(g_k) == pytest.approx(-2.0 * np.exp(-4.0), rel=1e-5)
    g_y0 = mj.grad(lambda y0: odeint(decay, y0, TS, 2.0).sum())(1.0)
    assert float(g_y0) == pytest.approx(np.exp(-2.0 * TS).sum(), rel=1e-6)
    # moving an output time t_i changes y(t_i) at rate f(y(t_i)) = -k y(t_i)
    g_t = mj.grad(lambda ts: odeint(decay, 1.0, ts, 2.0).sum())(TS)
    want = -2.0 * np.exp(-2.0 * TS)
    want[0] = -want[1:].sum()  # moving t0 shifts the whole solution
    np.testing.assert_allclose(g_t, want, rtol=1e-5, atol=1e-7)


def test_closed_over_arrays_get_cotangents():
    def loss(w):
        return odeint(lambda y, t: w * y, 1.0, TS)[-1]

    assert float(mj.grad(loss)(-0.5)) == pytest.approx(2.0 * np.exp(-1.0), rel=1e-5)


def test_vmap_and_jit():
    ks = np.array([1.0, 2.0, 3.0])
    got = mj.vmap(lambda k: odeint(decay, 1.0, TS, k))(ks)
    np.testing.assert_allclose(got, np.exp(-ks[:, None] * TS), rtol=1e-6, atol=1e-8)
    got = mj.jit(lambda k: odeint(decay, 1.0, TS, k)[-1])(2.0)
    assert float(got) == pytest.approx(np.exp(-4.0), rel=1e-6)


def test_time_dependent_linear_system():
    w = np.array([[0.0, 1.0], [-2.0, -0.1]])

    def f(y, t):
        return w @ y + mnp.sin(t)

    ys = odeint(f, np.array([1.0, 0.0]), TS)
    # check the ODE itself: finite differences of a dense solution against f
    dense = np.linspace(0.0, 2.0, 41)
    yd = np.asarray(odeint(f, np.array([1.0, 0.0]), dense, rtol=1e-10, atol=1e-10))
    slope = (yd[2:] - yd[:-2]) / (dense[2:] - dense[:-2])[:, None]
    want = yd[1:-1] @ w.T + np.sin(dense[1:-1])[:, None]
    np.testing.assert_allclose(slope, want, atol=2e-3)
    np.testing.assert_allclose(ys, yd[::10], atol=1e-6)


def test_argument_checks():
    with pytest.raises(TypeError, match="t must be an array of floats"):
        odeint(decay, 1.0, np.arange(3), 2.0)
    with pytest.raises(TypeError, match="must be arrays or scalars"):
        odeint(decay, 1.0, TS, "k")
