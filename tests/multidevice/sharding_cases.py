"""Sharded arrays and SPMD jit on 8 CPU devices, against NumPy and closed forms.

The CPU backend's device count is fixed when it starts, so these cases run in their own
process with ``MJ_NUM_CPU_DEVICES=8`` (``test_sharding_multidevice.py`` starts it); the file
name keeps the main run from collecting them.
"""

import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj.sharding import Mesh, NamedSharding, P, SingleDeviceSharding

N = 8
assert mj.device_count() == N, "run with MJ_NUM_CPU_DEVICES=8 (see test_sharding_multidevice.py)"

RNG = np.random.default_rng(21)
MESH = Mesh(np.array(mj.devices()).reshape(4, 2), ("x", "y"))
A = RNG.normal(size=(8, 4)).astype(np.float32)
B = RNG.normal(size=(4, 6)).astype(np.float32)


def close(got, want):
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)


def named(*spec):
    return NamedSharding(MESH, P(*spec))


def test_mesh_and_sharding_describe_themselves_as_jax():
    assert str(MESH) == "Mesh('x': 4, 'y': 2, axis_types=(Auto, Auto))"
    assert MESH.shape == {"x": 4, "y": 2}
    assert MESH.size == 8
    assert repr(named("x", None)) == (
        "NamedSharding(mesh=Mesh('x': 4, 'y': 2, axis_types=(Auto, Auto)), "
        "spec=P('x', None), memory_kind=device)"
    )
    assert (
        repr(
            P(
                ("x", "y"),
            )
        )
        == "P(('x', 'y'),)"
    )
    made = mj.make_mesh((2, 4), ("a", "b"))
    assert made.axis_sizes == (2, 4)
    assert [d.id for d in made.devices.flat] == list(range(8))


@pytest.mark.parametrize("spec", [("x", "y"), ("x",), (None, "y"), ("y", "x"), (("x", "y"),), ()])
def test_device_put_gives_each_device_its_slice(spec):
    s = named(*spec)
    x = mj.device_put(A, s)
    assert x.sharding == s
    np.testing.assert_array_equal(np.asarray(x), A)
    shards = x.addressable_shards
    assert len(shards) == N
    for shard in shards:
        np.testing.assert_array_equal(np.asarray(shard.data), A[shard.index])
        assert shard.data.shape == s.shard_shape(A.shape)
    # replicas of one slice are numbered 0, 1, ...; every slice has replica 0
    by_index = {}
    for shard in shards:
        key = tuple((i.start, i.stop) for i in shard.index)
        by_index.setdefault(key, []).append(shard.replica_id)
    for ids in by_index.values():
        assert sorted(ids) == list(range(len(ids)))
    assert x.is_fully_replicated == (spec == ())


def test_indices_follow_the_mesh_axes():
    # dimension 0 split over x (4 ways): device at mesh position (i, j) holds rows 2i:2i+2
    idx = named("x").devices_indices_map((8, 4))
    for (i, _), dev in np.ndenumerate(MESH.devices):
        assert idx[dev] == (slice(2 * i, 2 * i + 2), slice(None))
    # split over (y, x): y is major
    idx = named(("y", "x")).devices_indices_map((8,))
    for (i, j), dev in np.ndenumerate(MESH.devices):
        assert idx[dev] == (slice(j * 4 + i, j * 4 + i + 1),)


def test_single_device_arrays_report_their_device():
    dev = mj.devices()[3]
    x = mj.device_put(A, dev)
    assert x.sharding == SingleDeviceSharding(dev)
    assert x.is_fully_replicated
    assert x.devices() == {dev}
    np.testing.assert_array_equal(np.asarray(x), A)


