"""mj's sharding against JAX's, both with 8 CPU devices and the same 4x2 mesh: values of
sharded computations, the printed sharding of their outputs, and the device table
``visualize_array_sharding`` draws.

Run in a process of its own (``test_oracle_sharding.py`` starts it): both backends' device
counts are fixed when they start.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import Mesh as JMesh
from jax.sharding import NamedSharding as JNamed
from jax.sharding import PartitionSpec as JP  # noqa: N814  (JAX spelling beside mj's P)

jax.config.update("jax_num_cpu_devices", 8)
jax.config.update("jax_enable_x64", True)

import mj  # noqa: E402  (after JAX's device count is set)
import mj.numpy as mnp  # noqa: E402
from mj.sharding import Mesh, NamedSharding, P  # noqa: E402

N = 8
assert mj.device_count() == N, "run with MJ_NUM_CPU_DEVICES=8 (see test_oracle_sharding.py)"
assert jax.device_count() == N

pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(21)
A = RNG.normal(size=(8, 4)).astype(np.float32)
B = RNG.normal(size=(4, 6)).astype(np.float32)
MESH = Mesh(np.array(mj.devices()).reshape(4, 2), ("x", "y"))
JMESH = JMesh(np.array(jax.devices()).reshape(4, 2), ("x", "y"))


def both(*spec):
    """The same NamedSharding in mj and in JAX."""
    return NamedSharding(MESH, P(*spec)), JNamed(JMESH, JP(*spec))


def close(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)


def same_layout(got, want):
    """Same printed sharding, and each device holds the same slice with the same values."""
    assert repr(got.sharding) == repr(want.sharding)
    close(got, want)
    want_shards = {s.device.id: s for s in want.addressable_shards}
    got_shards = got.addressable_shards
    assert len(got_shards) == len(want_shards)
    for shard in got_shards:
        other = want_shards[shard.device.id]
        assert shard.index == other.index
        assert shard.replica_id == other.replica_id
        close(shard.data, other.data)


def jax_cells(shape, sharding):
    """The grid of device labels JAX's ``visualize_sharding`` draws (it needs ``rich`` to
    print, so the grid is rebuilt from JAX's own ``devices_indices_map``)."""
    dims = (1,) * (2 - len(shape)) + tuple(shape)
    cells = {}
    for dev, index in sharding.devices_indices_map(tuple(shape)).items():
        full = (slice(None),) * (2 - len(index)) + tuple(index)
        key = tuple(s.indices(n)[:2] for s, n in zip(full, dims, strict=True))
        cells.setdefault(key, []).append(dev.id)
    rows = sorted({k[0] for k in cells})
    cols = sorted({k[1] for k in cells})
    return [["CPU " + ",".join(str(i) for i in sorted(cells[(r, c)])) for c in cols] for r in rows]


SPECS = [("x", "y"), ("x",), (None, "y"), ("y", "x"), (("x", "y"),), (("y", "x"), None), ()]


@pytest.mark.parametrize("spec", SPECS)
def test_device_put_lays_out_as_jax(spec):
    s, js = both(*spec)
    same_layout(mj.device_put(A, s), jax.device_put(A, js))


def drawn_cells(text):
    """The labels of a printed table, row by row (padding lines left out)."""
    rows = [[c.strip() for c in ln.strip("│").split("│")] for ln in text.splitlines()]
    return [r for r in rows if any(r) and not r[0].startswith(("┌", "├", "└"))]


@pytest.mark.parametrize("spec", SPECS)
def test_visualize_array_sharding_draws_jax_table(spec, capsys):
    s, js = both(*spec)
    mj.debug.visualize_array_sharding(mj.device_put(A, s))
    assert drawn_cells(capsys.readouterr().out) == jax_cells(A.shape, js)


@pytest.mark.parametrize(
    ("shape", "spec"),
    [
        (shape, spec)
        for shape in [(8, 4), (8,), (16, 16), (8, 32)]
        for spec in SPECS
        if len(spec) <= len(shape)  # a spec names at most one axis per dimension
    ],
)
def test_visualize_array_sharding_prints_jax_text(shape, spec, capsys):
    """Character for character (JAX draws with ``rich``, a dependency of the oracle env)."""
    s, js = both(*spec)
    x = np.zeros(shape, np.float32)
    mj.debug.visualize_array_sharding(mj.device_put(x, s))
    ours = capsys.readouterr().out
    jax.debug.visualize_array_sharding(jax.device_put(x, js))
    theirs = capsys.readouterr().out
    if max(len(line) for line in ours.splitlines()) > 80:
        # rich squeezes a table wider than 80 columns and cuts its labels; mj prints it whole
        assert drawn_cells(ours) == jax_cells(shape, js)
    else:
        assert ours == theirs


