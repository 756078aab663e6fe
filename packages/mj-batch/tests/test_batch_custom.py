"""vmap of mj-autodiff's primitives: custom_jvp/custom_vjp functions keep their custom rules
when batched, in every order of vmap and differentiation; stop_gradient batches."""

from __future__ import annotations

import numpy as np

from mj_autodiff import custom_jvp, custom_vjp, grad, jvp, stop_gradient
from mj_batch import vmap
from mj_core import lax
from mj_ir import eval_jaxpr, make_jaxpr

XS = np.linspace(-1.0, 1.0, 5)
SCALE = 100.0  # the custom rules are deliberately "wrong" by this factor: visible if used


@custom_jvp
def scaled_sin(x, y):
    return lax.sin(x) * y


@scaled_sin.defjvp
def _scaled_sin_jvp(primals, tangents):
    x, y = primals
    x_dot, y_dot = tangents
    return scaled_sin(x, y), SCALE * lax.cos(x) * x_dot * y + lax.sin(x) * y_dot


@custom_vjp
def scaled_mul(x, w):
    return lax.sin(x) * w


def _scaled_mul_fwd(x, w):
    return scaled_mul(x, w), (lax.cos(x), lax.sin(x), w)


def _scaled_mul_bwd(res, ct):
    cos_x, sin_x, w = res
    return SCALE * cos_x * w * ct, sin_x * ct


scaled_mul.defvjp(_scaled_mul_fwd, _scaled_mul_bwd)


def _sum(x):
    return lax.reduce_sum(x, (0,))


def test_vmap_of_custom_jvp_function_computes_the_primal() -> None:
    np.testing.assert_allclose(vmap(scaled_sin, (0, None))(XS, 2.0), np.sin(XS) * 2.0)
    np.testing.assert_allclose(vmap(scaled_sin)(XS, XS), np.sin(XS) * XS)


def test_custom_jvp_rule_survives_vmap_in_every_order() -> None:
    expected = SCALE * np.cos(XS) * 2.0
    np.testing.assert_allclose(vmap(grad(scaled_sin), (0, None))(XS, 2.0), expected)
    total = grad(lambda xs: _sum(vmap(scaled_sin, (0, None))(xs, 2.0)))
    np.testing.assert_allclose(total(XS), expected)
    _, tangent = jvp(vmap(scaled_sin, (0, None)), (XS, 2.0), (np.ones(5), 0.0))
    np.testing.assert_allclose(tangent, expected)
    # the tangent of the unbatched argument is batched through the custom rule too
    _, tangent = jvp(vmap(scaled_sin, (0, None)), (XS, 2.0), (np.zeros(5), 1.0))
    np.testing.assert_allclose(tangent, np.sin(XS))


def test_custom_vjp_rule_survives_vmap_and_sums_shared_cotangents() -> None:
    np.testing.assert_allclose(vmap(scaled_mul, (0, None))(XS, 3.0), np.sin(XS) * 3.0)
    np.testing.assert_allclose(vmap(grad(scaled_mul), (0, None))(XS, 3.0), SCALE * np.cos(XS) * 3.0)
    gx, gw = grad(lambda xs, w: _sum(vmap(scaled_mul, (0, None))(xs, w)), argnums=(0, 1))(XS, 3.0)
    np.testing.assert_allclose(gx, SCALE * np.cos(XS) * 3.0)
    np.testing.assert_allclose(gw, np.sin(XS).sum())  # summed over the batch: w is shared


def test_custom_vjp_with_both_arguments_batched() -> None:
    ws = np.linspace(1.0, 2.0, 5)
    gx, gw = grad(lambda xs, ws: _sum(vmap(scaled_mul)(xs, ws)), argnums=(0, 1))(XS, ws)
    np.testing.assert_allclose(gx, SCALE * np.cos(XS) * ws)
    np.testing.assert_allclose(gw, np.sin(XS))


def test_vmap_of_a_staged_custom_jvp_call() -> None:
    closed = make_jaxpr(scaled_sin)(0.5, 2.0)
    assert "custom_jvp_call" in [e.primitive.name for e in closed.eqns]

    def staged(x, y):
        return eval_jaxpr(closed, [x, y])[0]

    np.testing.assert_allclose(vmap(staged, (0, None))(XS, 2.0), np.sin(XS) * 2.0)
    np.testing.assert_allclose(
        grad(lambda xs: _sum(vmap(staged, (0, None))(xs, 2.0)))(XS), SCALE * np.cos(XS) * 2.0
    )


def test_stop_gradient_under_vmap() -> None:
    out = vmap(grad(lambda x: x * stop_gradient(x)))(XS)
    np.testing.assert_allclose(out, XS)
    np.testing.assert_allclose(vmap(stop_gradient, in_axes=1)(np.ones((2, 3))), np.ones((3, 2)))
