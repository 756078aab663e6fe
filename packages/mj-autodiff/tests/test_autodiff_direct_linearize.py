"""Direct linearization: primal work runs eagerly, only tangent work is staged, dead tangent
work is pruned for forward application, and a rule that leaks tangents into primals is
caught."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from mj_autodiff import custom_jvp, grad, linearize
from mj_autodiff.extend import linearize_flat
from mj_core import lax
from mj_ir import eval_jaxpr, make_jaxpr


def test_linear_jaxpr_holds_only_tangent_work_on_concrete_residuals():
    x = np.array([0.3, -1.2, 2.0])
    primals_out, lin = linearize_flat(lambda a: [lax.mul(lax.sin(a), a)], [x])
    np.testing.assert_allclose(primals_out[0], np.sin(x) * x)
    assert {e.primitive.name for e in lin.jaxpr.eqns} <= {"mul", "add"}
    assert all(isinstance(c, np.ndarray) for c in lin.consts)  # evaluated now, not staged
    v = np.array([1.0, 0.5, -2.0])
    np.testing.assert_allclose(lin(v)[0], (np.cos(x) * x + np.sin(x)) * v)
    ct = np.array([2.0, 1.0, 3.0])
    np.testing.assert_allclose(lin.transpose([ct])[0], (np.cos(x) * x + np.sin(x)) * ct)


def test_pruned_drops_tangent_work_that_reaches_no_output():
    def f(a):
        lax.exp(a)  # differentiated, then unused
        return [lax.mul(a, 2.0)]

    x = np.array([1.5, -0.5])
    _, lin = linearize_flat(f, [x])
    pruned = lin.pruned()
    assert [e.primitive.name for e in pruned.jaxpr.eqns] == ["mul"]
    assert len(pruned.jaxpr.eqns) < len(lin.jaxpr.eqns)
    assert len(pruned.consts) < len(lin.consts)  # exp(1.5) is no longer kept alive
    v = np.array([0.25, 4.0])
    np.testing.assert_allclose(lin(v)[0], 2.0 * v)
    np.testing.assert_allclose(pruned(v)[0], 2.0 * v)
    np.testing.assert_allclose(linearize(lambda a: f(a)[0], x)[1](v), 2.0 * v)


def test_a_rule_mixing_tangents_into_primals_is_rejected():
    @custom_jvp
    def f(x):
        return lax.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        return tangents[0], tangents[0]  # the tangent posing as the primal output

    with pytest.raises(TypeError, match="primal output depends on the tangents"):
        linearize_flat(lambda a: [f(a)], [0.5])


def test_residuals_of_an_enclosing_trace_are_staged_there():
    closed = make_jaxpr(grad(lambda a: lax.mul(lax.sin(a), a)))(0.7)
    assert {e.primitive.name for e in closed.jaxpr.eqns} >= {"sin", "cos"}
    (g,) = eval_jaxpr(closed.jaxpr, [*closed.consts, 1.1])
    assert g == pytest.approx(np.cos(1.1) * 1.1 + np.sin(1.1))


def test_garbage_collection_is_restored_even_when_fun_raises():
    assert gc.isenabled()

    def boom(a):
        raise RuntimeError("user error")

    with pytest.raises(RuntimeError, match="user error"):
        linearize_flat(boom, [1.0])
    assert gc.isenabled()
    linearize_flat(lambda a: [lax.sin(a)], [1.0])
    assert gc.isenabled()
