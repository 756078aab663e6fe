"""``mj.experimental.ode.odeint``: JAX's adaptive-step ODE solver, with the adjoint method
for reverse-mode derivatives.

The forward pass is the Dormand-Prince (RK45) method: a ``while_loop`` of trial steps per
requested output time (a step is kept when its error estimate is within ``rtol``/``atol``,
and the next step size comes from the error ratio), inside a ``scan`` over the output times;
each output is read off the 4th-order polynomial that interpolates the step containing it.

Derivatives do not go through the solver's loops: ``odeint`` is a ``custom_vjp`` whose
backward pass solves the adjoint system backwards in time (Chen et al. 2018, "Neural
Ordinary Differential Equations", appendix C): the state is integrated backwards together
with its cotangent ``a(t)`` (``da/dt = -a df/dy``), the time cotangent and the cotangents of
``*args`` (``d/dt = -a df/dargs``), using ``odeint`` itself between consecutive output
times. Memory does not grow with the number of solver steps.

``func``'s closed-over arrays are hoisted to explicit arguments (``closure_convert``), so
they receive cotangents too.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

import mj.numpy as mnp
from mj import lax
from mj.flatten_util import ravel_pytree
from mj_autodiff import closure_convert, custom_vjp, vjp
from mj_batch import vmap
from mj_core.extend import AnyArray, ArrayLike
from mj_core.tree_util import tree_leaves, tree_map
from mj_xla import jit

__all__ = ["odeint"]

# The Dormand-Prince tableau: stage times, stage weights, the 5th-order solution and the
# difference to the embedded 4th-order one (the error estimate).
_ALPHA = np.array([1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0, 0.0])
_BETA = np.array(
    [
        [1 / 5, 0, 0, 0, 0, 0, 0],
        [3 / 40, 9 / 40, 0, 0, 0, 0, 0],
        [44 / 45, -56 / 15, 32 / 9, 0, 0, 0, 0],
        [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729, 0, 0, 0],
        [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656, 0, 0],
        [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0],
    ]
)
_C_SOL = np.array([35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0])
_C_ERR = _C_SOL - np.array(
    [1951 / 21600, 0, 22642 / 50085, 451 / 720, -12231 / 42400, 649 / 6300, 1 / 60]
)
# Weights of the stages for the solution at the middle of a step (Shampine's dense output).
_C_MID = 0.5 * np.array(
    [6025192743 / 30085553152, 0, 51252292925 / 65400821598, -2691868925 / 45128329728,
     187940372067 / 1594534317056, -1776094331 / 19743644256, 11237099 / 235043384]
)  # fmt: skip


def _interp_fit(y0: AnyArray, y1: AnyArray, k: AnyArray, dt: AnyArray) -> AnyArray:
    """Coefficients (highest power first) of the quartic through ``y0`` at 0, ``y1`` at 1 and
    the midpoint solution, with slopes ``dt * k[0]`` and ``dt * k[-1]`` at the ends."""
    dt = dt.astype(y0.dtype)
    y_mid = y0 + dt * mnp.dot(_C_MID.astype(y0.dtype), k)
    dy0, dy1 = dt * k[0], dt * k[-1]
    a = -2.0 * dy0 + 2.0 * dy1 - 8.0 * y0 - 8.0 * y1 + 16.0 * y_mid
    b = 5.0 * dy0 - 3.0 * dy1 + 18.0 * y0 + 14.0 * y1 - 32.0 * y_mid
    c = -4.0 * dy0 + dy1 - 11.0 * y0 - 5.0 * y1 + 16.0 * y_mid
    return mnp.stack([a, b, c, dy0, y0])


def _initial_step(
    fun: Callable[..., AnyArray],
    t0: AnyArray,
    y0: AnyArray,
    f0: AnyArray,
    rtol: float,
    atol: float,
) -> AnyArray:
    """Hairer, Norsett & Wanner's starting step (Solving ODEs I, section II.4), order 4."""
    scale = atol + mnp.abs(y0) * rtol
    d0 = mnp.linalg.norm(y0 / scale)
    d1 = mnp.linalg.norm(f0 / scale)
    h0 = mnp.where((d0 < 1e-5) | (d1 < 1e-5), 1e-6, 0.01 * d0 / d1)
    f1 = fun(y0 + h0.astype(y0.dtype) * f0, t0 + h0)
    d2 = mnp.linalg.norm((f1 - f0) / scale) / h0
    h1 = mnp.where(
        (d1 <= 1e-15) & (d2 <= 1e-15),
        mnp.maximum(1e-6, h0 * 1e-3),
        (0.01 / mnp.maximum(d1, d2)) ** (1.0 / 5.0),
    )
    return mnp.minimum(100.0 * h0, h1)


