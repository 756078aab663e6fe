"""linearize / vjp / grad / value_and_grad: Autodidax Part 4 values, pytrees, argnums, has_aux,
errors, and long chains (no recursion, linear time)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import mj_core.numpy as mnp
from mj_autodiff import float0, grad, jvp, linearize, value_and_grad, vjp
from mj_core import lax
from mj_core.errors import TracerLeakError


def f(x):
    y = lax.mul(lax.sin(x), 2.0)
    return lax.add(lax.neg(y), x)


def test_autodidax_linearize_sin():
    y, sin_lin = linearize(lax.sin, 3.0)
    assert y == 0.1411200080598672
    assert sin_lin(1.0) == pytest.approx(-0.9899924966004454, abs=1e-16)


def test_autodidax_vjp_sin():
    _y, f_vjp = vjp(lax.sin, 3.0)
    (ct,) = f_vjp(1.0)
    assert ct == pytest.approx(-0.9899924966004454, abs=1e-16)


def test_autodidax_grad_f_and_hessian():
    assert grad(f)(3.0) == pytest.approx(2.979984993200891)
    assert grad(grad(f))(3.0) == pytest.approx(2 * np.sin(3.0))
    assert jvp(grad(f), (3.0,), (1.0,))[1] == pytest.approx(2 * np.sin(3.0))
    assert grad(lambda x: jvp(f, (x,), (1.0,))[1])(3.0) == pytest.approx(2 * np.sin(3.0))


def test_python_control_flow_under_grad():
    def g(x):
        return x * x if x > 0 else 0.0 * x

    assert grad(g)(3.0) == 6.0
    assert grad(g)(-3.0) == 0.0


def test_linearize_matches_jvp_on_pytrees():
    def h(p):
        return {"out": mnp.tanh(p["w"] * p["x"]), "aux": [p["x"] ** 2]}

    p = {"w": np.arange(3.0), "x": np.linspace(0.1, 0.3, 3)}
    t = {"w": np.ones(3), "x": np.array([0.5, -1.0, 2.0])}
    _y, f_lin = linearize(h, p)
    _y2, t_out = jvp(h, (p,), (t,))
    lin_out = f_lin(t)
    np.testing.assert_allclose(lin_out["out"], t_out["out"], rtol=1e-14)
    np.testing.assert_allclose(lin_out["aux"][0], t_out["aux"][0], rtol=1e-14)
    with pytest.raises(TypeError, match="structure"):
        f_lin(np.ones(3))


def test_vjp_pytrees_and_float0_for_ints():
    def h(x, n, d):
        return {"a": x * n, "b": d["y"] * 2.0}

    x = np.arange(3.0)
    n = np.array([1, 2, 3])
    _out, f_vjp = vjp(h, x, n, {"y": 1.5})
    cx, cn, cd = f_vjp({"a": np.ones(3), "b": 1.0})
    np.testing.assert_allclose(cx, [1.0, 2.0, 3.0])
    assert cn.dtype == float0
    assert cn.shape == (3,)
    assert cd == {"y": 2.0}


def test_vjp_has_aux():
    _out, f_vjp, aux = vjp(lambda x: (mnp.sin(x), {"note": x * 2}), 1.0, has_aux=True)
    assert aux["note"] == 2.0
    assert f_vjp(1.0)[0] == pytest.approx(np.cos(1.0))


def test_vjp_cotangent_errors():
    _, f_vjp = vjp(lambda x: x * 2.0, np.ones(3))
    with pytest.raises(ValueError, match="unexpected tree structure"):
        f_vjp((np.ones(3),))
    with pytest.raises(ValueError, match="unexpected JAX type"):
        f_vjp(np.ones(4))
    with pytest.raises(ValueError, match=r"got float32\[3\], but expected float64\[3\]"):
        f_vjp(np.ones(3, np.float32))
    with pytest.raises(TypeError, match="applied to <lambda> was called with 2 arguments"):
        f_vjp(np.ones(3), np.ones(3))


def test_grad_argnums_and_has_aux():
    def loss(w, b, x):
        return mnp.sum((w * x + b) ** 2), {"n": 3}

    w, b, x = 2.0, 0.5, np.arange(3.0)
    gw, aux = grad(loss, has_aux=True)(w, b, x)
    assert aux == {"n": 3}
    assert gw == pytest.approx(np.sum(2 * (w * x + b) * x))
    (gw2, gb), aux = grad(loss, argnums=(0, 1), has_aux=True)(w, b, x)
    assert gw2 == gw
    assert gb == pytest.approx(np.sum(2 * (w * x + b)))
    (val, aux), g = value_and_grad(loss, argnums=-2, has_aux=True)(w, b, x)
    assert val == pytest.approx(np.sum((w * x + b) ** 2))
    assert g == gb


def test_grad_pytree_argument_and_kwargs():
    def loss(params, *, scale):
        return scale * mnp.sum(params["a"] * params["b"][0])

    params = {"a": np.arange(3.0), "b": (np.ones(3),)}
    g = grad(loss)(params, scale=2.0)
    np.testing.assert_allclose(g["a"], 2 * np.ones(3))
    np.testing.assert_allclose(g["b"][0], 2 * np.arange(3.0))


def test_grad_errors():
    with pytest.raises(TypeError, match="Gradient only defined for scalar-output functions"):
        grad(lambda x: x * 2.0)(np.ones(3))
    with pytest.raises(TypeError, match="real-valued outputs"):
        grad(lambda x: mnp.sum(x > 0))(np.ones(3))
    with pytest.raises(TypeError, match=r"sub-dtype of np.inexact\), but got int32"):
        grad(lambda n: n * 2)(np.int32(3))
    with pytest.raises(TypeError, match="argnums"):
        grad(lambda x: x, argnums=2)(1.0)


def test_grad_of_constant_function_is_zero():
    assert grad(lambda x: 3.0)(1.0) == 0.0
    g = grad(lambda x: mnp.sum(np.ones(3)))(np.ones(3))
    np.testing.assert_array_equal(g, np.zeros(3))


def test_grad_float32_dtype_kept():
    g = grad(lambda x: mnp.sum(mnp.sin(x)))(np.ones(3, np.float32))
    assert g.dtype == np.float32


def test_leaked_tracer_from_grad():
    leaked = []

    def g(x):
        leaked.append(x)
        return x * 2.0

    grad(g)(1.0)
    with pytest.raises(TracerLeakError):
        lax.sin(leaked[0])


@pytest.mark.parametrize("n", [10_000])
def test_long_chain_is_iterative(n):
    def chain(x):
        for i in range(n):
            x = mnp.sin(x) if i % 3 == 0 else (x * 1.0001 if i % 3 == 1 else x + 0.5)
        return mnp.sum(x)

    x = np.linspace(-1.0, 1.0, 4)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200)  # a recursive toposort or backward pass would overflow
    try:
        g = grad(chain)(x)
    finally:
        sys.setrecursionlimit(limit)
    expected = np.ones(4)
    v = x
    coeffs = []
    for i in range(n):
        if i % 3 == 0:
            coeffs.append(np.cos(v))
            v = np.sin(v)
        elif i % 3 == 1:
            coeffs.append(1.0001)
            v = v * 1.0001
        else:
            v = v + 0.5
    for c in reversed(coeffs):
        expected = expected * c
    np.testing.assert_allclose(g, expected, rtol=1e-9)
