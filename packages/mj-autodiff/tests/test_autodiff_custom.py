"""custom_jvp / custom_vjp: the seed 004 "Custom derivative rules" examples, stop_gradient."""

from __future__ import annotations

from collections import namedtuple
from functools import partial

import numpy as np
import pytest

import mj_core.numpy as mnp
from mj_autodiff import (
    custom_jvp,
    custom_vjp,
    grad,
    jvp,
    linearize,
    stop_gradient,
    value_and_grad,
    vjp,
)
from mj_autodiff.extend import custom_jvp_call_p, custom_vjp_call_p
from mj_ir import make_jaxpr


def test_custom_jvp_basic_tldr():
    @custom_jvp
    def f(x, y):
        return mnp.sin(x) * y

    @f.defjvp
    def f_jvp(primals, tangents):
        x, y = primals
        x_dot, y_dot = tangents
        return f(x, y), mnp.cos(x) * x_dot * y + mnp.sin(x) * y_dot

    assert f(2.0, 3.0) == pytest.approx(np.sin(2.0) * 3.0)
    y, y_dot = jvp(f, (2.0, 3.0), (1.0, 0.0))
    assert y == pytest.approx(2.7278922, rel=1e-6)
    assert y_dot == pytest.approx(-1.2484405, rel=1e-6)
    assert grad(f)(2.0, 3.0) == pytest.approx(-1.2484405, rel=1e-6)


def _log1pexp_naive(x):
    return mnp.log(1.0 + mnp.exp(x))


@custom_jvp
def log1pexp(x):
    return mnp.log(1.0 + mnp.exp(x))


@log1pexp.defjvp
def _log1pexp_jvp(primals, tangents):
    (x,) = primals
    (x_dot,) = tangents
    return log1pexp(x), (1.0 - 1.0 / (1.0 + mnp.exp(x))) * x_dot


def test_log1pexp_stable_at_100():
    # float32, as in the JAX docs: exp(100.) overflows
    x = np.float32(100.0)
    with np.errstate(over="ignore", invalid="ignore"):
        assert np.isnan(grad(_log1pexp_naive)(x))
        g = grad(log1pexp)(x)
    assert g == 1.0
    assert g.dtype == np.float32
    assert grad(log1pexp)(100.0) == 1.0
    assert log1pexp(3.0) == pytest.approx(3.0485873, rel=1e-7)
    assert grad(log1pexp)(3.0) == pytest.approx(0.95257413, rel=1e-7)


def test_log1pexp_defjvps_and_second_order():
    @custom_jvp
    def g(x):
        return mnp.log(1.0 + mnp.exp(x))

    g.defjvps(lambda t, ans, x: (1.0 - 1.0 / (1.0 + mnp.exp(x))) * t)
    assert grad(g)(100.0) == 1.0
    s = 1 / (1 + np.exp(-3.0))
    assert grad(grad(g))(3.0) == pytest.approx(s * (1 - s))


def test_custom_jvp_boundary_convention():
    @custom_jvp
    def f(x):
        return x / (1 + mnp.sqrt(x))

    f.defjvps(lambda t, ans, x: ((mnp.sqrt(x) + 2) / (2 * (mnp.sqrt(x) + 1) ** 2)) * t)
    assert grad(f)(0.0) == 1.0


def test_custom_jvp_is_used_only_under_differentiation():
    calls = []

    @custom_jvp
    def f(x):
        calls.append("f")
        return mnp.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        calls.append("f_jvp")
        (x,), (t,) = primals, tangents
        return f(x), mnp.cos(x) * t

    f(3.0)
    assert calls == ["f"]
    calls.clear()
    assert grad(f)(3.0) == pytest.approx(np.cos(3.0))
    assert calls == ["f_jvp", "f"]
    calls.clear()
    assert grad(grad(f))(3.0) == pytest.approx(-np.sin(3.0))
    assert calls == ["f_jvp", "f_jvp", "f"]


