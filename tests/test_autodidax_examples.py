"""Every example of Autodidax Parts 1-5 (seed 000) that prints something, run through mj's
public API and checked against what the tutorial prints.

Autodidax defines its own helpers; the mj spellings used here are:
``sin``/``cos``/``neg``/``greater`` -> ``mj.lax.sin``/``cos``/``neg``/``gt``;
``reduce_sum(x, axis=0)`` -> ``mj.lax.reduce_sum(x, axes=(0,))``;
``transpose(x, perm)`` -> ``mj.lax.transpose(x, permutation)``;
``broadcast(x, shape, axes)`` (``axes`` = the *new* axes) -> ``mj.lax.broadcast_in_dim(x,
shape, broadcast_dimensions)`` (the *kept* axes, JAX's convention);
``make_jaxpr(f, *avals) -> (jaxpr, consts, out_tree)`` -> ``mj.make_jaxpr(f)(*args) ->
ClosedJaxpr`` (JAX's API; ``.jaxpr``/``.consts``). Printed jaxprs are compared with their
whitespace normalised, since the seed's copy of the tutorial lost its line breaks.
"""

import math
from functools import partial

import numpy as np
import pytest

import mj
import mj_autodiff
import mj_ir
from mj import grad, jit, jvp, lax, linearize, make_jaxpr, vjp, vmap
from mj.lax import cond
from mj_core import config

sin, cos, neg = lax.sin, lax.cos, lax.neg


@pytest.fixture(autouse=True)
def _check_every_jaxpr():
    with config.override("check_jaxprs", True):
        yield


def one_line(s: str) -> str:
    return " ".join(str(s).split())


def f(x):
    y = sin(x) * 2.0
    z = -y + x
    return z


def deriv(fun):
    return lambda x: jvp(fun, (x,), (1.0,))[1]


F_3 = 2.7177599838802657  # f(3.)
F_DOT_3 = 2.979984993200891  # f'(3.)


# --- Part 1: evaluation, jvp, pytrees, vmap ----------------------------------------------------


def test_evaluation_interpreter():
    assert f(3.0) == pytest.approx(F_3, rel=1e-15)
    assert f(3.0) == -2 * math.sin(3.0) + 3.0


def test_jvp_of_sin():
    _, sin_deriv_at_3 = jvp(sin, (3.0,), (1.0,))
    assert str(sin_deriv_at_3) == "-0.9899924966004454"
    assert str(cos(3.0)) == "-0.9899924966004454"


def test_jvp_of_f():
    y, ydot = jvp(f, (3.0,), (1.0,))
    assert (str(y), str(ydot)) == ("2.7177599838802657", "2.979984993200891")


def test_higher_order_derivatives_by_nesting_jvp():
    printed = [
        str(deriv(sin)(3.0)),
        str(deriv(deriv(sin))(3.0)),
        str(deriv(deriv(deriv(sin)))(3.0)),
        str(deriv(deriv(deriv(deriv(sin))))(3.0)),
    ]
    assert printed == [
        "-0.9899924966004454",
        "-0.1411200080598672",
        "0.9899924966004454",
        "0.1411200080598672",
    ]


def test_jvp_through_python_control_flow():
    def g(x):
        if x > 0.0:  # Python control flow
            return 2.0 * x
        return x

    assert deriv(g)(3.0) == 2.0
    assert deriv(g)(-3.0) == 1.0


def test_jvp_with_pytree_inputs_and_outputs():
    def h(x):
        y = sin(x) * 2.0
        z = -y + x
        return {"hi": z, "there": [x, y]}

    y, ydot = jvp(h, (3.0,), (1.0,))
    assert str(y) == (
        "{'hi': Array(2.71775998, dtype=float64, weak_type=True), "
        "'there': [3.0, Array(0.28224002, dtype=float64, weak_type=True)]}"
    )
    assert str(ydot) == (
        "{'hi': Array(2.97998499, dtype=float64, weak_type=True), "
        "'there': [1.0, Array(-1.97998499, dtype=float64, weak_type=True)]}"
    )


def test_vmap_add_one_to_a_scalar():
    def add_one_to_a_scalar(scalar):
        assert np.ndim(scalar) == 0
        return 1 + scalar

    vector_in = np.arange(3.0)
    vector_out = vmap(add_one_to_a_scalar, (0,))(vector_in)
    assert str(vector_in) == "[0. 1. 2.]"
    assert str(vector_out) == "[1. 2. 3.]"


