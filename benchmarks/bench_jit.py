"""Workloads 3, 5 and 6: ``jit`` in steady state, on its first call, and its dispatch cost.

* 3: the jitted MLP train step (``mlp.py``: grad + SGD), outputs fed back as inputs, median
  per step; mj's ``jit`` vs ``jax.jit`` and torch eager (forward, ``autograd.grad``, update).
* 5: the first call of that step through a fresh ``jit`` of fresh functions: trace, lower,
  compile and run; mj vs JAX.
* 6: ``jit(lambda x: x + 1.0)`` on a float32 scalar already on the device, 10,000 calls per
  sample, microseconds per call; mj vs JAX. Beside it, the train step at tiny sizes (its six
  parameters a list of device arrays, outputs fed back): the dispatch of a pytree, which
  costs about as much as the computation. Then the same two with host NumPy arguments (the
  common call of a script): ``jit(lambda x: x * 2.0 + 1.0)`` on a NumPy float32[16], and the
  tiny train step with its parameters on the device and its batch a pair of NumPy arrays;
  each call transfers the host data (float64 NumPy data would be narrowed first).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import mlp
import numpy as np
from harness import Config, Result, SideBySide, Workload, block, check_close

import mj

CASE_STEP, CASE_FIRST, CASE_DISPATCH = "train step", "first call", "x + 1.0"
CASE_TREE = "tiny train step, 6 parameters in a list"
CASE_HOST = "x * 2.0 + 1.0, host f32[16]"
CASE_HOST_STEP = "tiny train step, host batch"


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
    bench = SideBySide(3, CASE_STEP, "ms", repeats=repeats, number=number, warmup=2)
    results: list[Result] = []

    step = mj.jit(mlp.mj_functions()[1])
    dev = [mj.device_put(a) for a in (*params, x, y)]
    mj_params, mj_x, mj_y = dev[:-2], dev[-2], dev[-1]
    check_close("workload 3 mj", step(mj_params, mj_x, mj_y), want, rtol=2e-4, atol=1e-6)
    bench.add("mj", "mj.jit", _feed_back(step, mj_params, mj_x, mj_y), block)

    jax, torch = config.peers.jax, config.peers.torch
    if jax is None:
        results.append(config.peers.skip(3, "jax"))
    else:
        jstep = jax.jit(mlp.jax_functions(jax)[1])
        jparams = [jax.device_put(p) for p in params]
        jx, jy = jax.device_put(x), jax.device_put(y)
        check_close("workload 3 jax", jstep(jparams, jx, jy), want, rtol=2e-4, atol=1e-6)
        bench.add("jax", "jax.jit", _feed_back(jstep, jparams, jx, jy), block)
    if torch is None:
        results.append(config.peers.skip(3, "torch"))
    else:
        tparams = mlp.torch_params(torch, params)
        tx, ty = torch.from_numpy(x), torch.from_numpy(y)

        def tstep(p: Any, a: Any, b: Any) -> Any:
            return mlp.torch_step(torch, p, a, b)

        check_close("workload 3 torch", tstep(tparams, tx, ty), want, rtol=2e-4, atol=1e-6)
        bench.add("torch", "torch eager", _feed_back(tstep, tparams, tx, ty), block)
    return [*bench.run(), *results]


def first_call(config: Config) -> list[Result]:
    sizes, batch = _sizes(config)
    params, x, y = mlp.init(sizes, batch)
    bench = SideBySide(5, CASE_FIRST, "s", repeats=config.pick(5, 3, 1), unit_scale=1)

    def mj_first() -> Any:
        return block(mj.jit(mlp.mj_functions()[1])(params, x, y))

    bench.add("mj", "mj.jit", mj_first)
    results: list[Result] = []
    jax = config.peers.jax
    if jax is None:
        results.append(config.peers.skip(5, "jax"))
    else:

        def jax_first() -> Any:
            return block(jax.jit(mlp.jax_functions(jax)[1])(params, x, y))

        bench.add("jax", "jax.jit", jax_first)
    return [*bench.run(), *results]


def dispatch(config: Config) -> list[Result]:
    calls, repeats = config.pick(10_000, 2_000, 10), config.pick(7, 3, 1)
    bench = SideBySide(
        6, CASE_DISPATCH, "us/call", repeats=repeats, number=calls, warmup=10, unit_scale=1e6
    )

    def add(system: str, jit: Callable[..., Any], put: Callable[[Any], Any]) -> None:
        add_one = jit(lambda x: x + 1.0)
        scalar = put(np.float32(1.5))
        check_close("workload 6", add_one(scalar), np.float32(2.5), rtol=0)
        bench.add(system, f"{system}.jit", lambda: add_one(scalar), block)

    # A small train step whose parameters are a list of arrays: the dispatch of pytrees.
    params, x, y = mlp.init(mlp.TINY_SIZES, mlp.TINY_BATCH)
    want = mlp.numpy_step(params, x, y)
    tree = SideBySide(
        6, CASE_TREE, "us/call", repeats=repeats, number=calls // 10, warmup=10, unit_scale=1e6
    )

    def add_step(system: str, step: Callable[..., Any], put: Callable[[Any], Any]) -> None:
        dev = [put(a) for a in (*params, x, y)]
        check_close("workload 6 tiny step", step(dev[:-2], *dev[-2:]), want, rtol=2e-4, atol=1e-6)
        tree.add(system, f"{system}.jit", _feed_back(step, dev[:-2], *dev[-2:]), block)

    # Host NumPy arguments: each call transfers them (the parameters stay on the device).
    host = SideBySide(
        6, CASE_HOST, "us/call", repeats=repeats, number=calls, warmup=10, unit_scale=1e6
    )
    host_step = SideBySide(
        6,
        CASE_HOST_STEP,
        "us/call",
        repeats=repeats,
        number=calls // 10,
        warmup=10,
        unit_scale=1e6,
    )
    x16 = np.linspace(-1.0, 1.0, 16, dtype=np.float32)

    def add_host(system: str, jit: Callable[..., Any], step: Callable[..., Any], put: Any) -> None:
        affine = jit(lambda v: v * 2.0 + 1.0)
        check_close("workload 6 host", affine(x16), x16 * 2.0 + 1.0, rtol=1e-6)
        host.add(system, f"{system}.jit", lambda: affine(x16), block)
        dev = [put(a) for a in params]
        check_close("workload 6 host step", step(dev, x, y), want, rtol=2e-4, atol=1e-6)
        host_step.add(system, f"{system}.jit", _feed_back(step, dev, x, y), block)

    add("mj", mj.jit, mj.device_put)
    add_step("mj", mj.jit(mlp.mj_functions()[1]), mj.device_put)
    add_host("mj", mj.jit, mj.jit(mlp.mj_functions()[1]), mj.device_put)
    results: list[Result] = []
    jax = config.peers.jax
    if jax is None:
        results.append(config.peers.skip(6, "jax"))
    else:
        add("jax", jax.jit, jax.device_put)
        add_step("jax", jax.jit(mlp.jax_functions(jax)[1]), jax.device_put)
        add_host("jax", jax.jit, jax.jit(mlp.jax_functions(jax)[1]), jax.device_put)
    return [*bench.run(), *tree.run(), *host.run(), *host_step.run(), *results]


WORKLOADS = (
    Workload(3, "jitted MLP train step, steady state", train_step),
    Workload(5, "first call (trace+lower+compile+run) of the jitted train step", first_call),
    Workload(6, "jit dispatch: device scalar, array pytree, host NumPy arguments", dispatch),
)
