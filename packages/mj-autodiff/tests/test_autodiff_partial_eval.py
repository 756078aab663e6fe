"""Partial evaluation (trace and jaxpr level), jvp_jaxpr and transpose_jaxpr: the machinery
jit and control flow build on."""

from __future__ import annotations

import numpy as np
import pytest

from mj_autodiff import jvp
from mj_autodiff.extend import (
    PartialVal,
    jvp_jaxpr,
    linearize_flat,
    partial_eval_flat,
    partial_eval_jaxpr,
    transpose_jaxpr,
)
from mj_core import lax
from mj_ir import eval_jaxpr, make_jaxpr, typecheck_jaxpr


def sin_neg(x):
    return lax.neg(lax.sin(x))


def test_partial_eval_flat_stages_only_unknown_work():
    def f(a, b):
        c = lax.mul(lax.sin(a), 2.0)  # known
        return [c, lax.add(c, lax.cos(b))]  # second output unknown

    jaxpr, pvals, consts = partial_eval_flat(
        f, [PartialVal.known(1.0), PartialVal.unknown(PartialVal.known(2.0).aval)]
    )
    assert pvals[0].is_known
    assert pvals[0].const == pytest.approx(2 * np.sin(1.0))
    assert not pvals[1].is_known
    assert [e.primitive.name for e in jaxpr.eqns] == ["cos", "add"]
    (out,) = eval_jaxpr(jaxpr, [*consts, 0.5])
    assert out == pytest.approx(2 * np.sin(1.0) + np.cos(0.5))


def test_linear_jaxpr_of_autodidax_example():
    _, lin = linearize_flat(lambda x: [sin_neg(x)], [3.0])
    text = str(lin.jaxpr)
    assert [e.primitive.name for e in lin.jaxpr.eqns] == ["mul", "neg"]
    assert "sin" not in text
    assert "cos" not in text
    assert lin(1.0)[0] == pytest.approx(-np.cos(3.0))


def test_partial_eval_jaxpr_unzips_the_jvp():
    closed = make_jaxpr(sin_neg)(3.0)
    jvp_closed, out_nz = jvp_jaxpr(closed, [True], instantiate=False)
    assert out_nz == [True]
    typecheck_jaxpr(jvp_closed.jaxpr)
    known, unknown, out_unk, num_res = partial_eval_jaxpr(jvp_closed, [False, True])
    assert out_unk == [False, True]
    assert num_res >= 1
    assert {e.primitive.name for e in known.jaxpr.eqns} >= {"sin", "cos", "neg"}
    assert [e.primitive.name for e in unknown.jaxpr.eqns] == ["mul", "neg"]
    outs_known = known(3.0)
    y, res = outs_known[:1], outs_known[1:]
    (t,) = unknown(*res, 1.0)
    assert y[0] == pytest.approx(-np.sin(3.0))
    assert t == pytest.approx(-np.cos(3.0))


def test_partial_eval_jaxpr_instantiate_and_consts():
    c = np.arange(3.0)
    closed = make_jaxpr(lambda x, y: [lax.mul(x, c), lax.add(y, 1.0)])(np.ones(3), 2.0)
    known, unknown, out_unk, num_res = partial_eval_jaxpr(
        closed, [False, True], instantiate=[True, False]
    )
    assert out_unk == [True, True]
    res = known(np.ones(3))
    assert len(res) == num_res
    out0, out1 = unknown(*res, 5.0)
    np.testing.assert_allclose(out0, c)
    assert out1 == 6.0


def test_jvp_jaxpr_symbolic_zero_outputs():
    closed = make_jaxpr(lambda x, k: [lax.mul(x, 2.0), lax.add(k, 1)])(1.0, np.int32(3))
    jc, out_nz = jvp_jaxpr(closed, [True, False], instantiate=False)
    assert out_nz == [True, False]
    p0, p1, t0 = jc(1.5, np.int32(3), 1.0)
    assert (p0, p1, t0) == (3.0, 4, 2.0)
    jc2, out_nz2 = jvp_jaxpr(closed, [False, False], instantiate=[True, False])
    assert out_nz2 == [True, False]
    assert jc2(1.5, np.int32(3))[2] == 0.0


def test_transpose_jaxpr():
    a = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    closed = make_jaxpr(lambda s, x: lax.mul(s, lax.dot_general(a, x, (((1,), (0,)), ((), ())))))(
        2.0, np.ones(2)
    )
    tj = transpose_jaxpr(closed, (False, True))
    assert transpose_jaxpr(closed, (False, True)) is tj  # cached
    (ct_x,) = tj(2.0, np.array([1.0, 0.0, -1.0]))
    np.testing.assert_allclose(ct_x, 2.0 * a.T @ np.array([1.0, 0.0, -1.0]))


def test_jvp_of_evaluated_jaxpr_matches_function():
    closed = make_jaxpr(lambda x: lax.tanh(lax.mul(x, x)))(0.3)
    _, t1 = jvp(lambda x: closed(x)[0], (0.3,), (1.0,))
    _, t2 = jvp(lambda x: lax.tanh(lax.mul(x, x)), (0.3,), (1.0,))
    assert t1 == pytest.approx(t2)
