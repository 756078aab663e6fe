"""The top-level names a JAX user reaches for (issue 9): each checked against closed forms or
NumPy, and under the transformations it must work with."""

import numpy as np
import pytest

import mj
import mj.numpy as mnp
import mj_autodiff
import mj_batch
import mj_core
import mj_xla


def central_difference(f, x, eps=1e-6):
    return (f(x + eps) - f(x - eps)) / (2 * eps)


# --- re-exports --------------------------------------------------------------------------------


def test_reexports_are_the_layers_objects():
    assert mj.jacobian is mj_batch.jacrev
    assert mj.linear_transpose is mj_autodiff.linear_transpose
    assert mj.custom_gradient is mj_autodiff.custom_gradient
    assert mj.closure_convert is mj_autodiff.closure_convert
    assert mj.float0 is mj_autodiff.float0
    assert mj.device_get is mj_xla.device_get
    assert mj.clear_caches is mj_xla.clear_caches
    assert mj.tree.map is mj_core.tree_util.tree_map
    assert mj.tree.flatten_with_path is mj_core.tree_util.tree_flatten_with_path
    assert mj.dtypes.float0 is mj.float0


def test_jacobian_matches_the_closed_form():
    x = np.array([1.0, 2.0, 3.0])
    jac = mj.jacobian(lambda x: mnp.sin(x) * x[0])(x)
    expected = np.diag(np.cos(x) * x[0])
    expected[:, 0] += np.sin(x)
    np.testing.assert_allclose(jac, expected, rtol=1e-12)


# --- linear_transpose ---------------------------------------------------------------------------


def test_linear_transpose_of_a_matrix_product_is_the_transposed_matrix():
    a = np.arange(6.0).reshape(2, 3)
    t = mj.linear_transpose(lambda x: mnp.dot(a, x), np.zeros(3))
    ct = np.array([1.0, -2.0])
    (out,) = t(ct)
    np.testing.assert_allclose(out, a.T @ ct)
    (jitted,) = mj.jit(t)(ct)
    np.testing.assert_allclose(jitted, a.T @ ct)
    (batched,) = mj.vmap(t)(np.stack([ct, 2 * ct]))
    np.testing.assert_allclose(batched, np.stack([a.T @ ct, 2 * a.T @ ct]))


def test_linear_transpose_pytrees_and_inner_product_identity():
    def f(x, y):
        return {"a": 2.0 * x, "b": x - y}

    t = mj.linear_transpose(f, mj.ShapeDtypeStruct((3,), np.float64), 1.0)
    u = (np.array([0.5, -1.0, 2.0]), 3.0)
    v = {"a": np.array([1.0, 2.0, 3.0]), "b": np.array([-1.0, 0.0, 4.0])}
    fu = f(*u)
    tv = t(v)
    assert isinstance(tv, tuple)
    assert len(tv) == 2
    lhs = sum(np.vdot(fu[k], v[k]) for k in v)
    rhs = np.vdot(u[0], tv[0]) + u[1] * tv[1]
    np.testing.assert_allclose(lhs, rhs)


@pytest.mark.parametrize(
    ("fun", "what"),
    [(lambda x: x * x, "'mul'"), (mnp.sin, "'sin'"), (lambda x: 1.0 / x, "'div'")],
)
def test_linear_transpose_rejects_non_linear_functions(fun, what):
    with pytest.raises(ValueError, match=f"linear_transpose: .*{what}.*test_toplevel_api.py"):
        mj.linear_transpose(fun, 1.0)


def test_linear_transpose_checks_the_cotangent():
    t = mj.linear_transpose(lambda x: (x, 2 * x), np.ones(2))
    with pytest.raises(TypeError, match="cotangent tree"):
        t(np.ones(2))
    with pytest.raises(
        TypeError, match=r"cotangent 1 has type f32\[2\], but the function's output 1 is f64\[2\]"
    ):
        t((np.ones(2), np.ones(2, np.float32)))
    with pytest.raises(TypeError, match="float or complex"):
        mj.linear_transpose(lambda x: x.astype(np.float64), 1)


# --- custom_gradient and closure_convert ---------------------------------------------------------


