"""pmap on 8 CPU devices: every collective against NumPy, transformations of pmapped
functions, sharded outputs and errors.

The CPU backend's device count is fixed when it starts, so these cases run in their own
process with ``MJ_NUM_CPU_DEVICES=8`` (``test_xla_multidevice.py`` starts it); the file name
keeps the main run from collecting them.
"""

import numpy as np
import pytest

from mj_autodiff import check_grads, grad, jvp
from mj_batch import vmap
from mj_core import numpy as mnp
from mj_core.prims.parallel import (
    all_gather,
    all_to_all,
    axis_index,
    axis_size,
    pmax,
    pmean,
    pmin,
    ppermute,
    pshuffle,
    psum,
    psum_scatter,
    pswapaxes,
)
from mj_ir import make_jaxpr
from mj_xla import (
    Array,
    Mesh,
    NamedSharding,
    PartitionSpec,
    ShardedArray,
    device_count,
    devices,
    jit,
    pmap,
    shard_map,
)

N = 8
assert device_count() == N, "run with MJ_NUM_CPU_DEVICES=8 (see test_xla_multidevice.py)"

RNG = np.random.default_rng(0)
X = RNG.normal(size=(N, 6)).astype(np.float32)


def close(got, want, rtol=1e-5, atol=1e-5):
    np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=atol)


def ref_all_gather(x, axis, tiled):
    out = np.concatenate(list(x), axis=axis) if tiled else np.stack(list(x), axis=axis)
    return np.stack([out] * len(x))


def ref_psum_scatter(x, dim, tiled):
    blocks = np.split(x.sum(0), len(x), axis=dim)
    return np.stack([b if tiled else np.squeeze(b, dim) for b in blocks])


def ref_all_to_all(x, split, concat, tiled):
    n = len(x)
    if tiled:
        pieces = [[np.split(x[j], n, axis=split)[i] for j in range(n)] for i in range(n)]
        return np.stack([np.concatenate(p, concat) for p in pieces])
    return np.stack(
        [np.stack([np.take(x[j], i, axis=split) for j in range(n)], concat) for i in range(n)]
    )


def ref_ppermute(x, perm):
    out = np.zeros_like(x)
    for src, dst in perm:
        out[dst] = x[src]
    return out


# --- every collective, against NumPy ----------------------------------------------------------


def test_reductions():
    close(pmap(lambda v: psum(v, "i"), axis_name="i")(X), np.stack([X.sum(0)] * N))
    close(pmap(lambda v: pmax(v, "i"), axis_name="i")(X), np.stack([X.max(0)] * N))
    close(pmap(lambda v: pmin(v, "i"), axis_name="i")(X), np.stack([X.min(0)] * N))
    close(pmap(lambda v: pmean(v, "i"), axis_name="i")(X), np.stack([X.mean(0)] * N))
    ints = np.arange(N * 3, dtype=np.int32).reshape(N, 3)
    got = pmap(lambda v: psum(v, "i"), axis_name="i")(ints)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, np.stack([ints.sum(0)] * N))
    flags = pmap(lambda v: psum(v > 0, "i"), axis_name="i")(X)
    np.testing.assert_array_equal(flags, np.stack([(X > 0).sum(0)] * N))


def test_psum_of_a_pytree_and_of_constants():
    out = pmap(lambda v: psum({"a": v, "b": (2 * v, 1.0)}, "i"), axis_name="i")(X)
    close(out["a"], np.stack([X.sum(0)] * N))
    close(out["b"][0], np.stack([2 * X.sum(0)] * N))
    close(out["b"][1], np.full(N, float(N)))


def test_axis_index_and_axis_size():
    idx = pmap(lambda v: axis_index("i"), axis_name="i")(X)
    assert idx.dtype == np.int32
    np.testing.assert_array_equal(idx, np.arange(N))
    close(pmap(lambda v: v * 0 + axis_size("i"), axis_name="i")(X), np.full(X.shape, N))


@pytest.mark.parametrize("tiled", [False, True])
@pytest.mark.parametrize("axis", [0, 1])
def test_all_gather(axis, tiled):
    x = X.reshape(N, 2, 3)
    got = pmap(lambda v: all_gather(v, "i", axis=axis, tiled=tiled), axis_name="i")(x)
    close(got, ref_all_gather(x, axis, tiled))


