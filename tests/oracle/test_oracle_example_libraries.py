"""mj.example_libraries against jax.example_libraries (JAX 0.10.2, x64 mode): stax gives the
same output shapes, the same parameters for the same PRNG key and the same outputs; the
optimizers give the same numbers for the same steps (eagerly and under jit)."""

import jax
import numpy as np
import pytest
from jax.example_libraries import optimizers as jopt
from jax.example_libraries import stax as jstax

import mj
from mj.example_libraries import optimizers as mopt
from mj.example_libraries import stax as mstax

jax.config.update("jax_enable_x64", True)

pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(11)


def assert_trees_close(ours, theirs, tol=1e-12):
    ours_leaves, ours_tree = mj.tree_util.tree_flatten(ours)
    theirs_leaves = jax.tree_util.tree_leaves(theirs)
    assert len(ours_leaves) == len(theirs_leaves), (ours_tree, jax.tree_util.tree_structure(theirs))
    for a, b in zip(ours_leaves, theirs_leaves, strict=True):
        assert np.shape(a) == np.shape(b)
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


def shape_tuple(shape):
    """Shapes as plain int tuples (JAX's shape arithmetic returns NumPy ints)."""
    if isinstance(shape, (list, tuple)) and shape and isinstance(shape[0], (list, tuple)):
        return [shape_tuple(s) for s in shape]
    return tuple(int(d) for d in shape)


# (name, builder taking the stax module, input shape)
NETS = [
    ("dense", lambda lib: lib.serial(lib.Dense(7), lib.Relu, lib.Dense(3), lib.LogSoftmax), (4, 5)),
    (
        "conv",
        lambda lib: lib.serial(
            lib.Conv(4, (3, 3), padding="SAME"),
            lib.BatchNorm(),
            lib.Relu,
            lib.MaxPool((2, 2), strides=(2, 2)),
            lib.Conv(3, (2, 2), strides=(2, 1)),
            lib.AvgPool((2, 2), padding="SAME"),
            lib.SumPool((1, 2)),
            lib.Flatten,
            lib.Dense(5),
            lib.Softmax,
        ),
        (3, 9, 10, 2),
    ),
    (
        "general_conv",
        lambda lib: lib.serial(
            lib.GeneralConv(("NCHW", "OIHW", "NHWC"), 3, (2, 3), padding=((1, 0), (2, 1))),
            lib.MaxPool((2, 2), spec="NHWC", padding="SAME"),
            lib.Tanh,
        ),
        (2, 4, 6, 5),
    ),
    (
        "pool_nchw",
        lambda lib: lib.serial(
            lib.AvgPool((2, 3), strides=(1, 2), spec="NCHW", padding="SAME"),
            lib.MaxPool((3, 2), spec="NCHW"),
        ),
        (2, 4, 7, 6),
    ),
    (
        "conv_transpose",
        lambda lib: lib.serial(
            lib.ConvTranspose(3, (3, 3), strides=(2, 2), padding="SAME"),
            lib.Elu,
            lib.ConvTranspose(2, (2, 3), strides=(1, 2)),
            lib.Sigmoid,
        ),
        (2, 5, 4, 3),
    ),
    (
        "conv1d_transpose",
        lambda lib: lib.serial(
            lib.Conv1DTranspose(4, (3,), strides=(2,)),
            lib.Gelu,
            lib.Conv1DTranspose(2, (4,), strides=(3,), padding="SAME"),
            lib.Selu,
        ),
        (2, 5, 3),
    ),
    (
        "residual",
        lambda lib: lib.serial(
            lib.Dense(6),
            lib.FanOut(3),
            lib.parallel(lib.serial(lib.Dense(6), lib.Softplus), lib.Identity, lib.LeakyRelu),
            lib.FanInSum,
            lib.FanOut(2),
            lib.parallel(lib.Dense(2), lib.Exp),
            lib.FanInConcat(),
            lib.BatchNorm(axis=0, center=False),
        ),
        (4, 5),
    ),
    (
        "shape_dependent",
        lambda lib: lib.serial(
            lib.shape_dependent(lambda shape: lib.Dense(2 * shape[-1])), lib.Dense(3)
        ),
        (4, 5),
    ),
    ("dropout", lambda lib: lib.serial(lib.Dense(20), lib.Dropout(0.6), lib.Dense(3)), (4, 5)),
]


@pytest.mark.parametrize(("name", "build", "shape"), NETS, ids=[n[0] for n in NETS])
def test_stax_same_key_same_params_and_outputs(name, build, shape):
    seed = 7
    j_init, j_apply = build(jstax)
    m_init, m_apply = build(mstax)
    j_shape, j_params = j_init(jax.random.PRNGKey(seed), shape)
    m_shape, m_params = m_init(mj.random.PRNGKey(seed), shape)
    assert shape_tuple(m_shape) == shape_tuple(j_shape)
    assert_trees_close(m_params, j_params)
    # with an unknown batch size (-1) the shape arithmetic agrees too
    j_any, _ = j_init(jax.random.PRNGKey(seed), (-1, *shape[1:]))
    m_any, _ = m_init(mj.random.PRNGKey(seed), (-1, *shape[1:]))
    assert shape_tuple(m_any) == shape_tuple(j_any)
    x = RNG.normal(size=shape)
    j_out = j_apply(j_params, x, rng=jax.random.PRNGKey(seed + 1))
    m_out = m_apply(m_params, x, rng=mj.random.PRNGKey(seed + 1))
    np.testing.assert_allclose(np.asarray(m_out), np.asarray(j_out), rtol=1e-10, atol=1e-12)
    m_jit = mj.jit(lambda p, x, r: m_apply(p, x, rng=r))(m_params, x, mj.random.PRNGKey(seed + 1))
    np.testing.assert_allclose(np.asarray(m_jit), np.asarray(j_out), rtol=1e-10, atol=1e-12)