def test_visualize_array_sharding_draws_one_cell_per_piece(capsys):
    mj.debug.visualize_array_sharding(mj.device_put(A, named("x", "y")))
    lines = capsys.readouterr().out.splitlines()
    cells = [line.strip("│").split("│") for line in lines if line.startswith("│")]
    assert [[c.strip() for c in row] for row in cells] == [
        [f"CPU {2 * i}", f"CPU {2 * i + 1}"] for i in range(4)
    ]
    mj.debug.visualize_array_sharding(mj.device_put(np.arange(8.0), named("x")))
    (row,) = [line for line in capsys.readouterr().out.splitlines() if line.startswith("│")]
    assert [c.strip() for c in row.strip("│").split("│")] == [
        "CPU 0,1",
        "CPU 2,3",
        "CPU 4,5",
        "CPU 6,7",
    ]
    # a cell's size follows its piece's: a column of the whole height is 10 lines tall
    mj.debug.visualize_array_sharding(mj.device_put(A, named(None, "y")))
    lines = capsys.readouterr().out.splitlines()
    assert len([line for line in lines if line.startswith("│")]) == 9
    assert lines[5] == "│CPU 0,2,4,6│CPU 1,3,5,7│"
    with pytest.raises(ValueError, match="1 and 2 dimensions"):
        mj.debug.visualize_array_sharding(mj.device_put(np.float32(1.0), named()))


def test_jit_matmul_with_both_operands_sharded_matches_numpy():
    f = mj.jit(lambda a, b: a @ b, in_shardings=(named("x", None), named(None, "y")))
    out = f(A, B)
    close(out, A @ B)
    assert out.sharding == named("x", "y")  # what XLA's partitioner makes of (x,) @ (,y)
    text = f.lower(A, B).as_text()
    assert "mhlo.num_partitions = 8" in text
    assert "sdy.sharding" in text  # Shardy's annotations, as JAX 0.10 lowers them


def test_jit_takes_the_layout_of_sharded_arguments():
    a = mj.device_put(A, named(None, "x"))
    b = mj.device_put(B, named("x", None))
    out = mj.jit(lambda a, b: mnp.tanh(a @ b))(a, b)
    close(out, np.tanh(A @ B))
    assert out.sharding.mesh == MESH


def test_out_shardings_are_obeyed_and_outputs_feed_the_next_call():
    f = mj.jit(lambda a, b: (a @ b, a.sum()), out_shardings=(named("y"), named()))
    prod, total = f(A, B)
    assert prod.sharding == named("y")
    assert total.sharding == named()
    close(prod, A @ B)
    close(total, A.sum())
    again = mj.jit(lambda p: p * 2.0)(prod)
    close(again, 2 * A @ B)


def test_with_sharding_constraint_inside_jit_grad_and_vmap():
    c = named("x", "y")

    def loss(a, b):
        return (mj.lax.with_sharding_constraint(a @ b, c) ** 2).sum()

    out = mj.jit(lambda a, b: mj.lax.with_sharding_constraint(a @ b, c))(A, B)
    assert out.sharding == c
    close(out, A @ B)
    g = mj.jit(mj.grad(loss))(A, B)
    close(g, 2 * (A @ B) @ B.T)
    batched = mj.jit(mj.vmap(loss))(np.stack([A, 2 * A]), np.stack([B, B]))
    close(batched, [((A @ B) ** 2).sum(), ((2 * A @ B) ** 2).sum()])
    eager = mj.lax.with_sharding_constraint(A, c)
    assert eager.sharding == c


def test_bad_shardings_are_clear_errors():
    with pytest.raises(ValueError, match="not an axis of the mesh"):
        NamedSharding(MESH, P("z"))
    with pytest.raises(ValueError, match="divisible by 4"):
        mj.device_put(np.ones(6), named("x"))
    with pytest.raises(ValueError, match="needs 6 devices"):
        mj.make_mesh((3, 2), ("a", "b"))
    with pytest.raises(ValueError, match="2 entries"):
        mj.jit(lambda a: a, in_shardings=(named(), named()))(A)
    with pytest.raises(ValueError, match="too many"):
        mj.device_put(np.ones(8), named("x", "y"))
    other = Mesh(np.array(mj.devices()[::-1]).reshape(4, 2), ("x", "y"))
    with pytest.raises(ValueError, match="incompatible devices"):
        mj.jit(lambda a, b: a + b, in_shardings=(named("x"), NamedSharding(other, P("x"))))(A, A)


# --- shard_map ---------------------------------------------------------------------------------


def psum_matmul(a, b):
    return mj.lax.psum(a @ b, "x")


PSUM_MATMUL = mj.shard_map(
    psum_matmul, mesh=MESH, in_specs=(P(None, "x"), P("x", None)), out_specs=P()
)


