"""mj.experimental.loops.Scope: seed 004's examples (values, jit, grad, vmap), what the loops
stage (scan/cond/while), and the documented errors, after which the trace stack is clean."""

import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj import ops
from mj.experimental import loops
from mj_core import current_trace_stack


def close(a, b, tol=1e-10):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


@pytest.fixture(autouse=True)
def _trace_stack_is_left_clean():
    before = len(current_trace_stack())
    yield
    assert len(current_trace_stack()) == before


# --- the seed's examples --------------------------------------------------------------------


def seed_arr(x):
    """The module docstring's example, with the array scaled by ``x``."""
    with loops.Scope() as s:
        s.arr = mnp.zeros(5)  # Create the mutable state of the loop as `scope` fields.
        for i in s.range(s.arr.shape[0]):
            s.arr = ops.index_update(s.arr, i, s.arr[i] + 2.0 * x)
            for _ in s.cond_range(i % 2 == 0):  # Conditionals as loops with 0 or 1 iterations
                s.arr = ops.index_update(s.arr, i, s.arr[i] + x * x)
    return s.arr


def seed_arr_unrolled(x):
    arr = np.zeros(5)
    for i in range(5):
        arr[i] += 2.0 * x
        if i % 2 == 0:
            arr[i] += x * x
    return arr


def test_seed_example_values_jit_grad_vmap():
    close(seed_arr(1.5), seed_arr_unrolled(1.5))
    close(mj.jit(seed_arr)(1.5), seed_arr_unrolled(1.5))
    # d/dx sum(arr) = 5 * 2 + 3 * 2x
    close(mj.grad(lambda x: mnp.sum(seed_arr(x)))(1.5), 10 + 6 * 1.5)
    close(
        mj.vmap(seed_arr)(mnp.array([1.0, 2.0])), [seed_arr_unrolled(1.0), seed_arr_unrolled(2.0)]
    )


def test_scope_docstring_example():
    def f():
        with loops.Scope() as s:
            s.data = 0.0
            for _ in s.range(5):
                s.data += 1.0
            return s.data

    close(f(), 5.0)
    close(mj.jit(f)(), 5.0)


@pytest.mark.parametrize(
    ("args", "expected"), [((5,), 5), ((1, 5), 4), ((1, 5, 2), 2), ((5, 1, -2), 2)]
)
def test_range_bounds(args, expected):
    with loops.Scope() as s:
        s.out = 1.0
        s.indices = mnp.zeros(6, dtype=int)
        for i in s.range(*args):
            s.out += 1.0
            s.indices = s.indices.at[i].add(1)
    close(s.out, 1.0 + expected)
    close(s.indices, np.bincount(np.arange(*args), minlength=6))


def test_while_range_dynamic_bounds():
    def count(start, end):
        with loops.Scope() as s:
            s.idx = start
            s.steps = 0
            for _ in s.while_range(lambda: s.idx < end):
                s.idx += 1
                s.steps += 2
        return s.idx, s.steps

    assert [int(v) for v in count(2, 7)] == [7, 10]
    assert [int(v) for v in mj.jit(count)(2, 7)] == [7, 10]
    assert [int(v) for v in mj.jit(count)(9, 7)] == [9, 0]


def test_cond_range_and_its_predicates():
    def flip(x):
        with loops.Scope() as s:
            s.field = x
            for _ in s.cond_range(s.field < 0.0):
                s.field = -s.field
        return s.field

    close(flip(-2.5), 2.5)
    close(flip(3.0), 3.0)
    close(mj.jit(flip)(-2.5), 2.5)
    close(mj.vmap(flip)(mnp.array([-1.0, 2.0, -3.0])), [1.0, 2.0, 3.0])
    close(mj.grad(flip)(-2.5), -1.0)
    close(mj.grad(flip)(2.5), 1.0)
    with loops.Scope() as s:  # numbers are predicates: nonzero is true
        s.x = 1.0
        for _ in s.cond_range(2.0):
            s.x = -s.x
        for _ in s.cond_range(0):
            s.x = 10 * s.x
    close(s.x, -1.0)


def test_nested_ranges_grad_matches_unrolled_and_finite_differences():
    def nested(x):
        with loops.Scope() as s:
            s.out = x
            for i in s.range(1, 7, 2):
                for j in s.range(3):
                    s.out = mnp.sin(s.out) * x + i * j
        return s.out

    def unrolled(x):
        out = x
        for i in range(1, 7, 2):
            for j in range(3):
                out = mnp.sin(out) * x + i * j
        return out

    close(nested(0.7), unrolled(0.7))
    close(mj.jit(nested)(0.7), unrolled(0.7))
    close(mj.grad(nested)(0.7), mj.grad(unrolled)(0.7))
    eps = 1e-6
    numeric = (float(nested(0.7 + eps)) - float(nested(0.7 - eps))) / (2 * eps)
    assert float(mj.grad(nested)(0.7)) == pytest.approx(numeric, rel=1e-6)


def test_pytree_state_and_closures():
    weights = mnp.array([0.5, 2.0])

    def f(x):
        with loops.Scope() as s:
            s.p = {"a": x * mnp.ones(2), "count": 0}
            for i in s.range(4):
                s.p = {"a": s.p["a"] * weights + i, "count": s.p["count"] + 1}
        return s.p

    out = f(1.0)
    a = np.ones(2)
    for i in range(4):
        a = a * np.asarray(weights) + i
    close(out["a"], a)
    assert int(out["count"]) == 4
    close(mj.jit(f)(1.0)["a"], a)


