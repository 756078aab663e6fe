"""mj.example_libraries.optimizers: every optimizer against a NumPy transcription of its update
rule, schedules against their closed forms, the OptimizerState pytree, serialization, and
jit == eager."""

import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj.example_libraries import optimizers

RNG = np.random.default_rng(1)
PARAMS = {"w": RNG.normal(size=(3, 4)), "b": RNG.normal(size=(4,)), "s": np.array(0.7)}
GRADS = [{k: RNG.normal(size=np.shape(v)) for k, v in PARAMS.items()} for _ in range(4)]


def close(a, b, tol=1e-10):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


# --- NumPy references: one leaf, one step ---------------------------------------------------


def np_sgd(lr):
    return (lambda x: x), lambda i, g, x: x - lr * g, lambda x: x


def np_momentum(lr, mass, nesterov=False):
    def update(i, g, state):
        x, v = state
        v = mass * v + g
        step = mass * v + g if nesterov else v
        return x - lr * step, v

    return (lambda x: (x, np.zeros_like(x))), update, lambda s: s[0]


def np_adagrad(lr, momentum=0.9):
    def update(i, g, state):
        x, g_sq, m = state
        g_sq = g_sq + g**2
        inv = np.where(g_sq > 0, 1 / np.sqrt(np.where(g_sq > 0, g_sq, 1)), 0)
        m = (1 - momentum) * g * inv + momentum * m
        return x - lr * m, g_sq, m

    return (lambda x: (x, np.zeros_like(x), np.zeros_like(x))), update, lambda s: s[0]


def np_rmsprop(lr, gamma=0.9, eps=1e-8):
    def update(i, g, state):
        x, avg = state
        avg = gamma * avg + (1 - gamma) * g**2
        return x - lr * g / np.sqrt(avg + eps), avg

    return (lambda x: (x, np.zeros_like(x))), update, lambda s: s[0]


def np_rmsprop_momentum(lr, gamma=0.9, eps=1e-8, momentum=0.9):
    def update(i, g, state):
        x, avg, mom = state
        avg = gamma * avg + (1 - gamma) * g**2
        mom = momentum * mom + lr * g / np.sqrt(avg + eps)
        return x - mom, avg, mom

    return (lambda x: (x, np.zeros_like(x), np.zeros_like(x))), update, lambda s: s[0]


def np_adam(lr, b1=0.9, b2=0.999, eps=1e-8):
    def update(i, g, state):
        x, m, v = state
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * g**2 + b2 * v
        mhat = m / (1 - b1 ** (i + 1))
        vhat = v / (1 - b2 ** (i + 1))
        return x - lr * mhat / (np.sqrt(vhat) + eps), m, v

    return (lambda x: (x, np.zeros_like(x), np.zeros_like(x))), update, lambda s: s[0]


def np_adamax(lr, b1=0.9, b2=0.999, eps=1e-8):
    def update(i, g, state):
        x, m, u = state
        m = (1 - b1) * g + b1 * m
        u = np.maximum(b2 * u, np.abs(g))
        return x - lr / (1 - b1 ** (i + 1)) * m / (u + eps), m, u

    return (lambda x: (x, np.zeros_like(x), np.zeros_like(x))), update, lambda s: s[0]


def np_sm3(lr, momentum=0.9):
    """SM3: one accumulator per axis; the per-element accumulator is the minimum over the
    axes' accumulators plus g^2, and each axis keeps the maximum over its slices."""

    def init(x):
        x1 = np.atleast_1d(x)
        return x1, np.zeros_like(x1), [np.zeros(n) for n in x1.shape], np.shape(x)

    def update(i, g, state):
        x, m, vs, shape = state
        g = np.asarray(g)
        expanded = []
        for axis, v in enumerate(vs):
            idx = [None] * g.ndim
            idx[axis : axis + 1] = [slice(None)]
            expanded.append(v[tuple(idx)])
        accum = np.minimum.reduce(np.broadcast_arrays(*expanded)) + g**2
        inv = np.where(accum > 0, 1 / np.sqrt(np.where(accum > 0, accum, 1)), 0)
        m = (1 - momentum) * g * inv + momentum * m
        x = x - lr * m
        vs = [accum.max(axis=tuple(a for a in range(x.ndim) if a != j)) for j in range(x.ndim)]
        return x, m, vs, shape

    return init, update, lambda s: s[0].reshape(s[3])