def test_shard_map_psum_of_matmul_matches_numpy_eagerly_and_under_jit():
    close(PSUM_MATMUL(A, B), A @ B)
    jitted = mj.jit(PSUM_MATMUL)
    out = jitted(A, B)
    close(out, A @ B)
    assert out.sharding == named()
    text = jitted.lower(A, B).as_text()
    for target in ("sdy.manual_computation", 'manual_axes={"x", "y"}', "stablehlo.all_reduce"):
        assert target in text
    from mj.experimental.shard_map import shard_map

    assert shard_map is mj.shard_map


def test_shard_map_blocks_axis_index_and_ppermute():
    ones = np.ones((8, 4), np.float32)
    f = mj.shard_map(
        lambda x: x * mj.lax.axis_index("x") + 10 * mj.lax.axis_index("y"),
        mesh=MESH,
        in_specs=P("x", "y"),
        out_specs=P("x", "y"),
    )
    want = np.repeat(np.repeat(np.arange(4)[:, None] + 10 * np.arange(2)[None], 2, 0), 2, 1)
    close(mj.jit(f)(ones), want)
    perm = [(i, (i + 1) % 4) for i in range(4)]
    shift = mj.shard_map(
        lambda x: mj.lax.ppermute(x, "x", perm), mesh=MESH, in_specs=P("x"), out_specs=P("x")
    )
    x = np.arange(8.0, dtype=np.float32)
    close(mj.jit(shift)(x), np.roll(x, 2))
    # all_gather's result is the same on every device but typed as varying (as in JAX), so
    # calling it replicated needs the check off
    gather = mj.shard_map(
        lambda x: mj.lax.all_gather(x, "x", tiled=True),
        mesh=MESH,
        in_specs=P("x"),
        out_specs=P(),
        check_vma=False,
    )
    close(mj.jit(gather)(x), x)


def test_shard_map_jvp_and_grad_match_closed_forms():
    _, tangent = mj.jvp(PSUM_MATMUL, (A, B), (A, B))
    close(tangent, 2 * A @ B)

    def loss(a, b):
        return (PSUM_MATMUL(a, b) ** 2).sum()

    ga, gb = mj.grad(loss, argnums=(0, 1))(A, B)
    close(ga, 2 * (A @ B) @ B.T)
    close(gb, 2 * A.T @ (A @ B))
    w = RNG.normal(size=(4, 3)).astype(np.float32)
    layer = mj.shard_map(
        lambda x, w: mnp.tanh(x @ w), mesh=MESH, in_specs=(P("x"), P()), out_specs=P("x")
    )
    gw = mj.jit(mj.grad(lambda w: layer(A, w).sum()))(w)
    close(gw, A.T @ (1 - np.tanh(A @ w) ** 2))


def test_shard_map_errors_name_the_problem():
    f = mj.shard_map(lambda x: x, mesh=MESH, in_specs=P("x"), out_specs=P("x"))
    with pytest.raises(ValueError, match="divisible by 4"):
        f(np.ones(6))
    g = mj.shard_map(lambda x: mj.lax.psum(x, "z"), mesh=MESH, in_specs=P("x"), out_specs=P())
    with pytest.raises(NameError, match="z"):
        g(np.ones(8))


def test_donated_sharded_argument_is_reused_and_deleted():
    s = named("x", "y")
    x = mj.device_put(A, s)
    step = mj.jit(lambda x, g: x - 0.1 * g, donate_argnums=0, out_shardings=s)
    out = step(x, A)
    assert x.is_deleted()
    close(out, 0.9 * A)
    assert out.sharding == s
    with pytest.raises(RuntimeError, match="Array has been deleted"):
        np.asarray(x)
    close(step(out, A), 0.8 * A)
    assert out.is_deleted()


# --- arrays built piece by piece; one process's view of mj.distributed ------------------------


def test_make_array_from_callback_asks_for_each_devices_piece():
    s = named("x", "y")
    asked = []

    def piece(index):
        asked.append(index)
        return A[index]

    x = mj.make_array_from_callback(A.shape, s, piece)
    assert x.sharding == s
    np.testing.assert_array_equal(np.asarray(x), A)
    assert len(asked) == N
    assert sorted((i[0].start, i[1].start) for i in asked) == sorted(
        (r, c) for r in range(0, 8, 2) for c in (0, 2)
    )
    with pytest.raises(ValueError, match=r"returned shape \(8, 4\)"):
        mj.make_array_from_callback(A.shape, s, lambda index: A)


