"""Differentiating control flow: jvp and grad against central finite differences, the
Autodidax Part 5 examples, jaxpr-level partial evaluation, and the while reverse-mode error."""

import re

import numpy as np
import pytest

from mj_autodiff import grad, jvp, linearize, value_and_grad
from mj_autodiff.extend import jvp_jaxpr, linearize_flat, partial_eval_jaxpr, transpose_jaxpr
from mj_control import cond, fori_loop, scan, scan_p, switch, while_loop
from mj_core import lax
from mj_ir import make_jaxpr


def _fd(f, x, eps=1e-6):
    """Central finite difference of scalar-valued f along all of x (a directional derivative
    for arrays, with direction ones)."""
    return (f(x + eps) - f(x - eps)) / (2 * eps)


def _fd_grad(f, x, eps=1e-6):
    x = np.asarray(x, float)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


# --- Autodidax Part 5 ---------------------------------------------------------------------------


def test_autodidax_cond_jvp():
    _, out_tan = jvp(lambda x: cond(True, lambda: x * x, lambda: 0.0), (1.0,), (1.0,))
    assert out_tan == 2.0


def test_autodidax_cond_linearize():
    _, f_lin = linearize(lambda x: cond(True, lambda: x, lambda: 0.0), 1.0)
    assert f_lin(3.14) == pytest.approx(3.14)


def test_autodidax_cond_grad():
    assert grad(lambda x: cond(True, lambda: x * x, lambda: 0.0))(1.0) == 2.0


# --- cond / switch ----------------------------------------------------------------------------


def _branchy(x):
    return cond(x > 0, lambda x: lax.sin(x) * x, lambda x: lax.cos(x) + x * 2.0, x)


@pytest.mark.parametrize("x", [1.3, -0.7])
def test_cond_jvp_and_grad_match_finite_differences(x):
    expected = _fd(_branchy, x)
    assert jvp(_branchy, (x,), (1.0,))[1] == pytest.approx(expected, rel=1e-6)
    assert grad(_branchy)(x) == pytest.approx(expected, rel=1e-6)


def test_cond_grad_through_closed_over_values():
    w = np.array([1.0, -2.0, 0.5])

    def f(a, x):
        return lax.reduce_sum(cond(x > 0, lambda: x * w * a, lambda: w - a), (0,))

    for x in (2.0, -1.0):
        ga = grad(f)(0.3, x)
        assert ga == pytest.approx(_fd(lambda a, x=x: f(a, x), 0.3), rel=1e-6)


def test_cond_with_integer_output_differentiates_the_float_one():
    def f(x):
        n, y = cond(x > 0, lambda x: (1, x * x), lambda x: (2, x), x)
        return y * n

    assert grad(f)(3.0) == pytest.approx(6.0)
    assert grad(f)(-3.0) == pytest.approx(2.0)


@pytest.mark.parametrize("i", [0, 1, 2])
def test_switch_grad(i):
    branches = [lambda x: x * x, lambda x: lax.exp(x), lambda x: -3.0 * x]

    def f(x):
        return switch(i, branches, x)

    assert grad(f)(0.5) == pytest.approx(_fd(f, 0.5), rel=1e-6)


# --- while_loop -------------------------------------------------------------------------------


def _while_fn(x):
    return while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, lax.sin(c[1]) * x), (0, x))[1]


def test_while_jvp_matches_finite_differences():
    _, t = jvp(_while_fn, (0.7,), (1.0,))
    assert t == pytest.approx(_fd(_while_fn, 0.7), rel=1e-6)


def test_while_linearize_forward_mode():
    y, f_lin = linearize(_while_fn, 0.7)
    assert y == pytest.approx(_while_fn(0.7))
    assert f_lin(2.0) == pytest.approx(2.0 * _fd(_while_fn, 0.7), rel=1e-6)


def test_while_reverse_mode_error_message():
    message = (
        "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with "
        "dynamic start/stop values. Try using lax.scan, or using fori_loop with static "
        "start/stop."
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        grad(_while_fn)(0.7)


def test_fori_loop_traced_bounds_reverse_mode_error():
    def f(x, n):
        return fori_loop(0, n, lambda i, c: c * x, 1.0)

    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work"):
        make_jaxpr(lambda x, n: grad(f)(x, n))(2.0, 3)  # n is traced: a while loop
    assert grad(f)(2.0, 3) == pytest.approx(12.0)  # n is static: a scan


def test_while_jvp_tangent_carried_only_where_needed():
    # the counter is an integer (no tangent) and a float carry starting from a constant gets a
    # tangent only through the body
    def f(x):
        return while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] + x), (0, 1.0))[1]

    assert jvp(f, (2.0,), (1.0,)) == (pytest.approx(7.0), pytest.approx(3.0))
    y, f_lin = linearize(f, 2.0)
    assert y == pytest.approx(7.0)
    assert f_lin(1.0) == pytest.approx(3.0)


