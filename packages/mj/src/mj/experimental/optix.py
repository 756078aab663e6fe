"""``mj.experimental.optix``: composable gradient transformations (``jax.experimental.optix``).

Each transformation is an :class:`InitUpdate` pair:

* ``init(params)`` builds the transformation's (possibly empty) state, a NamedTuple;
* ``update(updates, state, params=None)`` transforms a gradient (or update) and returns it
  with the new state.

:func:`chain` composes transformations into one (its state is the list of their states) and
:func:`apply_updates` adds the final updates to the parameters. The popular optimizers are
one-line chains (:func:`sgd`, :func:`noisy_sgd`, :func:`adam`, :func:`rmsprop`). Every state is
a pytree of arrays, so ``init``/``update`` work under ``mj.jit`` and the other
transformations. JAX moved optix out into the ``optax`` package; this module keeps seed 004's
API and arithmetic.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import mj.numpy as mnp
from mj import random, tree_util
from mj_core.extend import AnyArray, Array, ArrayLike

__all__ = [
    "AddNoiseState",
    "ApplyEvery",
    "ClipByGlobalNormState",
    "ClipState",
    "GradientTransformation",
    "InitUpdate",
    "ScaleByAdamState",
    "ScaleByRStdDevState",
    "ScaleByRmsState",
    "ScaleByScheduleState",
    "ScaleState",
    "TraceState",
    "adam",
    "add_noise",
    "apply_every",
    "apply_updates",
    "chain",
    "clip",
    "clip_by_global_norm",
    "global_norm",
    "noisy_sgd",
    "rmsprop",
    "scale",
    "scale_by_adam",
    "scale_by_rms",
    "scale_by_schedule",
    "scale_by_stddev",
    "sgd",
    "trace",
]

Params = Any  # arbitrary nests of arrays
Updates = Params  # gradient updates have the structure of the parameters
OptState = Any  # a transformation's NamedTuple state, or chain's list of them

InitFn = Callable[[Params], OptState]
UpdateFn = Callable[..., tuple[Updates, OptState]]


class InitUpdate(NamedTuple):
    """Optix optimizers consist of a pair of functions: (initialiser, update)."""

    init: InitFn
    update: UpdateFn


GradientTransformation = InitUpdate  # the name later JAX releases (and optax) use


def _zeros_like_tree(params: Params) -> Params:
    return tree_util.tree_map(mnp.zeros_like, params)


def _count() -> Array:
    return mnp.zeros([], mnp.int32)


# --- transformations ------------------------------------------------------------------------


class ClipState(NamedTuple):
    """The ``clip`` transformation is stateless."""


def clip(max_delta: Any) -> InitUpdate:
    """Clip updates element-wise, to be between ``-max_delta`` and ``+max_delta``.

    Args:
      max_delta: the maximum absolute value for each element in the update.

    Returns:
      An (init_fn, update_fn) tuple.
    """

    def init_fn(_: Params) -> ClipState:
        return ClipState()

    def update_fn(
        updates: Updates, state: ClipState, params: Params = None
    ) -> tuple[Updates, ClipState]:
        del params
        return tree_util.tree_map(lambda g: mnp.clip(g, -max_delta, max_delta), updates), state

    return InitUpdate(init_fn, update_fn)


def global_norm(updates: Updates) -> Array:
    """The l2 norm of all the leaves of ``updates`` together."""
    return mnp.sqrt(sum(mnp.sum(mnp.square(x)) for x in tree_util.tree_leaves(updates)))


class ClipByGlobalNormState(NamedTuple):
    """The ``clip_by_global_norm`` transformation is stateless."""


def clip_by_global_norm(max_norm: Any) -> InitUpdate:
    """Clip updates using their global norm.

    References:
      [Pascanu et al, 2012](https://arxiv.org/abs/1211.5063)

    Args:
      max_norm: the maximum global norm for an update.

    Returns:
      An (init_fn, update_fn) tuple.
    """

    def init_fn(_: Params) -> ClipByGlobalNormState:
        return ClipByGlobalNormState()

    def update_fn(
        updates: Updates, state: ClipByGlobalNormState, params: Params = None
    ) -> tuple[Updates, ClipByGlobalNormState]:
        del params
        g_norm = global_norm(updates)
        trigger = g_norm < max_norm
        updates = tree_util.tree_map(
            lambda t: mnp.where(trigger, t, (t / g_norm) * max_norm), updates
        )
        return updates, state

    return InitUpdate(init_fn, update_fn)


class TraceState(NamedTuple):
    """Holds an aggregation of past updates."""

    trace: Params


def trace(decay: float, nesterov: bool) -> InitUpdate:
    """Compute a trace of past updates: ``t <- g + decay * t``, the update being ``t`` (or
    ``g + decay * t`` with Nesterov momentum).

    Args:
      decay: the decay rate for the tracing of past updates.
      nesterov: whether to use Nesterov momentum.

    Returns:
      An (init_fn, update_fn) tuple.
    """

    def init_fn(params: Params) -> TraceState:
        return TraceState(trace=_zeros_like_tree(params))

    def update_fn(
        updates: Updates, state: TraceState, params: Params = None
    ) -> tuple[Updates, TraceState]:
        del params

        def f(g: AnyArray, t: AnyArray) -> AnyArray:
            return g + decay * t

        update_trace = tree_util.tree_map(f, updates, state.trace)
        updates = tree_util.tree_map(f, updates, update_trace) if nesterov else update_trace
        return updates, TraceState(trace=update_trace)

    return InitUpdate(init_fn, update_fn)


def _update_moment(updates: Updates, moments: Updates, decay: float, order: int) -> Updates:
    return tree_util.tree_map(lambda g, t: (1 - decay) * (g**order) + decay * t, updates, moments)


class ScaleByRmsState(NamedTuple):
    """State for exponential root mean-squared (RMS)-normalized updates."""

    nu: Updates


def scale_by_rms(decay: float = 0.9, eps: float = 1e-8) -> InitUpdate:
    """Rescale updates by the root of the exp. moving avg of the square.

    References:
      [Hinton](www.cs.toronto.edu/~tijmen/csc321/slides/lecture_slides_lec6.pdf)

    Args:
      decay: decay rate for the exponentially weighted average of squared grads.
      eps: term added to the denominator to improve numerical stability.

    Returns:
      An (init_fn, update_fn) tuple.
    """

    def init_fn(params: Params) -> ScaleByRmsState:
        return ScaleByRmsState(nu=_zeros_like_tree(params))

    def update_fn(
        updates: Updates, state: ScaleByRmsState, params: Params = None
    ) -> tuple[Updates, ScaleByRmsState]:
        del params
        nu = _update_moment(updates, state.nu, decay, 2)
        updates = tree_util.tree_map(lambda g, n: g / (mnp.sqrt(n + eps)), updates, nu)
        return updates, ScaleByRmsState(nu=nu)

    return InitUpdate(init_fn, update_fn)


class ScaleByRStdDevState(NamedTuple):
    """State for centered exponential moving average of squares of updates."""

    mu: Updates
    nu: Updates


def scale_by_stddev(decay: float = 0.9, eps: float = 1e-8) -> InitUpdate:
    """Rescale updates by the root of the centered exp. moving average of squares.

    References:
      [Hinton](www.cs.toronto.edu/~tijmen/csc321/slides/lecture_slides_lec6.pdf)

    Args:
      decay: decay rate for the exponentially weighted average of squared grads.
      eps: term added to the denominator to improve numerical stability.

    Returns:
      An (init_fn, update_fn) tuple.
    """

    def init_fn(params: Params) -> ScaleByRStdDevState:
        return ScaleByRStdDevState(mu=_zeros_like_tree(params), nu=_zeros_like_tree(params))

    def update_fn(
        updates: Updates, state: ScaleByRStdDevState, params: Params = None
    ) -> tuple[Updates, ScaleByRStdDevState]:
        del params
        mu = _update_moment(updates, state.mu, decay, 1)
        nu = _update_moment(updates, state.nu, decay, 2)
        updates = tree_util.tree_map(
            lambda g, m, n: g / mnp.sqrt(n - mnp.square(m) + eps), updates, mu, nu
        )
        return updates, ScaleByRStdDevState(mu=mu, nu=nu)

    return InitUpdate(init_fn, update_fn)


class ScaleByAdamState(NamedTuple):
    """State for the Adam algorithm: the step count (an int32 scalar) and both moments."""

    count: AnyArray
    mu: Updates
    nu: Updates


def scale_by_adam(
    b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8, eps_root: float = 0.0
) -> InitUpdate:
    """Rescale updates according to the Adam algorithm.

    References:
      [Kingma et al, 2014](https://arxiv.org/abs/1412.6980)

    Args:
      b1: decay rate for the exponentially weighted average of grads.
      b2: decay rate for the exponentially weighted average of squared grads.
      eps: term added to the denominator to improve numerical stability.
      eps_root: term added to the denominator inside the square-root to improve numerical
        stability when backpropagating gradients through the rescaling.

    Returns:
      An (init_fn, update_fn) tuple.
    """

    def init_fn(params: Params) -> ScaleByAdamState:
        return ScaleByAdamState(
            count=_count(), mu=_zeros_like_tree(params), nu=_zeros_like_tree(params)
        )

    def update_fn(
        updates: Updates, state: ScaleByAdamState, params: Params = None
    ) -> tuple[Updates, ScaleByAdamState]:
        del params
        mu = _update_moment(updates, state.mu, b1, 1)
        nu = _update_moment(updates, state.nu, b2, 2)
        mu_hat = tree_util.tree_map(lambda t: t / (1 - b1 ** (state.count + 1)), mu)
        nu_hat = tree_util.tree_map(lambda t: t / (1 - b2 ** (state.count + 1)), nu)
        updates = tree_util.tree_map(
            lambda m, v: m / (mnp.sqrt(v + eps_root) + eps), mu_hat, nu_hat
        )
        return updates, ScaleByAdamState(count=state.count + 1, mu=mu, nu=nu)

    return InitUpdate(init_fn, update_fn)


class ScaleState(NamedTuple):
    """The ``scale`` transformation is stateless."""


def scale(step_size: float) -> InitUpdate:
    """Scale updates by some fixed scalar ``step_size``.

    Args:
      step_size: a scalar corresponding to a fixed scaling factor for updates.

    Returns:
      An (init_fn, update_fn) tuple.
    """

    def init_fn(_: Params) -> ScaleState:
        return ScaleState()

    def update_fn(
        updates: Updates, state: ScaleState, params: Params = None
    ) -> tuple[Updates, ScaleState]:
        del params
        return tree_util.tree_map(lambda g: step_size * g, updates), state

    return InitUpdate(init_fn, update_fn)


class ScaleByScheduleState(NamedTuple):
    """Maintains count for scale scheduling (an int32 scalar)."""

    count: AnyArray


def scale_by_schedule(step_size_fn: Callable[[ArrayLike], ArrayLike]) -> InitUpdate:
    """Scale updates using a custom schedule for the ``step_size``.

    Args:
      step_size_fn: a function that takes an update count as input and proposes the
        step_size to multiply the updates by.

    Returns:
      An (init_fn, update_fn) tuple.
    """

    def init_fn(_: Params) -> ScaleByScheduleState:
        return ScaleByScheduleState(count=_count())

    def update_fn(
        updates: Updates, state: ScaleByScheduleState, params: Params = None
    ) -> tuple[Updates, ScaleByScheduleState]:
        del params
        step_size = step_size_fn(state.count)
        updates = tree_util.tree_map(lambda g: step_size * g, updates)
        return updates, ScaleByScheduleState(count=state.count + 1)

    return InitUpdate(init_fn, update_fn)


class AddNoiseState(NamedTuple):
    """State for adding gradient noise: a count for annealing and the PRNG key."""

    count: AnyArray
    rng_key: AnyArray


def add_noise(eta: float, gamma: float, seed: int) -> InitUpdate:
    """Add gradient noise of variance ``eta / (1 + count) ** gamma``.

    References:
      [Neelakantan et al, 2014](https://arxiv.org/abs/1511.06807)

    Args:
      eta: base variance of the gaussian noise added to the gradient.
      gamma: decay exponent for annealing of the variance.
      seed: seed for random number generation.

    Returns:
      An (init_fn, update_fn) tuple.
    """

    def init_fn(_: Params) -> AddNoiseState:
        return AddNoiseState(count=_count(), rng_key=random.PRNGKey(seed))

    def update_fn(
        updates: Updates, state: AddNoiseState, params: Params = None
    ) -> tuple[Updates, AddNoiseState]:
        del params
        leaves, treedef = tree_util.tree_flatten(updates)
        variance = eta / (1 + state.count) ** gamma
        all_keys = random.split(state.rng_key, num=len(leaves) + 1)
        noisy = [
            g + variance * random.normal(k, shape=g.shape)
            for g, k in zip(leaves, all_keys[1:], strict=True)
        ]
        new_state = AddNoiseState(count=state.count + 1, rng_key=all_keys[0])
        return tree_util.tree_unflatten(treedef, noisy), new_state

    return InitUpdate(init_fn, update_fn)


class ApplyEvery(NamedTuple):
    """Contains a counter and a gradient accumulator."""

    count: AnyArray
    grad_acc: Updates


def apply_every(k: int = 1) -> InitUpdate:
    """Accumulate gradients and apply them every k steps (zero updates in between).

    Args:
      k: apply the update every k steps otherwise accumulate the gradients.

    Returns:
      An (init_fn, update_fn) tuple.
    """

    def init_fn(params: Params) -> ApplyEvery:
        return ApplyEvery(count=_count(), grad_acc=_zeros_like_tree(params))

    def update_fn(
        updates: Updates, state: ApplyEvery, params: Params = None
    ) -> tuple[Updates, ApplyEvery]:
        del params
        c = state.count % k
        acc = c != 0
        grad_acc = tree_util.tree_map(lambda g, ga: acc * ga + g, updates, state.grad_acc)
        emit = c == (k - 1)
        updates = tree_util.tree_map(lambda ga: emit * ga, grad_acc)
        return updates, ApplyEvery(count=state.count + 1, grad_acc=grad_acc)

    return InitUpdate(init_fn, update_fn)


# --- building and using optimizers ----------------------------------------------------------


def chain(*args: InitUpdate) -> InitUpdate:
    """Applies a list of chainable update transformations.

    Given a sequence of chainable transforms, ``chain`` returns an ``init_fn`` that constructs
    a ``state`` by concatenating the states of the individual transforms, and returns an
    ``update_fn`` which chains the update transformations feeding the appropriate state to
    each.

    Args:
      *args: a sequence of chainable (init_fn, update_fn) tuples.

    Returns:
      A single (init_fn, update_fn) tuple.
    """
    init_fns = [t.init for t in args]
    update_fns = [t.update for t in args]

    def init_fn(params: Params) -> list[OptState]:
        return [fn(params) for fn in init_fns]

    def update_fn(
        updates: Updates, state: Sequence[OptState], params: Params = None
    ) -> tuple[Updates, list[OptState]]:
        new_state = []
        for s, fn in zip(state, update_fns, strict=True):
            updates, new_s = fn(updates, s, params)
            new_state.append(new_s)
        return updates, new_state

    return InitUpdate(init_fn, update_fn)


def apply_updates(params: Params, updates: Updates) -> Params:
    """Applies an update to the corresponding parameters.

    This is an (optional) utility function that applies an update, and returns the updated
    parameters to the caller. The update itself is typically the result of applying any
    number of chainable transformations.

    Args:
      params: a tree of parameters.
      updates: a tree of updates, the tree structure and the shape of the leaf nodes must
        match that of ``params``.

    Returns:
      Updated parameters, with same structure and shape as ``params``.
    """
    return tree_util.tree_map(lambda p, u: p + u, params, updates)


# --- aliases for popular optimizers ---------------------------------------------------------


def sgd(learning_rate: float, momentum: float = 0.0, nesterov: bool = False) -> InitUpdate:
    """Stochastic gradient descent, with optional (Nesterov) momentum."""
    return chain(trace(decay=momentum, nesterov=nesterov), scale(-learning_rate))


def noisy_sgd(
    learning_rate: float, eta: float = 0.01, gamma: float = 0.55, seed: int = 0
) -> InitUpdate:
    """SGD with annealed gaussian noise added to the updates."""
    return chain(
        trace(decay=0.0, nesterov=False), scale(-learning_rate), add_noise(eta, gamma, seed)
    )


def adam(learning_rate: float, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8) -> InitUpdate:
    """Adam: :func:`scale_by_adam` then :func:`scale` by ``-learning_rate``."""
    return chain(scale_by_adam(b1=b1, b2=b2, eps=eps), scale(-learning_rate))


def rmsprop(
    learning_rate: float, decay: float = 0.9, eps: float = 1e-8, centered: bool = False
) -> InitUpdate:
    """RMSProp: :func:`scale_by_rms` (:func:`scale_by_stddev` when ``centered``) then
    :func:`scale` by ``-learning_rate``."""
    rescale = scale_by_stddev if centered else scale_by_rms
    return chain(rescale(decay=decay, eps=eps), scale(-learning_rate))
