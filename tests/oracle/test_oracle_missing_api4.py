"""JAX API JAX's own test files (issue 35) use that mj lacked, each compared with real JAX
0.10.2 in both dtype modes: ``jit(f).eval_shape``, ``make_jaxpr(f, axis_env=...)``,
``jnp.save`` / ``jnp.load``, ..."""

import io

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

pytestmark = pytest.mark.oracle


def _struct(s):
    return (s.shape, np.dtype(s.dtype), s.weak_type)


# --- jit(f).eval_shape -----------------------------------------------------------------------

EVAL_SHAPE_CASES = {
    "int_array": (lambda x: x * 2, (np.arange(8),)),
    "weak_scalar": (lambda x: x * 2, (3.0,)),
    "pytree": (lambda x, y: {"a": x @ y, "b": (x.sum(), y.T)}, (np.ones((2, 3)), np.ones((3, 4)))),
    "struct_arg": (lambda x: x.astype(np.int8), ("struct",)),
}


def _args(args, lib):
    struct = lib.ShapeDtypeStruct((4, 5), np.float32)
    return tuple(struct if isinstance(a, str) else a for a in args)


@pytest.mark.parametrize("case", EVAL_SHAPE_CASES)
def test_jit_eval_shape_as_jax(x64, case):
    f, args = EVAL_SHAPE_CASES[case]
    want = jax.jit(f).eval_shape(*_args(args, jax))
    got = mj.jit(f).eval_shape(*_args(args, mj))
    assert jax.tree.structure(want).num_leaves == len(mj.tree.leaves(got))
    assert [_struct(s) for s in jax.tree.leaves(want)] == [_struct(s) for s in mj.tree.leaves(got)]
    assert all(s.sharding is None for s in mj.tree.leaves(got))
    # the same as jax.eval_shape and the traced stage's out_info
    assert [_struct(s) for s in mj.tree.leaves(mj.eval_shape(f, *_args(args, mj)))] == [
        _struct(s) for s in mj.tree.leaves(got)
    ]
    assert mj.jit(f).trace(*_args(args, mj)).out_info == got


def test_jit_eval_shape_out_shardings():
    """As api_test's test_eval_shape_out_shardings: the output carries ``out_shardings``."""
    s = mj.sharding.SingleDeviceSharding(mj.devices()[0])
    out = mj.jit(lambda x: x * 2, out_shardings=s).eval_shape(np.arange(8))
    js = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    want = jax.jit(lambda x: x * 2, out_shardings=js).eval_shape(np.arange(8))
    assert out.sharding == s
    assert want.sharding == js
    assert _struct(out) == _struct(want)


# --- make_jaxpr(axis_env=...) ----------------------------------------------------------------

COLLECTIVES = {"psum", "pmax", "pmin", "axis_index", "all_gather", "ppermute"}

AXIS_ENV_CASES = {
    "psum": (lambda lax: lambda x: x - lax.psum(x, "i"), [("i", 4)], 2),
    "pmean_two_axes": (
        lambda lax: lambda x: lax.axis_index("i") + lax.pmean(x, ("i", "j")),
        [("i", 4), ("j", 2)],
        2.0,
    ),
    "pmax": (lambda lax: lambda x: lax.pmax(x, "j"), [("i", 4), ("j", 3)], np.ones(3)),
}


@pytest.mark.parametrize("case", AXIS_ENV_CASES)
def test_make_jaxpr_axis_env_as_jax(x64, case):
    make, env, arg = AXIS_ENV_CASES[case]
    want = jax.make_jaxpr(make(jax.lax), axis_env=env)(arg)
    got = mj.make_jaxpr(make(mj.lax), axis_env=env)(arg)
    want_prims = [e.primitive.name for e in want.jaxpr.eqns if e.primitive.name in COLLECTIVES]
    got_prims = [e.primitive.name for e in got.jaxpr.eqns if e.primitive.name in COLLECTIVES]
    assert got_prims == want_prims
    assert want_prims
    assert [(a.shape, a.dtype) for a in got.out_avals] == [
        (a.shape, a.dtype) for a in want.out_avals
    ]
    # positional, as JAX's signature (fun, static_argnums, axis_env, return_shape)
    _, shape = mj.make_jaxpr(make(mj.lax), (), env, True)(arg)
    assert shape.shape == want.out_avals[0].shape


