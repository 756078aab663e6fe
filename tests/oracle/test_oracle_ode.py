"""``mj.experimental.ode.odeint`` against ``jax.experimental.ode.odeint`` (issue 23): the same
Dormand-Prince steps give the same values, and the adjoint method the same gradients (with
respect to the initial state, the args, closed-over arrays and the output times), also under
vmap and jit."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.experimental.ode import odeint as jodeint

import mj
import mj.numpy as mnp
from mj.experimental.ode import odeint as modeint

pytestmark = pytest.mark.oracle

TS = np.linspace(0.0, 2.0, 5)
W = np.array([[0.0, 1.0], [-2.0, -0.1]])


def close(got, want):
    mj.tree_util.tree_map(
        lambda g, w: np.testing.assert_allclose(
            np.asarray(g), np.asarray(w), rtol=1e-9, atol=1e-12
        ),
        got,
        want,
    )


def test_values_and_gradients_of_a_decay():
    def run(ode, api):
        def f(k, y0, ts):
            return ode(lambda y, t, k: -k * y * (1 + 0.1 * t), y0, ts, k).sum()

        return f(2.0, 1.0, TS), api.grad(f, argnums=(0, 1, 2))(2.0, 1.0, TS)

    close(run(modeint, mj), run(jodeint, jax))


def test_pytree_state_and_closure():
    def run(ode, api, np_):
        def f(w, y0):
            def rhs(y, t):
                return {"x": y["v"], "v": w[1, 0] * y["x"] + w[1, 1] * y["v"] + np_.sin(t)}

            out = ode(rhs, y0, TS)
            return (out["x"] ** 2).sum() + out["v"][-1]

        y0 = {"x": 1.0, "v": 0.0}
        return f(W, y0), api.grad(f, argnums=(0, 1))(W, y0)

    close(run(modeint, mj, mnp), run(jodeint, jax, jnp))


def test_vmap_jit_and_options():
    ks = np.array([1.0, 2.0, 3.0])

    def run(ode, api):
        def f(k):
            return ode(lambda y, t, k: -k * y, 1.0, TS, k, rtol=1e-10, atol=1e-10, hmax=0.3)

        return api.vmap(f)(ks), api.jit(api.grad(lambda k: f(k)[-1]))(2.0)

    close(run(modeint, mj), run(jodeint, jax))