def test_custom_jvp_python_control_flow():
    @custom_jvp
    def f(x):
        return mnp.sin(x) if x > 0 else mnp.cos(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (x_dot,) = primals, tangents
        ans = f(x)
        return (ans, 2 * x_dot) if x > 0 else (ans, 3 * x_dot)

    assert grad(f)(1.0) == 2.0
    assert grad(f)(-1.0) == 3.0


def test_custom_jvp_defjvps_none_and_argnums():
    @custom_jvp
    def f(x, y):
        return x**2 * y

    f.defjvps(lambda x_dot, ans, x, y: 2 * x * y * x_dot, None)
    assert grad(f)(2.0, 3.0) == 12.0
    assert grad(f, 1)(2.0, 3.0) == 0.0


def test_custom_jvp_nondiff_argnums():
    @partial(custom_jvp, nondiff_argnums=(0, 2))
    def app2(f, x, g):
        return f(g(x))

    @app2.defjvp
    def app2_jvp(f, g, primals, tangents):
        (x,), (x_dot,) = primals, tangents
        return f(g(x)), 3.0 * x_dot

    assert app2(lambda x: x**3, 3.0, lambda y: 5 * y) == 3375.0
    assert grad(app2, 1)(lambda x: x**3, 3.0, lambda y: 5 * y) == 3.0


Point = namedtuple("Point", ["x", "y"])


def test_custom_jvp_pytrees():
    @custom_jvp
    def f(pt):
        return {"a": pt.x**2, "b": (mnp.sin(pt.x), mnp.cos(pt.y))}

    @f.defjvp
    def f_jvp(primals, tangents):
        (pt,), (pt_dot,) = primals, tangents
        ans_dot = {
            "a": 2 * pt.x * pt_dot.x,
            "b": (mnp.cos(pt.x) * pt_dot.x, -mnp.sin(pt.y) * pt_dot.y),
        }
        return f(pt), ans_dot

    def fun(pt):
        d = f(pt)
        return d["a"] + d["b"][0]

    g = grad(fun)(Point(1.0, 2.0))
    assert isinstance(g, Point)
    assert g.x == pytest.approx(2.0 + np.cos(1.0))
    assert g.y == 0.0


def test_custom_jvp_staged_in_make_jaxpr_keeps_rule():
    closed = make_jaxpr(log1pexp)(3.0)
    assert any(e.primitive is custom_jvp_call_p for e in closed.jaxpr.eqns)
    assert closed(3.0)[0] == pytest.approx(np.log1p(np.exp(3.0)))
    # differentiating the staged program uses the custom rule (stable at 100)
    assert grad(lambda x: closed(x)[0])(100.0) == 1.0


def test_custom_jvp_wrong_tangent_dtype_is_an_error():
    @custom_jvp
    def f(x):
        return x

    f.defjvp(lambda p, t: (p[0], np.float32(1.0)))
    with pytest.raises(TypeError, match="shapes and dtypes"):
        jvp(f, (1.0,), (1.0,))


# --- custom_vjp -------------------------------------------------------------------------------
def _make_f_vjp(calls=None):
    @custom_vjp
    def f(x, y):
        if calls is not None:
            calls.append("f")
        return mnp.sin(x) * y

    def f_fwd(x, y):
        if calls is not None:
            calls.append("fwd")
        return f(x, y), (mnp.cos(x), mnp.sin(x), y)

    def f_bwd(res, g):
        if calls is not None:
            calls.append("bwd")
        cos_x, sin_x, y = res
        return (cos_x * g * y, sin_x * g)

    f.defvjp(f_fwd, f_bwd)
    return f


def test_custom_vjp_basic():
    calls = []
    f = _make_f_vjp(calls)
    assert grad(f)(2.0, 3.0) == pytest.approx(-1.2484405, rel=1e-6)
    assert calls == ["fwd", "f", "bwd"]
    calls.clear()
    f(2.0, 3.0)
    assert calls == ["f"]
    calls.clear()
    _y, f_vjp = vjp(f, 2.0, 3.0)
    assert calls == ["fwd", "f"]
    gx, gy = f_vjp(1.0)
    assert gx == pytest.approx(np.cos(2.0) * 3.0)
    assert gy == pytest.approx(np.sin(2.0))


def test_custom_vjp_forward_mode_is_an_error():
    f = _make_f_vjp()
    with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
        jvp(f, (3.0, 1.0), (1.0, 0.0))
    # but linearize stages the tangent computation without evaluating it
    _, f_lin = linearize(f, 3.0, 1.0)
    with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
        f_lin(1.0, 0.0)


@partial(custom_vjp, nondiff_argnums=(0, 1))
def clip_gradient(lo, hi, x):
    return x


def _clip_gradient_fwd(lo, hi, x):
    return x, None


def _clip_gradient_bwd(lo, hi, _, g):
    return (mnp.clip(g, lo, hi),)


clip_gradient.defvjp(_clip_gradient_fwd, _clip_gradient_bwd)


def test_clip_gradient():
    def clip_sin(x):
        return mnp.sin(clip_gradient(-0.75, 0.75, x))

    t = np.linspace(0.0, 10.0, 7)
    for ti in t:
        assert grad(clip_sin)(ti) == pytest.approx(np.clip(np.cos(ti), -0.75, 0.75))
    assert clip_sin(1.0) == pytest.approx(np.sin(1.0))


def _python_while_loop(cond_fun, body_fun, init):
    val = init
    while cond_fun(val):
        val = body_fun(val)
    return val


@partial(custom_vjp, nondiff_argnums=(0,))
def fixed_point(f, a, x_guess):
    def cond_fun(carry):
        x_prev, x = carry
        return mnp.abs(x_prev - x) > 1e-6

    def body_fun(carry):
        _, x = carry
        return x, f(a, x)

    _, x_star = _python_while_loop(cond_fun, body_fun, (x_guess, f(a, x_guess)))
    return x_star


def _fixed_point_fwd(f, a, x_init):
    x_star = fixed_point(f, a, x_init)
    return x_star, (a, x_star)


def _rev_iter(f, packed, u):
    a, x_star, x_star_bar = packed
    _, vjp_x = vjp(lambda x: f(a, x), x_star)
    return x_star_bar + vjp_x(u)[0]


def _fixed_point_rev(f, res, x_star_bar):
    a, x_star = res
    _, vjp_a = vjp(lambda a: f(a, x_star), a)
    (a_bar,) = vjp_a(fixed_point(partial(_rev_iter, f), (a, x_star, x_star_bar), x_star_bar))
    return a_bar, mnp.zeros_like(x_star)


fixed_point.defvjp(_fixed_point_fwd, _fixed_point_rev)


def newton_sqrt(a):
    return fixed_point(lambda a, x: 0.5 * (x + a / x), a, a)


def test_fixed_point_example():
    assert newton_sqrt(2.0) == pytest.approx(np.sqrt(2.0), rel=1e-7)
    assert grad(newton_sqrt)(2.0) == pytest.approx(0.5 / np.sqrt(2.0), rel=1e-6)
    assert grad(grad(newton_sqrt))(2.0) == pytest.approx(-0.25 * 2.0**-1.5, rel=1e-5)
    assert grad(mnp.sqrt)(2.0) == pytest.approx(0.35355338, rel=1e-7)


def test_custom_vjp_pytrees_and_none_cotangent():
    @custom_vjp
    def f(pt):
        return {"a": pt.x**2, "b": (mnp.sin(pt.x), mnp.cos(pt.y))}

    def f_fwd(pt):
        return f(pt), pt

    def f_bwd(pt, g):
        a_bar, (b0_bar, b1_bar) = g["a"], g["b"]
        return (Point(2 * pt.x * a_bar + mnp.cos(pt.x) * b0_bar, -mnp.sin(pt.y) * b1_bar),)

    f.defvjp(f_fwd, f_bwd)
    g = grad(lambda pt: f(pt)["a"] + f(pt)["b"][0])(Point(1.0, 2.0))
    assert g.x == pytest.approx(2.0 + np.cos(1.0))
    assert g.y == 0.0

    @custom_vjp
    def h(x, y):
        return x * y

    h.defvjp(lambda x, y: (x * y, x), lambda x, g: (None, x * g))
    assert grad(h, (0, 1))(2.0, 5.0) == (0.0, 2.0)


def test_custom_vjp_staged_in_make_jaxpr_keeps_rule():
    closed = make_jaxpr(clip_gradient, static_argnums=(0, 1))(-0.1, 0.1, 2.0)
    assert any(e.primitive is custom_vjp_call_p for e in closed.jaxpr.eqns)
    assert grad(lambda x: mnp.sin(closed(x)[0]) * 5.0)(0.0) == pytest.approx(0.1)


def test_stop_gradient():
    def f(x):
        return x * stop_gradient(x)

    v, g = value_and_grad(f)(3.0)
    assert v == 9.0
    assert g == 3.0
    assert grad(lambda x: mnp.sum(stop_gradient({"a": x})["a"] + x))(np.ones(3)).tolist() == [
        1.0,
        1.0,
        1.0,
    ]


def test_eager_custom_vjp_results_are_mj_arrays():
    """bwd sees its residuals and cotangents as mj arrays, and grad/vjp return mj arrays,
    including a zero cotangent from a None in bwd (as JAX returns jax.Array values)."""
    from mj_core import EagerArray

    seen = []

    @custom_vjp
    def f(x, y):
        return mnp.sin(x) * y

    def fwd(x, y):
        return f(x, y), (mnp.cos(x), y)

    def bwd(res, g):
        seen.extend([*res, g])
        cos_x, y = res
        return (cos_x * g * y, None)

    f.defvjp(fwd, bwd)
    gx, gy = grad(f, argnums=(0, 1))(1.0, 2.0)
    assert all(isinstance(v, EagerArray) for v in seen)
    assert isinstance(gx, EagerArray)
    # a weak zero (WeakEagerArray), as JAX's: the zero of a Python scalar argument is weak
    assert isinstance(gy, EagerArray)
    assert gy.weak_type
    np.testing.assert_allclose(gx, 2.0 * np.cos(1.0))
    assert float(gy) == 0.0
    _, f_vjp = vjp(f, 1.0, 2.0)
    assert all(isinstance(c, EagerArray) for c in f_vjp(np.float64(1.0)))
