"""make_jaxpr / trace_to_jaxpr: staging, constants, literals, pytrees, static arguments."""

import gc
import threading

import numpy as np
import pytest

import mj_core
from mj_core import ShapedArray, lax
from mj_core import numpy as mnp
from mj_core.errors import ConcretizationError
from mj_ir import (
    ClosedJaxpr,
    Jaxpr,
    Lit,
    ShapeDtypeStruct,
    Var,
    eval_jaxpr,
    jaxpr_as_fun,
    make_jaxpr,
    typecheck_jaxpr,
)
from mj_ir.extend import trace_to_closed_jaxpr, trace_to_jaxpr


def test_one_equation_prints_autodidax_format():
    closed = make_jaxpr(lambda x: lax.mul(2.0, x))(3.0)
    assert str(closed) == "{ lambda a:float64[] . let b:float64[] = mul 2.0 a in ( b ) }"


def test_omnistaging_stages_operations_on_constants():
    closed = make_jaxpr(lambda: lax.mul(2.0, 2.0))()
    assert str(closed) == "{ lambda . let a:float64[] = mul 2.0 2.0 in ( a ) }"
    assert closed() == [4.0]


def test_python_arithmetic_is_not_staged():
    closed = make_jaxpr(lambda: 2.0 * 2.0)()
    assert str(closed) == "{ lambda . let in ( 4.0 ) }"
    assert closed.eqns == []


def test_closed_over_array_becomes_const_binder_first():
    c = np.arange(3.0)
    closed = make_jaxpr(lambda x: lax.add(lax.mul(x, c), c))(np.ones(3))
    jaxpr = closed.jaxpr
    assert len(closed.consts) == 1
    assert closed.consts[0] is c
    assert len(jaxpr.in_binders) == 2
    const_var = jaxpr.in_binders[0]
    # the same object is one binder, used by both equations
    assert [x for e in jaxpr.eqns for x in e.inputs].count(const_var) == 2
    assert closed.in_avals == [ShapedArray((3,), np.float64)]
    np.testing.assert_allclose(closed(np.full(3, 2.0))[0], np.full(3, 2.0) * c + c)
    np.testing.assert_allclose(eval_jaxpr(jaxpr, [c, np.ones(3)])[0], c + c)


def test_scalar_constants_become_weak_literals():
    closed = make_jaxpr(lambda x: lax.mul(x, 2.0))(np.ones(3, np.float32))
    (eqn,) = closed.eqns
    lit = eqn.inputs[1]
    assert isinstance(lit, Lit)
    assert lit.aval.weak_type
    assert lit.aval.dtype == np.float64
    assert closed.out_avals[0].dtype == np.float32
    (out,) = closed(np.ones(3, np.float32))
    assert out.dtype == np.float32


def test_numpy_scalar_literal_is_strong():
    # mnp promotes: float32 * strong float64 -> float64 (a convert, then mul with the literal)
    closed = make_jaxpr(lambda x: mnp.multiply(x, np.float64(2.0)))(np.ones(3, np.float32))
    lit = closed.eqns[-1].inputs[1]
    assert isinstance(lit, Lit)
    assert not lit.aval.weak_type
    assert closed.out_avals[0].dtype == np.float64
    assert closed(np.ones(3, np.float32))[0].dtype == np.float64


def test_outputs_that_are_inputs_literals_or_consts():
    c = np.ones(2)
    closed = make_jaxpr(lambda x: (x, 1.0, c))(np.float32(3))
    jaxpr = closed.jaxpr
    assert jaxpr.outs[0] is jaxpr.in_binders[1]
    assert isinstance(jaxpr.outs[1], Lit)
    assert jaxpr.outs[2] is jaxpr.in_binders[0]
    x, one, cc = closed(np.float32(5))
    assert x == 5
    assert one == 1.0
    # a constant output is an mj array of the constant's value, not the caller's NumPy array
    # (which the caller may change later): what any other operation would return
    assert type(cc) is not np.ndarray
    assert isinstance(cc, np.ndarray)
    np.testing.assert_array_equal(cc, c)
    c[0] = 7.0
    assert float(cc[0]) == 1.0