CASES = [
    ("sgd", (0.1,), np_sgd(0.1)),
    ("momentum", (0.1, 0.9), np_momentum(0.1, 0.9)),
    ("nesterov", (0.1, 0.9), np_momentum(0.1, 0.9, nesterov=True)),
    ("adagrad", (0.1,), np_adagrad(0.1)),
    ("adagrad", (0.1, 0.5), np_adagrad(0.1, 0.5)),
    ("rmsprop", (0.1,), np_rmsprop(0.1)),
    ("rmsprop", (0.1, 0.8, 1e-3), np_rmsprop(0.1, 0.8, 1e-3)),
    ("rmsprop_momentum", (0.1,), np_rmsprop_momentum(0.1)),
    ("adam", (0.1,), np_adam(0.1)),
    ("adam", (0.05, 0.5, 0.9, 1e-4), np_adam(0.05, 0.5, 0.9, 1e-4)),
    ("adamax", (0.1,), np_adamax(0.1)),
    ("sm3", (0.1,), np_sm3(0.1)),
]


@pytest.mark.parametrize(("name", "args", "reference"), CASES, ids=[c[0] for c in CASES])
def test_steps_match_numpy(name, args, reference):
    init_fun, update_fun, get_params = getattr(optimizers, name)(*args)
    np_init, np_update, np_get = reference
    state = init_fun(PARAMS)
    np_states = {k: np_init(np.asarray(v)) for k, v in PARAMS.items()}
    for i, grads in enumerate(GRADS):
        state = update_fun(i, grads, state)
        np_states = {k: np_update(i, grads[k], s) for k, s in np_states.items()}
    params = get_params(state)
    assert set(params) == set(PARAMS)
    for k, s in np_states.items():
        assert np.shape(params[k]) == np.shape(PARAMS[k])
        close(params[k], np_get(s))


@pytest.mark.parametrize(
    ("name", "args"), [(c[0], c[1]) for c in CASES if c[0] != "sm3"], ids=lambda v: str(v)
)
def test_jit_equals_eager(name, args):
    init_fun, update_fun, get_params = getattr(optimizers, name)(*args)
    eager = jitted = init_fun(PARAMS)
    step = mj.jit(update_fun)
    for i, grads in enumerate(GRADS):
        eager = update_fun(i, grads, eager)
        jitted = step(i, grads, jitted)
    for k in PARAMS:
        close(get_params(jitted)[k], get_params(eager)[k], 1e-12)


def test_params_roundtrip_and_schedules_as_step_size():
    for name, args, _ in CASES:
        init_fun, _, get_params = getattr(optimizers, name)(*args)
        params = get_params(init_fun(PARAMS))
        for k, v in PARAMS.items():
            close(params[k], v, 0)
    schedule = optimizers.exponential_decay(0.1, 2, 0.5)
    init_fun, update_fun, get_params = optimizers.sgd(schedule)
    state = init_fun(PARAMS)
    expected = {k: np.asarray(v) for k, v in PARAMS.items()}
    for i, grads in enumerate(GRADS):
        state = update_fun(i, grads, state)
        expected = {k: v - 0.1 * 0.5 ** (i / 2) * grads[k] for k, v in expected.items()}
    for k in PARAMS:
        close(get_params(state)[k], expected[k])


def test_minimizes_a_quadratic():
    target = np.array([1.0, -2.0, 3.0])

    def loss(p):
        return mnp.sum((p["x"] - target) ** 2)

    init_fun, update_fun, get_params = optimizers.adam(0.1)
    state = init_fun({"x": mnp.zeros(3)})

    @mj.jit
    def step(i, state):
        return update_fun(i, mj.grad(loss)(get_params(state)), state)

    for i in range(300):
        state = step(i, state)
    close(get_params(state)["x"], target, 1e-3)


# --- schedules ------------------------------------------------------------------------------


def test_schedules_closed_forms():
    steps = np.arange(12)
    const = optimizers.constant(0.3)
    assert [const(i) for i in steps] == [0.3] * 12
    close([optimizers.exponential_decay(0.1, 3, 0.5)(i) for i in steps], 0.1 * 0.5 ** (steps / 3))
    close(
        [optimizers.inverse_time_decay(0.1, 3, 0.5)(i) for i in steps],
        0.1 / (1 + 0.5 * steps / 3),
    )
    close(
        [optimizers.inverse_time_decay(0.1, 3, 0.5, staircase=True)(i) for i in steps],
        0.1 / (1 + 0.5 * np.floor(steps / 3)),
    )
    expected = (1 - np.minimum(steps, 5) / 5) ** 2 * (0.1 - 0.01) + 0.01
    close([optimizers.polynomial_decay(0.1, 5, 0.01, 2.0)(i) for i in steps], expected)
    schedule = optimizers.piecewise_constant([2, 5], [1.0, 0.1, 0.01])
    close([schedule(i) for i in steps], [1.0] * 3 + [0.1] * 3 + [0.01] * 6)
    jitted = mj.jit(schedule)
    close([jitted(i) for i in steps], [1.0] * 3 + [0.1] * 3 + [0.01] * 6)
    with pytest.raises(ValueError, match="one shorter"):
        optimizers.piecewise_constant([1, 2], [1.0, 2.0])
    with pytest.raises(ValueError, match="must be sequences"):
        optimizers.piecewise_constant(1, [1.0, 2.0])
    assert optimizers.make_schedule(schedule) is schedule
    assert optimizers.make_schedule(0.5)(7) == 0.5
    with pytest.raises(TypeError):
        optimizers.make_schedule([0.1, 0.2])


