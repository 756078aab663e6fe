"""jit's cache, static arguments, errors, lowering API and device arrays."""

import gc
import weakref

import numpy as np
import pytest

from mj_core import lax
from mj_xla import Array, device_put, jit


def counting(fun):
    calls = []

    def wrapped(*args, **kwargs):
        calls.append(1)
        return fun(*args, **kwargs)

    return wrapped, calls


def test_retraces_only_for_new_shapes_dtypes_and_weak_types():
    f, traces = counting(lambda x: x * 2.0)
    jf = jit(f)
    jf(np.ones(3, np.float32))
    jf(np.zeros(3, np.float32))
    jf(device_put(np.ones(3, np.float32)))  # fast path shares the entry
    assert len(traces) == 1
    jf(np.ones(4, np.float32))
    assert len(traces) == 2
    jf(np.ones(3, np.float64))
    assert len(traces) == 3
    jf(1.0)  # weak float64 scalar
    jf(np.float64(1.0))  # strong float64 scalar: a different signature
    assert len(traces) == 5
    jf(2.0)
    assert len(traces) == 5
    assert jf._cache_size() == 5


def test_pytree_arguments_and_outputs(assert_same):
    f, traces = counting(lambda d, t: {"s": d["a"] + t[0], "p": (d["b"] * t[1],)})
    jf = jit(f)
    out = jf({"a": np.ones(2), "b": 2.0}, (np.arange(2.0), 3.0))
    assert_same(out["s"], np.array([1.0, 2.0]))
    assert_same(out["p"][0], np.float64(6.0))
    jf({"a": np.zeros(2), "b": 5.0}, (np.arange(2.0), 1.0))
    assert len(traces) == 1
    jf({"a": np.zeros(2), "b": 5.0}, [np.arange(2.0), 1.0])  # list, not tuple: new structure
    assert len(traces) == 2


def test_static_argnums_and_argnames(assert_same):
    f, traces = counting(lambda x, n, *, mode: x * n if mode == "mul" else x + n)
    jf = jit(f, static_argnums=1, static_argnames="mode")
    assert_same(jf(np.ones(2), 3, mode="mul"), np.full(2, 3.0))
    assert_same(jf(np.ones(2), 3, mode="mul"), np.full(2, 3.0))
    assert len(traces) == 1
    assert_same(jf(np.ones(2), 4, mode="mul"), np.full(2, 4.0))
    assert_same(jf(np.ones(2), 4, mode="add"), np.full(2, 5.0))
    assert len(traces) == 3


def test_unhashable_static_argument_is_a_type_error_naming_it():
    jf = jit(lambda x, shape: x.reshape(shape), static_argnums=1)
    with pytest.raises(TypeError, match="static argument 1 is unhashable"):
        jf(np.ones(4), [2, 2])
    jg = jit(lambda x, *, axes: x, static_argnames=("axes",))
    with pytest.raises(TypeError, match="'axes' is unhashable"):
        jg(np.ones(4), axes=[0])


def test_non_array_argument_is_a_type_error():
    want = r"Error interpreting argument to .* as an abstract array\. .* of type <class .str.> "
    want += r"and was passed to the function at path x\."
    with pytest.raises(TypeError, match=want):
        jit(lambda x: x)("hello")


def test_value_dependent_python_control_flow_raises_concretization_error():
    from mj_core.errors import ConcretizationError

    def f(x):
        return x if x > 0 else -x

    with pytest.raises(ConcretizationError):
        jit(f)(1.0)


def test_error_inside_traced_function_leaves_state_clean():
    from mj_core import current_trace_stack, is_eager

    def bad(x):
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        jit(bad)(1.0)
    assert is_eager()
    assert len(current_trace_stack()) == 1


def test_cache_is_bounded_lru():
    import sys

    f, _ = counting(lambda x: x + 1)
    jf = jit(f)
    limit = sys.modules["mj_xla._jit"]._MAX_ENTRIES_PER_FUNCTION
    for n in range(limit + 5):
        jf(np.ones(n + 1))
    assert jf._cache_size() == limit


def test_cache_freed_when_function_goes_away():
    def make():
        def f(x):
            return x * 3.0

        return f

    f = make()
    jf = jit(f)
    jf(np.ones(2))
    ref = weakref.ref(f)
    del f, jf
    gc.collect()
    assert ref() is None


def test_jit_of_same_function_shares_cache():
    f, traces = counting(lambda x: x - 1.0)
    jit(f)(np.ones(2))
    jit(f)(np.ones(2))
    assert len(traces) == 1


def test_lower_as_text_and_compile(assert_same):
    jf = jit(lambda x, y: lax.dot(x, y) + 1.0)
    a, b = np.ones((2, 3), np.float32), np.ones((3, 4), np.float32)
    lowered = jf.lower(a, b)
    text = lowered.as_text()
    assert "func.func @main" in text
    assert text.count("stablehlo.dot_general") == 1
    assert "tensor<2x3xf32>" in text
    compiled = lowered.compile()
    assert_same(compiled(a, b), np.full((2, 4), 4.0, np.float32))
    optimized = compiled.as_text()  # XLA's optimized HLO, as jax's Compiled.as_text
    assert optimized.startswith("HloModule")
    assert "f32[2,4]" in optimized
    assert "stablehlo" not in optimized