def test_make_array_from_process_local_data_in_one_process_is_the_whole_array():
    # alone, this process holds every block: its local data is the global array
    x = mj.make_array_from_process_local_data(named("x"), A)
    assert x.shape == A.shape
    np.testing.assert_array_equal(np.asarray(x), A)
    y = mj.make_array_from_process_local_data(named(None, "y"), A, A.shape)
    np.testing.assert_array_equal(np.asarray(y), A)
    with pytest.raises(ValueError, match="does not fit global_shape"):
        mj.make_array_from_process_local_data(named("x"), A, (16, 4))


def test_one_process_is_process_zero_and_distributed_starts_before_the_backend():
    assert mj.process_index() == 0
    assert mj.process_count() == 1
    assert mj.local_devices() == mj.devices()
    assert mj.local_devices(process_index=0) == mj.devices()
    assert not mj.distributed.is_initialized()
    assert named("x").is_fully_addressable
    with pytest.raises(RuntimeError, match="before any computation"):
        mj.distributed.initialize("127.0.0.1:1234", 2, 1)
    with pytest.raises(ValueError, match="process_id must be an int with 0 <= process_id"):
        mj.distributed.initialize("127.0.0.1:1234", 2, 2)
    with pytest.raises(ValueError, match="coordinator_address should be defined"):
        mj.distributed.initialize(None, 2, 0)
    with pytest.raises(ValueError, match="process_index 3 does not exist"):
        mj.local_devices(process_index=3)


def test_grad_of_a_jitted_shard_map_splits_it_inside_the_jitted_jaxpr():
    jitted = mj.jit(PSUM_MATMUL)
    ga = mj.grad(lambda a: (jitted(a, B) ** 2).sum())(A)
    close(ga, 2 * (A @ B) @ B.T)
    gb = mj.grad(lambda b: (jitted(A, b) ** 2).sum())(B)
    close(gb, 2 * A.T @ (A @ B))


def test_vmap_of_shard_map_maps_over_an_unsplit_leading_axis():
    batch = np.stack([A, 2 * A, -A])  # (3, 8, 4)
    out = mj.vmap(PSUM_MATMUL, in_axes=(0, None))(batch, B)
    close(out, np.stack([A @ B, 2 * A @ B, -A @ B]))
    # the batch axis elsewhere, under jit, with a per-device body that uses its block index
    f = mj.shard_map(
        lambda x, w: x @ w + mj.lax.axis_index("x"),
        mesh=MESH,
        in_specs=(P("x"), P()),
        out_specs=P("x"),
    )
    moved = np.moveaxis(batch, 0, 2)  # (8, 4, 3): examples on the last axis
    got = mj.jit(mj.vmap(f, in_axes=(2, None)))(moved, B)
    rows = np.repeat(np.arange(4), 2)[:, None].astype(np.float32)
    close(got, np.stack([a @ B + rows for a in batch]))
    # and the gradient of a batched loss
    g = mj.grad(lambda b: mj.vmap(PSUM_MATMUL, in_axes=(0, None))(batch, b).sum())(B)
    close(g, batch.sum(0).T @ np.ones((8, 6), np.float32))


def test_eager_operations_on_a_sharded_array_compute_its_global_value():
    xs = mj.device_put(A, named("x", "y"))
    close(xs + 1, A + 1)
    close(2 * xs, 2 * A)
    close(xs * xs, A * A)
    close(xs.sum(), A.sum())
    close(xs[3], A[3])
    close(mnp.dot(xs, xs.T), A @ A.T)
    close(xs.at[0].set(1.0), np.concatenate([np.ones((1, 4), np.float32), A[1:]]))
    close(mj.grad(lambda v: (v**2).sum())(xs), 2 * A)
    close(mj.vmap(lambda r: r.sum())(xs), A.sum(1))
    assert float(xs[1, 2]) == A[1, 2]