def _rk_step(
    fun: Callable[..., AnyArray], y0: AnyArray, f0: AnyArray, t0: AnyArray, dt: AnyArray
) -> tuple[AnyArray, AnyArray, AnyArray, AnyArray]:
    """One Dormand-Prince step: ``(y1, f(y1), error estimate, stage derivatives k)``."""
    beta = mnp.asarray(_BETA, f0.dtype)
    alpha = mnp.asarray(_ALPHA, dt.dtype)
    step = dt.astype(f0.dtype)

    def stage(i: AnyArray, k: AnyArray) -> AnyArray:
        ti = t0 + dt * alpha[i - 1]
        yi = y0 + step * mnp.dot(beta[i - 1], k)
        return k.at[i].set(fun(yi, ti))

    k = mnp.zeros((7, f0.shape[0]), f0.dtype).at[0].set(f0)
    k = lax.fori_loop(1, 7, stage, k)
    y1 = y0 + step * mnp.dot(_C_SOL.astype(f0.dtype), k)
    return y1, k[-1], step * mnp.dot(_C_ERR.astype(f0.dtype), k), k


def _error_ratio(error: AnyArray, rtol: float, atol: float, y0: AnyArray, y1: AnyArray) -> AnyArray:
    tol = atol + rtol * mnp.maximum(mnp.abs(y0), mnp.abs(y1))
    ratio = error / tol.astype(error.dtype)
    return mnp.sqrt(mnp.mean(mnp.real(ratio * mnp.conj(ratio))))


def _next_step(dt: AnyArray, ratio: AnyArray) -> AnyArray:
    """The step size the error ratio suggests: at most 10x larger, after a rejection at
    least 5x smaller, with the usual 0.9 safety factor (order 5)."""
    shrink = mnp.where(ratio < 1, 1.0, 0.2)
    factor = mnp.minimum(10.0, mnp.maximum(ratio ** (-1.0 / 5.0) * 0.9, shrink))
    return mnp.where(ratio == 0, dt * 10.0, dt * factor)


def odeint(
    func: Callable[..., Any],
    y0: object,
    t: ArrayLike,
    *args: object,
    rtol: float = 1.4e-8,
    atol: float = 1.4e-8,
    mxstep: float = math.inf,
    hmax: float = math.inf,
) -> Any:
    """Solve ``dy/dt = func(y, t, *args)`` from ``y(t[0]) = y0``; the solution at each time
    of ``t`` (floats, increasing), stacked along a new leading axis of each leaf of ``y0``.

    Arguments:
        func: the time derivative, ``func(y, t, *args)``, with ``y0``'s pytree structure.
        y0: the initial state (an array or a pytree of arrays).
        t: the output times; ``t[0]`` is the initial time.
        args: arrays (or pytrees of arrays) passed to ``func``; differentiable.
        rtol, atol: relative and absolute local error tolerances.
        mxstep: the most solver steps between two output times.
        hmax: the largest step size.

    Example::

        >>> ys = odeint(lambda y, t, k: -k * y, 1.0, mnp.linspace(0.0, 1.0, 3), 2.0)
    """
    for leaf in tree_leaves(args):
        if not isinstance(leaf, int | float | complex | np.ndarray | np.generic) and not hasattr(
            leaf, "dtype"
        ):
            raise TypeError(
                f"The contents of odeint *args must be arrays or scalars, but got {leaf!r}."
            )
    t = mnp.asarray(t)
    if not mnp.issubdtype(t.dtype, mnp.floating):
        raise TypeError(f"t must be an array of floats, but got {t}.")
    converted, consts = closure_convert(func, y0, t[0], *args)
    return _odeint_wrapper(converted, rtol, atol, mxstep, hmax, y0, t, *args, *consts)


@jit(static_argnums=(0, 1, 2, 3, 4))
def _odeint_wrapper(
    func: Callable[..., Any], rtol: float, atol: float, mxstep: float, hmax: float,
    y0: object, ts: ArrayLike, *args: object,
) -> Any:  # fmt: skip
    flat_y0, unravel = ravel_pytree(y0)

    def flat_func(y: AnyArray, t: AnyArray, *args: Any) -> AnyArray:
        return ravel_pytree(func(unravel(y), t, *args))[0]

    out = _odeint(flat_func, rtol, atol, mxstep, hmax, flat_y0, ts, *args)
    return vmap(unravel)(out)