def test_custom_gradient_uses_the_rule_under_grad_jit_and_vmap():
    @mj.custom_gradient
    def f(x):
        return mnp.sin(x), lambda g: (g * 10.0 * x,)

    assert f(0.5) == pytest.approx(np.sin(0.5))
    assert mj.grad(f)(3.0) == pytest.approx(30.0)
    assert mj.jit(mj.grad(f))(3.0) == pytest.approx(30.0)
    np.testing.assert_allclose(mj.vmap(mj.grad(f))(np.array([1.0, 2.0])), [10.0, 20.0])


def test_custom_gradient_rule_closing_over_forward_values_and_two_arguments():
    @mj.custom_gradient
    def clip_grad(x, y):
        out = x * y
        return out, lambda g: (mnp.clip(g * y, -1.0, 1.0), g * x)

    gx, gy = mj.grad(clip_grad, argnums=(0, 1))(2.0, 5.0)
    assert (gx, gy) == (1.0, 2.0)
    gx, gy = mj.jit(mj.grad(clip_grad, argnums=(0, 1)))(2.0, 0.25)
    assert (gx, gy) == (0.25, 2.0)


def test_closure_convert_hoists_traced_constants_only():
    concrete = np.array(3.0)
    hoisted = []

    def outer(y):
        def g(x):
            return x * y + concrete

        converted, consts = mj.closure_convert(g, 1.0)
        hoisted.append(len(consts))
        return converted(2.0, *consts)

    assert outer(4.0) == pytest.approx(11.0)
    assert mj.grad(outer)(4.0) == pytest.approx(2.0)
    assert mj.jit(mj.grad(outer))(4.0) == pytest.approx(2.0)
    assert hoisted == [0, 1, 1]  # only the traced y is hoisted; `concrete` stays inside
    converted, consts = mj.closure_convert(lambda x: x + concrete, 1.0)
    assert consts == []
    assert converted(1.0) == 4.0


# --- debug.print, debug.callback, pure_callback -------------------------------------------------


def test_debug_print_eager_grad_and_vmap(capsys):
    def f(x):
        mj.debug.print("x={} twice={t}", x, t=2 * x)
        return x**2

    f(1.5)
    assert capsys.readouterr().out == "x=1.5 twice=3.0\n"
    assert mj.grad(f)(3.0) == 6.0
    assert capsys.readouterr().out == "x=3.0 twice=6.0\n"
    mj.vmap(f)(np.array([1.0, 2.0]))
    assert capsys.readouterr().out == "x=1.0 twice=2.0\nx=2.0 twice=4.0\n"


@pytest.mark.usefixtures("on_cpu")  # (the lowered text names the CPU's callback target)
def test_debug_print_under_jit_prints_at_run_time_every_call(capsys):
    traces = []

    @mj.jit
    def f(x):
        traces.append(1)
        mj.debug.print("value {}", x)
        return x + 1

    lowered_text = f.lower(1.0).as_text()
    assert "xla_ffi_python_cpu_callback" in lowered_text
    assert capsys.readouterr().out == ""  # tracing and lowering print nothing
    f(1.0)
    f(2.0)
    f(3.0)
    assert capsys.readouterr().out == "value 1.0\nvalue 2.0\nvalue 3.0\n"
    assert len(traces) <= 2  # traced once per signature, printed on every run


def test_debug_print_with_unused_result_is_not_dropped_and_runs_in_loops(capsys):
    @mj.jit
    def f(x):
        def body(i, c):
            mj.debug.print("i={}", i)
            return c + i

        return mj.lax.fori_loop(0, 3, body, x)

    assert f(0) == 3
    assert capsys.readouterr().out == "i=0\ni=1\ni=2\n"
    mj.jit(mj.grad(lambda x: (mj.debug.print("g {}", x), x * x)[1]))(2.0)
    assert capsys.readouterr().out == "g 2.0\n"


def test_debug_callback_receives_numpy_values_and_static_leaves():
    seen = []
    mj.jit(lambda x: mj.debug.callback(lambda a, tag: seen.append((a, tag)), x, "t"))(
        np.arange(2.0)
    )
    ((a, tag),) = seen
    assert isinstance(a, np.ndarray)
    assert a.tolist() == [0.0, 1.0]
    assert tag == "t"


