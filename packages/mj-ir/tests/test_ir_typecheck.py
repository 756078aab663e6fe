"""typecheck_jaxpr rejects malformed jaxprs with a message naming the equation; the
check_jaxprs flag makes tracing run it."""

import numpy as np
import pytest

import mj_ir._tracing
from mj_core import ShapedArray, config, lax
from mj_core.lax import add_p, neg_p, sin_p, sort_p
from mj_ir import (
    ClosedJaxpr,
    Jaxpr,
    JaxprEqn,
    JaxprType,
    JaxprTypeError,
    Lit,
    Var,
    make_jaxpr,
    typecheck_jaxpr,
)

F64 = ShapedArray((), np.float64)
F32 = ShapedArray((), np.float32)


def test_well_typed_jaxpr_has_its_type():
    a, b, c = Var(F64), Var(F64), Var(F64)
    jaxpr = Jaxpr([a, b], [JaxprEqn(add_p, [a, Lit(1.0)], {}, [c])], [c, b, Lit(2.0)])
    assert typecheck_jaxpr(jaxpr) == JaxprType([F64, F64], [F64, F64, Lit(2.0).aval])


def test_unbound_variable_names_the_equation():
    a, b, free = Var(F64), Var(F64), Var(F64)
    jaxpr = Jaxpr([a], [JaxprEqn(add_p, [a, free], {}, [b])], [b])
    with pytest.raises(JaxprTypeError, match=r"equation 0 `b:float64\[\] = add a c`.*not bound"):
        typecheck_jaxpr(jaxpr)


def test_use_before_definition_is_unbound():
    a, b, c = Var(F64), Var(F64), Var(F64)
    eqns = [JaxprEqn(neg_p, [b], {}, [c]), JaxprEqn(sin_p, [a], {}, [b])]
    with pytest.raises(JaxprTypeError, match=r"equation 0 .*not bound"):
        typecheck_jaxpr(Jaxpr([a], eqns, [c]))


def test_rebinding_is_rejected():
    a, b = Var(F64), Var(F64)
    eqns = [JaxprEqn(sin_p, [a], {}, [b]), JaxprEqn(neg_p, [b], {}, [a])]
    with pytest.raises(JaxprTypeError, match=r"equation 1 `a:float64\[\] = neg b`.*rebinds"):
        typecheck_jaxpr(Jaxpr([a], eqns, [a]))


def test_duplicate_input_binder_is_rejected():
    a = Var(F64)
    with pytest.raises(JaxprTypeError, match="input binder 1"):
        typecheck_jaxpr(Jaxpr([a, a], [], [a]))


def test_wrong_output_type_names_equation_and_types():
    a, b = Var(F64), Var(F32)
    jaxpr = Jaxpr([a], [JaxprEqn(sin_p, [a], {}, [b])], [b])
    with pytest.raises(
        JaxprTypeError,
        match=r"equation 0 `b:float32\[\] = sin a`: output 0 is declared float32\[\] but sin "
        r"returns float64\[\]",
    ):
        typecheck_jaxpr(jaxpr)


def test_wrong_output_shape_is_rejected():
    a, b = Var(ShapedArray((3,), np.float64)), Var(ShapedArray((), np.float64))
    with pytest.raises(
        JaxprTypeError, match="declared float64\\[\\] but neg returns float64\\[3\\]"
    ):
        typecheck_jaxpr(Jaxpr([a], [JaxprEqn(neg_p, [a], {}, [b])], [b]))


def test_wrong_number_of_outputs_is_rejected():
    a, b, c = Var(ShapedArray((3,), np.float64)), Var(F64), Var(F64)
    eqn = JaxprEqn(sort_p, [a], {"dimension": 0, "is_stable": True, "num_keys": 1}, [b, c])
    with pytest.raises(JaxprTypeError, match="sort has 1 outputs but the equation binds 2"):
        typecheck_jaxpr(Jaxpr([a], [eqn], [b]))


def test_ill_typed_inputs_are_reported_with_the_rule_error():
    a, b, c = Var(ShapedArray((3,), np.float64)), Var(ShapedArray((4,), np.float64)), Var(F64)
    with pytest.raises(JaxprTypeError, match=r"equation 0 .*the add rule rejects it"):
        typecheck_jaxpr(Jaxpr([a, b], [JaxprEqn(add_p, [a, b], {}, [c])], [c]))


def test_unbound_output_is_rejected():
    a = Var(F64)
    with pytest.raises(JaxprTypeError, match="outputs"):
        typecheck_jaxpr(Jaxpr([a], [], [Var(F64)]))


def test_weak_type_differences_are_accepted():
    a = Var(F32)
    b = Var(ShapedArray((), np.float32, weak_type=True))
    assert typecheck_jaxpr(Jaxpr([a], [JaxprEqn(sin_p, [a], {}, [b])], [b]))


def test_closed_jaxpr_consts_are_checked():
    c = np.ones(3)
    closed = make_jaxpr(lambda x: lax.mul(x, c))(np.ones(3))
    assert typecheck_jaxpr(closed).in_types == [ShapedArray((3,), np.float64)]
    bad = ClosedJaxpr(closed.jaxpr, [np.ones(4)])
    with pytest.raises(JaxprTypeError, match="constant 0"):
        typecheck_jaxpr(bad)


def test_nested_jaxprs_in_params_are_checked():
    a, b = Var(F64), Var(F32)
    broken = Jaxpr([a], [JaxprEqn(sin_p, [a], {}, [b])], [b])
    x, y = Var(F64), Var(F64)
    outer = Jaxpr([x], [JaxprEqn(neg_p, [x], {"note": (broken,)}, [y])], [y])
    with pytest.raises(JaxprTypeError, match="sin"):
        typecheck_jaxpr(outer)


def test_jaxpr_type_error_is_a_type_error():
    assert issubclass(JaxprTypeError, TypeError)


@pytest.mark.parametrize("flag", [True, False])
def test_check_jaxprs_flag_controls_typechecking_after_tracing(monkeypatch, flag):
    calls = []
    real = mj_ir._tracing.typecheck_jaxpr

    def spy(jaxpr):
        calls.append(jaxpr)
        return real(jaxpr)

    monkeypatch.setattr(mj_ir._tracing, "typecheck_jaxpr", spy)
    with config.override("check_jaxprs", flag):
        closed = make_jaxpr(lambda x: lax.sin(x))(1.0)
    assert calls == ([closed.jaxpr] if flag else [])
