"""The interpreter stack: trace ordering, exception safety, per-thread stacks, leak detection.

A toy transformation defined here (``Tag``) boxes values and records the primitives it sees,
so stacking two of them shows which trace handles each primitive and how values are lifted.
"""

import threading

import numpy as np
import pytest

import mj_core
from mj_core import lax
from mj_core._avals import ShapedArray, get_aval
from mj_core._primitive import Primitive, impl_rules
from mj_core._trace import (
    EvalTrace,
    Trace,
    Tracer,
    bind1,
    current_trace_stack,
    find_top_trace,
    full_lower,
    full_raise,
    is_eager,
    new_dynamic,
    new_main,
)
from mj_core.errors import ConcretizationError, MissingRuleError, TracerLeakError


class TagTracer(Tracer):
    __slots__ = ("val",)

    def __init__(self, trace, val):
        self._trace = trace
        self.val = val

    @property
    def aval(self):
        aval = get_aval(self.val)
        return ShapedArray(aval.shape, aval.dtype, aval.weak_type)


class TagTrace(Trace):
    """Boxes values; every primitive it processes is logged as ``(level, name)``."""

    __slots__ = ()
    transformation_name = "tag"

    def pure(self, val):
        self.main.global_data["events"].append((self.main.level, "pure"))
        return TagTracer(self, val)

    def lift(self, val):
        self.main.global_data["events"].append((self.main.level, "lift"))
        return TagTracer(self, val)

    def process_primitive(self, primitive, tracers, params):
        self.main.global_data["events"].append((self.main.level, primitive.name))
        outs = mj_core.bind(primitive, *[t.val for t in tracers], **params)
        return [TagTracer(self, o) for o in outs]


def tagged(f, *args):
    """Run ``f`` under a new Tag transformation; returns (unboxed outputs, events)."""
    data = {"events": []}
    with new_main(TagTrace, data) as main:
        trace = main.trace
        out = f(*[TagTracer(trace, a) for a in args])
        out = full_raise(trace, out)
        return out.val, data["events"]


def test_single_level_records_every_primitive():
    out, events = tagged(lambda x: lax.mul(lax.sin(x), 2.0), 0.5)
    assert np.isclose(out, 2 * np.sin(0.5))
    assert events == [(1, "sin"), (1, "pure"), (1, "mul")]  # the constant 2.0 is boxed


def test_two_levels_inner_traced_first_and_outer_values_lifted():
    inner_events: list = []

    def f(x):  # x is an outer (level 1) tracer
        data = {"events": inner_events}
        with new_main(TagTrace, data) as inner:
            y = TagTracer(inner.trace, 3.0)  # an inner (level 2) tracer
            assert find_top_trace([x, y]) is inner.trace
            assert find_top_trace([x]) is x._trace
            z = lax.mul(x, y)  # x is lifted into the inner trace
            assert isinstance(z, TagTracer)
            assert z._trace is inner.trace
            assert isinstance(z.val, TagTracer)
            assert z.val._trace is x._trace
            return z.val  # the outer tracer inside

    out, outer_events = tagged(f, 2.0)
    assert out == 6.0
    assert inner_events == [(2, "lift"), (2, "mul")]
    assert outer_events == [(1, "pure"), (1, "mul")]  # inner constant 3.0 became a pure const


def test_full_raise_rejects_higher_level_tracer_in_lower_trace():
    with new_main(TagTrace, {"events": []}) as outer, new_main(TagTrace, {"events": []}) as inner:
        t = TagTracer(inner.trace, 1.0)
        with pytest.raises(TracerLeakError, match=r"tag"):
            full_raise(outer.trace, t)


def test_full_raise_and_lower_of_constants():
    with new_main(TagTrace, {"events": []}) as main:
        boxed = full_raise(main.trace, 5.0)
        assert isinstance(boxed, TagTracer)
        assert boxed.val == 5.0
        assert full_raise(main.trace, boxed) is boxed
    assert full_lower(7) == 7


