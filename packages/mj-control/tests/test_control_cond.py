"""cond / switch: values against Python, printing, typing errors."""

import numpy as np
import pytest

from mj_control import cond, cond_p, switch
from mj_ir import eval_jaxpr, make_jaxpr


def _eager_and_staged(f, *args):
    """f's value eagerly and through make_jaxpr + eval_jaxpr (which must agree)."""
    eager = f(*args)
    closed = make_jaxpr(f)(*args)
    staged = eval_jaxpr(closed.jaxpr, [*closed.consts, *args])
    return eager, staged, closed


def test_autodidax_cond_constant_branches():
    assert cond(True, lambda: 3, lambda: 4) == 3
    assert cond(False, lambda: 3, lambda: 4) == 4


@pytest.mark.parametrize("x", [-2.0, 0.0, 3.5])
def test_cond_matches_python_if(x):
    def f(x):
        return cond(x > 0, lambda x: x * 2.0, lambda x: -x + 1.0, x)

    expected = x * 2.0 if x > 0 else -x + 1.0
    eager, (staged,), _ = _eager_and_staged(f, x)
    assert eager == pytest.approx(expected)
    assert staged == pytest.approx(expected)


def test_cond_integer_predicate_compares_with_zero():
    assert cond(np.int32(2), lambda: 1.0, lambda: 0.0) == 1.0
    assert cond(0, lambda: 1.0, lambda: 0.0) == 0.0


def test_cond_pytree_operands_and_outputs():
    ops = {"a": np.arange(3.0), "b": (np.float32(2.0), np.ones(2))}

    def t(o):
        return {"s": o["a"] * o["b"][0], "t": o["b"][1]}

    def f(o):
        return {"s": o["a"] - 1.0, "t": o["b"][1] * 3.0}

    out = cond(True, t, f, ops)
    np.testing.assert_allclose(out["s"], np.arange(3.0) * 2.0)
    np.testing.assert_allclose(out["t"], np.ones(2))
    out = cond(False, t, f, ops)
    np.testing.assert_allclose(out["s"], np.arange(3.0) - 1.0)
    np.testing.assert_allclose(out["t"], 3 * np.ones(2))


def test_cond_old_five_argument_form():
    operand = np.array([0.0])
    np.testing.assert_array_equal(
        cond(True, operand, lambda x: x + 1, operand, lambda x: x - 1), [1.0]
    )
    np.testing.assert_array_equal(
        cond(False, operand, lambda x: x + 1, operand, lambda x: x - 1), [-1.0]
    )


def test_branches_closing_over_different_constants_are_joined():
    a, b = np.arange(3.0), np.full(3, 10.0)

    def f(x):
        return cond(x > 0, lambda: x * a, lambda: x + b)

    for x in (2.0, -1.0):
        eager, (staged,), closed = _eager_and_staged(f, x)
        expected = a * x if x > 0 else b + x
        np.testing.assert_allclose(eager, expected)
        np.testing.assert_allclose(staged, expected)
    (eqn,) = [e for e in closed.jaxpr.eqns if e.primitive is cond_p]
    false_branch, true_branch = eqn.params["branches"]
    # both branches take both constants (index, a, b, x are the operands)
    assert len(eqn.inputs) == 4
    assert len(true_branch.in_avals) == len(false_branch.in_avals) == 3


def test_shared_constant_is_passed_once():
    a = np.arange(3.0)

    closed = make_jaxpr(lambda x: cond(x > 0, lambda: x * a, lambda: -x + a))(1.0)
    (eqn,) = [e for e in closed.jaxpr.eqns if e.primitive is cond_p]
    assert len(eqn.inputs) == 3  # index, a, x


@pytest.mark.parametrize("i", [-3, 0, 1, 2, 7])
def test_switch_clamps_index(i):
    branches = [lambda x: x + 1.0, lambda x: x * 10.0, lambda x: -x]
    expected = branches[min(max(i, 0), 2)](4.0)
    assert switch(i, branches, 4.0) == expected
    eager, (staged,), _ = _eager_and_staged(lambda i, x: switch(i, branches, x), i, 4.0)
    assert staged == expected == eager