def test_make_jaxpr_axis_env_unbound_name():
    """A name outside ``axis_env`` is unbound, as in JAX (NameError); the env is gone after."""
    with pytest.raises(NameError, match="unbound axis name: j"):
        jax.make_jaxpr(lambda x: jax.lax.psum(x, "j"), axis_env=[("i", 4)])(1.0)
    with pytest.raises(NameError, match="unbound axis name: j"):
        mj.make_jaxpr(lambda x: mj.lax.psum(x, "j"), axis_env=[("i", 4)])(1.0)
    with pytest.raises(NameError):
        mj.make_jaxpr(lambda x: mj.lax.psum(x, "i"))(1.0)


# --- jnp.save / jnp.load -----------------------------------------------------------------------

SAVE_CASES = {
    "float32": np.linspace(-1, 1, 10).astype(np.float32),
    "int8_2d": np.arange(12, dtype=np.int8).reshape(3, 4),
    "bfloat16": np.arange(5).astype(jnp.bfloat16),
    "complex64": (np.arange(3) + 1j).astype(np.complex64),
}


def _roundtrip(lib, x, **kw):
    with io.BytesIO() as f:
        lib.save(f, x)
        f.seek(0)
        return lib.load(f, **kw)


@pytest.mark.parametrize("case", SAVE_CASES)
def test_save_load_as_jax(x64, case):
    x = SAVE_CASES[case]
    want = _roundtrip(jnp, jnp.asarray(x))
    got = _roundtrip(mnp, mnp.asarray(x))
    assert isinstance(got, mj.Array)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    # a file NumPy wrote loads the same way
    with io.BytesIO() as f:
        np.save(f, x)
        data = f.getvalue()
    assert mnp.load(io.BytesIO(data)).dtype == jnp.load(io.BytesIO(data)).dtype


def test_load_object_array_and_npz():
    """Types mj has no arrays of and ``.npz`` archives come back as NumPy's, as in JAX."""
    x = np.array([1, None, "a"], dtype=object)
    got = _roundtrip(mnp, x, allow_pickle=True)
    want = _roundtrip(jnp, x, allow_pickle=True)
    assert type(got) is type(want) is np.ndarray
    assert list(got) == list(want) == list(x)
    with io.BytesIO() as f:
        mnp.savez(f, a=mnp.arange(3), b=np.ones(2))
        f.seek(0)
        with mnp.load(f) as npz:
            assert sorted(npz.files) == ["a", "b"]
            assert type(npz["a"]) is np.ndarray
            np.testing.assert_array_equal(npz["a"], np.arange(3))


# --- jax.vjp's function: args_res, opaque_residuals, jaxpr, with_refs -----------------------


def _not_needed(x):
    return type(x).__name__ == "NotNeeded"


VJP_CASES = {
    "mul": (lambda np_: lambda x, y: x * y, (2.0, 3.0)),
    "sin": (lambda np_: np_.sin, (3.0,)),
    "x_sin_y": (lambda np_: lambda x, y: x * np_.sin(y), (np.float32(2.0), np.ones(3, np.float32))),
    "dict": (lambda np_: lambda d: [d["hi"] * d["bye"]], ({"hi": 2.0, "bye": 3.0},)),
    "fsdp": (
        lambda np_: lambda x, w: 2.0 * ((1.0 * x) @ w),
        (np.ones((3, 4), np.float32), np.ones((4, 4), np.float32)),
    ),
}


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("case", VJP_CASES)
def test_vjp_function_residuals_as_jax(x64, case, jit):
    make, primals = VJP_CASES[case]
    results = []
    for lib, np_ in ((jax, jnp), (mj, mnp)):
        f = make(np_)
        y, f_vjp = lib.vjp(f, *primals)
        args_res = f_vjp.args_res
        entry = [jax.tree.map(_not_needed, a, is_leaf=_not_needed) for a in args_res]
        # dropping the arguments kept as residuals and restoring them changes nothing
        f_vjp.args_res = [None] * len(args_res)
        f_vjp.args_res = list(primals)
        ct = np_.ones_like(y) if not isinstance(y, list) else [np_.ones_like(y[0])]
        # under jit the pullback is an argument: a pytree whose residuals pass through jit
        cts = lib.jit(lambda v, c: v(c))(f_vjp, ct) if jit else f_vjp(ct)
        # the linear map: residuals, then one tangent input per argument leaf
        if lib is jax:
            n_res = len(f_vjp.jaxpr.constvars)
        else:
            n_res = len(f_vjp.jaxpr.in_binders) - len(jax.tree.leaves(primals))
        results.append((entry, bool(f_vjp.opaque_residuals), cts, n_res > 0))
    (w_entry, w_opaque, w_cts, w_res), (g_entry, g_opaque, g_cts, g_res) = results
    # which arguments are residuals themselves (JAX's constants may differ: mj inlines more)
    assert [jax.tree.leaves(e) for e in g_entry] == [jax.tree.leaves(e) for e in w_entry]
    assert g_opaque == w_opaque
    assert g_res == w_res
    wl, gl = jax.tree.leaves(w_cts), mj.tree.leaves(g_cts)
    assert len(wl) == len(gl)
    for w, g in zip(wl, gl, strict=True):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)