def test_pure_callback_eager_jaxpr_and_jit_agree():
    def f(x):
        y = mj.pure_callback(np.sin, mj.ShapeDtypeStruct(x.shape, x.dtype), x)
        return y * 2

    x = np.linspace(0, 1, 4, dtype=np.float32)
    eager = f(x)
    closed = mj.make_jaxpr(f)(x)
    via_jaxpr = mj.eval_jaxpr(closed, [x])[0]
    jitted = mj.jit(f)(x)
    for out in (eager, via_jaxpr, jitted):
        assert out.dtype == np.float32
        assert out.shape == (4,)
        np.testing.assert_allclose(out, 2 * np.sin(x), rtol=1e-6)


def test_pure_callback_pytrees_and_kwargs():
    def cb(a, *, b):
        return {"sum": a + b, "n": np.array(a.size, np.int64)}

    spec = {"sum": mj.ShapeDtypeStruct((2,), np.float64), "n": mj.ShapeDtypeStruct((), np.int64)}
    out = mj.jit(lambda a, b: mj.pure_callback(cb, spec, a, b=b))(np.ones(2), np.arange(2.0))
    np.testing.assert_allclose(out["sum"], [1.0, 2.0])
    assert out["n"] == 2


@pytest.mark.parametrize("method", ["sequential", "expand_dims", "broadcast_all"])
def test_pure_callback_vmap_methods(method):
    shapes = []

    def cb(a, b):
        shapes.append((a.shape, b.shape))
        return a * b

    def f(x, y):
        return mj.pure_callback(cb, mj.ShapeDtypeStruct((), np.float64), x, y, vmap_method=method)

    xs = np.array([1.0, 2.0, 3.0])
    out = mj.vmap(f, in_axes=(0, None))(xs, 2.0)
    np.testing.assert_allclose(out, 2 * xs)
    np.testing.assert_allclose(mj.jit(mj.vmap(f, in_axes=(0, None)))(xs, 2.0), 2 * xs)
    expected = {
        "sequential": ((), ()),
        "expand_dims": ((3,), (1,)),
        "broadcast_all": ((3,), (3,)),
    }[method]
    assert shapes[0] == expected


def test_pure_callback_errors():
    spec = mj.ShapeDtypeStruct((), np.float64)
    with pytest.raises(NotImplementedError, match="vmap_method"):
        mj.vmap(lambda x: mj.pure_callback(np.sin, spec, x))(np.ones(2))
    with pytest.raises(ValueError, match="pure callbacks do not support JVP"):
        mj.grad(lambda x: mj.pure_callback(np.sin, spec, x))(1.0)
    with pytest.raises(RuntimeError, match="output 0 of the callback is float32"):
        mj.pure_callback(lambda x: np.float32(x), spec, 1.0)
    with pytest.raises(ValueError, match="vmap_method must be one of"):
        mj.pure_callback(np.sin, spec, 1.0, vmap_method="bogus")


# --- compile-time evaluation ---------------------------------------------------------------------


def test_ensure_compile_time_eval_gives_concrete_values_inside_jit():
    @mj.jit
    def f(x):
        with mj.ensure_compile_time_eval():
            n = mnp.sum(mnp.arange(4))
            steps = int(n)  # concrete: usable in Python control flow
            still_traced = x + 1.0
        assert isinstance(still_traced, mj_core.Tracer)
        return x * steps

    assert f(2.0) == 12.0
    jaxpr = mj.make_jaxpr(lambda x: f(x))(2.0)
    assert "iota" not in str(jaxpr)


# --- runtime and environment helpers -----------------------------------------------------------


def test_device_get_returns_host_numpy_arrays():
    tree = {"a": mj.jit(lambda x: x * 2)(np.arange(3.0)), "b": mnp.ones(2), "c": 1.5}
    out = mj.device_get(tree)
    assert type(out["a"]) is np.ndarray
    assert out["a"].tolist() == [0.0, 2.0, 4.0]
    assert type(out["b"]) is np.ndarray
    assert out["c"] == 1.5


@pytest.mark.usefixtures("cpu_machine")
def test_backend_and_device_queries():
    assert mj.default_backend() == "cpu"
    assert mj.device_count() == mj.local_device_count() == 1
    assert mj.local_devices() == mj.devices()
    assert mj.process_index() == 0
    assert mj.devices("cpu") == mj.devices()
    with pytest.raises(RuntimeError, match="'gpu' requested, but no platforms that are"):
        mj.device_count("gpu")
    with pytest.raises(
        RuntimeError, match=r"Unknown backend tpu. Available backends are \['cpu'\]"
    ):
        mj.devices("tpu")