@pytest.mark.parametrize("tiled", [False, True])
@pytest.mark.parametrize("dim", [0, 1])
def test_psum_scatter(dim, tiled):
    shape = {(0, False): (N, 3), (1, False): (3, N), (0, True): (2 * N, 3), (1, True): (3, 2 * N)}
    x = RNG.normal(size=(N, *shape[dim, tiled])).astype(np.float32)
    f = pmap(lambda v: psum_scatter(v, "i", scatter_dimension=dim, tiled=tiled), axis_name="i")
    close(f(x), ref_psum_scatter(x, dim, tiled))


@pytest.mark.parametrize(("split", "concat"), [(0, 0), (0, 1), (1, 0), (1, 1)])
@pytest.mark.parametrize("tiled", [False, True])
def test_all_to_all(split, concat, tiled):
    x = RNG.normal(size=(N, N, N)).astype(np.float32)
    if tiled:
        x = RNG.normal(size=(N, 2 * N, 3)).astype(np.float32) if split == 0 else x
    f = pmap(lambda v: all_to_all(v, "i", split, concat, tiled=tiled), axis_name="i")
    close(f(x), ref_all_to_all(x, split, concat, tiled))


def test_pswapaxes():
    x = RNG.normal(size=(N, 3, N)).astype(np.float32)
    close(pmap(lambda v: pswapaxes(v, "i", 1), axis_name="i")(x), ref_all_to_all(x, 1, 1, False))


@pytest.mark.parametrize(
    "perm",
    [
        [(i, (i + 1) % N) for i in range(N)],  # a ring
        [(0, 7), (7, 0)],  # a partial permutation: the others receive zeros
        [(i, N - 1 - i) for i in range(N)],
    ],
)
def test_ppermute(perm):
    close(pmap(lambda v: ppermute(v, "i", perm), axis_name="i")(X), ref_ppermute(X, perm))


def test_pshuffle():
    order = [3, 1, 4, 0, 7, 5, 2, 6]
    close(pmap(lambda v: pshuffle(v, "i", order), axis_name="i")(X), X[order])


def test_axis_index_groups():
    groups = [[0, 1, 2, 3], [4, 5, 6, 7]]
    got = pmap(lambda v: psum(v, "i", axis_index_groups=groups), axis_name="i")(X)
    close(got, np.stack([X[:4].sum(0)] * 4 + [X[4:].sum(0)] * 4))
    odd_even = [[0, 2, 4, 6], [1, 3, 5, 7]]
    got = pmap(lambda v: pmax(v, "i", axis_index_groups=odd_even), axis_name="i")(X)
    want = np.empty_like(X)
    want[0::2], want[1::2] = X[0::2].max(0), X[1::2].max(0)
    close(got, want)
    got = pmap(lambda v: all_gather(v, "i", axis_index_groups=groups), axis_name="i")(X)
    close(got, np.stack([X[:4]] * 4 + [X[4:]] * 4))
    assert (
        pmap(lambda v: v * 0 + psum(1, "i", axis_index_groups=groups), axis_name="i")(X).tolist()
        == np.full(X.shape, 4.0).tolist()
    )


# --- mapping: sizes, axes, arguments, outputs -------------------------------------------------


def test_fewer_slices_than_devices_and_explicit_devices():
    f = pmap(lambda v: v / psum(v, "i"), axis_name="i")
    close(f(X[:4]), X[:4] / X[:4].sum(0))
    g = pmap(lambda v: psum(v, "i"), axis_name="i", devices=devices()[4:])
    out = g(X[:4])
    close(out, np.stack([X[:4].sum(0)] * 4))
    assert out.devices() == set(devices()[4:])


def test_in_axes_out_axes_static_and_keyword_arguments():
    xt = X.T.copy()
    f = pmap(lambda v, w: v * w, in_axes=(1, None), out_axes=1)
    close(f(xt, 2.0), 2 * xt)
    g = pmap(lambda v, n: v * n, static_broadcasted_argnums=1)
    close(g(X, 3), 3 * X)
    h = pmap(lambda v, *, scale: v * scale)
    close(h(X, scale=np.full((N, 1), 2.0, np.float32)), 2 * X)
    k = pmap(lambda v: psum(v, "i"), axis_name="i", out_axes=None)
    close(k(X), X.sum(0))
    tree = pmap(lambda d: {"s": d["a"] + d["b"][0]}, in_axes=({"a": 0, "b": (None,)},))
    close(tree({"a": X, "b": (np.ones(6, np.float32),)})["s"], X + 1)
    with pytest.raises(ValueError, match="pmap requires at least one argument with a mapped axis"):
        pmap(lambda: axis_index("i"), axis_name="i", axis_size=4)()  # (as JAX refuses)


