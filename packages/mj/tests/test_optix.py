"""mj.experimental.optix: each gradient transformation against its closed form over a few
hand-computed steps, chains, states as pytrees, and jit == eager (JAX 0.10.2 no longer has
optix, so there is no oracle)."""

import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj.experimental import optix

RNG = np.random.default_rng(2)
PARAMS = {"w": RNG.normal(size=(2, 3)), "b": RNG.normal(size=(3,))}
GRADS = [{k: RNG.normal(size=v.shape) * 2 for k, v in PARAMS.items()} for _ in range(4)]


def close(a, b, tol=1e-10):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


def run(transform, grads=GRADS, jit=False):
    """The updates of each step, and the final state."""
    state = transform.init(PARAMS)
    update = mj.jit(transform.update) if jit else transform.update
    outs = []
    for g in grads:
        u, state = update(g, state)
        outs.append(u)
    return outs, state


def test_scale_and_clip():
    outs, state = run(optix.scale(-0.3))
    assert state == optix.ScaleState()
    for u, g in zip(outs, GRADS, strict=True):
        for k in PARAMS:
            close(u[k], -0.3 * g[k])
    outs, state = run(optix.clip(1.5))
    assert state == optix.ClipState()
    for u, g in zip(outs, GRADS, strict=True):
        for k in PARAMS:
            close(u[k], np.clip(g[k], -1.5, 1.5))


def test_clip_by_global_norm():
    for max_norm in (0.5, 100.0):
        outs, state = run(optix.clip_by_global_norm(max_norm))
        assert state == optix.ClipByGlobalNormState()
        for u, g in zip(outs, GRADS, strict=True):
            norm = np.sqrt(sum(np.sum(v**2) for v in g.values()))
            close(optix.global_norm(g), norm)
            factor = 1.0 if norm < max_norm else max_norm / norm
            for k in PARAMS:
                close(u[k], g[k] * factor)


@pytest.mark.parametrize("nesterov", [False, True])
def test_trace(nesterov):
    outs, state = run(optix.trace(decay=0.8, nesterov=nesterov))
    t = {k: np.zeros_like(v) for k, v in PARAMS.items()}
    for u, g in zip(outs, GRADS, strict=True):
        t = {k: g[k] + 0.8 * t[k] for k in PARAMS}
        for k in PARAMS:
            close(u[k], g[k] + 0.8 * t[k] if nesterov else t[k])
    assert isinstance(state, optix.TraceState)
    for k in PARAMS:
        close(state.trace[k], t[k])


def test_scale_by_rms_and_stddev():
    outs, state = run(optix.scale_by_rms(decay=0.7, eps=1e-4))
    nu = {k: np.zeros_like(v) for k, v in PARAMS.items()}
    for u, g in zip(outs, GRADS, strict=True):
        nu = {k: 0.3 * g[k] ** 2 + 0.7 * nu[k] for k in PARAMS}
        for k in PARAMS:
            close(u[k], g[k] / np.sqrt(nu[k] + 1e-4))
    close(state.nu["w"], nu["w"])
    outs, state = run(optix.scale_by_stddev(decay=0.7, eps=1e-4))
    mu = {k: np.zeros_like(v) for k, v in PARAMS.items()}
    nu = {k: np.zeros_like(v) for k, v in PARAMS.items()}
    for u, g in zip(outs, GRADS, strict=True):
        mu = {k: 0.3 * g[k] + 0.7 * mu[k] for k in PARAMS}
        nu = {k: 0.3 * g[k] ** 2 + 0.7 * nu[k] for k in PARAMS}
        for k in PARAMS:
            close(u[k], g[k] / np.sqrt(nu[k] - mu[k] ** 2 + 1e-4))
    assert isinstance(state, optix.ScaleByRStdDevState)
    close(state.mu["b"], mu["b"])


def test_scale_by_adam():
    outs, state = run(optix.scale_by_adam(b1=0.8, b2=0.9, eps=1e-6, eps_root=1e-5))
    mu = {k: np.zeros_like(v) for k, v in PARAMS.items()}
    nu = {k: np.zeros_like(v) for k, v in PARAMS.items()}
    for step, (u, g) in enumerate(zip(outs, GRADS, strict=True), start=1):
        mu = {k: 0.2 * g[k] + 0.8 * mu[k] for k in PARAMS}
        nu = {k: 0.1 * g[k] ** 2 + 0.9 * nu[k] for k in PARAMS}
        for k in PARAMS:
            m_hat = mu[k] / (1 - 0.8**step)
            v_hat = nu[k] / (1 - 0.9**step)
            close(u[k], m_hat / (np.sqrt(v_hat + 1e-5) + 1e-6))
    assert isinstance(state, optix.ScaleByAdamState)
    assert int(state.count) == len(GRADS)
    assert np.asarray(state.count).dtype == np.int32
    # the first Adam step of each element is lr-sized: m_hat / sqrt(v_hat) = sign(g)
    first, _ = run(optix.adam(0.01), GRADS[:1])
    for k in PARAMS:
        close(first[0][k], -0.01 * np.sign(GRADS[0][k]), 1e-8)


def test_scale_by_schedule():
    outs, state = run(optix.scale_by_schedule(lambda count: 0.5 / (1.0 + count)))
    for step, (u, g) in enumerate(zip(outs, GRADS, strict=True)):
        for k in PARAMS:
            close(u[k], 0.5 / (1 + step) * g[k])
    assert isinstance(state, optix.ScaleByScheduleState)
    assert int(state.count) == len(GRADS)


