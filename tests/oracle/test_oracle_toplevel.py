"""Issue 9's top-level names against real JAX 0.10.2: linear_transpose, custom_gradient,
debug.print output (eager, vmap, jit, grad), pure_callback under jit/vmap, jax.tree."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp


def test_linear_transpose_matches_jax():
    a = np.arange(6.0).reshape(2, 3)

    def f(lib):
        return lambda x, y: {"p": lib.dot(a, x) * 0.5 - y, "q": lib.sum(x)}

    ct = {"p": np.array([1.0, -2.0]), "q": np.array(3.0)}
    primals = (np.zeros(3), np.zeros(2))
    ours = mj.linear_transpose(f(mnp), *primals)(ct)
    theirs = jax.linear_transpose(f(jnp), *primals)(ct)
    for o, t in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(o, t, rtol=1e-12)
        assert o.dtype == t.dtype
        assert o.shape == t.shape
    ours_jit = mj.jit(mj.linear_transpose(f(mnp), *primals))(ct)
    for o, t in zip(ours_jit, theirs, strict=True):
        np.testing.assert_allclose(o, t, rtol=1e-12)


def test_custom_gradient_matches_jax():
    def make(lib, decorator):
        @decorator
        def f(x, y):
            out = lib.sin(x) * y
            return out, lambda g: (g * lib.cos(x) * y * 3.0, g * 0.5)

        return f

    ours = make(mnp, mj.custom_gradient)
    theirs = make(jnp, jax.custom_gradient)
    for args in [(0.3, 2.0), (1.7, -1.0)]:
        np.testing.assert_allclose(ours(*args), theirs(*args))
        np.testing.assert_allclose(
            mj.grad(ours, argnums=(0, 1))(*args), jax.grad(theirs, argnums=(0, 1))(*args)
        )
        np.testing.assert_allclose(mj.jit(mj.grad(ours))(*args), jax.jit(jax.grad(theirs))(*args))


def _printing(lib, debug):
    def f(x):
        debug.print("x={} sq={s}", x, s=x * x)
        return lib.sum(x * 2)

    return f


@pytest.mark.parametrize("mode", ["eager", "vmap", "jit", "grad", "jit_vmap"])
def test_debug_print_output_matches_jax(mode, capsys):
    x = np.arange(6.0).reshape(2, 3)

    def run(lib, api):
        f = _printing(lib, api.debug)
        if mode == "eager":
            f(x)
        elif mode == "vmap":
            api.vmap(f)(x)
        elif mode == "jit":
            g = api.jit(f)
            g(x)
            g(x + 1)
        elif mode == "grad":
            api.grad(f)(x)
        else:
            api.jit(api.vmap(f))(x)
        if hasattr(api, "effects_barrier"):
            api.effects_barrier()

    run(jnp, jax)
    theirs = capsys.readouterr().out
    run(mnp, mj)
    ours = capsys.readouterr().out
    assert ours == theirs
    assert ours  # something was printed


@pytest.mark.parametrize("method", ["sequential", "expand_dims", "broadcast_all"])
def test_pure_callback_matches_jax(method):
    calls = {"ours": [], "theirs": []}

    def make(api, key):
        def cb(a, b):
            calls[key].append((a.shape, b.shape))
            return np.tanh(a) + b

        def f(x, y):
            spec = api.ShapeDtypeStruct(x.shape, x.dtype)
            return api.pure_callback(cb, spec, x, y, vmap_method=method)

        return f

    xs = np.linspace(-1, 1, 6).reshape(3, 2)
    y = np.array([0.5, 1.5])
    ours_f, theirs_f = make(mj, "ours"), make(jax, "theirs")
    np.testing.assert_allclose(
        mj.jit(mj.vmap(ours_f, in_axes=(0, None)))(xs, y),
        jax.jit(jax.vmap(theirs_f, in_axes=(0, None)))(xs, y),
    )
    np.testing.assert_allclose(mj.jit(ours_f)(xs[0], y), jax.jit(theirs_f)(xs[0], y))
    assert calls["ours"] == calls["theirs"]


def test_tree_module_matches_jax():
    tree = {"b": [1, (2, 3)], "a": None, "c": {"d": 4}}
    assert mj.tree.leaves(tree) == jax.tree.leaves(tree)
    assert mj.tree.map(lambda v: v * 2, tree) == jax.tree.map(lambda v: v * 2, tree)
    assert mj.tree.reduce(lambda a, b: a * b, tree, 1) == jax.tree.reduce(
        lambda a, b: a * b, tree, 1
    )
    assert mj.tree.all(tree) == jax.tree.all(tree)
    ours = [(mj.tree_util.keystr(p), v) for p, v in mj.tree.leaves_with_path(tree)]
    theirs = [(jax.tree_util.keystr(p), v) for p, v in jax.tree.leaves_with_path(tree)]
    assert ours == theirs
    leaves, treedef = mj.tree.flatten(tree)
    assert mj.tree.unflatten(treedef, leaves) == tree
    assert mj.tree.map_with_path(lambda p, v: len(p) + v, tree) == jax.tree.map_with_path(
        lambda p, v: len(p) + v, tree
    )
    assert mj.tree.transpose(
        mj.tree.structure([0, 0]), mj.tree.structure((0, 0)), [(1, 2), (3, 4)]
    ) == jax.tree.transpose(
        jax.tree.structure([0, 0]), jax.tree.structure((0, 0)), [(1, 2), (3, 4)]
    )


def test_small_queries_match_jax():
    assert mj.default_backend() == jax.default_backend()
    assert mj.device_count() == jax.device_count()
    assert mj.local_device_count() == jax.local_device_count()
    assert mj.process_index() == jax.process_index()
    assert mj.float0 == jax.dtypes.float0
    for args in [(1.0, np.float32), (np.int32, 1.0), (np.int8, np.uint8), (2,)]:
        assert mj.dtypes.result_type(*args) == jax.dtypes.result_type(*args)
    assert str(mj.typeof(mnp.ones((2, 3), np.float32))) == str(
        jax.typeof(jnp.ones((2, 3), np.float32))
    )
    jac = mj.jacobian(lambda x: mnp.sin(x) * x[0])(np.array([1.0, 2.0]))
    np.testing.assert_allclose(jac, jax.jacobian(lambda x: jnp.sin(x) * x[0])(np.array([1.0, 2.0])))


# JAX programs read these names at the top level (the sharding types, the device type, the
# option context managers) and as modules (jax.typing, jax.custom_derivatives).
TOP_LEVEL_NAMES = (
    "NamedSharding",
    "P",
    "Device",
    "debug_nans",
    "debug_infs",
    "enable_checks",
    "enable_x64",
    "default_matmul_precision",
    "log_compiles",
)


@pytest.mark.parametrize("name", TOP_LEVEL_NAMES)
def test_top_level_names_jax_programs_use(name):
    assert hasattr(jax, name)
    assert hasattr(mj, name)


def test_sharding_and_device_names_are_the_sharding_modules():
    assert mj.P is mj.sharding.PartitionSpec
    assert mj.NamedSharding is mj.sharding.NamedSharding
    assert all(isinstance(d, mj.Device) for d in mj.devices())
    assert all(isinstance(d, jax.Device) for d in jax.devices())


def test_typing_and_custom_derivatives_modules():
    import jax.custom_derivatives
    import jax.typing

    import mj.custom_derivatives
    import mj.typing

    for name in ("ArrayLike", "DTypeLike"):
        assert hasattr(jax.typing, name)
        assert hasattr(mj.typing, name)
    for name in ("custom_jvp", "custom_vjp", "custom_gradient", "closure_convert"):
        assert getattr(mj.custom_derivatives, name) is getattr(mj, name)
        assert hasattr(jax.custom_derivatives, name)


def test_option_context_managers_and_jax_config_names():
    with jax.debug_nans(True), mj.debug_nans(True):
        with pytest.raises(FloatingPointError):
            jax.jit(jnp.log)(-1.0)
        with pytest.raises(FloatingPointError):
            mj.jit(mnp.log)(-1.0)
    assert not mj.config.debug_nans
    assert not jax.config.jax_debug_nans
    with mj.enable_checks(True):
        assert mj.config.jax_enable_checks
        assert mj.enable_checks.value
    # JAX's older one-platform option, set before any computation in many scripts
    mj.config.update("jax_platform_name", mj.default_backend())
    assert mj.config.jax_platform_name == mj.default_backend()


@pytest.mark.parametrize(
    "make",
    [
        lambda lib, np_: lib.numpy.log(0.0),
        lambda lib, np_: lib.numpy.exp(np_.array([1.0, 100.0], np_.float32)),
        lambda lib, np_: lib.jit(lambda x: lib.numpy.log(x) + 1.0)(0.0),
        lambda lib, np_: lib.grad(lambda x: lib.numpy.log(x) * 0.0)(0.0),
        lambda lib, np_: lib.vmap(lib.numpy.log)(np_.array([0.0, 1.0])),
    ],
    ids=["log", "exp-float32", "jit", "grad", "vmap"],
)
def test_debug_infs_raises_where_jax_does_naming_the_primitive(make, x64):
    for lib in (jax, mj):
        with lib.debug_infs(True):
            with pytest.raises(FloatingPointError) as info:
                make(lib, np)
            assert "invalid value (inf) encountered in" in str(info.value), lib
            assert lib.config.jax_debug_infs
        make(lib, np)  # off again
        assert not lib.config.jax_debug_infs


@pytest.mark.parametrize("value", [None, "default", "high", "highest", "float32", "tensorfloat32"])
def test_default_matmul_precision_lowers_as_jax(value):
    x = np.ones((3, 3), np.float32)

    def counts(lib, np_):
        with lib.default_matmul_precision(value):
            text = lib.jit(np_.dot).lower(x, x).as_text()
        # (XLA's default precision is the same whether spelled DEFAULT, as JAX does, or not)
        return [text.count(p) for p in ("HIGH,", "HIGHEST")]

    assert counts(mj, mnp) == counts(jax, jnp)


def test_dlpack_between_jax_and_mj():
    values = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    for x in (mnp.asarray(values) + 0.0, mj.device_put(values)):
        j = jax.dlpack.from_dlpack(x)  # JAX consumes mj's __dlpack__
        np.testing.assert_array_equal(np.asarray(j), values)
        assert j.dtype == jnp.float32
    back = mj.dlpack.from_dlpack(jnp.asarray(values) * 2)  # and mj consumes JAX's
    np.testing.assert_array_equal(back, values * 2)
    for dtype in (np.float32, np.int8, jnp.bfloat16, np.complex64, np.dtype("U2")):
        assert mj.dlpack.is_supported_dtype(dtype) == jax.dlpack.is_supported_dtype(dtype)


def test_stage_names_as_jax():
    import jax.stages

    import mj.stages

    for name in ("Compiled", "Lowered", "Traced", "Wrapped"):
        assert hasattr(jax.stages, name)
        assert hasattr(mj.stages, name)


def test_profiler_names_as_jax():
    import jax.profiler

    import mj.profiler

    for name in mj.profiler.__all__:
        assert hasattr(jax.profiler, name), name
    for name in ("trace", "TraceAnnotation", "StepTraceAnnotation", "annotate_function"):
        assert name in mj.profiler.__all__


def test_errors_module_has_jax_names_that_catch_mj_errors():
    import jax.errors

    import mj.errors

    cases = [
        (lambda x: 1 if x > 0 else 0, 1.0, "TracerBoolConversionError"),
        (lambda x: int(x), 1.0, "ConcretizationTypeError"),
        (lambda n: [1, 2, 3][n], 1, "TracerIntegerConversionError"),
        (lambda x: np.asarray(x), 1.0, "TracerArrayConversionError"),
    ]
    for f, arg, name in cases:
        for lib in (jax, mj):
            with pytest.raises(getattr(lib.errors, name)):
                lib.jit(f)(arg)
        with pytest.raises(mj.errors.ConcretizationTypeError):
            mj.jit(f)(arg)
    leaked = []
    mj.jit(lambda x: leaked.append(x) or x)(1.0)
    with pytest.raises(mj.errors.UnexpectedTracerError):
        leaked[0] + 1
    assert hasattr(jax.errors, "UnexpectedTracerError")
    assert mj.experimental.compilation_cache.compilation_cache.set_cache_dir