def test_outputs_are_sharded_arrays_that_stay_on_their_devices():
    f = pmap(lambda v: 2 * v)
    out = f(X)
    assert type(out) is ShardedArray
    assert isinstance(out, Array)
    assert out.devices() == set(devices())
    assert out.shape == X.shape
    assert out.dtype == X.dtype
    close(out, 2 * X)
    # as JAX 0.10.2's pmap (a shard_map over a 1-d mesh): device i holds block i, shape (1, 6)
    assert [np.asarray(b).tolist() for b in out.device_buffers] == (2 * X)[:, None].tolist()
    again = f(out)  # the slices are taken where they are
    close(again, 4 * X)
    close(out + 1, 2 * X + 1)  # an eager op on the host value
    close(jit(lambda a: a.sum(0))(out), 2 * X.sum(0))
    assert repr(pmap(lambda v: v)(np.arange(8.0, dtype=np.float32)))[:6] == "Array("


def test_jit_inside_pmap():
    f = pmap(jit(lambda v: v - pmean(v, "i")), axis_name="i")
    close(f(X), X - X.mean(0))


# --- transformations --------------------------------------------------------------------------

F = pmap(lambda v: mnp.sin(v) * psum(v**2, "i"), axis_name="i")


def _want_grad(x):
    return np.cos(x) * (x**2).sum(0) + 2 * x * np.sin(x).sum(0)


def test_grad_of_pmap_and_pmap_of_grad():
    x = X.astype(np.float64)
    close(grad(lambda a: mnp.sum(F(a)))(x), _want_grad(x))
    per_device = pmap(grad(lambda v: mnp.sum(mnp.sin(v) * psum(v**2, "i"))), axis_name="i")
    close(per_device(x), _want_grad(x))


def test_jvp_of_pmap():
    x = X.astype(np.float64)
    t = RNG.normal(size=x.shape)
    _, tangent = jvp(F, (x,), (t,))
    close(tangent, np.cos(x) * (x**2).sum(0) * t + np.sin(x) * (2 * x * t).sum(0))


def test_grad_with_respect_to_an_unmapped_argument_sums_the_devices():
    w = RNG.normal(size=(6, 2))
    f = pmap(lambda w, v: mnp.tanh(mnp.dot(v, w)), in_axes=(None, 0))
    got = grad(lambda w: mnp.sum(f(w, X.astype(np.float64)) ** 2))(w)
    want = grad(lambda w: mnp.sum(mnp.tanh(mnp.dot(mnp.asarray(X, np.float64), w)) ** 2))(w)
    close(got, want)


@pytest.mark.parametrize(
    "body",
    [
        lambda v: psum(mnp.sin(v), "i") * v,
        lambda v: all_gather(v, "i") * mnp.cos(v),
        lambda v: ppermute(mnp.sin(v), "i", [(i, (i + 3) % N) for i in range(N)]) * v,
        lambda v: psum_scatter(v, "i", tiled=False) ** 2,
    ],
    ids=["psum", "all_gather", "ppermute", "psum_scatter"],
)
def test_check_grads_through_collectives_under_pmap(body):
    x = RNG.normal(size=(N, N))
    f = pmap(body, axis_name="i")
    check_grads(lambda a: mnp.sum(f(a) ** 2), (x,), order=1)


def test_vmap_inside_and_around_pmap():
    x = RNG.normal(size=(N, 5, 3))
    inner = vmap(lambda v: v * psum(v, "i") + psum(v, "j"), axis_name="j")
    close(pmap(inner, axis_name="i")(x), x * x.sum(0) + x.sum(1, keepdims=True))
    outer = vmap(pmap(lambda v: v / psum(v, "i"), axis_name="i"), in_axes=1, out_axes=1)
    close(outer(x), x / x.sum(0))
    both = pmap(vmap(lambda v: psum(v, ("i", "j")), axis_name="j"), axis_name="i")
    close(both(x), np.broadcast_to(x.sum((0, 1)), x.shape))