def test_single_device_put_as_jax():
    got = mj.device_put(A, mj.devices()[3])
    want = jax.device_put(A, jax.devices()[3])
    assert repr(got.sharding) == repr(want.sharding)
    close(got, want)


MATMULS = {
    "data_parallel": (("x", None), (None, None)),
    "model_parallel": ((None, None), (None, "y")),
    "data_and_model": (("x", None), (None, "y")),
    "contracting_split": (("x", "y"), ("y", None)),
}


@pytest.mark.parametrize("name", MATMULS)
def test_sharded_jit_matmul_as_jax(name):
    sa, sb = MATMULS[name]
    (ma, ja), (mb, jb) = both(*sa), both(*sb)
    got = mj.jit(lambda a, b: a @ b, in_shardings=(ma, mb))(A, B)
    want = jax.jit(lambda a, b: a @ b, in_shardings=(ja, jb))(A, B)
    same_layout(got, want)


def test_jit_of_sharded_arguments_and_out_shardings_as_jax():
    (ma, ja), (mb, jb), (mo, jo) = both("x"), both(None, "y"), both(None, "y")
    a, b = mj.device_put(A, ma), mj.device_put(B, mb)
    ja_, jb_ = jax.device_put(A, ja), jax.device_put(B, jb)
    same_layout(
        mj.jit(lambda a, b: mnp.tanh(a @ b))(a, b), jax.jit(lambda a, b: jnp.tanh(a @ b))(ja_, jb_)
    )
    got = mj.jit(lambda a, b: (a @ b, a.sum()), out_shardings=(mo, both()[0]))(a, b)
    want = jax.jit(lambda a, b: (a @ b, a.sum()), out_shardings=(jo, both()[1]))(ja_, jb_)
    for g, w in zip(got, want, strict=True):
        same_layout(g, w)


@pytest.mark.parametrize("spec", [(("y", "x"),), (("x", "y"),), (("y", "x"), None), ("y", "x")])
def test_jit_output_keeps_its_arguments_spec_as_jax(spec):
    """XLA's layout of an elementwise result is its argument's; it reads back as the same
    NamedSharding (a dimension split over axes in either order included), as in JAX."""
    m, j = both(*spec)
    got = mj.jit(lambda a: mnp.tanh(a) * 2)(mj.device_put(A, m))
    want = jax.jit(lambda a: jnp.tanh(a) * 2)(jax.device_put(A, j))
    same_layout(got, want)


@pytest.mark.parametrize("spec", [("x", "y"), ("x",), (None, "y")])
def test_eager_reversal_keeps_the_layout_as_jax(spec):
    """Shardy lays out a reversed array as its operand (GSPMD reversed the device order)."""
    m, j = both(*spec)
    same_layout(mnp.flip(mj.device_put(A, m), 0), jnp.flip(jax.device_put(A, j), 0))


@pytest.mark.parametrize("spec", [("x", "y"), (None, "y"), ("y",), ()])
def test_with_sharding_constraint_as_jax(spec):
    ms, js = both(*spec)
    got = mj.jit(lambda a: mj.lax.with_sharding_constraint(mnp.sin(a) * 2, ms))(A)
    want = jax.jit(lambda a: jax.lax.with_sharding_constraint(jnp.sin(a) * 2, js))(A)
    same_layout(got, want)

    def mloss(a, b):
        return (mj.lax.with_sharding_constraint(a @ b, ms) ** 2).sum()

    def jloss(a, b):
        return (jax.lax.with_sharding_constraint(a @ b, js) ** 2).sum()

    close(mj.jit(mj.grad(mloss))(A, B), jax.jit(jax.grad(jloss))(A, B))


def m_psum_matmul(a, b):
    return mj.lax.psum(a @ b, "x")


def j_psum_matmul(a, b):
    return jax.lax.psum(a @ b, "x")


