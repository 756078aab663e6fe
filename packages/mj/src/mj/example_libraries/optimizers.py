"""``mj.example_libraries.optimizers``: JAX's example optimizers, for mj.

An optimizer is an ``(init_fun, update_fun, get_params)`` triple:

* ``init_fun(params)`` returns the initial optimizer state (the parameters plus any
  auxiliary values, such as momentum) for a pytree of parameters;
* ``update_fun(step, grads, opt_state)`` returns the state after one step, ``grads`` having
  the structure of ``get_params(opt_state)``;
* ``get_params(opt_state)`` returns the parameters, so that
  ``params == get_params(init_fun(params))``.

The state is an :class:`OptimizerState`, a pytree, so it passes through ``mj.jit`` and the
other transformations. The update rules are JAX 0.10.2's, operation for operation, so the same
steps give the same numbers. Usage::

    opt_init, opt_update, get_params = optimizers.sgd(learning_rate)
    opt_state = opt_init(params)

    def step(step, opt_state):
        value, grads = mj.value_and_grad(loss_fn)(get_params(opt_state))
        opt_state = opt_update(step, grads, opt_state)
        return value, opt_state

    for i in range(num_steps):
        value, opt_state = step(i, opt_state)

The module is over 600 lines because it is JAX's whole optimizers namespace (ten
optimizers, five schedules and the state utilities) in one module, as users import it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from typing import Any, NamedTuple, cast

import mj.numpy as mnp
from mj import tree_util
from mj.tree_util import PyTreeDef
from mj_core.extend import AnyArray, Array, ArrayLike

__all__ = [
    "JoinPoint",
    "Optimizer",
    "OptimizerState",
    "adagrad",
    "adam",
    "adamax",
    "clip_grads",
    "constant",
    "exponential_decay",
    "inverse_time_decay",
    "l2_norm",
    "make_schedule",
    "momentum",
    "nesterov",
    "optimizer",
    "pack_optimizer_state",
    "piecewise_constant",
    "polynomial_decay",
    "rmsprop",
    "rmsprop_momentum",
    "sgd",
    "sm3",
    "unpack_optimizer_state",
]

Params = Any  # arbitrary nests of arrays
State = Any  # the per-array state an optimizer's own init/update work on
Updates = Params
Step = int
Schedule = Callable[[Step], Any]


class OptimizerState(NamedTuple):
    """The state of every optimizer: the per-leaf states, flattened, and the structures
    (of the parameters, and of each leaf's state) that rebuild them.

    It is a pytree whose only child is ``packed_state``: the structures are static data.
    """

    packed_state: tuple[list[Any], ...]
    tree_def: PyTreeDef
    subtree_defs: tuple[PyTreeDef, ...]


def _flatten_state(state: OptimizerState) -> tuple[tuple[Any], tuple[Any, Any]]:
    return (state.packed_state,), (state.tree_def, state.subtree_defs)


def _unflatten_state(aux: Hashable, children: Iterable[Any]) -> OptimizerState:
    tree_def, subtree_defs = cast(tuple[PyTreeDef, tuple[PyTreeDef, ...]], aux)
    (packed_state,) = children
    return OptimizerState(packed_state, tree_def, subtree_defs)


tree_util.register_pytree_node(OptimizerState, _flatten_state, _unflatten_state)

InitFn = Callable[[Params], OptimizerState]
UpdateFn = Callable[[Step, Updates, OptimizerState], OptimizerState]
ParamsFn = Callable[[OptimizerState], Params]


class Optimizer(NamedTuple):
    """The ``(init_fn, update_fn, params_fn)`` triple an optimizer constructor returns."""

    init_fn: InitFn
    update_fn: UpdateFn
    params_fn: ParamsFn


ArrayTriple = tuple[
    Callable[[AnyArray], State],
    Callable[[Step, AnyArray, State], State],
    Callable[[State], AnyArray],
]


def _unzip_flatten(trees: Sequence[Any]) -> tuple[tuple[list[Any], ...], tuple[PyTreeDef, ...]]:
    """Each tree's leaves and structure, as two tuples (JAX's ``unzip2(map(flatten, ...))``)."""
    pairs = [tree_util.tree_flatten(t) for t in trees]
    return tuple(leaves for leaves, _ in pairs), tuple(treedef for _, treedef in pairs)


def optimizer(opt_maker: Callable[..., ArrayTriple]) -> Callable[..., Optimizer]:
    """Decorator to make an optimizer defined for arrays generalize to containers.

    With this decorator, you can write init, update, and get_params functions that each
    operate only on single arrays, and convert them to corresponding functions that operate
    on pytrees of parameters.

    Args:
      opt_maker: a function that returns an ``(init_fun, update_fun, get_params)`` triple of
        functions that might only work with ndarrays, as per ``init_fun :: ndarray ->
        OptStatePytree ndarray``, ``update_fun :: OptStatePytree ndarray -> OptStatePytree
        ndarray``, ``get_params :: OptStatePytree ndarray -> ndarray``.

    Returns:
      An ``(init_fun, update_fun, get_params)`` triple of functions that work on arbitrary
      pytrees, whose state is an :class:`OptimizerState`.
    """

    @functools.wraps(opt_maker)
    def tree_opt_maker(*args: object, **kwargs: object) -> Optimizer:
        init, update, get_params = opt_maker(*args, **kwargs)

        @functools.wraps(init)
        def tree_init(x0_tree: Params) -> OptimizerState:
            x0_flat, tree = tree_util.tree_flatten(x0_tree)
            states_flat, subtrees = _unzip_flatten([init(x0) for x0 in x0_flat])
            return OptimizerState(states_flat, tree, subtrees)

        @functools.wraps(update)
        def tree_update(i: Step, grad_tree: Updates, opt_state: OptimizerState) -> OptimizerState:
            states_flat, tree, subtrees = opt_state
            grad_flat, tree2 = tree_util.tree_flatten(grad_tree)
            if tree2 != tree:
                raise TypeError(
                    "optimizer update function was passed a gradient tree that did not match "
                    f"the parameter tree structure with which it was initialized: parameter "
                    f"tree {tree} and grad tree {tree2}."
                )
            states = [
                tree_util.tree_unflatten(s, f) for s, f in zip(subtrees, states_flat, strict=True)
            ]
            new_states = [update(i, g, s) for g, s in zip(grad_flat, states, strict=True)]
            new_states_flat, subtrees2 = _unzip_flatten(new_states)
            for subtree, subtree2 in zip(subtrees, subtrees2, strict=True):
                if subtree2 != subtree:
                    raise TypeError(
                        "optimizer update function produced an output structure that did not "
                        f"match its input structure: input {subtree} and output {subtree2}."
                    )
            return OptimizerState(new_states_flat, tree, subtrees)

        @functools.wraps(get_params)
        def tree_get_params(opt_state: OptimizerState) -> Params:
            states_flat, tree, subtrees = opt_state
            states = [
                tree_util.tree_unflatten(s, f) for s, f in zip(subtrees, states_flat, strict=True)
            ]
            return tree_util.tree_unflatten(tree, [get_params(s) for s in states])

        return Optimizer(tree_init, tree_update, tree_get_params)

    return tree_opt_maker


# --- optimizers -----------------------------------------------------------------------------


def _two_moments(x0: ArrayLike) -> State:
    """The state of the optimizers that track two running moments: ``(x, 0, 0)``."""
    return x0, mnp.zeros_like(x0), mnp.zeros_like(x0)


@optimizer
def sgd(step_size: float | Schedule) -> ArrayTriple:
    """Construct optimizer triple for stochastic gradient descent.

    Args:
      step_size: positive scalar, or a callable representing a step size schedule that maps
        the iteration index to a positive scalar.

    Returns:
      An (init_fun, update_fun, get_params) triple.
    """
    schedule = make_schedule(step_size)

    def init(x0: object) -> AnyArray:
        return x0

    def update(i: Step, g: object, x: ArrayLike) -> AnyArray:
        return x - schedule(i) * g

    def get_params(x: ArrayLike) -> AnyArray:
        return x

    return init, update, get_params


@optimizer
def momentum(step_size: float | Schedule, mass: float) -> ArrayTriple:
    """Construct optimizer triple for SGD with momentum.

    Args:
      step_size: positive scalar, or a callable representing a step size schedule that maps
        the iteration index to a positive scalar.
      mass: positive scalar representing the momentum coefficient.

    Returns:
      An (init_fun, update_fun, get_params) triple.
    """
    schedule = make_schedule(step_size)

    def init(x0: ArrayLike) -> State:
        return x0, mnp.zeros_like(x0)

    def update(i: Step, g: ArrayLike, state: State) -> State:
        x, velocity = state
        velocity = mass * velocity + g
        return x - schedule(i) * velocity, velocity

    return init, update, _first


@optimizer
def nesterov(step_size: float | Schedule, mass: float) -> ArrayTriple:
    """Construct optimizer triple for SGD with Nesterov momentum.

    Args:
      step_size: positive scalar, or a callable representing a step size schedule that maps
        the iteration index to a positive scalar.
      mass: positive scalar representing the momentum coefficient.

    Returns:
      An (init_fun, update_fun, get_params) triple.
    """
    schedule = make_schedule(step_size)

    def init(x0: ArrayLike) -> State:
        return x0, mnp.zeros_like(x0)

    def update(i: Step, g: ArrayLike, state: State) -> State:
        x, velocity = state
        velocity = mass * velocity + g
        return x - schedule(i) * (mass * velocity + g), velocity

    return init, update, _first


@optimizer
def adagrad(step_size: float | Schedule, momentum: float = 0.9) -> ArrayTriple:
    """Construct optimizer triple for Adagrad.

    Adaptive Subgradient Methods for Online Learning and Stochastic Optimization:
    http://www.jmlr.org/papers/volume12/duchi11a/duchi11a.pdf

    Args:
      step_size: positive scalar, or a callable representing a step size schedule that maps
        the iteration index to a positive scalar.
      momentum: optional, a positive scalar value for momentum

    Returns:
      An (init_fun, update_fun, get_params) triple.
    """
    schedule = make_schedule(step_size)

    def update(i: Step, g: ArrayLike, state: State) -> State:
        x, g_sq, m = state
        g_sq += mnp.square(g)
        g_sq_inv_sqrt = mnp.where(g_sq > 0, 1.0 / mnp.sqrt(g_sq), 0.0)
        m = (1.0 - momentum) * (g * g_sq_inv_sqrt) + momentum * m
        return x - schedule(i) * m, g_sq, m

    return _two_moments, update, _first


@optimizer
def rmsprop(step_size: float | Schedule, gamma: float = 0.9, eps: float = 1e-8) -> ArrayTriple:
    """Construct optimizer triple for RMSProp.

    Args:
      step_size: positive scalar, or a callable representing a step size schedule that maps
        the iteration index to a positive scalar.
      gamma: Decay parameter.
      eps: Epsilon parameter.

    Returns:
      An (init_fun, update_fun, get_params) triple.
    """
    schedule = make_schedule(step_size)

    def init(x0: ArrayLike) -> State:
        return x0, mnp.zeros_like(x0)

    def update(i: Step, g: ArrayLike, state: State) -> State:
        x, avg_sq_grad = state
        avg_sq_grad = avg_sq_grad * gamma + mnp.square(g) * (1.0 - gamma)
        return x - schedule(i) * g / mnp.sqrt(avg_sq_grad + eps), avg_sq_grad

    return init, update, _first


@optimizer
def rmsprop_momentum(
    step_size: float | Schedule, gamma: float = 0.9, eps: float = 1e-8, momentum: float = 0.9
) -> ArrayTriple:
    """Construct optimizer triple for RMSProp with momentum.

    This optimizer is separate from the rmsprop optimizer because it needs to keep track of
    additional parameters.

    Args:
      step_size: positive scalar, or a callable representing a step size schedule that maps
        the iteration index to a positive scalar.
      gamma: Decay parameter.
      eps: Epsilon parameter.
      momentum: Momentum parameter.

    Returns:
      An (init_fun, update_fun, get_params) triple.
    """
    schedule = make_schedule(step_size)

    def update(i: Step, g: ArrayLike, state: State) -> State:
        x, avg_sq_grad, mom = state
        avg_sq_grad = avg_sq_grad * gamma + mnp.square(g) * (1.0 - gamma)
        mom = momentum * mom + schedule(i) * g / mnp.sqrt(avg_sq_grad + eps)
        return x - mom, avg_sq_grad, mom

    return _two_moments, update, _first


@optimizer
def adam(
    step_size: float | Schedule, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8
) -> ArrayTriple:
    """Construct optimizer triple for Adam.

    Args:
      step_size: positive scalar, or a callable representing a step size schedule that maps
        the iteration index to a positive scalar.
      b1: optional, a positive scalar value for beta_1, the exponential decay rate for the
        first moment estimates (default 0.9).
      b2: optional, a positive scalar value for beta_2, the exponential decay rate for the
        second moment estimates (default 0.999).
      eps: optional, a positive scalar value for epsilon, a small constant for numerical
        stability (default 1e-8).

    Returns:
      An (init_fun, update_fun, get_params) triple.
    """
    schedule = make_schedule(step_size)

    def update(i: Step, g: AnyArray, state: State) -> State:
        x, m, v = state
        m = (1 - b1) * g + b1 * m  # first moment estimate
        v = (1 - b2) * mnp.square(g) + b2 * v  # second moment estimate
        mhat = m / (1 - mnp.asarray(b1, m.dtype) ** (i + 1))  # bias correction
        vhat = v / (1 - mnp.asarray(b2, m.dtype) ** (i + 1))
        return x - schedule(i) * mhat / (mnp.sqrt(vhat) + eps), m, v

    return _two_moments, update, _first


@optimizer
def adamax(
    step_size: float | Schedule, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8
) -> ArrayTriple:
    """Construct optimizer triple for AdaMax (a variant of Adam based on infinity norm).

    Args:
      step_size: positive scalar, or a callable representing a step size schedule that maps
        the iteration index to a positive scalar.
      b1: optional, a positive scalar value for beta_1, the exponential decay rate for the
        first moment estimates (default 0.9).
      b2: optional, a positive scalar value for beta_2, the exponential decay rate for the
        second moment estimates (default 0.999).
      eps: optional, a positive scalar value for epsilon, a small constant for numerical
        stability (default 1e-8).

    Returns:
      An (init_fun, update_fun, get_params) triple.
    """
    schedule = make_schedule(step_size)

    def update(i: Step, g: AnyArray, state: State) -> State:
        x, m, u = state
        m = (1 - b1) * g + b1 * m  # first moment estimate
        u = mnp.maximum(b2 * u, mnp.abs(g))  # exponentially weighted infinity norm
        x = x - (schedule(i) / (1 - mnp.asarray(b1, m.dtype) ** (i + 1))) * m / (u + eps)
        return x, m, u

    return _two_moments, update, _first


def _splice(seq: Sequence[Any], i: int, x: Sequence[Any]) -> list[Any]:
    lst = list(seq)
    lst[i : i + 1] = x
    return lst


@optimizer
def sm3(step_size: float | Schedule, momentum: float = 0.9) -> ArrayTriple:
    """Construct optimizer triple for SM3.

    Memory-Efficient Adaptive Optimization for Large-Scale Learning.
    https://arxiv.org/abs/1901.11150

    Args:
      step_size: positive scalar, or a callable representing a step size schedule that maps
        the iteration index to a positive scalar.
      momentum: optional, a positive scalar value for momentum

    Returns:
      An (init_fun, update_fun, get_params) triple.
    """
    schedule = make_schedule(step_size)

    def broadcast_into(ndim: int, x: AnyArray, axis: int) -> AnyArray:
        idx = _splice([None] * ndim, axis, [slice(None)])
        return x[tuple(idx)]

    def init(x0: AnyArray) -> State:
        x_shape = mnp.shape(x0)
        x0 = mnp.atleast_1d(x0)
        vs = [mnp.zeros(sz, dtype=x0.dtype) for sz in x0.shape]
        return x0, mnp.zeros_like(x0), vs, x_shape

    def update(i: Step, g: AnyArray, state: State) -> State:
        x, m, vs, x_shape = state
        vs = [broadcast_into(g.ndim, v, axis) for axis, v in enumerate(vs)]
        accum = functools.reduce(mnp.minimum, vs) + mnp.square(g)
        accum_inv_sqrt = mnp.where(accum > 0, 1.0 / mnp.sqrt(accum), 0)
        m = (1.0 - momentum) * (g * accum_inv_sqrt) + momentum * m
        x = x - schedule(i) * m
        vs = [accum.max(tuple(_splice(range(x.ndim), j, []))) for j in range(x.ndim)]
        return x, m, vs, x_shape

    def get_params(state: State) -> AnyArray:
        x, _, _, x_shape = state
        return x.reshape(x_shape)

    return init, update, get_params


def _first(state: State) -> AnyArray:
    """``get_params`` of the optimizers whose state is ``(x, *auxiliaries)``."""
    return state[0]


# --- step-size schedules --------------------------------------------------------------------


def constant(step_size: object) -> Schedule:
    """The schedule that is ``step_size`` at every step."""

    def schedule(i: Step) -> Any:
        return step_size

    return schedule


def exponential_decay(step_size: Any, decay_steps: Any, decay_rate: Any) -> Schedule:
    """``step_size * decay_rate ** (i / decay_steps)``."""

    def schedule(i: Step) -> Any:
        return step_size * decay_rate ** (i / decay_steps)

    return schedule


def inverse_time_decay(
    step_size: Any, decay_steps: Any, decay_rate: Any, staircase: bool = False
) -> Schedule:
    """``step_size / (1 + decay_rate * i / decay_steps)``, with ``i / decay_steps`` floored
    when ``staircase``."""
    if staircase:

        def schedule(i: Step) -> Any:
            return step_size / (1 + decay_rate * mnp.floor(i / decay_steps))

    else:

        def schedule(i: Step) -> Any:
            return step_size / (1 + decay_rate * i / decay_steps)

    return schedule


def polynomial_decay(
    step_size: Any, decay_steps: Any, final_step_size: Any, power: float = 1.0
) -> Schedule:
    """From ``step_size`` down to ``final_step_size`` at ``decay_steps`` along
    ``(1 - i / decay_steps) ** power``, then constant."""

    def schedule(step_num: Step) -> Any:
        step = mnp.minimum(step_num, decay_steps)
        step_mult = (1 - step / decay_steps) ** power
        return step_mult * (step_size - final_step_size) + final_step_size

    return schedule


def piecewise_constant(boundaries: object, values: ArrayLike) -> Schedule:
    """``values[k]`` for steps ``i`` with exactly ``k`` boundaries below ``i``."""
    boundaries = mnp.array(boundaries)
    values = mnp.array(values)
    if not boundaries.ndim == values.ndim == 1:
        raise ValueError("boundaries and values must be sequences")
    if not boundaries.shape[0] == values.shape[0] - 1:
        raise ValueError("boundaries length must be one shorter than values length")

    def schedule(i: Step) -> Any:
        return values[mnp.sum(i > boundaries)]

    return schedule


def make_schedule(scalar_or_schedule: Any) -> Schedule:
    """A schedule as is; a scalar as the :func:`constant` schedule."""
    if callable(scalar_or_schedule):
        return scalar_or_schedule  # type: ignore[no-any-return]
    if isinstance(scalar_or_schedule, list | tuple):  # (before ndim: JAX deprecates lists)
        raise TypeError(type(scalar_or_schedule))
    if mnp.ndim(scalar_or_schedule) == 0:
        return constant(scalar_or_schedule)
    raise TypeError(type(scalar_or_schedule))


# --- utilities ------------------------------------------------------------------------------


def l2_norm(tree: object) -> Array:
    """Compute the l2 norm of a pytree of arrays. Useful for weight decay."""
    leaves = tree_util.tree_leaves(tree)
    return mnp.sqrt(sum(mnp.vdot(x, x) for x in leaves))


def clip_grads(grad_tree: Any, max_norm: Any) -> Any:
    """Clip gradients stored as a pytree of arrays to maximum norm ``max_norm``."""
    norm = l2_norm(grad_tree)

    def normalize(g: ArrayLike) -> Array:
        return mnp.where(norm < max_norm, g, g * (max_norm / norm))

    return tree_util.tree_map(normalize, grad_tree)


# --- serialization --------------------------------------------------------------------------


class JoinPoint:
    """Marks the boundary between two joined (nested) pytrees."""

    def __init__(self, subtree: object) -> None:
        self.subtree = subtree

    def __iter__(self) -> Iterator[Any]:
        # Since pytrees are containers of numpy arrays, look iterable.
        yield self.subtree


def unpack_optimizer_state(opt_state: OptimizerState) -> Any:
    """Converts an OptimizerState to a marked pytree.

    Converts an OptimizerState to a marked pytree with the leaves of the outer pytree
    represented as JoinPoints to avoid losing information. This function is intended to be
    useful when serializing optimizer states.

    Args:
      opt_state: An OptimizerState

    Returns:
      A pytree with JoinPoint leaves that contain a second level of pytrees.
    """
    states_flat, tree_def, subtree_defs = opt_state
    subtrees = [
        tree_util.tree_unflatten(s, f) for s, f in zip(subtree_defs, states_flat, strict=True)
    ]
    return tree_util.tree_unflatten(tree_def, [JoinPoint(subtree) for subtree in subtrees])


def pack_optimizer_state(marked_pytree: object) -> OptimizerState:
    """Converts a marked pytree to an OptimizerState.

    The inverse of unpack_optimizer_state. Converts a marked pytree with the leaves of the
    outer pytree represented as JoinPoints back into an OptimizerState. This function is
    intended to be useful when deserializing optimizer states.

    Args:
      marked_pytree: A pytree containing JoinPoint leaves that hold more pytrees.

    Returns:
      An equivalent OptimizerState to the input argument.
    """
    sentinels, tree_def = tree_util.tree_flatten(marked_pytree)
    if not all(isinstance(s, JoinPoint) for s in sentinels):
        raise TypeError(
            "pack_optimizer_state: every leaf must be a JoinPoint (as unpack_optimizer_state "
            f"makes them), got {[type(s).__name__ for s in sentinels]}"
        )
    states_flat, subtree_defs = _unzip_flatten([s.subtree for s in sentinels])
    return OptimizerState(states_flat, tree_def, subtree_defs)