def test_vjp_function_reads_args_res():
    """The backward pass reads the argument residuals from ``args_res`` when it runs."""
    for lib in (jax, mj):
        _, f_vjp = lib.vjp(lambda x, y: x * y, np.full(3, 2.0), np.full(3, 3.0))
        f_vjp.args_res = [np.full(3, 5.0), np.full(3, 7.0)]
        x_ct, y_ct = f_vjp(np.ones(3))
        assert list(np.asarray(x_ct)) == [7.0] * 3
        assert list(np.asarray(y_ct)) == [5.0] * 3


def test_vjp_with_refs_as_jax(x64):
    x = np.arange(3.0)
    for lib, np_ in ((jax, jnp), (mj, mnp)):
        z, f_vjp = lib.vjp(lambda a, b, s=np_.sin: a * s(b), x, x)
        g = f_vjp.with_refs(lib.ad.DontWant(), lib.ad.GradValue())
        ones = np_.ones_like(z)
        x_grad, y_grad = lib.jit(lambda g=g, ones=ones: g(ones))()
        assert x_grad == lib.ad.DidntWant()
        np.testing.assert_allclose(np.asarray(y_grad), x * np.cos(x), rtol=1e-6)
        same = f_vjp.with_refs(lib.ad.GradValue(), lib.ad.GradValue())(np_.ones_like(z))
        np.testing.assert_allclose(np.asarray(same[0]), np.sin(x), rtol=1e-6)
    # the unwanted cotangent is not computed: one multiplication, as in JAX
    _, f_vjp = mj.vjp(lambda a, b: a * b, x, x)
    g = f_vjp.with_refs(mj.ad.DontWant(), mj.ad.GradValue())
    ones = mnp.ones(3)
    assert len(mj.jit(lambda: g(ones)).trace().jaxpr.eqns) == 1


def test_vjp_cotangent_shape_error_wording():
    y = np.ones((3, 4), np.float32)
    for lib in (jax, mj):
        _, f_vjp = lib.vjp(lambda x, w: x @ w, y, np.ones((4, 4), np.float32))
        with pytest.raises(ValueError, match=r"unexpected JAX type.*got float32\[2,4\]"):
            f_vjp(np.ones((2, 4), np.float32))


# --- copy.deepcopy of traced values ----------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "int8", "bool", "complex64"])
def test_deepcopy_under_transformations_as_jax(x64, dtype):
    x = np.arange(4).astype(dtype)
    import copy

    for transform in ("jit", "vmap"):
        tree = {"a": x, "b": [x, 1 if transform == "jit" else x]}
        want = getattr(jax, transform)(copy.deepcopy)(tree)
        got = getattr(mj, transform)(copy.deepcopy)(tree)
        for w, g in zip(jax.tree.leaves(want), mj.tree.leaves(got), strict=True):
            assert (g.dtype, g.shape, g.weak_type) == (w.dtype, w.shape, w.weak_type)
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
    if dtype == "float32":
        f = lambda lib: lib.grad(lambda v: copy.deepcopy(v * v).sum())  # noqa: E731
        np.testing.assert_allclose(np.asarray(f(mj)(x)), np.asarray(f(jax)(x)))


# --- repr of empty arrays --------------------------------------------------------------------

EMPTY_CASES = [
    ((0,), "int32"),
    ((0, 3), "float32"),
    ((2, 0), "bool"),
    ((0,), "complex64"),
    ((3, 0, 2), "int8"),
    ((0,), "bfloat16"),
    ((0,), "uint32"),
    ((), "float32"),
]


@pytest.mark.parametrize(("shape", "dtype"), EMPTY_CASES)
def test_empty_array_repr_as_jax(x64, shape, dtype):
    """An empty array's repr spells out its shape (eager, weakly typed and jit outputs)."""
    assert repr(mnp.zeros(shape, dtype)) == repr(jnp.zeros(shape, dtype))
    assert str(mnp.zeros(shape, dtype)) == str(jnp.zeros(shape, dtype))
    assert repr(mnp.full(shape, 2.0)) == repr(jnp.full(shape, 2.0))
    make = lambda np_: lambda: np_.ones(shape, dtype)  # noqa: E731
    assert repr(mj.jit(make(mnp))()) == repr(jax.jit(make(jnp))())
