"""Seed 004's "Autobatching log-densities example", ported to mj.

The seed's inputs come from legacy ``onp.random`` calls after ``onp.random.seed(10009)``; they
are replayed here in the same order, so the printed log-joint values (computed by JAX in
float32) are asserted to float32 tolerance. The seed text lost its minus signs: ``(2*y1)`` is
``(2*y-1)``, ``np.exp((2*y1) ...)`` is ``np.exp(-(2*y-1) ...)``, ``result + np.sum(np.log(``
is ``result - ...`` and every printed value is negative.

Two deliberate differences from the 2019 notebook:
- The variational-inference loop's ELBO values printed in the seed came from a JAX whose
  ``random.normal`` drew other numbers; JAX 0.10.2 (to which mj.random is bit-identical)
  prints -175.5616, -112.76364, -102.41358, -100.27794 at steps 0, 10, 20, 30 instead of
  -180.85, -113.06, -102.74, -99.79. Those are asserted, plus the seed's plateau (about -97)
  after enough steps.
- ``jax.jit(elbo, static_argnums=(1, 2))`` marks array arguments static; JAX 0.10.2 refuses
  that under ``value_and_grad`` (unhashable tracers), and so does mj: the loop jits ``elbo``
  without static arguments.
"""

from typing import Any

import numpy as onp
import pytest

import mj
import mj.numpy as np
from mj import random, scipy

NUM_FEATURES = 10
NUM_POINTS = 100

#: The labels printed by the seed (cell [3]).
SEED_Y = [
    0, 0, 0, 1, 1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 0, 0, 0, 1, 1, 1, 1, 0,
    1, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0,
    1, 1, 0, 1, 0, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0,
    0, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1,
    1, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0,
]  # fmt: skip
#: Cell [5]: log_joint of one random beta.
SEED_LOG_JOINT = -213.23558
#: Cells [8] and [9]: the manually batched and the vmapped log joint of ten betas.
SEED_BATCHED = [
    -147.84032, -207.02205, -109.26076, -243.80833, -163.02908,
    -143.84848, -160.28772, -113.7717, -126.60544, -190.81989,
]  # fmt: skip
#: JAX 0.10.2's ELBO at steps 0, 10, 20, 30 of the loop (float32, random.PRNGKey(10003)).
JAX_ELBO = {0: -175.5615997314453, 10: -112.76364135742188, 20: -102.41358184814453,
            30: -100.27793884277344}  # fmt: skip

FLOAT32_RTOL = 2e-6


class Data:
    """The seed's fake data set and the random betas drawn after it, in the seed's order."""

    def __init__(self) -> None:
        onp.random.seed(10009)
        self.true_beta = onp.random.randn(NUM_FEATURES).astype(onp.float32)
        self.all_x = onp.random.randn(NUM_POINTS, NUM_FEATURES).astype(onp.float32)
        expit = 1.0 / (1.0 + onp.exp(-self.all_x.dot(self.true_beta)))
        self.y = (onp.random.rand(NUM_POINTS) < expit).astype(onp.int32)
        # cell [5]; JAX without x64 converts the float64 draws to float32
        self.test_beta = onp.random.randn(NUM_FEATURES).astype(onp.float32)
        # cell [6] draws twice: batched_test_beta, then the argument of the failing call
        onp.random.randn(10, NUM_FEATURES)
        self.bad_beta = onp.random.randn(10, NUM_FEATURES).astype(onp.float32)
        # cell [8]
        self.batched_test_beta = onp.random.randn(10, NUM_FEATURES).astype(onp.float32)


@pytest.fixture(scope="module")
def data() -> Data:
    return Data()


def make_log_joint(d: Data, prior_scale: float) -> Any:
    def log_joint(beta: Any) -> Any:
        result = 0.0
        # Note that no `axis` parameter is provided to `np.sum`.
        result = result + np.sum(scipy.stats.norm.logpdf(beta, loc=0.0, scale=prior_scale))
        result = result - np.sum(np.log(1 + np.exp(-(2 * d.y - 1) * np.dot(d.all_x, beta))))
        return result

    return log_joint