def test_data_parallel_training_step_matches_one_device():
    def loss(w, xb, yb):
        return mnp.mean((mnp.tanh(mnp.dot(xb, w)) - yb) ** 2)

    def step(w, xb, yb):
        return w - 0.1 * pmean(grad(loss)(w, xb, yb), "batch")

    w = RNG.normal(size=(3, 2))
    xb, yb = RNG.normal(size=(N, 4, 3)), RNG.normal(size=(N, 4, 2))
    replicated = pmap(step, axis_name="batch")(np.stack([w] * N), xb, yb)
    want = w - 0.1 * np.asarray(grad(loss)(w, xb.reshape(-1, 3), yb.reshape(-1, 2)))
    close(replicated, np.stack([want] * N))


def test_outputs_are_laid_out_as_jax_0_10_2_lays_out_pmap_outputs():
    # JAX 0.10.2 runs pmap as jit(shard_map) over a 1-d mesh named by the axis: each output
    # is split along its leading axis over that mesh, P(axis_name), one block per device
    out = pmap(lambda v: 2 * v, axis_name="rows")(X)
    assert type(out.sharding) is NamedSharding
    assert out.sharding.spec == PartitionSpec("rows")
    assert out.sharding.mesh.axis_names == ("rows",)
    assert list(out.sharding.mesh.devices.flat) == devices()
    unnamed = pmap(lambda v: v, devices=devices()[4:])(X[:4])
    assert unnamed.sharding.spec == PartitionSpec("_internal_pmap_axis_name")
    assert list(unnamed.sharding.mesh.devices.flat) == devices()[4:]
    assert [s.device for s in unnamed.addressable_shards] == devices()[4:]
    close(unnamed, X[:4])


def test_outputs_without_a_mapped_input():
    assert pmap(lambda v: ())(X) == ()
    close(pmap(lambda v: 1.5)(X), np.full(N, 1.5))
    pair = pmap(lambda v: (v, v))(X)  # one input, returned twice
    close(pair[0], X)
    close(pair[1], X)


def test_programs_over_one_device():
    # one partition: XLA records no shardings for the parameters and outputs
    close(pmap(lambda v: psum(v, "i"), axis_name="i")(X[:1]), X[:1])
    mesh = Mesh(np.array(devices()[:1]), ("i",))
    f = jit(shard_map(lambda v: psum(v, "i"), mesh=mesh, in_specs=PartitionSpec("i"),
                      out_specs=PartitionSpec("i")))  # fmt: skip
    close(f(X), X)


def test_the_seed_example_prints_xla_pmap_around_psum():
    def func13(arr, extra):
        def inner(x):
            return (x + extra + mnp.ones(1)) / psum(x, axis_name="rows")

        return pmap(inner, axis_name="rows")(arr)

    text = str(make_jaxpr(func13)(np.ones((1, 3)), 5.0))
    for part in ("xla_pmap[", "axis_name=rows", "axis_size=1", "backend=None", "call_jaxpr={",
                 "psum[axis_name=rows]", "devices=None", "global_axis_size=None",
                 "mapped_invars=(False, True)", "name=inner"):  # fmt: skip
        assert part in text, text
    close(func13(np.ones((1, 3)), 5.0), np.full((1, 3), 7.0))


def test_make_jaxpr_of_grad_of_pmap_stages_known_and_unknown_parts():
    text = str(make_jaxpr(grad(lambda a: mnp.sum(F(a))))(X.astype(np.float64)))
    assert text.count("xla_pmap[") >= 2, text


# --- errors -----------------------------------------------------------------------------------


def test_too_many_slices_or_mismatched_devices_is_a_value_error():
    with pytest.raises(ValueError, match="requires 9 logical devices, but only 8"):
        pmap(lambda v: v)(np.ones((9, 2)))
    with pytest.raises(ValueError, match="2 devices were given"):
        pmap(lambda v: v, devices=devices()[:2])(np.ones((4, 2)))
    with pytest.raises(ValueError, match="inconsistent sizes"):
        pmap(lambda a, b: a + b)(np.ones((4, 2)), np.ones((2, 2)))