def test_stack_restored_after_exception_in_new_main_and_new_dynamic():
    before = current_trace_stack()
    seen_inside = []

    def fail():
        with new_main(TagTrace, {"events": []}) as main, new_dynamic(main):
            seen_inside.append(is_eager())
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match=r"boom"):
        fail()
    assert seen_inside == [False]
    assert current_trace_stack() == before
    assert is_eager()
    assert np.isclose(lax.sin(1.0), np.sin(1.0))  # eager path works again
    assert isinstance(find_top_trace([1.0]), EvalTrace)


class StageTrace(TagTrace):
    """Like a jaxpr trace: evaluates with the impl rule itself instead of binding again (a
    dynamic trace that re-binds would dispatch to itself forever)."""

    __slots__ = ()
    transformation_name = "stage"

    def process_primitive(self, primitive, tracers, params):
        self.main.global_data["events"].append((self.main.level, primitive.name))
        outs = impl_rules[primitive](*[t.val for t in tracers], **params)
        return [TagTracer(self, o) for o in outs]


def test_dynamic_trace_stages_constant_only_primitives():
    data = {"events": []}
    with new_main(StageTrace, data) as main, new_dynamic(main):
        out = lax.add(1.0, 2.0)  # no tracer argument: still handled by the dynamic trace
        assert isinstance(out, TagTracer)
        assert out.val == 3.0
    assert data["events"] == [(1, "pure"), (1, "pure"), (1, "add")]
    assert is_eager()


def test_leaked_tracer_raises_naming_transformation():
    leaked = []

    def f(x):
        leaked.append(x)
        return x

    tagged(f, 1.0)
    (t,) = leaked
    with pytest.raises(TracerLeakError, match=r"tag transformation"):
        lax.sin(t)  # eager fast path: caught by the tracer's NumPy hooks
    with pytest.raises(TracerLeakError, match=r"tag"):
        bool(t)
    with (
        new_main(TagTrace, {"events": []}),  # slow path: find_top_trace sees a dead main
        pytest.raises(TracerLeakError, match=r"tag"),
    ):
        lax.sin(t)


def test_concretization_errors_for_abstract_tracers():
    def f(x):
        for convert in (bool, int, float, complex):
            with pytest.raises(ConcretizationError, match=r"float64\[\]"):
                convert(x)
        with pytest.raises(ConcretizationError, match=r"NumPy"):
            np.asarray(x)
        with pytest.raises(ConcretizationError):
            np.sin(x)
        assert isinstance(ConcretizationError("x"), TypeError)
        return x

    tagged(f, 1.5)


def test_tracer_array_attributes_and_operators():
    def f(x):
        assert x.shape == (2, 3)
        assert x.ndim == 2
        assert x.size == 6
        assert x.dtype == np.float32
        assert len(x) == 2
        y = (x + 1) * 2 - x / 2
        z = (-x) ** 2 @ x.T
        w = x[1, ::-1].sum() + x.reshape(3, 2).mean() + x.astype(np.float64).max()
        cmp = (x > 0) & (x <= 1)
        return y, z, w, cmp, x.at[0, 1].set(7.0), 2.0 - x, 1 / (x + 10)

    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    data = {"events": []}
    with new_main(TagTrace, data) as main:
        outs = f(TagTracer(main.trace, x))
        y, z, w, cmp, at, rsub, rdiv = [o.val for o in outs]
    np.testing.assert_allclose(y, (x + 1) * 2 - x / 2)
    np.testing.assert_allclose(z, ((-x) ** 2) @ x.T)
    np.testing.assert_allclose(w, x[1, ::-1].sum() + x.reshape(3, 2).mean() + x.max())
    np.testing.assert_array_equal(cmp, (x > 0) & (x <= 1))
    expected = x.copy()
    expected[0, 1] = 7
    np.testing.assert_array_equal(at, expected)
    np.testing.assert_allclose(rsub, 2 - x)
    np.testing.assert_allclose(rdiv, 1 / (x + 10))
    assert y.dtype == z.dtype == rsub.dtype == np.float32  # weak scalars keep float32
    assert TagTracer.__hash__ is None