# --- utilities ------------------------------------------------------------------------------


def test_l2_norm_and_clip_grads():
    leaves = [np.asarray(v) for v in PARAMS.values()]
    norm = np.sqrt(sum(np.sum(v**2) for v in leaves))
    close(optimizers.l2_norm(PARAMS), norm)
    clipped = optimizers.clip_grads(PARAMS, 1.0)
    close(optimizers.l2_norm(clipped), 1.0)
    for k, v in PARAMS.items():
        close(clipped[k], np.asarray(v) / norm)
    unclipped = optimizers.clip_grads(PARAMS, 2 * norm)
    for k, v in PARAMS.items():
        close(unclipped[k], v)
    # the l2 norm is differentiable: its gradient is the unit vector
    grads = mj.grad(optimizers.l2_norm)(PARAMS)
    for k, v in PARAMS.items():
        close(grads[k], np.asarray(v) / norm)


# --- the state pytree and its serialization -------------------------------------------------


def test_optimizer_state_is_a_pytree():
    init_fun = optimizers.momentum(0.1, 0.9).init_fn
    state = init_fun(PARAMS)
    assert isinstance(state, optimizers.OptimizerState)
    leaves, tree = mj.tree_util.tree_flatten(state)
    assert len(leaves) == 2 * len(PARAMS)  # (x, velocity) per parameter
    rebuilt = mj.tree_util.tree_unflatten(tree, leaves)
    assert rebuilt.tree_def == state.tree_def
    assert rebuilt.subtree_defs == state.subtree_defs
    doubled = mj.tree_util.tree_map(lambda x: 2 * x, state)
    assert isinstance(doubled, optimizers.OptimizerState)
    close(doubled.packed_state[0][0], 2 * np.asarray(state.packed_state[0][0]))
    # states go through jit as arguments and results
    out = mj.jit(lambda s: s)(state)
    assert isinstance(out, optimizers.OptimizerState)
    assert isinstance(optimizers.Optimizer(*optimizers.sgd(0.1)), tuple)


def test_update_checks_the_gradient_structure():
    init_fun, update_fun, _ = optimizers.sgd(0.1)
    state = init_fun(PARAMS)
    with pytest.raises(TypeError, match="did not match the parameter tree structure"):
        update_fun(0, {"w": PARAMS["w"], "b": PARAMS["b"]}, state)


def test_pack_unpack_roundtrip():
    init_fun, update_fun, get_params = optimizers.adam(0.1)
    state = update_fun(0, GRADS[0], init_fun(PARAMS))
    marked = optimizers.unpack_optimizer_state(state)
    assert set(marked) == set(PARAMS)
    assert all(isinstance(v, optimizers.JoinPoint) for v in marked.values())
    x, m, v = marked["w"].subtree
    close(x, get_params(state)["w"])
    close(m, 0.1 * GRADS[0]["w"])  # Adam's first moment after one step
    close(v, 0.001 * GRADS[0]["w"] ** 2)
    assert list(marked["w"]) == [marked["w"].subtree]
    packed = optimizers.pack_optimizer_state(marked)
    assert packed.tree_def == state.tree_def
    assert packed.subtree_defs == state.subtree_defs
    for a, b in zip(mj.tree_util.tree_leaves(packed), mj.tree_util.tree_leaves(state), strict=True):
        close(a, b, 0)
    with pytest.raises(TypeError, match="JoinPoint"):
        optimizers.pack_optimizer_state({"w": 1.0})


def test_optimizer_decorator_on_a_custom_rule():
    @optimizers.optimizer
    def sign_sgd(step_size):
        def init(x0):
            return x0

        def update(i, g, x):
            return x - step_size * mnp.sign(g)

        def get_params(x):
            return x

        return init, update, get_params

    init_fun, update_fun, get_params = sign_sgd(0.5)
    state = update_fun(0, GRADS[0], init_fun(PARAMS))
    for k, v in PARAMS.items():
        close(get_params(state)[k], np.asarray(v) - 0.5 * np.sign(GRADS[0][k]))
    assert sign_sgd.__name__ == "sign_sgd"


def test_experimental_alias():
    from mj.experimental import optimizers as old

    assert old.adam is optimizers.adam
    assert old.OptimizerState is optimizers.OptimizerState