def _solve(
    func: Callable[..., AnyArray], rtol: float, atol: float, mxstep: float, hmax: float,
    y0: AnyArray, ts: AnyArray, *args: Any,
) -> AnyArray:  # fmt: skip
    def fun(y: ArrayLike, t: object) -> AnyArray:
        return func(y, t, *args)

    def to_output_time(carry: list[AnyArray], target: object) -> tuple[list[AnyArray], AnyArray]:
        def more_steps(state: list[AnyArray]) -> AnyArray:
            i, _, _, t, dt, _, _ = state
            return (t < target) & (i < mxstep) & (dt > 0)

        def trial_step(state: list[AnyArray]) -> list[AnyArray]:
            i, y, f, t, dt, last_t, coeffs = state
            y1, f1, err, k = _rk_step(fun, y, f, t, dt)
            ratio = _error_ratio(err, rtol, atol, y, y1)
            new_dt = mnp.clip(_next_step(dt, ratio), 0.0, hmax)
            accepted = [i + 1, y1, f1, t + dt, new_dt, t, _interp_fit(y, y1, k, dt)]
            rejected = [i + 1, y, f, t, new_dt, last_t, coeffs]
            keep = ratio <= 1.0
            return [mnp.where(keep, a, r) for a, r in zip(accepted, rejected, strict=True)]

        _, *carry = lax.while_loop(more_steps, trial_step, [0, *carry])
        _, _, t, _, last_t, coeffs = carry
        s = (target - last_t) / (t - last_t)
        return carry, mnp.polyval(coeffs, s.astype(coeffs.dtype))

    f0 = fun(y0, ts[0])
    dt = mnp.clip(_initial_step(fun, ts[0], y0, f0, rtol, atol), 0.0, hmax)
    init = [y0, f0, ts[0], dt, ts[0], mnp.stack([y0] * 5)]
    _, ys = lax.scan(to_output_time, init, ts[1:])
    return mnp.concatenate([y0[None], ys])


_odeint = custom_vjp(_solve, nondiff_argnums=(0, 1, 2, 3, 4))


def _odeint_fwd(
    func: Callable[..., AnyArray], rtol: float, atol: float, mxstep: float, hmax: float,
    y0: object, ts: object, *args: object,
) -> tuple[AnyArray, tuple[AnyArray, AnyArray, tuple[Any, ...]]]:  # fmt: skip
    ys = _odeint(func, rtol, atol, mxstep, hmax, y0, ts, *args)
    return ys, (ys, ts, args)


def _odeint_rev(
    func: Callable[..., AnyArray], rtol: float, atol: float, mxstep: float, hmax: float,
    residuals: tuple[AnyArray, AnyArray, tuple[Any, ...]], g: AnyArray,
) -> tuple[Any, ...]:  # fmt: skip
    """The adjoint method: between consecutive output times, integrate the state, its
    cotangent, the time cotangent and the args' cotangents backwards (time negated)."""
    ys, ts, args = residuals

    def augmented(state: tuple[Any, ...], minus_t: AnyArray, *args: Any) -> tuple[Any, ...]:
        y, y_bar, *_ = state
        y_dot, pullback = vjp(func, y, -minus_t, *args)
        return (-y_dot, *pullback(y_bar))

    def back_one_interval(carry: tuple[Any, ...], i: AnyArray) -> tuple[tuple[Any, ...], AnyArray]:
        y_bar, t0_bar, args_bar = carry
        t_bar = mnp.real(mnp.dot(func(ys[i], ts[i], *args), g[i]))  # moving output time i
        t0_bar = t0_bar - t_bar
        _, y_bar, t0_bar, args_bar = odeint(
            augmented, (ys[i], y_bar, t0_bar, args_bar), mnp.stack([-ts[i], -ts[i - 1]]), *args,
            rtol=rtol, atol=atol, mxstep=mxstep, hmax=hmax,
        )  # fmt: skip
        y_bar, t0_bar, args_bar = tree_map(operator.itemgetter(1), (y_bar, t0_bar, args_bar))
        return (y_bar + g[i - 1], t0_bar, args_bar), t_bar

    init = (g[-1], mnp.zeros((), ts.dtype), tree_map(mnp.zeros_like, args))
    (y_bar, t0_bar, args_bar), rev_ts_bar = lax.scan(
        back_one_interval, init, mnp.arange(len(ts) - 1, 0, -1)
    )
    ts_bar = mnp.concatenate([t0_bar[None], rev_ts_bar[::-1]])
    return (y_bar, ts_bar, *args_bar)


_odeint.defvjp(_odeint_fwd, _odeint_rev)