def test_per_thread_stacks_with_four_threads_tracing_at_once():
    barrier = threading.Barrier(4)
    results: dict[int, object] = {}
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            data = {"events": []}
            with new_main(TagTrace, data) as main:
                barrier.wait()  # all four threads are inside a transformation now
                assert len(current_trace_stack()) == 2
                x = TagTracer(main.trace, float(i))
                for _ in range(50):
                    x = lax.add(x, 1.0)
                barrier.wait()
                results[i] = (x.val, len(data["events"]), main.level)
            assert is_eager()
        except BaseException as err:  # reported below
            errors.append(err)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert results == {i: (i + 50.0, 100, 1) for i in range(4)}  # 50 x (pure 1.0, add)
    assert is_eager()


def test_missing_rule_error_names_primitive_and_table():
    p = Primitive("my_new_op")
    with pytest.raises(MissingRuleError, match=r"my_new_op.*impl_rules\[my_new_op_p\]"):
        bind1(p, 1.0)


def test_impl_error_names_primitive_operands_and_user_line():
    with pytest.raises(TypeError, match=r"add.*f64\[2\].*f64\[3\].*test_core_interpreter.py"):
        lax.add(np.ones(2), np.ones(3))


def test_a_new_impl_rule_replaces_the_elementwise_shortcut():
    from mj_core.prims.elementwise import tanh_p

    assert impl_rules.shortcut(tanh_p).ufunc is np.tanh  # lax.tanh calls np.tanh directly
    x = np.array([0.5, 1.0])
    old_rule = impl_rules[tanh_p]
    try:
        impl_rules[tanh_p] = lambda x: [np.full_like(x, 7.0)]
        assert impl_rules.shortcut(tanh_p).ufunc is None
        np.testing.assert_array_equal(lax.tanh(x), [7.0, 7.0])  # the new rule, not np.tanh
        np.testing.assert_array_equal(bind1(tanh_p, x), [7.0, 7.0])
    finally:
        impl_rules[tanh_p] = old_rule
        impl_rules.shortcut(tanh_p).ufunc = np.tanh
    np.testing.assert_allclose(lax.tanh(x), np.tanh(x))
    np.testing.assert_allclose(bind1(tanh_p, x), np.tanh(x))


def test_primitive_is_a_name_and_an_output_arity():
    assert set(Primitive.__slots__) == {"name", "multiple_results"}


def test_binds_keeps_the_wrappers_signature_and_doc():
    import inspect

    assert lax.add.__name__ == "add"
    assert "x + y" in lax.add.__doc__
    assert list(inspect.signature(lax.add).parameters) == ["x", "y"]
    assert list(inspect.signature(lax.sin).parameters) == ["x"]


def test_binds_eager_path_gives_eager_arrays_with_numpy_values():
    from mj_core._eager_array import EagerArray

    x = np.linspace(-1.0, 1.0, 5, dtype=np.float32)
    out = lax.mul(lax.sin(x), 2.0)
    assert type(out) is EagerArray
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, np.sin(x) * 2, rtol=1e-6)
    scalar = lax.add(np.float32(1.0), np.float32(2.0))  # a NumPy scalar out: a 0-d array
    assert type(scalar) is EagerArray
    assert scalar.shape == ()
    assert scalar == 3.0


def test_binds_error_is_bind1s_error_with_one_traceback():
    with pytest.raises(TypeError, match=r"mul.*f64\[2\].*f64\[3\]") as info:
        lax.mul(np.ones(2), np.ones(3))
    # the fallback runs outside the first failure's handler: NumPy's error is the cause,
    # and no earlier copy of it hangs off that ("during handling of the above exception")
    assert isinstance(info.value.__cause__, ValueError)
    assert info.value.__cause__.__context__ is None


def test_binds_goes_through_the_active_trace():
    out, events = tagged(lambda x: lax.sub(lax.cos(x), x), 3.0)
    assert np.isclose(out, np.cos(3.0) - 3.0)
    assert events == [(1, "cos"), (1, "sub")]


def test_binds_rejects_a_wrapper_of_three_operands():
    from mj_core._trace import binds
    from mj_core.prims.elementwise import clamp_p

    with pytest.raises(TypeError, match=r"binds\(clamp\): one or two operands, got 3"):

        @binds(clamp_p)
        def clamp(a, x, b): ...