def test_large_constants_are_arguments_scalars_inlined(assert_same):
    big = np.arange(1000.0)
    jf = jit(lambda x: x * big + np.float64(2.5))
    text = jf.lower(np.ones(1000)).as_text()
    assert "%arg1" in text  # the closed-over array is a parameter
    assert "dense<2.5" in text  # the scalar is inlined
    assert "999" not in text
    assert_same(jf(np.ones(1000)), big + 2.5)


def test_array_api(assert_same):
    x = jit(lambda v: v * 2.0)(np.array([1.0, 2.0], np.float32))
    assert isinstance(x, Array)
    assert (x.shape, x.dtype, x.ndim, x.size) == ((2,), np.float32, 1, 2)
    assert repr(x) == "Array([2., 4.], dtype=float32)"
    assert x.block_until_ready() is x
    assert_same(np.asarray(x), np.array([2.0, 4.0], np.float32))
    assert_same(x + 1.0, np.array([3.0, 5.0], np.float32))
    assert_same(x * x, np.array([4.0, 16.0], np.float32))
    assert_same(x > 3.0, np.array([False, True]))
    assert_same(-x, np.array([-2.0, -4.0], np.float32))
    assert float(x[1]) == 4.0
    assert len(x) == 2
    assert [float(v) for v in x] == [2.0, 4.0]
    assert repr(jit(lambda: 1.0)()) == "Array(1., dtype=float64, weak_type=True)"


def test_device_put_copies_and_keeps_weak_type(assert_same):
    host = np.zeros(16)
    d = device_put(host)
    host[0] = 5.0  # later host writes do not reach the device array
    assert float(np.asarray(d)[0]) == 0.0
    w = device_put(2.0)
    assert w.weak_type
    assert jit(lambda a, b: a * b)(np.ones(2, np.float32), w).dtype == np.float32
    ro = np.asarray(d)  # read-only views can be put back
    assert_same(device_put(ro), np.zeros(16))


def test_outputs_stay_on_device_between_calls(assert_same):
    step = jit(lambda x: x * 0.5)
    x = device_put(np.ones(4, np.float32))
    for _ in range(3):
        x = step(x)
        assert isinstance(x, Array)
    assert_same(x, np.full(4, 0.125, np.float32))


def test_argument_type_mismatch_on_compiled_is_an_error():
    compiled = jit(lambda x: x + 1).lower(np.ones(3, np.float32)).compile()
    with pytest.raises(TypeError, match=r"(?s)Argument types differ .*float32\[3\].*float32\[4\]"):
        compiled(np.ones(4, np.float32))


def test_pytrees_of_device_arrays_run_without_reflattening(monkeypatch):
    """Lists, tuples, dicts and None holding device arrays (a list of parameters) take the
    dispatch fast path: the slow path's entry, found by the full signature once for that kind
    of call and then without flattening again; structures and avals that differ still trace
    anew."""

    def f(params, x, extra):
        (w, b), scale = params[:2], params[2]["s"]
        return {"y": (x @ w + b) * scale, "n": extra}

    f, traces = counting(f)
    jf = jit(f)
    w, b, s, x = np.ones((3, 2), np.float32), np.arange(2.0, dtype=np.float32), 2.0, np.ones(3)
    host = ([w, b, {"s": np.float32(s)}], x.astype(np.float32), None)
    want = (x @ w + b) * s
    np.testing.assert_allclose(jf(*host)["y"], want)
    dev = ([device_put(w), device_put(b), {"s": device_put(np.float32(s))}], device_put(host[1]))
    slow_calls = []
    original = type(jf)._entry_for

    def entry_for(self, *args, **kwargs):
        slow_calls.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(type(jf), "_entry_for", entry_for)
    for _ in range(3):
        out = jf(*dev, None)
        np.testing.assert_allclose(out["y"], want)
        assert out["n"] is None
        assert type(out["y"]) is Array
    assert len(traces) == 1  # the host call's entry
    assert len(slow_calls) == 1  # the first device call's signature, memoized
    # another structure (a tuple for the list), another aval, other dict keys: new entries
    jf((dev[0][0], dev[0][1], dev[0][2]), dev[1], None)
    jf([dev[0][0], dev[0][1], {"s": device_put(np.float32(s)), "t": dev[1]}], dev[1], None)
    jf([dev[0][0], device_put(np.ones(2, np.float16)), dev[0][2]], dev[1], None)
    assert len(traces) == 4
    jf(*dev, [dev[1]])  # a leaf where None was
    assert len(traces) == 5
    assert jf._cache_size() == 5


def test_pytree_fast_path_with_donation_and_unsortable_keys():
    step = jit(lambda p: [p[0] - 1.0, {k: v * 2.0 for k, v in p[1].items()}], donate_argnums=0)
    params = [device_put(np.ones(2, np.float32)), {"a": device_put(np.ones(3, np.float32))}]
    for i in range(3):  # the later calls take the fast path: donation still deletes
        new = step(params)
        assert params[0].is_deleted()
        assert params[1]["a"].is_deleted()
        np.testing.assert_array_equal(new[0], np.full(2, -float(i)))
        np.testing.assert_array_equal(new[1]["a"], np.full(3, 2.0 ** (i + 1)))
        params = new
    mixed = jit(lambda d: d[1] + d["k"])  # keys that do not sort: the flattening path's error
    with pytest.raises(TypeError):
        mixed({1: device_put(np.ones(2)), "k": device_put(np.ones(2))})
