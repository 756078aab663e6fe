"""jit of mj-autodiff's own primitives: stop_gradient and custom derivative calls."""

import numpy as np
import pytest

import mj_core.numpy as mnp
from mj_autodiff import custom_jvp, custom_vjp, grad, stop_gradient
from mj_batch import vmap
from mj_xla import jit


@custom_jvp
def log1pexp(x):
    return mnp.log(1.0 + mnp.exp(x))


@log1pexp.defjvp
def _log1pexp_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return log1pexp(x), t * (1.0 - 1.0 / (1.0 + mnp.exp(x)))


@custom_vjp
def clip_gradient(lo, hi, x):
    return x


def _clip_fwd(lo, hi, x):
    return x, (lo, hi)


def _clip_bwd(res, g):
    lo, hi = res
    return (None, None, mnp.clip(g, lo, hi))


clip_gradient.defvjp(_clip_fwd, _clip_bwd)


def test_jit_stop_gradient_is_identity_with_zero_derivative():
    def f(x):
        return stop_gradient(x) * x

    x = 3.0
    assert float(jit(f)(x)) == pytest.approx(9.0)
    assert float(jit(grad(f))(x)) == pytest.approx(3.0)  # d/dx (c * x) with c = x held fixed
    assert "stop_gradient" not in jit(f).lower(x).as_text()


@pytest.mark.parametrize("x", [0.0, 3.0, 100.0])
def test_jit_custom_jvp_uses_the_rule(x):
    expected = 1.0 - 1.0 / (1.0 + np.exp(x))
    assert float(jit(log1pexp)(x)) == pytest.approx(np.log1p(np.exp(x)), rel=1e-12)
    assert float(jit(grad(log1pexp))(x)) == pytest.approx(expected, rel=1e-12)
    assert float(grad(jit(log1pexp))(x)) == pytest.approx(expected, rel=1e-12)


def test_jit_vmap_custom_vjp_clips_each_gradient():
    xs = np.array([-2.0, 0.5, 4.0])
    # the output cotangent 3.0 reaches bwd and is clipped to 0.75
    g = jit(vmap(grad(lambda x: 3.0 * clip_gradient(-0.75, 0.75, x))))
    np.testing.assert_allclose(np.asarray(g(xs)), [0.75, 0.75, 0.75])
    np.testing.assert_allclose(np.asarray(jit(vmap(lambda x: clip_gradient(-1.0, 1.0, x)))(xs)), xs)