def make_batched_log_joint(d: Data) -> Any:
    def batched_log_joint(beta: Any) -> Any:
        result = 0.0
        result = result + np.sum(scipy.stats.norm.logpdf(beta, loc=0.0, scale=1.0), axis=1)
        result = result - np.sum(
            np.log(1 + np.exp(-(2 * d.y - 1) * np.dot(d.all_x, beta.T).T)), axis=1
        )
        return result

    return batched_log_joint


def test_data_set_is_the_seeds(data: Data) -> None:
    assert data.y.tolist() == SEED_Y


@pytest.mark.x32  # the seed's mode (its printed float32 values): eager, jaxpr and jit agree
def test_log_joint_matches_the_seed_eager_jaxpr_and_jit(data: Data) -> None:
    log_joint = make_log_joint(data, 1.0)
    eager = log_joint(data.test_beta)
    onp.testing.assert_allclose(eager, SEED_LOG_JOINT, rtol=FLOAT32_RTOL)
    # a closed form with NumPy: the normal log density plus the logistic log likelihood
    b = data.test_beta.astype(onp.float64)
    logits = (2 * data.y - 1) * data.all_x.astype(onp.float64).dot(b)
    want = onp.sum(-0.5 * b**2 - 0.5 * onp.log(2 * onp.pi)) - onp.sum(onp.log1p(onp.exp(-logits)))
    onp.testing.assert_allclose(eager, want, rtol=1e-6)
    closed = mj.make_jaxpr(log_joint)(data.test_beta)
    (from_jaxpr,) = mj.eval_jaxpr(closed.jaxpr, [*closed.consts, data.test_beta])
    jitted = mj.jit(log_joint)(data.test_beta)
    for other in (from_jaxpr, jitted):
        assert onp.asarray(other).dtype == onp.asarray(eager).dtype
        assert onp.shape(other) == ()
        onp.testing.assert_allclose(other, eager, rtol=1e-6)


def test_unbatched_log_joint_rejects_a_batch(data: Data) -> None:
    # the seed catches JAX's ValueError; mj reports shape errors as TypeError (DESIGN.md)
    with pytest.raises(TypeError, match=r"mul.*\(100,\).*\(100,\s?10\)"):
        make_log_joint(data, 1.0)(data.bad_beta)


def test_manual_batching_and_vmap_agree_with_the_seed(data: Data) -> None:
    manual = make_batched_log_joint(data)(data.batched_test_beta)
    onp.testing.assert_allclose(manual, SEED_BATCHED, rtol=FLOAT32_RTOL)
    log_joint = make_log_joint(data, 1.0)
    for vmapped in (mj.vmap(log_joint), mj.jit(mj.vmap(log_joint))):
        out = vmapped(data.batched_test_beta)
        assert onp.shape(out) == (10,)
        onp.testing.assert_allclose(out, manual, rtol=1e-6)
        onp.testing.assert_allclose(out, SEED_BATCHED, rtol=FLOAT32_RTOL)
    looped = onp.stack([log_joint(b) for b in data.batched_test_beta])
    onp.testing.assert_allclose(mj.vmap(log_joint)(data.batched_test_beta), looped, rtol=1e-6)


def make_elbo(data: Data) -> tuple[Any, Any]:
    log_joint = mj.jit(make_log_joint(data, 10.0))
    batched_log_joint = mj.jit(mj.vmap(log_joint))

    def elbo(beta_loc: Any, beta_log_scale: Any, epsilon: Any) -> Any:
        beta_sample = beta_loc + np.exp(beta_log_scale) * epsilon
        return np.mean(batched_log_joint(beta_sample), 0) + np.sum(
            beta_log_scale - 0.5 * onp.log(2 * onp.pi)
        )

    return elbo, log_joint


