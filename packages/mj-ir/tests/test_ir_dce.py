"""dce_jaxpr and inline_literals."""

import numpy as np
import pytest

from mj_core import ShapedArray, lax
from mj_ir import Lit, dce_jaxpr, eval_jaxpr, make_jaxpr, typecheck_jaxpr
from mj_ir.extend import inline_literals, trace_to_jaxpr


def _two_outputs():
    def f(x, y, z):
        a = lax.sin(x)
        b = lax.add(lax.cos(y), x)
        lax.exp(z)  # dead from the start
        return a, b

    return make_jaxpr(f)(1.0, 2.0, 3.0).jaxpr


def test_dce_keeps_only_what_used_outputs_need():
    jaxpr = _two_outputs()
    assert len(jaxpr.eqns) == 4
    pruned, used_inputs = dce_jaxpr(jaxpr, [True, False])
    assert used_inputs == [True, False, False]
    assert [e.primitive.name for e in pruned.eqns] == ["sin"]
    typecheck_jaxpr(pruned)
    np.testing.assert_allclose(eval_jaxpr(pruned, [0.5]), [np.sin(0.5)])


def test_dce_second_output_needs_both_inputs():
    pruned, used_inputs = dce_jaxpr(_two_outputs(), [False, True])
    assert used_inputs == [True, True, False]
    assert [e.primitive.name for e in pruned.eqns] == ["cos", "add"]
    np.testing.assert_allclose(eval_jaxpr(pruned, [0.5, 0.25]), [np.cos(0.25) + 0.5])


def test_dce_instantiate_keeps_inputs():
    pruned, used_inputs = dce_jaxpr(_two_outputs(), [False, False], instantiate=True)
    assert used_inputs == [True, True, True]
    assert pruned.eqns == []
    assert len(pruned.in_binders) == 3
    _, used = dce_jaxpr(_two_outputs(), [False, False], instantiate=[False, False, True])
    assert used == [False, False, True]


def test_dce_rejects_wrong_flag_counts():
    with pytest.raises(ValueError, match="used_outputs"):
        dce_jaxpr(_two_outputs(), [True])
    with pytest.raises(ValueError, match="instantiate"):
        dce_jaxpr(_two_outputs(), [True, True], instantiate=[True])


def test_inline_literals_turns_scalar_consts_into_literals():
    # a jaxpr whose constants are explicit inputs, as partial evaluation produces them
    def fun_flat(c_scalar, c_array, x):
        return [lax.add(lax.mul(x, c_scalar), c_array)]

    avals = [
        ShapedArray((), np.float64, weak_type=True),
        ShapedArray((3,), np.float64),
        ShapedArray((3,), np.float64),
    ]
    jaxpr, consts = trace_to_jaxpr(fun_flat, avals)
    assert consts == []
    arr = np.arange(3.0)
    new, new_consts = inline_literals(jaxpr, [2.0, arr])
    assert new_consts == [arr]
    assert len(new.in_binders) == 2
    lit = new.eqns[0].inputs[1]
    assert isinstance(lit, Lit)
    assert lit.val == 2.0
    assert lit.aval.weak_type
    typecheck_jaxpr(new)
    np.testing.assert_allclose(eval_jaxpr(new, [arr, np.ones(3)])[0], 2.0 + arr)