# --- fori_loop with static bounds, scan -------------------------------------------------------


def test_fori_loop_static_bounds_grad():
    def f(x):
        return fori_loop(0, 5, lambda i, c: lax.sin(c) * x + i, x)

    assert grad(f)(0.7) == pytest.approx(_fd(f, 0.7), rel=1e-6)


XS = np.linspace(0.1, 1.0, 6)


def _scan_loss(a, xs=XS, reverse=False):
    c, ys = scan(lambda c, x: (lax.sin(c) * a + x, c * x), 0.3, xs, reverse=reverse)
    return c + lax.reduce_sum(ys * ys, (0,))


@pytest.mark.parametrize("reverse", [False, True])
def test_scan_jvp_and_grad_wrt_closed_over_scalar(reverse):
    def f(a):
        return _scan_loss(a, reverse=reverse)

    expected = _fd(f, 0.7)
    assert jvp(f, (0.7,), (1.0,))[1] == pytest.approx(expected, rel=1e-6)
    assert grad(f)(0.7) == pytest.approx(expected, rel=1e-6)


def test_scan_grad_wrt_xs_and_init():
    def f(init, xs):
        c, ys = scan(lambda c, x: (c * x, c + x * x), init, xs)
        return c + lax.reduce_sum(ys, (0,))

    g_init, g_xs = grad(f, argnums=(0, 1))(1.5, XS)
    assert g_init == pytest.approx(_fd(lambda i: f(i, XS), 1.5), rel=1e-6)
    np.testing.assert_allclose(g_xs, _fd_grad(lambda xs: f(1.5, xs), XS), rtol=1e-6)


def test_scan_rnn_grad_wrt_weights():
    rng = np.random.default_rng(1)
    w = rng.normal(size=(4, 4)) * 0.5
    xs = rng.normal(size=(7, 4))

    def loss(w):
        def step(h, x):
            h = lax.tanh(lax.dot_general(w, h, (((1,), (0,)), ((), ()))) + x)
            return h, lax.reduce_sum(h * h, (0,))

        h, ys = scan(step, np.zeros(4), xs)
        return lax.reduce_sum(ys, (0,)) + lax.reduce_sum(h, (0,))

    value, g = value_and_grad(loss)(w)
    assert value == pytest.approx(loss(w))
    np.testing.assert_allclose(g, _fd_grad(loss, w), rtol=1e-5, atol=1e-8)


def test_scan_pytree_carry_grad():
    def f(x):
        def step(carry, t):
            a, b = carry["a"], carry["b"]
            return {"a": a * t + b, "b": lax.sin(a)}, a * b

        carry, ys = scan(step, {"a": x, "b": 2.0 * x}, XS)
        return carry["a"] + carry["b"] + lax.reduce_sum(ys, (0,))

    assert grad(f)(0.4) == pytest.approx(_fd(f, 0.4), rel=1e-6)


def test_scan_grad_does_not_stack_loop_invariant_residuals():
    """The residual w of `c * w` is a const of the scan: it reaches the linear scan as a
    const, not stacked `length` times."""
    w = np.arange(3.0)

    def f(c0):
        return lax.reduce_sum(
            scan(lambda c, _: (lax.sin(c) * w, None), c0, None, length=50)[0], (0,)
        )

    closed = make_jaxpr(lambda c0, t: jvp(f, (c0,), (t,)))(np.ones(3), np.ones(3))
    _, unknown, _, _ = partial_eval_jaxpr(closed, [False, True])
    big = [a for a in unknown.in_avals if a.shape[:1] == (50,)]
    # one stacked residual (cos(c) for each step); w is not stacked
    assert len(big) == 1
    assert grad(f)(np.ones(3)).shape == (3,)


# --- jaxpr-level partial evaluation (used when differentiating through jit) ----------------------


@pytest.mark.parametrize(
    "f",
    [
        _branchy,
        lambda x: _scan_loss(x),
        lambda x: fori_loop(0, 4, lambda i, c: c * x + lax.sin(c), x),
        _while_fn,
    ],
    ids=["cond", "scan", "fori_static", "while"],
)
def test_jaxpr_level_partial_eval_of_jvp(f):
    x = 0.6
    closed = make_jaxpr(f)(x)
    jvp_closed, _ = jvp_jaxpr(closed, [True], False)
    known, unknown, out_unknowns, num_res = partial_eval_jaxpr(jvp_closed, [False, True])
    assert out_unknowns == [False, True]
    outs = known(x)
    primal_out, res = outs[0], outs[1:]
    assert len(res) == num_res
    (tangent_out,) = unknown(*res, 1.0)
    assert primal_out == pytest.approx(f(x))
    assert tangent_out == pytest.approx(_fd(f, x), rel=1e-6)