M_SM = mj.shard_map(m_psum_matmul, mesh=MESH, in_specs=(P(None, "x"), P("x", None)), out_specs=P())
J_SM = jax.shard_map(
    j_psum_matmul, mesh=JMESH, in_specs=(JP(None, "x"), JP("x", None)), out_specs=JP()
)


def test_shard_map_psum_of_matmul_as_jax():
    same_layout(mj.jit(M_SM)(A, B), jax.jit(J_SM)(A, B))
    close(M_SM(A, B), J_SM(A, B))
    blocks_m = mj.shard_map(
        lambda a: a * mj.lax.axis_index("x") + mj.lax.psum(a, "y"),
        mesh=MESH,
        in_specs=P("x", "y"),
        out_specs=P("x", "y"),
    )
    blocks_j = jax.shard_map(
        lambda a: a * jax.lax.axis_index("x") + jax.lax.psum(a, "y"),
        mesh=JMESH,
        in_specs=JP("x", "y"),
        out_specs=JP("x", "y"),
    )
    same_layout(mj.jit(blocks_m)(A), jax.jit(blocks_j)(A))


def test_grad_of_shard_map_psum_of_matmul_as_jax():
    def mloss(a, b):
        return (mnp.tanh(M_SM(a, b)) ** 2).sum()

    def jloss(a, b):
        return (jnp.tanh(J_SM(a, b)) ** 2).sum()

    got = mj.jit(mj.grad(mloss, argnums=(0, 1)))(A, B)
    want = jax.jit(jax.grad(jloss, argnums=(0, 1)))(A, B)
    for g, w in zip(got, want, strict=True):
        close(g, w)
    eager = mj.grad(mloss, argnums=(0, 1))(A, B)
    for g, w in zip(eager, want, strict=True):
        close(g, w)
    m_jitted = mj.jit(M_SM)  # grad outside jit: the shard_map is split inside the jaxpr
    outside = mj.grad(lambda a, b: (mnp.tanh(m_jitted(a, b)) ** 2).sum(), argnums=(0, 1))(A, B)
    for g, w in zip(outside, want, strict=True):
        close(g, w)


def test_vmap_of_shard_map_as_jax():
    batch = np.stack([A, 2 * A, -A])
    got = mj.jit(mj.vmap(M_SM, in_axes=(0, None)))(batch, B)
    want = jax.jit(jax.vmap(J_SM, in_axes=(0, None)))(batch, B)
    close(got, want)
    assert got.sharding.spec == P()
    assert want.sharding.spec == JP()


@pytest.mark.parametrize("spec", [("x", "y"), ("x",), (None, "y")])
def test_host_arguments_take_the_layout_xla_picks_as_jax(spec):
    ms, js = both(*spec)
    a, ja = mj.device_put(A, ms), jax.device_put(A, js)
    same_layout(mj.jit(lambda a, b: a @ b)(a, B), jax.jit(lambda a, b: a @ b)(ja, B))
    same_layout(mj.jit(lambda a, c: a * c)(a, 2 * A), jax.jit(lambda a, c: a * c)(ja, 2 * A))
    text = mj.jit(lambda a, b: a @ b).lower(a, B).as_text()
    assert text.count("sdy.sharding =") == 1  # the sharded argument only: XLA picks the rest


# --- shard_map's replication check (check_vma) ------------------------------------------------

MESH3 = Mesh(np.array(mj.devices()).reshape(2, 2, 2), ("a", "b", "c"))
JMESH3 = JMesh(np.array(jax.devices()).reshape(2, 2, 2), ("a", "b", "c"))


def _ring(n):
    return [(i, (i + 1) % n) for i in range(n)]