def test_stax_grads_match():
    build = NETS[1][1]
    j_init, j_apply = build(jstax)
    m_init, m_apply = build(mstax)
    _, j_params = j_init(jax.random.PRNGKey(3), (3, 9, 10, 2))
    _, m_params = m_init(mj.random.PRNGKey(3), (3, 9, 10, 2))
    x = RNG.normal(size=(3, 9, 10, 2))
    targets = np.eye(5)[[0, 2, 4]]
    j_grads = jax.grad(lambda p: -(j_apply(p, x) * targets).sum())(j_params)
    m_grads = mj.grad(lambda p: -(m_apply(p, x) * targets).sum())(m_params)
    assert_trees_close(m_grads, j_grads, 1e-9)


PARAMS = {"w": RNG.normal(size=(3, 4)), "b": RNG.normal(size=(4,)), "s": np.array(0.7)}
GRADS = [{k: RNG.normal(size=np.shape(v)) for k, v in PARAMS.items()} for _ in range(5)]

OPTIMIZERS = [
    ("sgd", (0.1,)),
    ("sgd", (lambda i: 0.1 / (1 + i),)),
    ("momentum", (0.1, 0.9)),
    ("nesterov", (0.1, 0.9)),
    ("adagrad", (0.1,)),
    ("adagrad", (0.1, 0.3)),
    ("rmsprop", (0.1,)),
    ("rmsprop", (0.05, 0.8, 1e-4)),
    ("rmsprop_momentum", (0.1,)),
    ("adam", (0.1,)),
    ("adam", (0.01, 0.5, 0.9, 1e-6)),
    ("adamax", (0.1,)),
    ("sm3", (0.1,)),
    ("sm3", (0.1, 0.5)),
]


@pytest.mark.parametrize(("name", "args"), OPTIMIZERS, ids=[o[0] for o in OPTIMIZERS])
def test_optimizer_same_steps_same_numbers(name, args):
    j_init, j_update, j_get = getattr(jopt, name)(*args)
    m_init, m_update, m_get = getattr(mopt, name)(*args)
    j_state, m_state = j_init(PARAMS), m_init(PARAMS)
    for i, g in enumerate(GRADS):
        j_state = j_update(i, g, j_state)
        m_state = m_update(i, g, m_state)
    assert_trees_close(m_get(m_state), j_get(j_state))
    assert_trees_close(m_state.packed_state, j_state.packed_state)
    j_marked = jopt.unpack_optimizer_state(j_state)
    m_marked = mopt.unpack_optimizer_state(m_state)
    for k in PARAMS:
        assert_trees_close(m_marked[k].subtree, j_marked[k].subtree)


@pytest.mark.parametrize(
    ("name", "args"), [o for o in OPTIMIZERS if o[0] != "sm3"], ids=lambda v: str(v)[:12]
)
def test_optimizer_jit_matches_jax_jit(name, args):
    j_init, j_update, j_get = getattr(jopt, name)(*args)
    m_init, m_update, m_get = getattr(mopt, name)(*args)
    j_step, m_step = jax.jit(j_update), mj.jit(m_update)
    j_state, m_state = j_init(PARAMS), m_init(PARAMS)
    for i, g in enumerate(GRADS):
        j_state = j_step(i, g, j_state)
        m_state = m_step(i, g, m_state)
    assert_trees_close(m_get(m_state), j_get(j_state))


SCHEDULES = [
    ("constant", (0.3,)),
    ("exponential_decay", (0.1, 3, 0.5)),
    ("inverse_time_decay", (0.1, 3, 0.5)),
    ("inverse_time_decay", (0.1, 3, 0.5, True)),
    ("polynomial_decay", (0.1, 5, 0.01)),
    ("polynomial_decay", (0.1, 5, 0.01, 2.0)),
    ("piecewise_constant", ([2, 5], [1.0, 0.1, 0.01])),
]


@pytest.mark.parametrize(("name", "args"), SCHEDULES, ids=[s[0] for s in SCHEDULES])
def test_schedules_match(name, args):
    j_schedule = getattr(jopt, name)(*args)
    m_schedule = getattr(mopt, name)(*args)
    for i in range(10):
        np.testing.assert_allclose(float(m_schedule(i)), float(j_schedule(i)), rtol=1e-15)


def test_norm_and_clipping_match():
    np.testing.assert_allclose(float(mopt.l2_norm(PARAMS)), float(jopt.l2_norm(PARAMS)), 1e-15)
    for max_norm in (0.5, 100.0):
        assert_trees_close(mopt.clip_grads(PARAMS, max_norm), jopt.clip_grads(PARAMS, max_norm))