def test_autodidax_jacfwd_from_jvp_and_vmap():
    def jacfwd(fun, x):
        pushfwd = lambda v: jvp(fun, (x,), (v,))[1]  # noqa: E731
        vecs_in = np.eye(np.size(x)).reshape(np.shape(x) * 2)
        return vmap(pushfwd, (0,))(vecs_in)

    jac = jacfwd(sin, np.arange(3.0))
    assert one_line(repr(jac)) == (
        "Array([[ 1. , 0. , -0. ], [ 0. , 0.54030231, -0. ], [ 0. , 0. , -0.41614684]], "
        "dtype=float64)"
    )
    np.testing.assert_allclose(mj.jacfwd(sin)(np.arange(3.0)), jac, rtol=1e-15)


def test_vmap_helpers_move_batch_axis_and_transpose():
    # Autodidax's moveaxis/broadcast helpers, via mj.lax.transpose/broadcast_in_dim
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(lax.transpose(x, (1, 0)), x.T)
    # broadcast(x, (2, 4, 3), axes=[1]) in Autodidax's convention:
    out = lax.broadcast_in_dim(x, (2, 4, 3), (0, 2))
    np.testing.assert_array_equal(out, np.broadcast_to(x[:, None, :], (2, 4, 3)))
    np.testing.assert_array_equal(lax.reduce_sum(x, (0,)), x.sum(0))


# --- Part 2: jaxprs ----------------------------------------------------------------------------


def test_make_jaxpr_and_typecheck():
    closed = make_jaxpr(lambda x: 2.0 * x)(3.0)
    assert str(closed) == "{ lambda a:float64[] . let b:float64[] = mul 2.0 a in ( b ) }"
    assert repr(mj_ir.typecheck_jaxpr(closed.jaxpr)) == "(float64[]) -> (float64[])"


def test_omnistaging_stages_operations_on_constants():
    # make_jaxpr_v1 printed `{ lambda . let in ( 4.0 ) }`; the dynamic trace stages the mul
    closed = make_jaxpr(lambda: lax.mul(2.0, 2.0))()
    assert str(closed) == "{ lambda . let a:float64[] = mul 2.0 2.0 in ( a ) }"


def test_jaxpr_data_structures():
    closed = make_jaxpr(lambda x: neg(sin(x)))(3.0)
    jaxpr = closed.jaxpr
    assert [e.primitive.name for e in jaxpr.eqns] == ["sin", "neg"]
    assert jaxpr.eqns[0].inputs == [jaxpr.in_binders[0]] or tuple(jaxpr.eqns[0].inputs) == (
        jaxpr.in_binders[0],
    )
    assert list(jaxpr.outs) == list(jaxpr.eqns[1].out_binders)
    assert mj.eval_jaxpr(jaxpr, [3.0]) == [-math.sin(3.0)]
    assert one_line(closed) == (
        "{ lambda a:float64[] . let b:float64[] = sin a c:float64[] = neg b in ( c ) }"
    )


def _sin_neg_jvp_jaxpr():
    return make_jaxpr(lambda x, t: jvp(lambda y: neg(sin(y)), (x,), (t,)))(3.0, 1.0)


def test_jvp_jaxpr_matches_the_tutorial_text():
    assert one_line(_sin_neg_jvp_jaxpr()) == (
        "{ lambda a:float64[] b:float64[] . let c:float64[] = sin a d:float64[] = cos a "
        "e:float64[] = mul d b f:float64[] = neg c g:float64[] = neg e in ( f, g ) }"
    )


def test_partial_eval_unzips_the_jvp_jaxpr():
    # the tutorial's two jaxprs, with the printer's fresh names:
    # { lambda a . let c = sin a; d = cos a; f = neg c in ( f, d ) }
    # { lambda d b . let e = mul d b; g = neg e in ( g ) }
    known, unknown, out_unknowns, num_res = mj_autodiff.extend.partial_eval_jaxpr(
        _sin_neg_jvp_jaxpr(), [False, True]
    )
    assert out_unknowns == [False, True]
    assert num_res == 1
    assert one_line(known) == (
        "{ lambda a:float64[] . let b:float64[] = sin a c:float64[] = cos a "
        "d:float64[] = neg b in ( d, c ) }"
    )
    assert one_line(unknown) == (
        "{ lambda a:float64[] b:float64[] . let c:float64[] = mul a b "
        "d:float64[] = neg c in ( d ) }"
    )
    y, res = known(3.0)
    assert y == -math.sin(3.0)
    assert unknown(res, 2.0) == [-2.0 * math.cos(3.0)]


# --- Part 3: jit -------------------------------------------------------------------------------