def test_collectives_need_their_axis():
    with pytest.raises(NameError, match=r"unbound axis name: j\. .*\['i'\]"):
        pmap(lambda v: psum(v, "j"), axis_name="i")(X)
    # a jaxpr holding a psum over a pmap axis, compiled by jit for one device
    closed = make_jaxpr(pmap(lambda v: psum(v, "i"), axis_name="i"))(X)
    body = closed.jaxpr.eqns[0].params["call_jaxpr"]
    with pytest.raises(NotImplementedError, match="not the axis of a pmap"):
        jit(lambda v: body(v)[0])(X[0])


def test_pmap_inside_jit():
    f = jit(lambda a: mnp.sum(pmap(lambda v: v / psum(v, "i"), axis_name="i")(a), 0))
    out = f(X)
    assert type(out) is Array
    close(out, (X / X.sum(0)).sum(0))
    assert "all-gather" in f.lower(X).compile().as_text()  # one program, restacking the pmap
    sharded = pmap(lambda v: 2 * v, axis_name="i")(X)  # laid out over the devices
    close(f(sharded), (X / X.sum(0)).sum(0))


GRID = RNG.normal(size=(2, 4, 3)).astype(np.float32)


def test_nested_pmap_over_a_grid_of_devices():
    def body(v):
        return psum(v, "i") * 10 + psum(v, "j") + axis_index(("i", "j"))

    out = pmap(pmap(body, axis_name="j"), axis_name="i")(GRID)
    index = np.arange(8).reshape(2, 4, 1)
    close(out, GRID.sum(0) * 10 + GRID.sum(1, keepdims=True) + index)
    assert type(out) is ShardedArray
    assert out.devices() == {devices()[0], devices()[4]}
    outer = pmap(lambda v: psum(pmap(lambda w: 2 * w)(v), "i"), axis_name="i")(GRID)
    close(outer, np.stack([2 * GRID.sum(0)] * 2))  # a collective outside the nested pmap


def test_nested_pmap_needs_enough_devices_and_no_explicit_devices():
    with pytest.raises(ValueError, match="requires 12 logical devices, but only 8"):
        pmap(pmap(lambda v: v))(np.ones((3, 4, 2), np.float32))
    with pytest.raises(NotImplementedError, match="needs devices=None"):
        pmap(pmap(lambda v: v), devices=devices()[:2])(GRID)
    with pytest.raises(NotImplementedError, match="needs devices=None"):
        pmap(pmap(lambda v: v, devices=devices()[:4]))(GRID)
    with pytest.raises(NotImplementedError, match="needs devices=None"):
        jit(pmap(pmap(lambda v: v, devices=devices()[:4])))(GRID)


def test_pmap_lower_compile_matches_the_call():
    """``pmap(f).lower(x).compile()`` computes what ``pmap(f)(x)`` does, from arrays or avals,
    and refuses another structure or dtype with JAX's words."""
    from mj_core import ShapedArray

    f = pmap(lambda x: x - pmean(x, "i"), axis_name="i")
    x = np.arange(device_count() * 4, dtype=np.float32).reshape(device_count(), 4)
    want = x - x.mean(axis=0)
    lowered = f.lower(x)
    assert lowered.in_avals[0][0].shape == x.shape
    assert "all_reduce" in lowered.as_text()
    assert "HloModule" in lowered.as_text(dialect="hlo")
    compiled = lowered.compile()
    np.testing.assert_allclose(np.asarray(compiled(x)), want, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(f(x)), want, rtol=1e-6)
    from_aval = f.lower(ShapedArray(x.shape, x.dtype)).compile()
    np.testing.assert_allclose(np.asarray(from_aval(x)), want, rtol=1e-6)
    assert compiled.runtime_executable() is not None
    assert isinstance(compiled.cost_analysis(), dict)
    with pytest.raises(TypeError, match="Function compiled with input pytree does not match"):
        compiled([x])
    with pytest.raises(TypeError, match="Argument types differ"):
        compiled(x.astype(np.int32))
    two = pmap(lambda a, b: (a * 2, b + 1)).lower(x, x).compile()(x, x)
    np.testing.assert_allclose(np.asarray(two[0]), 2 * x)
    np.testing.assert_allclose(np.asarray(two[1]), x + 1)