def test_pytree_inputs_and_outputs():
    def f(pair, d):
        a, b = pair
        return {"s": lax.add(a, d["k"]), "p": [lax.mul(b, 3.0)]}

    closed, shapes = make_jaxpr(f, return_shape=True)(
        (np.ones(2), np.float32(1)), {"k": np.zeros(2)}
    )
    assert len(closed.in_avals) == 3
    assert shapes["s"] == ShapeDtypeStruct((2,), np.float64)
    assert shapes["p"][0] == ShapeDtypeStruct((), np.float32)
    # outputs flatten in sorted-key order: "p" then "s"
    p, s = closed(np.array([1.0, 2.0]), np.float32(2), np.array([10.0, 20.0]))
    assert p == 6.0
    np.testing.assert_allclose(s, [11.0, 22.0])


def test_static_argnums():
    def f(x, n, scale):
        for _ in range(n):
            x = lax.sin(x)
        return lax.mul(x, scale)

    closed = make_jaxpr(f, static_argnums=(1,))(1.0, 3, 2.0)
    assert [e.primitive.name for e in closed.eqns] == ["sin", "sin", "sin", "mul"]
    assert len(closed.in_avals) == 2
    closed_neg = make_jaxpr(f, static_argnums=-2)(1.0, 2, 2.0)
    assert len(closed_neg.eqns) == 3
    with pytest.raises(ValueError, match="static_argnums"):
        make_jaxpr(f, static_argnums=5)(1.0, 2, 2.0)


def test_abstract_example_arguments():
    f = lambda x, y: lax.add(x, y)  # noqa: E731
    closed = make_jaxpr(f)(ShapedArray((2, 3), np.float32), ShapeDtypeStruct((3,), "float32"))
    assert closed.out_avals == [ShapedArray((2, 3), np.float32)]
    assert str(closed) == (
        "{ lambda a:float32[2,3] b:float32[3] . let c:float32[2,3] = add a b in ( c ) }"
    )


def test_kwargs_are_traced():
    closed = make_jaxpr(lambda x, *, y: lax.sub(x, y))(1.0, y=np.float32(2))
    assert len(closed.in_avals) == 2
    assert closed(5.0, np.float32(2))[0] == 3.0


def test_non_array_argument_is_a_clear_error():
    with pytest.raises(TypeError, match="static_argnums"):
        make_jaxpr(lambda x, s: x)(1.0, "hello")


def test_concretization_error_names_function_and_line():
    def branchy(x):
        if x > 0:  # the line the error must point at
            return x
        return lax.neg(x)

    line = branchy.__code__.co_firstlineno + 1
    with pytest.raises(ConcretizationError) as info:
        make_jaxpr(branchy)(1.0)
    msg = str(info.value)
    assert "in branchy at" in msg
    assert f"test_ir_make_jaxpr.py:{line}" in msg
    # the trace stack is left as it was
    assert len(mj_core.current_trace_stack()) == 1
    assert mj_core.is_eager()


def test_typing_error_points_at_user_line():
    def bad(x, y):
        return lax.add(x, y)

    with pytest.raises(TypeError, match="add") as info:
        make_jaxpr(bad)(np.ones(3), np.ones(4))
    assert "in bad at" in str(info.value)
    assert mj_core.is_eager()


def test_trace_to_jaxpr_contract():
    def fun_flat(x, y):
        return [lax.mul(x, y), x]

    avals = [ShapedArray((), np.float64), ShapedArray((), np.float64)]
    jaxpr, consts = trace_to_jaxpr(fun_flat, avals)
    assert isinstance(jaxpr, Jaxpr)
    assert consts == []
    assert [v.aval for v in jaxpr.in_binders] == avals
    assert all(type(v) is Var for v in jaxpr.in_binders)
    closed = trace_to_closed_jaxpr(fun_flat, avals)
    assert isinstance(closed, ClosedJaxpr)
    assert closed(3.0, 4.0) == [12.0, 3.0]
    assert typecheck_jaxpr(closed).in_types == avals