def test_jit_traces_once_per_signature(capsys):
    @jit
    def g(x, y):
        print("tracing!")
        return sin(x) * cos(y)

    z = g(3.0, 4.0)  # 'tracing!' prints the first time
    print(z)
    assert capsys.readouterr().out == "tracing!\n-0.09224219304455371\n"
    z = g(4.0, 5.0)  # compilation cache hit
    print(z)
    out = capsys.readouterr().out  # (a GPU's sin may differ from the CPU's in the last bit)
    assert "tracing" not in out
    assert float(out) == pytest.approx(math.sin(4.0) * math.cos(5.0), rel=1e-15)


def test_jit_reduce_sum():
    @jit
    def g(x):
        return lax.reduce_sum(x, (0,))

    assert str(g(np.array([1.0, 2.0, 3.0]))) == "6.0"


def test_jit_of_nested_jvp():
    assert deriv(deriv(f))(3.0) == 0.2822400161197344
    assert jit(deriv(deriv(f)))(3.0) == pytest.approx(0.2822400161197344, rel=1e-15)


def _jitted_f(log):
    @jit
    def fj(x):
        log.append("tracing!")
        y = sin(x) * 2.0
        z = -y + x
        return z

    return fj


def test_jvp_and_vmap_of_jit():
    log = []
    fj = _jitted_f(log)
    y, ydot = jvp(fj, (3.0,), (1.0,))
    assert (str(y), str(ydot)) == ("2.7177599838802657", "2.979984993200891")
    assert log == ["tracing!"]
    jvp(fj, (3.0,), (1.0,))  # 'tracing!' not printed
    assert log == ["tracing!"]
    ys = vmap(fj, (0,))(np.arange(3.0))
    assert one_line(str(ys)) == "[ 0. -0.68294197 0.18140515]"


def test_jit_returns_device_arrays_that_duck_type_ndarray():
    y, ydot = jvp(_jitted_f([]), (3.0,), (1.0,))
    for v in (y, ydot):
        assert isinstance(v, mj.Array)
        assert (v.dtype, v.shape, v.ndim) == (np.dtype("float64"), (), 0)
    assert (str(y), str(ydot)) == ("2.7177599838802657", "2.979984993200891")
    assert np.asarray(y) == F_3
    assert float(-y + y * 2) == pytest.approx(F_3)
    assert bool(y > ydot) is False


def test_xla_call_prints_its_jaxpr_nested_and_indented():
    text = str(make_jaxpr(_jitted_f([]))(3.0))
    lines = text.splitlines()
    assert lines[0] == "{ lambda a:float64[] ."
    assert lines[1].startswith("  let b:float64[] = xla_call[")
    assert lines[1].endswith("] a")
    assert "num_consts=0" in lines[1]
    # the called jaxpr is indented two columns past the equation
    assert lines[2] == "        { lambda a:float64[] ."
    assert one_line("\n".join(lines[2:-1])) == (
        "{ lambda a:float64[] . let b:float64[] = sin a c:float64[] = mul b 2.0 "
        "d:float64[] = neg c e:float64[] = add d a in ( e ) }"
    )
    assert lines[-1] == "  in ( b ) }"


# --- Part 4: linearize, vjp, grad --------------------------------------------------------------


def test_linearize_sin():
    y, sin_lin = linearize(sin, 3.0)
    assert (str(y), str(sin(3.0))) == ("0.1411200080598672", "0.1411200080598672")
    assert str(sin_lin(1.0)) == str(cos(3.0)) == "-0.9899924966004454"


def test_linearize_of_jit():
    y, f_lin = linearize(_jitted_f([]), 3.0)
    assert (str(y), str(f_lin(1.0))) == ("2.7177599838802657", "2.979984993200891")


def test_linearize_of_nested_jits():
    @jit
    def g(x, y):
        return cos(x) + y

    @jit
    def h(x):
        y = sin(x) * 2.0
        return g(x, y)

    y, h_lin = linearize(h, 3.0)
    assert (str(y), str(h_lin(1.0))) == ("-0.7077524804807109", "-2.121105001260758")


def test_vjp_of_sin():
    y, f_vjp = vjp(sin, 3.0)
    assert str(f_vjp(1.0)) == "(Array(-0.9899925, dtype=float64, weak_type=True),)"
    assert y == math.sin(3.0)


def test_grad():
    assert grad(f)(3.0) == pytest.approx(F_DOT_3, rel=1e-15)


def test_grad_of_nested_jits():
    @jit
    def g(x):
        return cos(x) * 2.0

    @jit
    def h(x):
        return g(x * 2.0)

    assert grad(h)(3.0) == pytest.approx(-4 * math.sin(6.0), rel=1e-14)