def test_clear_caches_forces_retracing():
    traces = []

    @mj.jit
    def f(x):
        traces.append(1)
        return x + 1

    f(1.0)
    f(2.0)
    assert len(traces) == 1
    mj.clear_caches()
    assert f(3.0) == 4.0
    assert len(traces) == 2


def test_typeof_returns_the_aval():
    assert str(mj.typeof(mnp.ones((2, 3), np.float32))) == "float32[2,3]"
    assert mj.typeof(1.0).weak_type
    seen = []
    mj.jit(lambda x: seen.append(mj.typeof(x)) or x)(np.ones(2, np.int32))
    assert seen[0].shape == (2,)
    assert seen[0].dtype == np.int32


def test_named_call_and_named_scope_change_nothing():
    def f(x):
        with mj.named_scope("layer"):
            return mnp.sin(x) * 2

    g = mj.named_call(f, name="g")
    assert str(mj.make_jaxpr(g)(1.0)) == str(mj.make_jaxpr(lambda x: mnp.sin(x) * 2)(1.0))
    assert mj.jit(g)(1.0) == pytest.approx(2 * np.sin(1.0))
    with (
        pytest.raises(TypeError, match="named_scope name argument must be a string"),
        mj.named_scope(3),
    ):
        pass


def test_dtypes_module():
    assert mj.dtypes.canonicalize_dtype(float) == np.float64
    assert mj.dtypes.canonicalize_dtype("int32") == np.int32
    assert mj.dtypes.result_type(1.0, np.float32) == np.float32
    assert mj.dtypes.result_type(np.int32, 1.0) == np.float64
    assert mj.dtypes.result_type(2.0, return_weak_type_flag=True) == (np.float64, True)
    assert mj.dtypes.issubdtype(np.float32, np.floating)
    assert not mj.dtypes.issubdtype(mj.dtypes.float0, np.floating)
    assert np.dtype(mj.dtypes.bfloat16) == np.dtype(mj.numpy.bfloat16)  # ml_dtypes.bfloat16
    assert mj.dtypes.issubdtype(mj.dtypes.bfloat16, np.floating)
    assert mj.dtypes.finfo(mj.dtypes.bfloat16).bits == 16
    assert issubclass(mj.dtypes.TypePromotionError, ValueError)


def test_tree_module():
    tree = {"b": [1, 2], "a": (3,)}
    leaves, treedef = mj.tree.flatten(tree)
    assert leaves == [3, 1, 2]
    assert mj.tree.unflatten(treedef, [x * 10 for x in leaves]) == {"b": [10, 20], "a": (30,)}
    assert mj.tree.map(lambda x, y: x + y, tree, tree) == {"b": [2, 4], "a": (6,)}
    assert mj.tree.reduce(lambda a, b: a + b, tree) == 6
    assert mj.tree.all(tree)
    assert not mj.tree.all([1, 0])
    assert mj.tree.structure(tree) == treedef
    assert [mj.tree_util.keystr(p) for p, _ in mj.tree.leaves_with_path(tree)] == [
        "['a'][0]", "['b'][0]", "['b'][1]",
    ]  # fmt: skip
    outer = mj.tree.structure([0, 0])
    inner = mj.tree.structure((0, 0))
    assert mj.tree.transpose(outer, inner, [(1, 2), (3, 4)]) == ([1, 3], [2, 4])


def test_enable_x64_and_print_environment_info(capsys):
    with mj.enable_x64(True):
        assert mnp.ones(2).dtype == np.float64
    assert mj.enable_x64.value
    with mj.enable_x64(False):  # JAX's default mode, for the block
        assert not mj.enable_x64.value
        assert mnp.ones(2).dtype == np.float32
    assert mj.enable_x64.value  # restored: this suite runs with 64-bit types
    info = mj.print_environment_info(return_string=True)
    assert "jaxlib:" in info
    assert "numpy:" in info
    mj.print_environment_info()
    assert capsys.readouterr().out.strip() == info


def test_float0_is_jaxs():
    assert mj.float0 == np.dtype([("float0", np.void, 0)])
    _, tangent = mj.jvp(lambda n: n * 2, (3,), (np.zeros((), mj.float0),))
    assert tangent.dtype == mj.float0