def test_static_array_arguments_are_refused_as_in_jax(data: Data) -> None:
    elbo, _ = make_elbo(data)
    static_elbo = mj.jit(elbo, static_argnums=(1, 2))
    zeros = np.zeros(NUM_FEATURES, np.float32)
    with pytest.raises(TypeError, match="static argument 1 is unhashable"):
        mj.value_and_grad(static_elbo, argnums=(0, 1))(zeros, zeros, np.zeros((4, NUM_FEATURES)))


def test_elbo_gradient_matches_central_differences(data: Data) -> None:
    elbo, _ = make_elbo(data)
    rng = onp.random.default_rng(0)
    loc, log_scale = rng.normal(size=NUM_FEATURES) * 0.3, rng.normal(size=NUM_FEATURES) * 0.1
    eps = rng.normal(size=(8, NUM_FEATURES))
    val, (g_loc, g_scale) = mj.jit(mj.value_and_grad(elbo, argnums=(0, 1)))(loc, log_scale, eps)
    onp.testing.assert_allclose(val, elbo(loc, log_scale, eps), rtol=1e-12)
    h = 1e-6
    for k in (0, 3, 9):
        e = onp.eye(NUM_FEATURES)[k] * h
        fd_loc = (elbo(loc + e, log_scale, eps) - elbo(loc - e, log_scale, eps)) / (2 * h)
        fd_scale = (elbo(loc, log_scale + e, eps) - elbo(loc, log_scale - e, eps)) / (2 * h)
        onp.testing.assert_allclose(g_loc[k], fd_loc, rtol=1e-6)
        onp.testing.assert_allclose(g_scale[k], fd_scale, rtol=1e-6)


def test_variational_inference_loop(data: Data) -> None:
    elbo, _ = make_elbo(data)
    elbo_val_and_grad = mj.jit(mj.value_and_grad(mj.jit(elbo), argnums=(0, 1)))

    def normal_sample(key: Any, shape: tuple[int, ...]) -> tuple[Any, Any]:
        """Convenience function for quasi-stateful RNG."""
        new_key, sub_key = random.split(key)
        # float32 like the seed's JAX (x64 off), so the draws are JAX 0.10.2's bits
        return new_key, random.normal(sub_key, shape, dtype=np.float32)

    normal_sample = mj.jit(normal_sample, static_argnums=(1,))

    key = random.PRNGKey(10003)
    beta_loc = np.zeros(NUM_FEATURES, np.float32)
    beta_log_scale = np.zeros(NUM_FEATURES, np.float32)
    step_size = 0.01
    batch_size = 128
    epsilon_shape = (batch_size, NUM_FEATURES)
    elbos = []
    for i in range(200):
        key, epsilon = normal_sample(key, epsilon_shape)
        if i == 0:
            # JAX 0.10.2 draws these first three numbers
            onp.testing.assert_allclose(epsilon[0, :3], [-1.4711391, 0.45372874, -0.44505426])
        elbo_val, (beta_loc_grad, beta_log_scale_grad) = elbo_val_and_grad(
            beta_loc, beta_log_scale, epsilon
        )
        beta_loc += step_size * beta_loc_grad
        beta_log_scale += step_size * beta_log_scale_grad
        elbos.append(float(elbo_val))
    assert onp.asarray(beta_loc).dtype == onp.float32
    for step, want in JAX_ELBO.items():
        onp.testing.assert_allclose(elbos[step], want, rtol=1e-5)
    # the seed's plateau: its steps 100..990 print values between -97.8 and -96.6
    plateau = onp.mean(elbos[100:])
    assert -97.8 < plateau < -96.6, plateau
    # the posterior means found are correlated with the true coefficients
    assert onp.corrcoef(onp.asarray(beta_loc), data.true_beta)[0, 1] > 0.8
