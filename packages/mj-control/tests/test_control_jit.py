"""Control flow under jit: eager == jit, the StableHLO it lowers to (if / case / one while,
never unrolled), and transformations composed with jit."""

import numpy as np
import pytest

from mj_autodiff import grad, jvp, linearize
from mj_batch import vmap
from mj_control import cond, fori_loop, scan, switch, while_loop
from mj_core import lax
from mj_xla import jit

XS = np.linspace(-1.0, 2.0, 7)


def _same(f, *args):
    eager = f(*args)
    compiled = jit(f)(*args)
    if isinstance(eager, tuple):
        for e, c in zip(eager, compiled, strict=True):
            np.testing.assert_allclose(np.asarray(c), e, rtol=1e-12)
            assert np.asarray(c).dtype == np.asarray(e).dtype
    else:
        np.testing.assert_allclose(np.asarray(compiled), eager, rtol=1e-12)
        assert np.asarray(compiled).dtype == np.asarray(eager).dtype


def test_autodidax_jit_cond():
    assert jit(lambda: cond(False, lambda: 1, lambda: 2))() == 2


def test_autodidax_linearize_of_jit_cond():
    _, f_lin = linearize(jit(lambda x: cond(True, lambda: x, lambda: 0.0)), 1.0)
    assert float(f_lin(3.14)) == pytest.approx(3.14)


@pytest.mark.parametrize("x", [2.0, -3.0])
def test_cond_eager_equals_jit(x):
    _same(lambda x: cond(x > 0, lambda x: x * 10.0, lambda x: lax.sin(x), x), x)


@pytest.mark.parametrize("i", [-1, 0, 1, 2, 9])
def test_switch_eager_equals_jit(i):
    branches = [lambda x: x * 10.0, lambda x: -x, lambda x: x + 100.0]
    _same(lambda i, x: switch(i, branches, x), i, np.float32(2.0))


def test_while_eager_equals_jit():
    def f(x, n):
        return while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * x + 1.0), (0, x))

    _same(f, 1.1, 6)


def test_fori_eager_equals_jit_static_and_traced_bounds():
    _same(lambda x: fori_loop(1, 6, lambda i, c: c * x + i, x), 0.9)
    _same(lambda n, x: fori_loop(1, n, lambda i, c: c * x + i, x), 6, 0.9)


@pytest.mark.parametrize("reverse", [False, True])
def test_scan_eager_equals_jit(reverse):
    def f(init, xs):
        return scan(
            lambda c, x: (c * 0.5 + x, {"y": c * 2.0 - x, "n": 3}), init, xs, reverse=reverse
        )

    eager = f(0.25, XS)
    carry, ys = jit(f)(0.25, XS)
    assert float(carry) == pytest.approx(eager[0])
    np.testing.assert_allclose(np.asarray(ys["y"]), eager[1]["y"])
    np.testing.assert_array_equal(np.asarray(ys["n"]), eager[1]["n"])


def test_cond_lowers_to_if_and_switch_to_case():
    text = jit(lambda x: cond(x > 0, lambda x: x, lambda x: -x, x)).lower(1.0).as_text()
    assert "stablehlo.if" in text
    branches = [lambda x: x, lambda x: -x, lambda x: x * 2.0]
    text = jit(lambda i, x: switch(i, branches, x)).lower(1, 1.0).as_text()
    assert "stablehlo.case" in text


def test_scan_lowers_to_one_while_independent_of_length():
    def f(xs):
        return scan(lambda c, x: (lax.sin(c) + x, c * x), 0.0, xs)

    short = jit(f).lower(np.ones(10)).as_text()
    long = jit(f).lower(np.ones(10_000)).as_text()
    assert short.count("stablehlo.while") == long.count("stablehlo.while") == 1
    assert short.count("stablehlo.sine") == long.count("stablehlo.sine") == 1
    assert abs(len(long) - len(short)) < 100  # only the sizes in the types differ


def test_jit_of_grad_through_scan():
    def loss(w):
        c, ys = scan(lambda c, x: (lax.tanh(c * w + x), c * c), 0.1, XS)
        return c + lax.reduce_sum(ys, (0,))

    np.testing.assert_allclose(float(jit(grad(loss))(0.7)), grad(loss)(0.7), rtol=1e-12)
    eps = 1e-6
    fd = (loss(0.7 + eps) - loss(0.7 - eps)) / (2 * eps)
    assert float(jit(grad(loss))(0.7)) == pytest.approx(fd, rel=1e-6)


def test_grad_of_jit_uses_jaxpr_level_rules():
    def loss(w):
        c, ys = scan(lambda c, x: (lax.tanh(c * w + x), c * c), 0.1, XS)
        return cond(c > 0, lambda: c * w, lambda: -c) + lax.reduce_sum(ys, (0,))

    np.testing.assert_allclose(float(grad(jit(loss))(0.7)), grad(loss)(0.7), rtol=1e-12)


def test_jvp_of_jit_while_and_reverse_mode_error():
    def f(x):
        return while_loop(lambda c: c[0] < 4, lambda c: (c[0] + 1, lax.sin(c[1]) * x), (0, x))[1]

    _, t = jvp(jit(f), (0.5,), (1.0,))
    assert float(t) == pytest.approx(jvp(f, (0.5,), (1.0,))[1], rel=1e-12)
    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work"):
        grad(jit(f))(0.5)


def test_jit_of_vmap_batched_predicate():
    def newton_sqrt(a):
        def body(c):
            _, x = c
            return x, 0.5 * (x + a / x)

        return while_loop(lambda c: lax.abs(c[0] - c[1]) > 1e-12, body, (a, 0.5 * (a + 1.0)))[1]

    a = np.array([1.0, 2.0, 3.0, 4.0])
    np.testing.assert_allclose(np.asarray(jit(vmap(newton_sqrt))(a)), np.sqrt(a), rtol=1e-12)
    idx = np.array([0, 1, 1, 0])
    f = vmap(lambda i, x: cond(i > 0, lambda x: x * 2.0, lambda x: -x, x))
    np.testing.assert_allclose(np.asarray(jit(f)(idx, a)), np.where(idx > 0, 2 * a, -a))


def test_nested_control_flow_under_jit():
    def f(x):
        def body(c):
            i, v = c
            inner = lambda v: scan(lambda a, t: (a * t + lax.sin(a), a), v, XS[:3])[0]  # noqa: E731
            return i + 1, cond(i % 2 == 0, inner, lambda v: v * x, v)

        return while_loop(lambda c: c[0] < 4, body, (0, x))[1]

    assert float(jit(f)(0.8)) == pytest.approx(f(0.8), rel=1e-12)
