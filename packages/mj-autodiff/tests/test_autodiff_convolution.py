"""Derivatives of conv_general_dilated: jvp and vjp against central finite differences, and
the transpose rules against the adjoint identity <ct, L v> == <L^T ct, v> for each operand."""

import numpy as np
import pytest

from mj_autodiff import grad, jvp, vjp
from mj_core import lax

# (lhs shape, rhs shape, strides, padding, lhs_dilation, rhs_dilation, dimension numbers,
#  feature_group_count, batch_group_count)
CONFIGS = [
    ((2, 3, 6, 5), (4, 3, 3, 2), (1, 1), "SAME", (1, 1), (1, 1), None, 1, 1),
    ((2, 3, 7, 6), (4, 3, 3, 2), (2, 3), ((1, 2), (0, 1)), (1, 1), (1, 1), None, 1, 1),
    ((1, 2, 5, 5), (3, 2, 2, 3), (2, 1), ((2, 1), (-1, 2)), (2, 3), (1, 2), None, 1, 1),
    ((2, 4, 6, 5), (6, 2, 3, 2), (2, 1), ((1, 0), (0, 1)), (2, 1), (1, 2), None, 2, 1),
    ((4, 3, 6, 5), (6, 3, 2, 2), (1, 2), ((0, 1), (1, 1)), (1, 1), (2, 1), None, 1, 2),
    ((2, 6, 5, 4), (3, 2, 2, 4), (2, 2), "VALID", (1, 1), (1, 1), ("NHWC", "HWIO", "NCHW"), 2, 1),
    ((2, 3, 9), (5, 3, 4), (3,), ((2, 1),), (2,), (2,), None, 1, 1),
]  # fmt: skip
IDS = [str(i) for i in range(len(CONFIGS))]


def _setup(config, seed=0):
    ls, rs, strides, padding, ld, rd, dn, fgc, bgc = config
    rng = np.random.default_rng(seed)

    def conv(x, w):
        return lax.conv_general_dilated(x, w, strides, padding, ld, rd, dn, fgc, bgc)

    return conv, rng.normal(size=ls), rng.normal(size=rs), rng


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_jvp_matches_central_differences(config):
    conv, x, w, rng = _setup(config)
    dx, dw = rng.normal(size=x.shape), rng.normal(size=w.shape)
    out, tangent = jvp(conv, (x, w), (dx, dw))
    np.testing.assert_allclose(out, conv(x, w))
    eps = 1e-6
    fd = (conv(x + eps * dx, w + eps * dw) - conv(x - eps * dx, w - eps * dw)) / (2 * eps)
    np.testing.assert_allclose(tangent, fd, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_vjp_matches_central_differences(config):
    conv, x, w, rng = _setup(config)
    out, pullback = vjp(conv, x, w)
    ct = rng.normal(size=out.shape)
    gx, gw = pullback(ct)
    assert gx.shape == x.shape
    assert gw.shape == w.shape
    dx, dw = rng.normal(size=x.shape), rng.normal(size=w.shape)
    eps = 1e-6
    fd = (conv(x + eps * dx, w + eps * dw) - conv(x - eps * dx, w - eps * dw)) / (2 * eps)
    np.testing.assert_allclose(np.vdot(ct, fd), np.vdot(gx, dx) + np.vdot(gw, dw), rtol=1e-7)


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_transposes_are_adjoints(config):
    conv, x, w, rng = _setup(config, seed=1)
    ct = rng.normal(size=conv(x, w).shape)
    # each map is linear, so its vjp is exactly the transpose rule applied to ct
    (lhs_t,) = vjp(lambda v: conv(v, w), x)[1](ct)
    (rhs_t,) = vjp(lambda v: conv(x, v), w)[1](ct)
    u, v = rng.normal(size=x.shape), rng.normal(size=w.shape)
    np.testing.assert_allclose(np.vdot(ct, conv(u, w)), np.vdot(lhs_t, u), rtol=1e-10)
    np.testing.assert_allclose(np.vdot(ct, conv(x, v)), np.vdot(rhs_t, v), rtol=1e-10)


def test_float32_gradients_keep_the_dtype():
    x = np.ones((1, 2, 5, 5), np.float32)
    w = np.ones((3, 2, 3, 3), np.float32)

    def loss(x, w):
        return lax.reduce_sum(lax.conv(x, w, (1, 1), "SAME"), (0, 1, 2, 3))

    gx, gw = grad(loss, argnums=(0, 1))(x, w)
    assert gx.dtype == gw.dtype == np.float32
    # every input pixel is seen by (kernel taps that land inside the image) x 3 outputs
    assert gx[0, 0, 2, 2] == 27.0
    assert gx[0, 0, 0, 0] == 12.0
    assert gw[0, 0, 1, 1] == 25.0
    assert gw[0, 0, 0, 0] == 16.0


def test_second_derivative_through_the_transpose():
    rng = np.random.default_rng(3)
    x, w = rng.normal(size=(1, 1, 6)), rng.normal(size=(1, 1, 3))

    def f(w):
        return lax.reduce_sum(lax.sin(lax.conv(x, w, (1,), "SAME")), (0, 1, 2))

    g = grad(f)
    eps = 1e-5
    e0 = np.zeros_like(w)
    e0[0, 0, 1] = 1.0
    fd = (g(w + eps * e0) - g(w - eps * e0)) / (2 * eps)
    _, hess_col = jvp(g, (w,), (e0,))
    np.testing.assert_allclose(hess_col, fd, rtol=1e-6, atol=1e-8)
