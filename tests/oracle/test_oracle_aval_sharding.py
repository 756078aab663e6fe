"""``jax.typeof(x).sharding`` / ``aval.sharding``: JAX's avals carry a sharding, for an
unsharded array a ``NamedSharding`` over the empty abstract mesh with one ``None`` per
dimension; libraries (equinox, flax nnx) read it. mj's avals answer the same, eagerly and
under ``jit`` / ``vmap`` / ``grad``, without the sharding changing aval equality or hashing."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj_core import ShapedArray

pytestmark = pytest.mark.oracle


def _described(s: object) -> tuple[object, ...]:
    """What a program can observe of an abstract value's sharding."""
    mesh = s.mesh  # type: ignore[attr-defined]
    return (
        type(s).__name__,
        repr(s),
        repr(mesh),
        tuple(s.spec),  # type: ignore[attr-defined]
        mesh.empty,
        mesh.size,
        tuple(mesh.axis_names),
        dict(mesh.shape),
        s.is_fully_replicated,  # type: ignore[attr-defined]
        s.num_devices,  # type: ignore[attr-defined]
        s.memory_kind,  # type: ignore[attr-defined]
    )


VALUES = [
    ("f32[3]", lambda np_: np.ones(3, np.float32)),
    ("i32[2,4]", lambda np_: np.arange(8, dtype=np.int32).reshape(2, 4)),
    ("f32[]", lambda np_: np.float32(2.0)),
    ("bool[1,2,3]", lambda np_: np.zeros((1, 2, 3), bool)),
]


@pytest.mark.parametrize(("name", "make"), VALUES, ids=[v[0] for v in VALUES])
def test_typeof_sharding_eager_as_jax(x64, name, make):
    want = jax.typeof(jnp.asarray(make(np))).sharding
    got = mj.typeof(mnp.asarray(make(np))).sharding
    assert _described(got) == _described(want)
    # the spec names no mesh axis, so every shard is the whole array
    shape = np.shape(make(np))
    assert got.shard_shape(shape) == want.shard_shape(shape) == shape


def test_python_scalar_typeof_sharding_as_jax(x64):
    assert _described(mj.typeof(1.5).sharding) == _described(jax.typeof(1.5).sharding)


@pytest.mark.parametrize("transform", ["jit", "vmap", "grad"])
def test_tracer_aval_sharding_as_jax(x64, transform):
    def observe(lib, xnp):
        seen = []

        def f(x):
            seen.append(_described(lib.typeof(x).sharding))
            seen.append(_described(x.aval.sharding))
            return (x * 2.0).sum()

        x = xnp.ones((2, 3), xnp.float32)
        getattr(lib, transform)(f)(x[0, 0] if transform == "grad" else x)
        return seen

    got, want = observe(mj, mnp), observe(jax, jnp)
    assert got == want
    assert len(got) == 2


def test_abstract_mesh_has_no_devices_as_jax():
    for lib, xnp in [(jax, jnp), (mj, mnp)]:
        s = lib.typeof(xnp.ones(3)).sharding
        for what in ["device_set", "addressable_devices", "is_fully_addressable"]:
            with pytest.raises(
                ValueError, match=r"not implemented for `jax\.sharding\.AbstractMesh`"
            ):
                getattr(s, what)


def test_tracer_has_no_sharding_attribute_as_jax():
    """JAX points tracers to ``jax.typeof(x)``; a concrete array keeps its device sharding."""
    for lib, xnp in [(jax, jnp), (mj, mnp)]:

        def f(x):
            with pytest.raises(AttributeError):
                x.sharding  # noqa: B018
            return x

        lib.jit(f)(xnp.ones(3))
        assert type(xnp.ones(3).sharding).__name__ == "SingleDeviceSharding"


def test_sharding_takes_no_part_in_aval_equality():
    a, b = ShapedArray((2, 3), np.float32), ShapedArray((2, 3), np.float32, sharding=object())
    assert a == b
    assert hash(a) == hash(b)
    assert a.sharding == b.sharding
    assert ShapedArray((3,), np.float32) != ShapedArray((1, 3), np.float32)
    # the same sharding object for every aval of a rank (no per-aval allocation)
    assert ShapedArray((4,), np.int32).sharding is ShapedArray((7,), np.float32).sharding


def test_abstract_mesh_as_jax():
    for sizes, names in [((2, 3), ("x", "y")), ((), ())]:
        want = jax.sharding.AbstractMesh(sizes, names)
        got = mj.sharding.AbstractMesh(sizes, names)
        assert repr(got) == repr(want)
        assert (got.size, got.empty, dict(got.shape)) == (want.size, want.empty, dict(want.shape))
        want_s = jax.sharding.NamedSharding(want, jax.P(*names[:1]))
        got_s = mj.sharding.NamedSharding(got, mj.sharding.P(*names[:1]))
        assert repr(got_s) == repr(want_s)
        assert got_s.is_fully_replicated == want_s.is_fully_replicated
        assert got_s.num_devices == want_s.num_devices
        if sizes:
            assert got_s.shard_shape((4, 6)) == want_s.shard_shape((4, 6)) == (2, 6)