# name -> (body over a module (mj or jax), mesh index (0: 4x2, 1: 2x2x2), in_specs, out_specs)
VMA_CASES = {
    "identity_claimed_replicated": (lambda m: lambda a: a, 0, ("x",), ()),
    "psum_makes_replicated": (lambda m: lambda a: m.lax.psum(a, "x"), 0, ("x",), ()),
    "pmax_makes_replicated": (lambda m: lambda a: m.lax.pmax(a, "x"), 0, ("x",), ()),
    "pmean_makes_replicated": (lambda m: lambda a: m.lax.pmean(a, "x"), 0, ("x",), ()),
    "psum_over_the_other_axis": (lambda m: lambda a: m.lax.psum(a, "y"), 0, ("x", "y"), ()),
    "one_unmentioned_axis": (lambda m: lambda a: a, 0, ("x", "y"), ("x",)),
    "axis_index_varies": (lambda m: lambda a: a * m.lax.axis_index("y"), 0, ("x",), ("x",)),
    "replicated_input": (lambda m: lambda a: a * 2, 0, (), ()),
    "all_gather_stays_varying": (
        lambda m: lambda a: m.lax.all_gather(a, "x", tiled=True),
        0,
        ("x",),
        (),
    ),
    "ppermute_varies": (lambda m: lambda a: m.lax.ppermute(a, "x", _ring(4)), 0, (), ()),
    "psum_scatter_varies": (
        lambda m: lambda a: m.lax.psum_scatter(a, "x", tiled=True),
        0,
        (),
        (),
    ),
    "cond_of_psums": (
        # an index typed as varying (but equal on every device: branches with collectives
        # must not diverge) does not make the result varying
        lambda m: (
            lambda a: m.lax.cond(
                (a * 0).sum() >= 0, lambda: m.lax.psum(a, "x"), lambda: 2 * m.lax.psum(a, "x")
            )
        ),
        0,
        ("x",),
        (),
    ),
    "while_carry_varies": (
        lambda m: (
            lambda a: m.lax.while_loop(
                lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] + 1.0), (0, a.sum())
            )[1]
        ),
        0,
        ("x",),
        (),
    ),
    "jit_inside": (lambda m: m.jit(lambda a: m.lax.psum(a, "x")), 0, ("x",), ()),
    "relu_of_psum": (lambda m: lambda a: m.nn.relu(m.lax.psum(a, "x")), 0, ("x",), ()),
    "constant_output": (lambda m: lambda a: m.numpy.ones(3), 0, ("x",), ()),
    "three_axes_two_unmentioned": (lambda m: lambda a: a, 1, ("c", "a"), ("b",)),
    "three_axes_one_psummed": (lambda m: lambda a: m.lax.psum(a, "a"), 1, ("c", "a"), ("b",)),
    "three_axes_both_psummed": (
        lambda m: lambda a: m.lax.psum(a, ("c", "a")),
        1,
        ("c", "a"),
        ("b",),
    ),
}


def _outcome(call):
    try:
        return "ok", np.asarray(call())
    except ValueError as e:
        return "refused", str(e)


@pytest.mark.parametrize("name", VMA_CASES)
def test_shard_map_replication_check_as_jax(name):
    body, which, in_spec, out_spec = VMA_CASES[name]
    mesh, jmesh = (MESH, JMESH) if which == 0 else (MESH3, JMESH3)
    m_sm = mj.shard_map(body(mj), mesh=mesh, in_specs=P(*in_spec), out_specs=P(*out_spec))
    j_sm = jax.shard_map(body(jax), mesh=jmesh, in_specs=JP(*in_spec), out_specs=JP(*out_spec))
    got, want = _outcome(lambda: mj.jit(m_sm)(A)), _outcome(lambda: jax.jit(j_sm)(A))
    assert got[0] == want[0], (got, want)
    if want[0] == "refused":
        assert got[1] == want[1]
    else:
        close(got[1], want[1])
    # outside jit too (JAX names its own wrapper there, mj the function)
    eager = _outcome(lambda: m_sm(A))
    assert eager[0] == want[0]
    if want[0] == "refused":
        assert eager[1].split("\n\n")[1:] == want[1].split("\n\n")[1:]


PAIR = lambda m: lambda a: (a, a)  # noqa: E731
OUT_PATH_CASES = {
    "second_of_two": (PAIR, (("x", "y"), ("y",))),
    "both_of_two": (PAIR, (("x",), ("y",))),
    "one_spec_for_two": (PAIR, ("x",)),
    "dict_entry": (lambda m: lambda a: {"u": a, "v": a}, {"u": ("x",), "v": ("x", "y")}),
}


def _spec_tree(p, tree):
    if isinstance(tree, dict):
        return {k: p(*v) for k, v in tree.items()}
    if tree and isinstance(tree[0], tuple):
        return tuple(p(*v) for v in tree)
    return p(*tree)