@pytest.mark.parametrize(
    "f",
    [_branchy, lambda x: _scan_loss(x), lambda x: fori_loop(0, 4, lambda i, c: c * x, x)],
    ids=["cond", "scan", "fori_static"],
)
def test_jaxpr_level_partial_eval_then_transpose(f):
    x = 0.6
    jvp_closed, _ = jvp_jaxpr(make_jaxpr(f)(x), [True], False)
    known, unknown, _, num_res = partial_eval_jaxpr(jvp_closed, [False, True])
    res = known(x)[1:]
    transposed = transpose_jaxpr(unknown, (False,) * num_res + (True,))
    (ct,) = transposed(*res, 1.0)
    assert ct == pytest.approx(_fd(f, x), rel=1e-6)


# --- nested control flow ------------------------------------------------------------------------


def _nested(x):
    """scan inside cond inside while."""

    def body(c):
        i, v = c

        def inner_scan(v):
            return scan(lambda a, t: (a * t + lax.sin(a), a), v, XS[:3])[0]

        v = cond(i % 2 == 0, inner_scan, lambda v: v * x, v)
        return i + 1, v

    return while_loop(lambda c: c[0] < 4, body, (0, x))[1]


def test_nested_control_flow_values_and_jvp():
    def ref(x):
        v = x
        for i in range(4):
            if i % 2 == 0:
                a = v
                for t in XS[:3]:
                    a = a * t + np.sin(a)
                v = a
            else:
                v = v * x
        return v

    assert _nested(0.8) == pytest.approx(ref(0.8))
    assert jvp(_nested, (0.8,), (1.0,))[1] == pytest.approx(_fd(ref, 0.8), rel=1e-6)


def test_nested_scan_in_cond_in_fori_grad():
    def f(x):
        def body(i, v):
            return cond(
                i % 2 == 0,
                lambda v: scan(lambda a, t: (a * t + lax.sin(a) * x, a), v, XS[:3])[0],
                lambda v: v * x,
                v,
            )

        return fori_loop(0, 4, body, x)

    assert grad(f)(0.8) == pytest.approx(_fd(f, 0.8), rel=1e-6)


def _invariant_residual_loss(c0, a):
    # the tangent of c * sin(a) w.r.t. c needs sin(a): the same at every step
    c, _ = scan(lambda c, _: (c * lax.sin(a) + 1.0, None), c0, None, length=40)
    return c


def test_scan_linearize_hoists_loop_invariant_residuals():
    primals_out, lin = linearize_flat(lambda c0: [_invariant_residual_loss(c0, 0.3)], [0.5])
    assert primals_out[0] == pytest.approx(_invariant_residual_loss(0.5, 0.3))
    scans = [e for e in lin.jaxpr.eqns if e.primitive is scan_p]
    assert len(scans) == 1
    assert all(x.aval.shape[:1] != (40,) for x in scans[0].inputs)  # nothing stacked
    assert lin(1.0)[0] == pytest.approx(np.sin(0.3) ** 40)


def test_scan_jaxpr_level_partial_eval_hoists_loop_invariant_residuals():
    closed = make_jaxpr(_invariant_residual_loss)(0.5, 0.3)
    jvp_closed, _ = jvp_jaxpr(closed, [True, False], False)  # w.r.t. c0 only
    known, unknown, _, num_res = partial_eval_jaxpr(jvp_closed, [False, False, True])
    assert all(a.shape[:1] != (40,) for a in unknown.in_avals)  # sin(a) is not stacked
    outs = known(0.5, 0.3)
    (t,) = unknown(*outs[len(outs) - num_res :], 1.0)
    assert t == pytest.approx(np.sin(0.3) ** 40)
    # w.r.t. a, the carry of every step is a genuine per-step residual
    jvp_closed, _ = jvp_jaxpr(closed, [False, True], False)
    known, unknown, _, num_res = partial_eval_jaxpr(jvp_closed, [False, False, True])
    outs = known(0.5, 0.3)
    (t,) = unknown(*outs[len(outs) - num_res :], 1.0)
    assert t == pytest.approx(_fd(lambda a: _invariant_residual_loss(0.5, a), 0.3), rel=1e-5)