def test_eager_conversions_selections_and_integer_division_stay_sharded():
    """Impl rules that read their operands with ``np.asarray``/``np.where`` (conversions,
    select_n, round, integer div/rem) compile over the devices like the ufunc ones."""
    layout = named("x", "y")
    xs = mj.device_put(A, layout)
    ints = (np.arange(32, dtype=np.int32).reshape(8, 4) - 13) * 3
    js = mj.device_put(ints, layout)
    cases = {
        "astype": (xs.astype(mnp.int32), A.astype(np.int32)),
        "convert_element_type": (
            mj.lax.convert_element_type(js, mnp.float32),
            ints.astype(np.float32),
        ),
        "where": (mnp.where(xs > 0, xs, 0.0), np.where(A > 0, A, 0)),
        "relu": (mj.nn.relu(xs), np.maximum(A, 0)),
        "round": (mnp.round(xs * 10), np.round(A * 10)),
        "floor_divide": (js // 7, ints // 7),
        "remainder": (js % 7, ints % 7),
        "lax.div": (mj.lax.div(js, np.int32(7)), np.trunc(ints / 7).astype(np.int32)),
    }
    for name, (got, want) in cases.items():
        assert got.sharding == layout, (name, got.sharding)
        close(got, want)
        assert np.asarray(got).dtype == want.dtype, name


_CALLER_SOURCE = """
import numpy as np
import mj.numpy as mnp


def run(v):
    return mnp.sin(v), np.sin(v)
"""


def test_eager_dispatch_goes_by_operand_type_not_by_the_callers_module():
    """Issue 38: an mj operation on a sharded array is compiled over its devices and NumPy's
    own ufunc reads the host value, whichever module calls them (mj-core's included), and a
    failing operation is offered to the devices once, without reading the host value."""
    import types

    from mj_core import lax as core_lax
    from mj_core.extend import eager_handlers

    layout = named("x", "y")
    xs = mj.device_put(A, layout)
    apply = eager_handlers[type(xs)]
    calls = []

    def counting(prim, args, params):
        calls.append(prim.name)
        return apply(prim, args, params)

    eager_handlers[type(xs)] = counting
    try:
        with pytest.raises(TypeError, match="add"):  # (mj.lax.add refuses the ranks first)
            core_lax.add(xs, np.ones(3, np.float32))
        assert calls == ["add"]
        assert xs._host is None  # nothing assembled the host value to try NumPy first
        with pytest.raises(TypeError, match="add"):
            xs + mnp.ones(3)
        assert calls.count("add") == 2  # once more (after promotion's convert_element_type)
        calls.clear()
        for module_name in ["user_code", "mj_core.prims._caller", "numpy._caller"]:
            module = types.ModuleType(module_name)
            exec(compile(_CALLER_SOURCE, f"<{module_name}>", "exec"), module.__dict__)
            on_devices, on_host = module.run(xs)
            assert on_devices.sharding == layout, module_name
            assert type(on_host) is np.ndarray, module_name
            close(on_devices, np.sin(A))
            close(on_host, np.sin(A))
        assert calls == ["sin"] * 3
    finally:
        eager_handlers[type(xs)] = apply


def test_like_constructors_take_their_arguments_layout():
    """JAX's full_like gives its result its argument's sharding (shape unchanged)."""
    layout = named("x", "y")
    xs = mj.device_put(A, layout)
    for got, want in [
        (mnp.zeros_like(xs), np.zeros_like(A)),
        (mnp.ones_like(xs, dtype=mnp.int32), np.ones(A.shape, np.int32)),
        (mnp.full_like(xs, 2.5), np.full_like(A, 2.5)),
    ]:
        assert got.sharding == layout
        close(got, want)
        assert np.asarray(got).dtype == want.dtype
    assert mnp.zeros_like(xs, shape=(3,)).sharding != layout  # a new shape: not the layout
    one = mj.device_put(A, mj.devices()[5])
    assert mnp.zeros_like(one).devices() == {mj.devices()[5]}


def test_an_array_committed_to_a_device_flows_through_every_transformation():
    c = mj.device_put(A, mj.devices()[3])
    close(c.sum(), A.sum())
    close(mnp.where(c > 0, c, 0.0), np.where(A > 0, A, 0))
    close(mj.grad(lambda v: (v**2).sum())(c), 2 * A)
    close(mj.vmap(mnp.sum)(c), A.sum(1))
    close(mj.jvp(mnp.sin, (c,), (c,))[1], np.cos(A) * A)
    assert mj.jit(mnp.sin)(c).devices() == {mj.devices()[3]}
