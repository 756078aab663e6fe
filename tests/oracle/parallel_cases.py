"""mj's collectives against JAX's, both with 8 CPU devices: under vmap with a named axis
and under pmap, values and derivatives.

Run in a process of its own (``test_oracle_parallel.py`` starts it): both backends' device
counts are fixed when they start.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax as jlax
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

jax.config.update("jax_num_cpu_devices", 8)
jax.config.update("jax_enable_x64", True)

import mj  # noqa: E402  (after JAX's device count is set)
import mj.numpy as mnp  # noqa: E402
from mj import lax  # noqa: E402

N = 8
assert mj.device_count() == N, "run with MJ_NUM_CPU_DEVICES=8 (see test_oracle_parallel.py)"
assert jax.device_count() == N

pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(20)
X = RNG.normal(size=(N, 8))


def close(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


PERM = [(i, (i + 3) % N) for i in range(N)]

# (mj function of one slice, JAX function of one slice, input): the same program twice.
CASES = {
    "psum": (lambda v: lax.psum(v, "i"), lambda v: jlax.psum(v, "i"), X),
    "psum_tree": (
        lambda v: lax.psum({"a": v, "b": 2 * v}, "i")["b"],
        lambda v: jlax.psum({"a": v, "b": 2 * v}, "i")["b"],
        X,
    ),
    "pmean": (lambda v: lax.pmean(v, "i"), lambda v: jlax.pmean(v, "i"), X),
    "pmax": (lambda v: lax.pmax(v, "i"), lambda v: jlax.pmax(v, "i"), X),
    "pmin": (lambda v: lax.pmin(v, "i"), lambda v: jlax.pmin(v, "i"), X),
    "psum_ints": (
        lambda v: lax.psum(v, "i"),
        lambda v: jlax.psum(v, "i"),
        np.arange(24).reshape(N, 3),
    ),
    "psum_of_one": (lambda v: v * lax.psum(1, "i"), lambda v: v * jlax.psum(1, "i"), X),
    "axis_index": (
        lambda v: lax.axis_index("i") + 0 * v.astype(np.int32),
        lambda v: jlax.axis_index("i") + 0 * v.astype(np.int32),
        X,
    ),
    "all_gather": (lambda v: lax.all_gather(v, "i"), lambda v: jlax.all_gather(v, "i"), X),
    "all_gather_axis1": (
        lambda v: lax.all_gather(v.reshape(2, 4), "i", axis=1),
        lambda v: jlax.all_gather(v.reshape(2, 4), "i", axis=1),
        X,
    ),
    "all_gather_tiled": (
        lambda v: lax.all_gather(v, "i", tiled=True),
        lambda v: jlax.all_gather(v, "i", tiled=True),
        X,
    ),
    "psum_scatter": (lambda v: lax.psum_scatter(v, "i"), lambda v: jlax.psum_scatter(v, "i"), X),
    "psum_scatter_tiled": (
        lambda v: lax.psum_scatter(v.reshape(2, 4).T.reshape(8, 1), "i", tiled=True),
        lambda v: jlax.psum_scatter(v.reshape(2, 4).T.reshape(8, 1), "i", tiled=True),
        X,
    ),
    "all_to_all": (
        lambda v: lax.all_to_all(v.reshape(8, 1), "i", 0, 1),
        lambda v: jlax.all_to_all(v.reshape(8, 1), "i", 0, 1),
        X,
    ),
    "all_to_all_tiled": (
        lambda v: lax.all_to_all(v.reshape(8, 1), "i", 0, 0, tiled=True),
        lambda v: jlax.all_to_all(v.reshape(8, 1), "i", 0, 0, tiled=True),
        X,
    ),
    "pswapaxes": (
        lambda v: lax.pswapaxes(v.reshape(1, 8), "i", 1),
        lambda v: jlax.pswapaxes(v.reshape(1, 8), "i", 1),
        X,
    ),
    "ppermute": (lambda v: lax.ppermute(v, "i", PERM), lambda v: jlax.ppermute(v, "i", PERM), X),
    "pshuffle": (
        lambda v: lax.pshuffle(v, "i", [3, 1, 4, 0, 7, 5, 2, 6]),
        lambda v: jlax.pshuffle(v, "i", [3, 1, 4, 0, 7, 5, 2, 6]),
        X,
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_under_vmap(name):
    mj_f, jax_f, x = CASES[name]
    close(mj.vmap(mj_f, axis_name="i")(x), jax.vmap(jax_f, axis_name="i")(x))


@pytest.mark.parametrize("name", sorted(CASES))
def test_under_pmap(name):
    mj_f, jax_f, x = CASES[name]
    close(mj.pmap(mj_f, axis_name="i")(x), np.asarray(jax.pmap(jax_f, axis_name="i")(x)))


def test_pmap_outputs_are_laid_out_as_jax_lays_them_out():
    # JAX 0.10.2's pmap is jit(shard_map) over a 1-d mesh: outputs split P(axis_name)
    for kwargs, x in (({"axis_name": "i"}, X), ({}, X[:4]), ({"axis_name": "i"}, X[:, 0])):
        got = mj.pmap(lambda v: 2 * v, **kwargs)(x)
        want = jax.pmap(lambda v: 2 * v, **kwargs)(x)
        assert type(got.sharding).__name__ == type(want.sharding).__name__ == "NamedSharding"
        assert tuple(got.sharding.spec) == tuple(want.sharding.spec)
        assert got.sharding.mesh.axis_names == want.sharding.mesh.axis_names
        assert [s.data.shape for s in got.addressable_shards] == [
            s.data.shape for s in want.addressable_shards
        ]
        assert [s.index for s in got.addressable_shards] == [
            s.index for s in want.addressable_shards
        ]


def test_partial_ppermute_under_pmap():
    perm = [(0, 5), (5, 0), (2, 3)]
    got = mj.pmap(lambda v: lax.ppermute(v, "i", perm), axis_name="i")(X)
    close(got, np.asarray(jax.pmap(lambda v: jlax.ppermute(v, "i", perm), axis_name="i")(X)))


def test_axis_index_groups_under_pmap():
    groups = [[0, 2, 4, 6], [1, 3, 5, 7]]
    got = mj.pmap(lambda v: lax.psum(v, "i", axis_index_groups=groups), axis_name="i")(X)
    want = jax.pmap(lambda v: jlax.psum(v, "i", axis_index_groups=groups), axis_name="i")(X)
    close(got, np.asarray(want))


def test_nested_named_vmaps():
    x = RNG.normal(size=(2, 4, 3))

    def body(lib):
        return lambda v: lib.psum(v, "j") * lib.axis_index("i") + lib.psum(v, ("i", "j"))

    got = mj.vmap(mj.vmap(body(lax), axis_name="j"), axis_name="i")(x)
    want = jax.vmap(jax.vmap(body(jlax), axis_name="j"), axis_name="i")(x)
    close(got, want)


# --- derivatives ------------------------------------------------------------------------------

GRAD_CASES = {
    "psum": (
        lambda v: mnp.sin(v) * lax.psum(v**2, "i"),
        lambda v: jnp.sin(v) * jlax.psum(v**2, "i"),
    ),
    "pmean": (
        lambda v: mnp.cos(v) * lax.pmean(v**3, "i"),
        lambda v: jnp.cos(v) * jlax.pmean(v**3, "i"),
    ),
    "all_gather": (
        lambda v: mnp.sin(lax.all_gather(v, "i")) * v,
        lambda v: jnp.sin(jlax.all_gather(v, "i")) * v,
    ),
    "ppermute": (
        lambda v: lax.ppermute(mnp.sin(v), "i", PERM) * v,
        lambda v: jlax.ppermute(jnp.sin(v), "i", PERM) * v,
    ),
    "psum_scatter": (
        lambda v: lax.psum_scatter(mnp.sin(v), "i") * v[0],
        lambda v: jlax.psum_scatter(jnp.sin(v), "i") * v[0],
    ),
    "all_to_all": (
        lambda v: lax.all_to_all(mnp.sin(v).reshape(8, 1), "i", 0, 1) * v,
        lambda v: jlax.all_to_all(jnp.sin(v).reshape(8, 1), "i", 0, 1) * v,
    ),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_grad_of_vmap(name):
    mj_f, jax_f = GRAD_CASES[name]
    got = mj.grad(lambda x: mnp.sum(mj.vmap(mj_f, axis_name="i")(x) ** 2))(X)
    want = jax.grad(lambda x: jnp.sum(jax.vmap(jax_f, axis_name="i")(x) ** 2))(X)
    close(got, want)


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_grad_of_pmap(name):
    mj_f, jax_f = GRAD_CASES[name]
    got = mj.grad(lambda x: mnp.sum(mj.pmap(mj_f, axis_name="i")(x) ** 2))(X)
    want = jax.grad(lambda x: jnp.sum(jax.pmap(jax_f, axis_name="i")(x) ** 2))(X)
    close(got, np.asarray(want))


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_vmap_of_grad(name):
    mj_f, jax_f = GRAD_CASES[name]
    got = mj.vmap(mj.grad(lambda v: mnp.sum(mj_f(v))), axis_name="i")(X)
    want = jax.vmap(jax.grad(lambda v: jnp.sum(jax_f(v))), axis_name="i")(X)
    close(got, want)


def test_pmap_of_grad_data_parallel_step():
    w = RNG.normal(size=(8, 3))
    xb, yb = RNG.normal(size=(N, 5, 8)), RNG.normal(size=(N, 5, 3))

    def step(lib, np_):
        def loss(w, x, y):
            return np_.mean((np_.tanh(np_.dot(x, w)) - y) ** 2)

        def update(w, x, y):
            grad = mj.grad if lib is lax else jax.grad
            return w - 0.1 * lib.pmean(grad(loss)(w, x, y), "batch")

        return update

    got = mj.pmap(step(lax, mnp), axis_name="batch", in_axes=(None, 0, 0))(w, xb, yb)
    want = jax.pmap(step(jlax, jnp), axis_name="batch", in_axes=(None, 0, 0))(w, xb, yb)
    close(got, np.asarray(want))


# --- several axis names at once, nested pmap, pmap inside jit ---------------------------------
# JAX 0.10.2's pmap is a shard_map over a one-axis mesh and cannot nest; a pmap of a pmap over
# a 2x4 grid of devices computes what JAX's shard_map over a 2x4 mesh computes, which is the
# reference here. JAX's vmap takes several names for axis_index and all_to_all only.

GRID = np.arange(24, dtype=np.float64).reshape(2, 4, 3) / 7.0


def _tuple_cases(lib, np_):
    ar8 = np_.arange(8.0)[:, None]
    return {
        "all_gather": lambda v: lib.all_gather(v, ("i", "j")),
        "all_gather_ji": lambda v: lib.all_gather(v, ("j", "i")),
        "all_gather_tiled": lambda v: lib.all_gather(v, ("i", "j"), tiled=True),
        "all_gather_axis1": lambda v: lib.all_gather(v, ("i", "j"), axis=1),
        "psum_scatter": lambda v: lib.psum_scatter(v[0] * np_.arange(8.0), ("i", "j")),
        "psum_scatter_tiled": lambda v: lib.psum_scatter(
            v[1] * np_.arange(16.0), ("j", "i"), tiled=True
        ),
        "axis_index": lambda v: lib.axis_index(("i", "j")) + 0 * v[0].astype(np.int32),
        "axis_index_ji": lambda v: lib.axis_index(("j", "i")) + 0 * v[0].astype(np.int32),
        "all_to_all": lambda v: lib.all_to_all(v[0] + ar8 * np_.ones(2), ("i", "j"), 0, 0),
        "all_to_all_01": lambda v: lib.all_to_all(v[0] + ar8 * np_.ones(2), ("i", "j"), 0, 1),
        "all_to_all_tiled": lambda v: lib.all_to_all(
            v[0] + ar8 * np_.ones(2), ("i", "j"), 0, 1, tiled=True
        ),
        "ppermute": lambda v: lib.ppermute(v, ("i", "j"), [(k, (k + 3) % 8) for k in range(8)]),
        "pmax": lambda v: lib.pmax(v, ("j", "i")),
        "psum_outer_and_inner": lambda v: lib.psum(v, "i") * 10 + lib.psum(v, "j"),
    }


MJ_TUPLE, JAX_TUPLE = _tuple_cases(lax, mnp), _tuple_cases(jlax, jnp)
VMAP_OK = {"axis_index", "axis_index_ji", "all_to_all", "all_to_all_01", "all_to_all_tiled",
           "pmax", "psum_outer_and_inner"}  # fmt: skip


def _on_mesh(name):
    mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ("i", "j"))
    body = JAX_TUPLE[name]
    f = jax.shard_map(
        lambda v: body(v[0, 0])[None, None], mesh=mesh, in_specs=P("i", "j"), out_specs=P("i", "j")
    )
    return np.asarray(f(GRID))


@pytest.mark.parametrize("name", sorted(MJ_TUPLE))
def test_several_names_in_nested_pmap_match_a_2d_mesh(name):
    nested = mj.pmap(mj.pmap(MJ_TUPLE[name], axis_name="j"), axis_name="i")
    out = nested(GRID)
    assert out.shape[:2] == (2, 4)
    close(out, _on_mesh(name))
    close(mj.jit(nested)(GRID), _on_mesh(name))


@pytest.mark.parametrize("name", sorted(MJ_TUPLE))
def test_several_names_under_vmap_and_pmap_of_vmap(name):
    f = MJ_TUPLE[name]
    if name == "ppermute":  # as in JAX: over several names only when none is a vmap's
        with pytest.raises(NotImplementedError, match="several axes"):
            mj.vmap(mj.vmap(f, axis_name="j"), axis_name="i")(GRID)
        return
    want = _on_mesh(name)
    close(mj.vmap(mj.vmap(f, axis_name="j"), axis_name="i")(GRID), want)
    close(mj.pmap(mj.vmap(f, axis_name="j"), axis_name="i")(GRID), want)
    if name in VMAP_OK:  # JAX's vmap agrees
        jax_f = JAX_TUPLE[name]
        close(want, jax.vmap(jax.vmap(jax_f, axis_name="j"), axis_name="i")(GRID))


def test_pmap_inside_jit_matches_jax():
    def f(lib, np_):
        def step(x, w):
            y = jax.pmap if lib is jlax else mj.pmap
            return np_.sum(y(lambda v: v * w / lib.psum(v, "i"), axis_name="i")(x) ** 2, 0)

        return step

    w = RNG.normal(size=8)
    got = mj.jit(f(lax, mnp))(X, w)
    close(got, jax.jit(f(jlax, jnp))(X, w))
    grads = mj.grad(lambda x: mnp.sum(mj.jit(f(lax, mnp))(x, w)))(X)
    close(grads, jax.grad(lambda x: jnp.sum(jax.jit(f(jlax, jnp))(x, w)))(X))


def test_uneven_groups_tree_all_to_all_and_static_arguments_as_jax():
    # JAX's pmap_test testPsumUnevenReplicaGroups, testTrees, test_static_argnum_on_method,
    # test_pmap_error_on_non_hashable_static_argument
    groups = [[0, 1], list(range(2, N))]
    for mj_red, jax_red in ((lax.psum, jlax.psum), (lax.pmax, jlax.pmax), (lax.pmean, jlax.pmean)):
        got = mj.pmap(lambda v, r=mj_red: v - r(v, "i", axis_index_groups=groups), "i")(X)
        want = jax.pmap(lambda v, r=jax_red: v - r(v, "i", axis_index_groups=groups), "i")(X)
        close(got, want)
    with pytest.raises(ValueError, match="axis_index_groups must all be the same size"):
        mj.pmap(lambda v: lax.all_gather(v, "i", axis_index_groups=groups), "i")(X)
    tree = {"a": np.arange(N * N).reshape(N, N), "b": X}
    got = mj.pmap(lambda t: lax.all_to_all(t, "i", 0, 0), "i")(tree)
    want = jax.pmap(lambda t: jlax.all_to_all(t, "i", 0, 0), "i")(tree)
    for k in tree:
        close(got[k], want[k])

    def holder(pmap):
        class A:
            @pmap
            def f(self, x):
                return x + 2

        return A

    import functools

    for pmap in (jax.pmap, mj.pmap):
        a = holder(functools.partial(pmap, static_broadcasted_argnums=(0,)))()
        np.testing.assert_array_equal(np.asarray(a.f(np.arange(N))), np.arange(N) + 2)
        f = pmap(lambda x, y: x + 3, static_broadcasted_argnums=(1,))
        with pytest.raises(ValueError, match="Non-hashable static arguments are not supported"):
            f(np.arange(N), np.asarray(1))


def test_pmap_with_explicit_devices_inside_jit_as_jax():
    # equinox's test_pmap test_aot_compilation: jit(pmap(f, devices=...)). The program runs on
    # the pmap's devices (the first one holds the result, on one device or several), and a
    # second pmap or a committed argument on other devices is JAX's ValueError.
    mj_devs, jax_devs = mj.devices(), jax.devices()
    w = RNG.normal(size=8)

    def f(lib, pmap, devs):
        return pmap(lambda v: v * w / lib.psum(v, "i"), axis_name="i", devices=devs)

    for sl in (slice(0, 1), slice(3, 4), slice(0, N), slice(None, None, -1), slice(4, 8)):
        x = X[sl]
        got = mj.jit(f(lax, mj.pmap, mj_devs[sl]))(x)
        want = jax.jit(f(jlax, jax.pmap, jax_devs[sl]))(x)
        close(got, want)
        assert {d.id for d in got.devices()} <= {d.id for d in want.devices()}
        lowered = mj.jit(f(lax, mj.pmap, mj_devs[sl])).lower(x)
        assert "func" in lowered.as_text()
        close(lowered.compile()(x), want)
        mj_step = mj.jit(f(lax, mj.pmap, mj_devs[sl]))
        jax_step = jax.jit(f(jlax, jax.pmap, jax_devs[sl]))
        grads = mj.grad(lambda x, g=mj_step: mnp.sum(g(x) ** 2))(x)
        jgrads = jax.grad(lambda x, g=jax_step: jnp.sum(g(x) ** 2))(x)
        close(grads, jgrads)
    one = X[:1]
    for pmap, jit, devs, put in (
        (mj.pmap, mj.jit, mj_devs, mj.device_put),
        (jax.pmap, jax.jit, jax_devs, jax.device_put),
    ):
        match = "Received incompatible devices for jitted computation"
        with pytest.raises(ValueError, match=match):
            jit(lambda x, p=pmap, d=devs: p(abs, devices=d[:1])(x) + p(abs, devices=d[1:2])(x))(one)
        with pytest.raises(ValueError, match=match):
            jit(pmap(abs, devices=devs[1:2]))(put(one, devs[0]))
        out = jit(pmap(abs, devices=devs[1:2]))(put(one, devs[1]))
        assert [d.id for d in out.devices()] == [1]
