"""Workloads 3, 5 and 6: ``jit`` in steady state, on its first call, and its dispatch cost.

* 3: the jitted MLP train step (``mlp.py``: grad + SGD), outputs fed back as inputs, median
  per step; mj's ``jit`` vs ``jax.jit`` and torch eager (forward, ``autograd.grad``, update).
* 5: the first call of that step through a fresh ``jit`` of fresh functions: trace, lower,
  compile and run; mj vs JAX.
* 6: ``jit(lambda x: x + 1.0)`` on a float32 scalar already on the device, 10,000 calls per
  sample, microseconds per call; mj vs JAX.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import mlp
import numpy as np
from harness import Config, Measurement, Result, Workload, block, check_close, measure

import mj

CASE_STEP, CASE_FIRST, CASE_DISPATCH = "train step", "first call", "x + 1.0"


def _sizes(config: Config) -> tuple[tuple[int, ...], int]:
    return config.pick(
        (mlp.FULL_SIZES, mlp.FULL_BATCH),
        (mlp.FULL_SIZES, mlp.FULL_BATCH),
        (mlp.TINY_SIZES, mlp.TINY_BATCH),
    )


def _feed_back(step: Callable[..., Any], params: Any, x: Any, y: Any) -> Callable[[], Any]:
    """A no-argument call running one step on the previous step's output."""
    state = [params]

    def one_step() -> Any:
        state[0] = step(state[0], x, y)
        return state[0]

    return one_step


def train_step(config: Config) -> list[Result]:
    sizes, batch = _sizes(config)
    params, x, y = mlp.init(sizes, batch)
    want = mlp.numpy_step(params, x, y)
    repeats, number = config.pick(15, 5, 1), config.pick(20, 5, 1)

    def timed(step: Callable[[], Any], sync: Callable[[Any], Any]) -> Any:
        return measure(step, repeats=repeats, number=number, sync=sync, warmup=2)

    results: list[Result] = []
    step = mj.jit(mlp.mj_functions()[1])
    dev = [mj.device_put(a) for a in (*params, x, y)]
    mj_params, mj_x, mj_y = dev[:-2], dev[-2], dev[-1]
    check_close("workload 3 mj", step(mj_params, mj_x, mj_y), want, rtol=2e-4, atol=1e-6)
    timing = timed(_feed_back(step, mj_params, mj_x, mj_y), block)
    results.append(Measurement(3, CASE_STEP, "mj", "mj.jit", "ms", timing))

    jax, torch = config.peers.jax, config.peers.torch
    if jax is None:
        results.append(config.peers.skip(3, "jax"))
    else:
        jstep = jax.jit(mlp.jax_functions(jax)[1])
        jparams = [jax.device_put(p) for p in params]
        jx, jy = jax.device_put(x), jax.device_put(y)
        check_close("workload 3 jax", jstep(jparams, jx, jy), want, rtol=2e-4, atol=1e-6)
        timing = timed(_feed_back(jstep, jparams, jx, jy), block)
        results.append(Measurement(3, CASE_STEP, "jax", "jax.jit", "ms", timing))
    if torch is None:
        results.append(config.peers.skip(3, "torch"))
    else:
        tparams = mlp.torch_params(torch, params)
        tx, ty = torch.from_numpy(x), torch.from_numpy(y)

        def tstep(p: Any, a: Any, b: Any) -> Any:
            return mlp.torch_step(torch, p, a, b)

        check_close("workload 3 torch", tstep(tparams, tx, ty), want, rtol=2e-4, atol=1e-6)
        timing = timed(_feed_back(tstep, tparams, tx, ty), block)
        results.append(Measurement(3, CASE_STEP, "torch", "torch eager", "ms", timing))
    return results


def first_call(config: Config) -> list[Result]:
    sizes, batch = _sizes(config)
    params, x, y = mlp.init(sizes, batch)
    repeats = config.pick(5, 3, 1)

    def mj_first() -> Any:
        return block(mj.jit(mlp.mj_functions()[1])(params, x, y))

    timing = measure(mj_first, repeats=repeats, unit_scale=1.0)
    results: list[Result] = [Measurement(5, CASE_FIRST, "mj", "mj.jit", "s", timing)]
    jax = config.peers.jax
    if jax is None:
        results.append(config.peers.skip(5, "jax"))
    else:

        def jax_first() -> Any:
            return block(jax.jit(mlp.jax_functions(jax)[1])(params, x, y))

        timing = measure(jax_first, repeats=repeats, unit_scale=1.0)
        results.append(Measurement(5, CASE_FIRST, "jax", "jax.jit", "s", timing))
    return results


def dispatch(config: Config) -> list[Result]:
    calls, repeats = config.pick(10_000, 2_000, 10), config.pick(7, 3, 1)

    def per_call(jit: Callable[..., Any], put: Callable[[Any], Any]) -> Any:
        add_one = jit(lambda x: x + 1.0)
        scalar = put(np.float32(1.5))
        check_close("workload 6", add_one(scalar), np.float32(2.5), rtol=0)

        def call() -> Any:
            return add_one(scalar)

        return measure(call, repeats=repeats, number=calls, sync=block, warmup=10, unit_scale=1e6)

    results: list[Result] = [
        Measurement(6, CASE_DISPATCH, "mj", "mj.jit", "us/call", per_call(mj.jit, mj.device_put))
    ]
    jax = config.peers.jax
    if jax is None:
        results.append(config.peers.skip(6, "jax"))
    else:
        timing = per_call(jax.jit, jax.device_put)
        results.append(Measurement(6, CASE_DISPATCH, "jax", "jax.jit", "us/call", timing))
    return results


WORKLOADS = (
    Workload(3, "jitted MLP train step, steady state", train_step),
    Workload(5, "first call (trace+lower+compile+run) of the jitted train step", first_call),
    Workload(6, "jit dispatch of x + 1.0 on a device scalar", dispatch),
)
