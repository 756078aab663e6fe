"""Derivatives of the windowed reductions: jvp and grad against central finite differences,
the reduce_window_sum transpose against the adjoint identity, and the max/min tangent
picking the chosen element (padding never receives a tangent)."""

import numpy as np
import pytest

from mj_autodiff import grad, jvp, vjp
from mj_core import lax
from mj_core.prims.windowed import reduce_window

CONFIGS = [
    ((6, 7), (2, 2), (2, 2), "VALID", None, None),
    ((2, 5, 6, 3), (1, 2, 2, 1), (1, 2, 2, 1), "SAME", None, None),
    ((5, 6), (3, 2), (1, 2), ((1, 2), (0, 1)), (2, 1), (1, 2)),
    ((7,), (3,), (2,), ((2, -1),), (1,), (2,)),
]  # fmt: skip
MONOIDS = [(lax.add, 0.0), (lax.max, -np.inf), (lax.min, np.inf)]


def _f(config, op, init):
    _, dims, strides, padding, base, wdil = config

    def f(x):
        return reduce_window(x, init, op, dims, strides, padding, base, wdil)

    return f


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize(("op", "init"), MONOIDS, ids=["sum", "max", "min"])
def test_jvp_and_grad_match_central_differences(config, op, init):
    f = _f(config, op, init)
    rng = np.random.default_rng(1)
    x = rng.normal(size=config[0])
    dx = rng.normal(size=x.shape)
    out, tangent = jvp(f, (x,), (dx,))
    np.testing.assert_allclose(out, f(x))
    eps = 1e-6
    fd = (f(x + eps * dx) - f(x - eps * dx)) / (2 * eps)
    np.testing.assert_allclose(tangent, fd, atol=1e-7)
    w = rng.normal(size=np.shape(out))

    def loss(x):
        return lax.reduce_sum(lax.mul(f(x), w), tuple(range(len(np.shape(w)))))

    g = grad(loss)(x)
    np.testing.assert_allclose(np.sum(g * dx), np.sum(fd * w), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("config", CONFIGS)
def test_sum_transpose_is_the_adjoint(config):
    f = _f(config, lax.add, 0.0)
    rng = np.random.default_rng(2)
    x, v = rng.normal(size=config[0]), rng.normal(size=config[0])
    out, f_vjp = vjp(f, x)
    ct = rng.normal(size=np.shape(out))
    (xt,) = f_vjp(ct)
    assert xt.shape == x.shape
    np.testing.assert_allclose(np.sum(ct * f(v)), np.sum(xt * v), rtol=1e-12)


def test_max_pool_gradient_routes_to_the_maximum():
    x = np.array([[1.0, 5.0, 2.0, 0.0], [3.0, 4.0, 7.0, 6.0]])

    def pool(x):
        return reduce_window(x, -np.inf, lax.max, (2, 2), (2, 2), "VALID")

    g = grad(lambda x: lax.reduce_sum(pool(x), (0, 1)))(x)
    np.testing.assert_array_equal(g, [[0, 1, 0, 0], [0, 0, 1, 0]])
    # SAME padding: the padded -inf never wins, so every window still routes to an input
    g = grad(lambda x: lax.reduce_sum(
        reduce_window(x, -np.inf, lax.max, (3, 3), (2, 2), "SAME"), (0, 1)))(x)  # fmt: skip
    assert g.sum() == 2.0