def test_eval_jaxpr_is_traceable():
    inner = make_jaxpr(lambda x: lax.exp(lax.sin(x)))(1.0)
    outer = make_jaxpr(lambda x: inner(lax.cos(x))[0])(1.0)
    assert [e.primitive.name for e in outer.eqns] == ["cos", "sin", "exp"]
    np.testing.assert_allclose(outer(0.3)[0], np.exp(np.sin(np.cos(0.3))))


def test_nested_make_jaxpr_closing_over_outer_tracer_lifts_it_to_a_const():
    seen = {}

    def outer(x):
        inner = make_jaxpr(lambda y: lax.mul(x, y))(2.0)
        seen["inner"] = inner
        return inner.consts[0]

    closed = make_jaxpr(outer)(np.ones(2))
    inner = seen["inner"]
    assert len(inner.consts) == 1  # x, a tracer of the outer trace, became a constant
    assert len(closed.eqns) == 0
    assert closed.jaxpr.outs[0] is closed.jaxpr.in_binders[0]


def test_eval_jaxpr_arity_error():
    closed = make_jaxpr(lambda x: lax.neg(x))(1.0)
    with pytest.raises(TypeError, match="takes 1 inputs"):
        eval_jaxpr(closed.jaxpr, [1.0, 2.0])


def test_jaxprs_are_immutable_and_hash_by_identity():
    closed = make_jaxpr(lambda x: lax.sin(x))(1.0)
    with pytest.raises(AttributeError, match="immutable"):
        closed.jaxpr.eqns = []  # type: ignore[misc]
    with pytest.raises(AttributeError, match="immutable"):
        closed.consts = []  # type: ignore[misc]
    again = make_jaxpr(lambda x: lax.sin(x))(1.0)
    assert closed.jaxpr != again.jaxpr
    assert len({closed.jaxpr: 1, again.jaxpr: 2, closed: 3}) == 3


def test_tracing_in_several_threads_at_once():
    n_threads, rounds = 4, 30
    barrier = threading.Barrier(n_threads)
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            barrier.wait()
            for r in range(rounds):
                n_ops = k + 1 + r % 3

                def f(x, n_ops=n_ops):
                    for _ in range(n_ops):
                        x = lax.add(x, float(k))
                    return x

                closed = make_jaxpr(f)(1.0)
                assert len(closed.eqns) == n_ops
                assert closed(0.0)[0] == k * n_ops
        except BaseException as err:  # reported on the main thread
            errors.append(err)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert gc.isenabled()
    assert mj_core.is_eager()


def test_errors_restore_gc_and_trace_state():
    def boom(x):
        lax.sin(x)
        raise RuntimeError("user error")

    with pytest.raises(RuntimeError, match="user error"):
        make_jaxpr(boom)(1.0)
    assert gc.isenabled()
    assert mj_core.is_eager()
    assert len(mj_core.current_trace_stack()) == 1


def test_primitive_without_typing_rule_names_the_table():
    no_rule_p = mj_core.Primitive("no_typing_rule")
    with pytest.raises(mj_core.MissingRuleError, match=r"no_typing_rule.*abstract_eval_rules"):
        make_jaxpr(lambda x: mj_core.bind1(no_rule_p, x))(1.0)
    assert mj_core.is_eager()


def test_leaked_tracer_is_detected():
    leaked = []

    def f(x):
        leaked.append(x)
        return lax.sin(x)

    make_jaxpr(f)(1.0)
    with pytest.raises(mj_core.TracerLeakError):
        lax.cos(leaked[0])


def test_jaxpr_as_fun():
    c = np.arange(2.0)
    closed = make_jaxpr(lambda x: lax.add(x, c))(np.ones(2))
    np.testing.assert_allclose(jaxpr_as_fun(closed)(np.ones(2))[0], c + 1)
    np.testing.assert_allclose(jaxpr_as_fun(closed.jaxpr)(c, c)[0], c + c)