def test_fun_with_nested_calls_2_stress_test():
    def foo(x):
        @jit
        def bar(y):
            def baz(w):
                q = jit(lambda x: y)(x)
                q = q + jit(lambda: y)()
                q = q + jit(lambda y: w + y)(y)
                q = jit(lambda w: jit(sin)(x) * y)(1.0) + q
                return q

            p, t = jvp(baz, (x + 1.0,), (y,))
            return t + (x * p)

        return bar(x)

    close = partial(np.testing.assert_allclose, rtol=1e-13)
    # closed forms: baz(w) = x sin x + 3x + w and its tangent is y = x, so
    # foo(x) = x + x (x sin x + 4x + 1) = 2x + 4x^2 + x^2 sin x
    x = 3.0
    value = 2 * x + 4 * x * x + x * x * math.sin(x)
    d1 = 2 + 8 * x + 2 * x * math.sin(x) + x * x * math.cos(x)
    d2 = 8 + 2 * math.sin(x) + 4 * x * math.cos(x) - x * x * math.sin(x)
    assert value == pytest.approx(43.2700800725388)
    for ans in (
        foo(3.0),
        jit(foo)(3.0),
        jvp(foo, (3.0,), (5.0,))[0],
        jvp(jit(foo), (3.0,), (5.0,))[0],
    ):
        close(ans, value)
    for d in (
        grad(foo)(3.0),
        grad(jit(foo))(3.0),
        jit(grad(jit(foo)))(3.0),
        jvp(foo, (3.0,), (1.0,))[1],
        jvp(jit(foo), (3.0,), (1.0,))[1],
    ):
        close(d, d1)
    for h in (
        grad(grad(foo))(3.0),
        grad(grad(jit(foo)))(3.0),
        grad(jit(grad(foo)))(3.0),
        jit(grad(grad(foo)))(3.0),
        jvp(grad(foo), (3.0,), (1.0,))[1],
        jvp(jit(grad(foo)), (3.0,), (1.0,))[1],
    ):
        close(h, d2)


# --- Part 5: cond ------------------------------------------------------------------------------


def test_cond_eager():
    assert cond(True, lambda: 3, lambda: 4) == 3
    assert cond(False, lambda: 3, lambda: 4) == 4


def test_cond_jvp():
    out, out_tan = jvp(lambda x: cond(True, lambda: x * x, lambda: 0.0), (1.0,), (1.0,))
    assert (out, out_tan) == (1.0, 2.0)


def test_cond_vmap():
    xs = np.array([1.0, 2.0, 3])
    out = vmap(lambda x: cond(True, lambda: x + 1.0, lambda: 0.0), (0,))(xs)
    assert str(out) == "[2. 3. 4.]"
    # a branch that ignores the batched operand still yields a batched output
    out = vmap(lambda x: cond(False, lambda: x + 1.0, lambda: 0.0), (0,))(xs)
    np.testing.assert_array_equal(out, [0.0, 0.0, 0.0])


def test_cond_jit():
    out = jit(lambda: cond(False, lambda: 1, lambda: 2))()
    assert str(out) == "2"


def test_cond_linearize_eager_and_jit():
    _, f_lin = linearize(lambda x: cond(True, lambda: x, lambda: 0.0), 1.0)
    assert str(f_lin(3.14)) == "3.14"
    _, f_lin = linearize(jit(lambda x: cond(True, lambda: x, lambda: 0.0)), 1.0)
    assert str(f_lin(3.14)) == "3.14"


def test_cond_grad():
    out = grad(lambda x: cond(True, lambda: x * x, lambda: 0.0))(1.0)
    assert str(out) == "2.0"
    out = grad(lambda x: cond(x > 0, lambda: x * x, lambda: 0.0))(-1.0)
    assert out == 0.0


def test_cond_prints_both_branch_jaxprs_nested():
    closed = make_jaxpr(lambda p, x: cond(p, lambda y: sin(y), lambda y: cos(y), x))(True, 1.0)
    text = str(closed)
    lines = text.splitlines()
    assert lines[0] == "{ lambda a:bool[] b:float64[] ."
    assert any(" = cond[" in line for line in lines)
    assert lines[-2].strip().endswith("b")
    assert lines[-1] == "  in ( d ) }"
    # both branches appear, false branch (index 0) first like lax.cond
    false_at = text.index("{ lambda a:float64[] . let b:float64[] = cos a in ( b ) }")
    true_at = text.index("{ lambda a:float64[] . let b:float64[] = sin a in ( b ) }")
    assert false_at < true_at
    assert closed(True, 1.0) == [math.sin(1.0)]
    assert closed(False, 1.0) == [math.cos(1.0)]
