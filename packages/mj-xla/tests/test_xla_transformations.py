"""jit composes with every transformation: jvp/grad/vmap of jit, jit of them, nested jits,
the Autodidax Part 3/4 examples and its fun_with_nested_calls_2 stress test."""

import numpy as np
import pytest

from mj_autodiff import grad, jvp, linearize, vjp
from mj_batch import hessian, vmap
from mj_core import lax
from mj_ir import make_jaxpr
from mj_xla import Array, jit


def f(x):
    return lax.sin(x) * lax.exp(x) + x * x


def df(x):
    return lax.cos(x) * lax.exp(x) + lax.sin(x) * lax.exp(x) + 2 * x


def test_autodidax_part3_jit_examples(assert_same):
    @jit
    def g(x, y):
        z = lax.sin(x) * 2.0
        return z + y

    assert_same(g(3.0, 4.0), np.sin(3.0) * 2.0 + 4.0)
    assert isinstance(g(3.0, 4.0), Array)

    @jit
    def h(x):
        return lax.reduce_sum(x * x, (0,))

    assert_same(h(np.arange(4.0)), np.float64(14.0))


def test_grad_of_jit_and_jit_of_grad(assert_same):
    x = 0.7
    assert_same(grad(jit(f))(x), np.float64(df(x)))
    assert_same(jit(grad(f))(x), np.float64(df(x)))
    assert_same(jit(grad(jit(f)))(x), np.float64(df(x)))


def test_jvp_of_jit_with_array_inputs(assert_same):
    x = np.linspace(-1, 1, 5)
    t = np.ones(5)
    p, tan = jvp(jit(f), (x,), (t,))
    assert_same(p, f(x))
    assert_same(tan, df(x))


def test_vmap_of_jit_and_jit_of_vmap(assert_same):
    xs = np.arange(12.0).reshape(3, 4)
    row_sum = lambda r: lax.reduce_sum(r * 2.0, (0,))  # noqa: E731
    want = xs.sum(1) * 2.0
    assert_same(vmap(jit(row_sum))(xs), want)
    assert_same(jit(vmap(row_sum))(xs), want)
    assert_same(vmap(jit(row_sum), in_axes=1)(xs.T), want)


def test_linearize_and_vjp_through_jit(assert_same):
    x = np.array([0.3, -1.2])
    y, f_lin = linearize(jit(f), x)
    assert_same(y, f(x))
    assert_same(f_lin(np.ones(2)), df(x))
    _, f_vjp = vjp(jit(f), x)
    (ct,) = f_vjp(np.ones(2))
    assert_same(ct, df(x))


def test_hessian_through_jit(assert_same):
    x = 0.4
    d2 = -lax.sin(x) * lax.exp(x) + 2 * lax.cos(x) * lax.exp(x) + lax.sin(x) * lax.exp(x) + 2
    assert_same(hessian(jit(f))(x), np.float64(d2))
    assert_same(jit(hessian(f))(x), np.float64(d2))


def test_nested_jit_is_one_xla_call_with_a_call_inside():
    inner = jit(lambda x: x * 3.0)
    outer = jit(lambda x: inner(x) + 1.0)
    closed = make_jaxpr(outer)(1.0)
    assert [e.primitive.name for e in closed.eqns] == ["xla_call"]
    assert "xla_call" in str(closed)
    text = outer.lower(1.0).as_text()
    assert "call @" in text
    assert float(outer(2.0)) == 7.0


def test_fun_with_nested_calls_2(assert_same):
    """Autodidax's stress test (from JAX's core_test.py)."""

    def foo(x):
        @jit
        def bar(y):
            def baz(w):
                q = jit(lambda x: y)(x)
                q = q + jit(lambda: y)()
                q = q + jit(lambda y: w + y)(y)
                q = jit(lambda w: jit(lax.sin)(x) * y)(1.0) + q
                return q

            p, t = jvp(baz, (x + 1.0,), (y,))
            return t + (x * p)

        return bar(x)

    def all_close(*vals):
        for v in vals[1:]:
            np.testing.assert_allclose(np.asarray(v), np.asarray(vals[0]), rtol=1e-10)

    ans1 = foo(3.0)
    ans2 = jit(foo)(3.0)
    ans3, _ = jvp(foo, (3.0,), (5.0,))
    ans4, _ = jvp(jit(foo), (3.0,), (5.0,))
    all_close(ans1, ans2, ans3, ans4)

    deriv1 = grad(foo)(3.0)
    deriv2 = grad(jit(foo))(3.0)
    deriv3 = jit(grad(jit(foo)))(3.0)
    _, deriv4 = jvp(foo, (3.0,), (1.0,))
    _, deriv5 = jvp(jit(foo), (3.0,), (1.0,))
    all_close(deriv1, deriv2, deriv3, deriv4, deriv5)

    hess1 = grad(grad(foo))(3.0)
    hess2 = grad(grad(jit(foo)))(3.0)
    hess3 = grad(jit(grad(foo)))(3.0)
    hess4 = jit(grad(grad(foo)))(3.0)
    _, hess5 = jvp(grad(foo), (3.0,), (1.0,))
    _, hess6 = jvp(jit(grad(foo)), (3.0,), (1.0,))
    _, hess7 = jvp(jit(grad(foo)), (3.0,), (1.0,))
    all_close(hess1, hess2, hess3, hess4, hess5, hess6, hess7)


def test_array_flows_through_transformations(assert_same):
    x = jit(lambda v: v * 1.0)(np.array([0.5, 1.5]))
    assert isinstance(x, Array)
    assert_same(vmap(lambda v: v * 2.0)(x), np.array([1.0, 3.0]))
    assert_same(grad(lambda v: lax.reduce_sum(lax.sin(v), (0,)))(x), np.cos([0.5, 1.5]))
    _, t = jvp(lambda v: v * v, (x,), (np.ones(2),))
    assert_same(t, np.array([1.0, 3.0]))


def test_python_control_flow_on_concrete_array_under_jvp():
    x = jit(lambda v: v + 0.0)(2.0)

    def g(v):
        return v * 2.0 if v > 0 else -v

    _, t = jvp(g, (x,), (1.0,))
    assert float(t) == 2.0


@pytest.mark.parametrize("transform", ["jvp", "vmap", "grad"])
def test_transformed_jit_compiles_once(transform):
    fun = jit(lambda v: lax.sin(v) * 2.0)
    x = np.linspace(0, 1, 3)
    from mj_xla import _executable as executable

    run = {
        "jvp": lambda: jvp(fun, (x,), (x,)),
        "vmap": lambda: vmap(fun)(x),
        "grad": lambda: grad(lambda v: lax.reduce_sum(fun(v), (0,)))(x),
    }[transform]
    run()
    before = len(executable._closed_cache)
    run()
    run()
    assert len(executable._closed_cache) == before