def test_switch_single_branch_is_applied_directly():
    assert switch(5, [lambda x: x * 3], 2) == 6


def test_cond_prints_branches_indented():
    text = str(make_jaxpr(lambda x: cond(x > 0, lambda x: x * 2.0, lambda x: -x, x))(1.0))
    assert "cond[\n" in text
    assert "branches=(" in text
    lines = text.splitlines()
    branch_lines = [ln for ln in lines[1:] if ln.strip().startswith("{ lambda")]
    assert len(branch_lines) == 2
    # JAX's layout: params two columns in from the equation, branches two more, `]` back at
    # the equation's start (not aligned under the primitive's name)
    cond_line = next(ln for ln in lines if "cond[" in ln)
    eqn_indent = len(cond_line) - len(cond_line.lstrip())
    assert lines[lines.index(cond_line) + 1] == " " * (eqn_indent + 2) + "branches=("
    assert all(len(ln) - len(ln.lstrip()) == eqn_indent + 4 for ln in branch_lines)
    assert " " * (eqn_indent + 2) + ")" in lines
    assert " " * eqn_indent + "] c a" in lines


def test_branch_output_type_mismatch_shows_both_types():
    with pytest.raises(TypeError) as info:
        cond(True, lambda: np.float32(1.0), lambda: np.int32(1))
    msg = str(info.value)
    assert "f32[]" in msg
    assert "i32[]" in msg
    assert "true_fun" in msg
    assert "false_fun" in msg
    assert "test_control_cond.py" in msg


def test_branch_output_structure_mismatch():
    with pytest.raises(TypeError, match=r"\(f64\[\]~, f64\[\]~\)"):
        cond(True, lambda x: (x, x), lambda x: x, 1.0)


@pytest.mark.parametrize(
    ("pred", "match"),
    [
        (np.array([True, False]), "Pred must be a scalar"),
        ("abc", "Pred must be a scalar"),
        (np.complex64(1j), "boolean or number"),
        (None, "cond predicate is None"),
    ],
)
def test_bad_predicate(pred, match):
    with pytest.raises(TypeError, match=match):
        cond(pred, lambda: 1.0, lambda: 2.0)


@pytest.mark.parametrize(("pred", "want"), [(1.5, 1.0), (0.0, 2.0), (-0.0, 2.0), (np.nan, 1.0)])
def test_float_predicate_compares_with_zero(pred, want):
    """As JAX's: a float predicate is ``pred != 0`` (NaN is true)."""
    assert float(cond(pred, lambda: 1.0, lambda: 2.0)) == want


def test_switch_rejects_float_index_and_empty_branches():
    with pytest.raises(TypeError, match="Index type must be an integer"):
        switch(1.0, [lambda: 1.0, lambda: 2.0])
    with pytest.raises(ValueError, match="Empty branch sequence"):
        switch(0, [])


def test_non_callable_branch():
    with pytest.raises(TypeError, match=r"lax\.cond: true_fun argument should be callable"):
        cond(True, 1.0, lambda: 2.0)


def test_cond_typing_rule_names_the_mismatched_branch():
    from mj_core import ShapedArray
    from mj_ir import abstract_eval_rules

    f64, i32 = ShapedArray((), np.float64), ShapedArray((), np.int32)
    neg = make_jaxpr(lambda x: -x)(np.float64(1.0))
    rule = abstract_eval_rules[cond_p]
    assert rule(i32, f64, branches=(neg, neg)) == [f64]
    to_int = make_jaxpr(lambda x: np.int32(1))(np.float64(1.0))
    with pytest.raises(TypeError, match=r"branch 1 returns \(i32\[\]\) but branch 0 returns"):
        rule(i32, f64, branches=(neg, to_int))
    on_vec = make_jaxpr(lambda x: x[0])(np.ones(2))
    with pytest.raises(TypeError, match=r"branch 1 takes \(f64\[2\]\) but the operands are"):
        rule(i32, f64, branches=(neg, on_vec))
