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