@pytest.mark.parametrize("name", OUT_PATH_CASES)
def test_shard_map_refusal_names_out_spec_paths_as_jax(name):
    body, specs = OUT_PATH_CASES[name]
    m_sm = mj.shard_map(body(mj), mesh=MESH, in_specs=P("x", "y"), out_specs=_spec_tree(P, specs))
    j_sm = jax.shard_map(
        body(jax), mesh=JMESH, in_specs=JP("x", "y"), out_specs=_spec_tree(JP, specs)
    )
    got, want = _outcome(lambda: mj.jit(m_sm)(A)), _outcome(lambda: jax.jit(j_sm)(A))
    assert want[0] == "refused"
    assert got == want


@pytest.mark.parametrize("old_api", [False, True])
def test_shard_map_check_off_accepts_as_jax(old_api):
    """Equal on every device, though not provably so: refused unless the check is off."""
    if old_api:
        from jax.experimental.shard_map import shard_map as jsm

        from mj.experimental.shard_map import shard_map as msm

        m_sm = msm(lambda a: a * 0 + 2, MESH, P("x"), P(), check_rep=False)
        j_sm = jsm(lambda a: a * 0 + 2, JMESH, JP("x"), JP(), check_rep=False)
        refused = msm(lambda a: a * 0 + 2, MESH, P("x"), P())
        with pytest.raises(ValueError, match="check_vma=False"):
            refused(A)
    else:
        m_sm = mj.shard_map(
            lambda a: a * 0 + 2, mesh=MESH, in_specs=P("x"), out_specs=P(), check_vma=False
        )
        j_sm = jax.shard_map(
            lambda a: a * 0 + 2, mesh=JMESH, in_specs=JP("x"), out_specs=JP(), check_vma=False
        )
    same_layout(mj.jit(m_sm)(A), jax.jit(j_sm)(A))


# --- eager operations on sharded arrays: compiled over the devices, results stay sharded ------

EAGER_OPS = {
    "add_scalar": (lambda m, x: x + 1),
    "sin": (lambda m, x: m.numpy.sin(x)),
    "square": (lambda m, x: x * x),
    "times_host": (lambda m, x: x * A),
    "sum": (lambda m, x: x.sum()),
    "sum_rows": (lambda m, x: x.sum(0)),
    "transpose": (lambda m, x: x.T),
    "matmul_host": (lambda m, x: x @ A.T),
    "reshape": (lambda m, x: x.reshape(4, 8)),
    # (not x[0]: JAX compiles indexing as one program, mj runs its slice and squeeze one by
    # one, and XLA lays out the 1-row slice of a P('x', 'y') array differently)
    "grad": (lambda m, x: m.grad(lambda v: (v**2).sum())(x)),
}


@pytest.mark.parametrize("spec", [("x",), ("x", "y"), (None, "y"), ()])
@pytest.mark.parametrize("op", EAGER_OPS)
def test_eager_ops_on_sharded_arrays_keep_jax_sharding(op, spec):
    """Same values and printed sharding as JAX's eager result, on the 4x2 mesh."""
    ms, js = both(*spec)
    got = EAGER_OPS[op](mj, mj.device_put(A, ms))
    want = EAGER_OPS[op](jax, jax.device_put(A, js))
    same_layout(got, want)


GROUPS = [[0, 1], [2, 3]]
GROUPED = {
    "psum": lambda m, a: m.lax.psum(a, "x", axis_index_groups=GROUPS),
    "pmax": lambda m, a: m.lax.pmax(a, "x", axis_index_groups=GROUPS),
    "all_gather": lambda m, a: m.lax.all_gather(a, "x", axis_index_groups=GROUPS, tiled=True),
}


@pytest.mark.parametrize("check", [True, False])
@pytest.mark.parametrize("op", GROUPED)
def test_shard_map_axis_index_groups_as_jax(op, check):
    """Within each group of ``x`` indices; a checked psum refuses groups, as JAX's does."""
    m_sm = mj.shard_map(
        lambda a: GROUPED[op](mj, a), mesh=MESH, in_specs=P("x"), out_specs=P("x"), check_vma=check
    )
    j_sm = jax.shard_map(
        lambda a: GROUPED[op](jax, a),
        mesh=JMESH,
        in_specs=JP("x"),
        out_specs=JP("x"),
        check_vma=check,
    )
    if op == "psum" and check:
        with pytest.raises(NotImplementedError):
            jax.jit(j_sm)(A)
        with pytest.raises(NotImplementedError, match="check_vma=False"):
            mj.jit(m_sm)(A)
        return
    same_layout(mj.jit(m_sm)(A), jax.jit(j_sm)(A))