def test_loops_are_staged_as_lax_control_flow():
    def f(x):
        with loops.Scope() as s:
            s.x = x
            for _ in s.range(3):
                s.x = s.x * 2.0
            for _ in s.cond_range(s.x > 0):
                s.x = s.x + 1.0
            for _ in s.while_range(lambda: s.x < 100.0):
                s.x = s.x * 3.0
        return s.x

    text = str(mj.make_jaxpr(f)(1.0))
    assert "scan[" in text
    assert "cond[" in text
    assert "while[" in text
    close(f(1.0), 243.0)  # 8, then 9, then 27, 81, 243


# --- errors ---------------------------------------------------------------------------------


def breaks_out():
    with loops.Scope() as s:
        s.x = 0.0
        for _ in s.range(5):
            s.x += 1.0
            break


def returns_early():
    with loops.Scope() as s:
        s.x = 0.0
        for _ in s.range(5):
            return s.x
    return None


def creates_state_in_loop():
    with loops.Scope() as s:
        s.x = 0.0
        for _ in s.range(2):
            s.y = 1.0


def reads_uninitialized():
    with loops.Scope() as s:
        return s.z


def changes_shape():
    with loops.Scope() as s:
        s.x = mnp.zeros(3)
        for _ in s.range(2):
            s.x = mnp.zeros(4)


def changes_structure():
    with loops.Scope() as s:
        s.x = (1.0, 2.0)
        for _ in s.range(2):
            s.x = [1.0, 2.0]


def reuses_range():
    with loops.Scope() as s:
        s.x = 0.0
        r = s.range(3)
        for _ in r:
            for _ in r:
                s.x += 1.0


def uses_cond_index():
    with loops.Scope() as s:
        s.x = 0
        for i in s.cond_range(True):
            s.x += i


def uses_while_index():
    with loops.Scope() as s:
        s.x = 0
        for i in s.while_range(lambda: s.x < 3):
            s.x += i


def condition_modifies_scope():
    def bad_condition(s):
        s.x = s.x + 1
        return s.x < 3

    with loops.Scope() as s:
        s.x = 0
        for _ in s.while_range(lambda: bad_condition(s)):
            s.x += 1


@mj.jit
def traced_bound(n):
    with loops.Scope() as s:
        s.x = 0.0
        for _ in s.range(n):
            s.x += 1.0
    return s.x


ERRORS = [
    (breaks_out, ValueError, "Some ranges have exited prematurely. The innermost such range"),
    (returns_early, ValueError, "Some ranges have exited prematurely"),
    (creates_state_in_loop, ValueError, "New mutable state 'y' cannot be created inside a loop"),
    (reads_uninitialized, AttributeError, "Reading uninitialized data 'z' from the scope"),
    (changes_shape, TypeError, "should not change the type of carried state x"),
    (changes_structure, TypeError, "changed the structure"),
    (reuses_range, ValueError, "Range is reused nested inside itself"),
    (uses_cond_index, ValueError, "should not use the index variable"),
    (uses_while_index, ValueError, "should not use the index variable"),
    (condition_modifies_scope, ValueError, r"Conditional function modifies scope\.x field"),
    (
        lambda: loops.Scope().cond_range(mnp.array([True, False])),
        TypeError,
        "Pred must be a scalar",
    ),
    (
        lambda: loops.Scope().cond_range("yes"),
        TypeError,
        "Pred type must be either boolean or number",
    ),
    (lambda: traced_bound(3), mj.errors.ConcretizationError, "int"),
]


@pytest.mark.parametrize(("fun", "error", "match"), ERRORS, ids=[e[2][:30] for e in ERRORS])
def test_documented_errors(fun, error, match):
    with pytest.raises(error, match=match):
        fun()


def test_grad_of_while_range_fails_like_while_loop():
    def f(x):
        with loops.Scope() as s:
            s.x = x
            for _ in s.while_range(lambda: s.x < 10.0):
                s.x = s.x * 2.0
        return s.x

    close(f(1.5), 12.0)
    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work"):
        mj.grad(f)(1.5)
    close(mj.jvp(f, (1.5,), (1.0,))[1], 8.0)  # forward mode works: d(8x)/dx


def test_body_values_do_not_escape():
    def leaky():
        with loops.Scope() as s:
            s.x = 0.0
            for _ in s.range(2):
                t = s.x + 1
                s.x = t
        return t + 1

    with pytest.raises(mj.errors.TracerLeakError):
        leaky()


def test_exception_in_nested_body_restores_the_trace_stack():
    depth = len(current_trace_stack())

    def raises_inside():
        with loops.Scope() as s:
            s.x = 0.0
            for _ in s.range(2):
                for _ in s.range(2):
                    assert len(current_trace_stack()) == depth + 2
                    raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        raises_inside()
    assert len(current_trace_stack()) == depth
    close(mj.jit(lambda x: x + 1)(1.0), 2.0)  # tracing still works afterwards


def test_subtrace_api():
    s = loops.Scope()
    depth = len(current_trace_stack())
    trace = s.start_subtrace()
    assert len(current_trace_stack()) == depth + 1
    assert current_trace_stack()[-1] is trace.main
    s.end_subtrace()
    assert len(current_trace_stack()) == depth