def test_add_noise():
    outs, state = run(optix.add_noise(eta=0.3, gamma=0.55, seed=5))
    key = mj.random.PRNGKey(5)
    treedef = mj.tree_util.tree_structure(PARAMS)
    for count, (u, g) in enumerate(zip(outs, GRADS, strict=True)):
        keys = mj.random.split(key, treedef.num_leaves + 1)
        key = keys[0]
        noise_keys = mj.tree_util.tree_unflatten(treedef, list(keys[1:]))
        variance = 0.3 / (1 + count) ** 0.55
        for k in PARAMS:
            noise = mj.random.normal(noise_keys[k], shape=g[k].shape)
            close(u[k], g[k] + variance * np.asarray(noise))
    assert isinstance(state, optix.AddNoiseState)
    close(state.rng_key, key, 0)  # PRNGKey makes raw uint32 keys, as JAX's


def test_apply_every():
    outs, state = run(optix.apply_every(k=3), GRADS + GRADS[:2])
    acc = {k: np.zeros_like(v) for k, v in PARAMS.items()}
    for step, (u, g) in enumerate(zip(outs, GRADS + GRADS[:2], strict=True)):
        acc = {k: (acc[k] if step % 3 else 0) + g[k] for k in PARAMS}
        for k in PARAMS:
            close(u[k], acc[k] if step % 3 == 2 else np.zeros_like(g[k]))
    assert isinstance(state, optix.ApplyEvery)
    assert int(state.count) == 6


def test_chain_and_aliases():
    chained = optix.chain(optix.clip(1.0), optix.scale_by_adam(), optix.scale(-0.1))
    adam = optix.chain(optix.scale_by_adam(), optix.scale(-0.1))
    outs, state = run(chained)
    assert isinstance(state, list)
    assert [type(s) for s in state] == [optix.ClipState, optix.ScaleByAdamState, optix.ScaleState]
    clipped = [{k: np.clip(v, -1, 1) for k, v in g.items()} for g in GRADS]
    expected, _ = run(adam, clipped)
    for u, e in zip(outs, expected, strict=True):
        for k in PARAMS:
            close(u[k], e[k])
    for alias, equivalent in [
        (optix.adam(0.1), adam),
        (optix.rmsprop(0.1), optix.chain(optix.scale_by_rms(), optix.scale(-0.1))),
        (
            optix.rmsprop(0.1, centered=True),
            optix.chain(optix.scale_by_stddev(), optix.scale(-0.1)),
        ),
        (optix.sgd(0.1), optix.scale(-0.1)),
        (
            optix.sgd(0.1, momentum=0.9, nesterov=True),
            optix.chain(optix.trace(0.9, True), optix.scale(-0.1)),
        ),
        (
            optix.noisy_sgd(0.1),
            optix.chain(optix.scale(-0.1), optix.add_noise(0.01, 0.55, 0)),
        ),
    ]:
        got, _ = run(alias)
        want, _ = run(equivalent)
        for u, e in zip(got, want, strict=True):
            for k in PARAMS:
                close(u[k], e[k])


def test_apply_updates():
    updates = {k: RNG.normal(size=v.shape) for k, v in PARAMS.items()}
    new = optix.apply_updates(PARAMS, updates)
    for k in PARAMS:
        close(new[k], PARAMS[k] + updates[k])


def test_states_are_pytrees_and_jit_equals_eager():
    opt = optix.chain(
        optix.clip_by_global_norm(2.0),
        optix.scale_by_adam(),
        optix.add_noise(0.01, 0.55, 0),
        optix.apply_every(2),
        optix.scale_by_schedule(lambda c: 1.0 / (1.0 + c)),
        optix.scale(-0.1),
    )
    state = opt.init(PARAMS)
    leaves = mj.tree_util.tree_leaves(state)
    # adam: count + 2 moments per parameter; noise: count + key; every: count + accumulators
    assert len(leaves) == (1 + 2 * 2) + 2 + (1 + 2) + 1
    rebuilt = mj.tree_util.tree_unflatten(mj.tree_util.tree_structure(state), leaves)
    assert type(rebuilt[1]) is optix.ScaleByAdamState
    eager, eager_state = run(opt)
    jitted, jit_state = run(opt, jit=True)
    for u, e in zip(jitted, eager, strict=True):
        for k in PARAMS:
            close(u[k], e[k], 1e-12)
    for a, b in zip(
        mj.tree_util.tree_leaves(jit_state), mj.tree_util.tree_leaves(eager_state), strict=True
    ):
        close(a, b, 1e-12)


def test_training_loop_converges():
    target = {"w": np.ones((2, 3)), "b": -np.ones(3)}

    def loss(p):
        return sum(mnp.sum((p[k] - target[k]) ** 2) for k in p)

    opt = optix.chain(optix.clip_by_global_norm(10.0), optix.adam(0.1))

    @mj.jit
    def step(params, state):
        updates, state = opt.update(mj.grad(loss)(params), state, params)
        return optix.apply_updates(params, updates), state

    params, state = PARAMS, opt.init(PARAMS)
    for _ in range(300):
        params, state = step(params, state)
    assert float(loss(params)) < 1e-4


def test_named_tuple_fields():
    assert optix.InitUpdate._fields == ("init", "update")
    assert optix.GradientTransformation is optix.InitUpdate
    assert optix.AddNoiseState._fields == ("count", "rng_key")
    assert optix.ApplyEvery._fields == ("count", "grad_acc")
    assert optix.ScaleByAdamState._fields == ("count", "mu", "nu")
    assert optix.ScaleByRStdDevState._fields == ("mu", "nu")
    assert optix.ScaleByScheduleState._fields == ("count",)