# --- reshard and set_mesh (JAX's spmd_mnist_classifier_fromscratch example) ----------------
EMESH = mj.make_mesh((4, 2), ("x", "y"))  # Explicit axes, as jax.make_mesh's default
JEMESH = jax.make_mesh((4, 2), ("x", "y"))


@pytest.mark.parametrize("spec", [("x",), ("x", "y"), (None, "y"), ()])
def test_reshard_lays_host_and_device_arrays_out_as_jax(spec):
    want = jax.sharding.reshard(A, JNamed(JEMESH, JP(*spec)))
    same_layout(mj.sharding.reshard(A, NamedSharding(EMESH, P(*spec))), want)
    moved = mj.device_put(A, NamedSharding(EMESH, P("y")))
    same_layout(mj.sharding.reshard(moved, NamedSharding(EMESH, P(*spec))), want)


def test_reshard_takes_a_partition_spec_of_the_mesh_set_mesh_sets():
    with jax.set_mesh(JEMESH):
        want = jax.sharding.reshard({"a": A, "b": [B]}, {"a": JP("x"), "b": JP(None, "y")})
    with mj.set_mesh(EMESH) as mesh:
        assert mesh is EMESH
        got = mj.sharding.reshard({"a": A, "b": [B]}, {"a": P("x"), "b": P(None, "y")})
    same_layout(got["a"], want["a"])
    same_layout(got["b"][0], want["b"][0])
    with pytest.raises(ValueError, match="needs a mesh"):  # the with block restored None
        mj.sharding.reshard(A, P("x"))


def test_set_mesh_called_sets_the_mesh_until_the_next_call():
    want = jax.sharding.reshard(A, JNamed(JEMESH, JP("y")))
    mj.set_mesh(EMESH)
    try:
        same_layout(mj.sharding.reshard(A, P("y")), want)
    finally:
        mj.set_mesh(None)
    with pytest.raises(ValueError, match="needs a mesh"):
        mj.sharding.reshard(A, P("x"))


def test_reshard_inside_jit_constrains_the_value_as_jax():
    def f(x):
        return mj.sharding.reshard(x * 2, NamedSharding(EMESH, P("x"))) + 1

    def g(x):
        return jax.sharding.reshard(x * 2, JNamed(JEMESH, JP("x"))) + 1

    x = mj.device_put(A, NamedSharding(EMESH, P()))
    text = mj.jit(f).lower(x).as_text()
    assert "sdy.sharding_constraint" in text or "@Sharding" in text  # (Shardy or GSPMD)
    with jax.set_mesh(JEMESH):
        want = jax.jit(g)(jax.device_put(A, JNamed(JEMESH, JP())))
    close(mj.jit(f)(x), want)


# --- the PRNG hash (a private function called at each use) in sharded programs -------------
def test_random_bits_in_a_sharded_jit_and_inside_shard_map_as_jax():
    def sample(lib, random, key, x):
        return x + random.normal(key, x.shape, lib.numpy.float32), random.bits(key, (8, 4))

    mkey, jkey = mj.random.PRNGKey(5), jax.random.PRNGKey(5)
    m_shard, j_shard = both("x", "y")
    m_x, j_x = mj.device_put(A, m_shard), jax.device_put(A, j_shard)
    got = mj.jit(lambda k, x: sample(mj, mj.random, k, x))(mkey, m_x)
    want = jax.jit(lambda k, x: sample(jax, jax.random, k, x))(jkey, j_x)
    close(got[0], want[0])
    np.testing.assert_array_equal(np.asarray(got[1]), np.asarray(want[1]))

    def per_block(lib, random):
        def body(key, a):
            key = random.fold_in(key, lib.lax.axis_index("x") * 2 + lib.lax.axis_index("y"))
            return a + random.uniform(key, a.shape, lib.numpy.float32)

        return body

    m_sm = mj.shard_map(
        per_block(mj, mj.random), mesh=MESH, in_specs=(P(), P("x", "y")), out_specs=P("x", "y")
    )
    j_sm = jax.shard_map(
        per_block(jax, jax.random),
        mesh=JMESH,
        in_specs=(JP(), JP("x", "y")),
        out_specs=JP("x", "y"),
    )
    same_layout(mj.jit(m_sm)(mkey, A), jax.jit(j_sm)(jkey, A))
