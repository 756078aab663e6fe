"""jit speed: dispatch, steady-state MLP train step, first call; next to jax.jit when present.

``run()`` returns a dict of measurements (microseconds / milliseconds / seconds):

* ``dispatch_us``: ``jit(lambda x: x + 1.0)`` on a float32 scalar already on the device,
  median per-call time over 10,000 calls (5 rounds);
* ``mlp_step_ms``: jitted MLP train step (784-512-512-10, batch 128, tanh, MSE, grad + SGD),
  outputs fed back as inputs, median per step;
* ``first_call_s``: trace + lower + compile + run of that step, in a fresh ``jit``.

Each key has a ``jax_`` twin when jax is importable (measured in the same process). Run as a
script to print them. For one-thread numbers pin the process first (``taskset -c 0``).
"""

from __future__ import annotations

import itertools
import statistics
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from mj_autodiff import grad
from mj_core import lax
from mj_xla import device_put, jit

SIZES = (784, 512, 512, 10)
BATCH = 128
LR = 1e-3


def _median_per_call(fn: Callable[[], Any], n: int, rounds: int = 5) -> float:
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        out = None
        for _ in range(n):
            out = fn()
        _block(out)
        times.append((time.perf_counter() - t0) / n)
    return statistics.median(times)


def _block(x: Any) -> None:
    for leaf in x if isinstance(x, tuple | list) else (x,):
        if hasattr(leaf, "block_until_ready"):
            leaf.block_until_ready()


def _init_params(rng: np.random.Generator) -> list[np.ndarray[Any, Any]]:
    params: list[np.ndarray[Any, Any]] = []
    for m, n in itertools.pairwise(SIZES):
        params.append((rng.normal(size=(m, n)) / np.sqrt(m)).astype(np.float32))
        params.append(np.zeros(n, np.float32))
    return params


def _data(rng: np.random.Generator) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    x = rng.normal(size=(BATCH, SIZES[0])).astype(np.float32)
    y = rng.normal(size=(BATCH, SIZES[-1])).astype(np.float32)
    return x, y


def _mj_step() -> Callable[..., Any]:
    def loss(params: list[Any], x: Any, y: Any) -> Any:
        h = x
        for i in range(0, len(params) - 2, 2):
            h = lax.tanh(lax.dot(h, params[i]) + params[i + 1])
        out = lax.dot(h, params[-2]) + params[-1]
        err = out - y
        return lax.reduce_sum(err * err, (0, 1)) / float(err.size)

    def step(params: list[Any], x: Any, y: Any) -> list[Any]:
        grads = grad(loss)(params, x, y)
        return [p - LR * g for p, g in zip(params, grads, strict=True)]

    return step


def _jax_step(jax: ModuleType) -> Callable[..., Any]:
    jnp = jax.numpy

    def loss(params: list[Any], x: Any, y: Any) -> Any:
        h = x
        for i in range(0, len(params) - 2, 2):
            h = jnp.tanh(h @ params[i] + params[i + 1])
        out = h @ params[-2] + params[-1]
        return jnp.mean((out - y) ** 2)

    def step(params: list[Any], x: Any, y: Any) -> list[Any]:
        grads = jax.grad(loss)(params, x, y)
        return [p - LR * g for p, g in zip(params, grads, strict=True)]

    return step


def _measure(
    jit_fn: Callable[..., Any], put: Callable[[Any], Any], make_step: Callable[[], Any]
) -> dict[str, float]:
    rng = np.random.default_rng(0)
    add_one = jit_fn(lambda x: x + 1.0)
    scalar = put(np.float32(1.5))
    add_one(scalar)
    dispatch = _median_per_call(lambda: add_one(scalar), 10_000)

    params = [put(p) for p in _init_params(rng)]
    x, y = (put(a) for a in _data(rng))
    step = jit_fn(make_step())
    t0 = time.perf_counter()
    params = step(params, x, y)
    _block(params)
    first = time.perf_counter() - t0

    state = {"params": params}

    def one_step() -> Any:
        state["params"] = step(state["params"], x, y)
        return state["params"]

    mlp = _median_per_call(one_step, 50)
    return {"dispatch_us": dispatch * 1e6, "mlp_step_ms": mlp * 1e3, "first_call_s": first}


def _try_import_jax() -> ModuleType | None:
    try:
        import jax
    except ImportError:
        return None
    return jax


def run() -> dict[str, float]:
    """Measure mj's jit (and jax.jit when importable); see the module docstring."""
    results = _measure(jit, device_put, _mj_step)
    jax = _try_import_jax()
    if jax is not None:
        theirs = _measure(jax.jit, jax.device_put, lambda: _jax_step(jax))
        results.update({f"jax_{k}": v for k, v in theirs.items()})
        for key in ("dispatch_us", "mlp_step_ms", "first_call_s"):
            results[f"ratio_{key}"] = results[key] / results[f"jax_{key}"]
    return results


if __name__ == "__main__":
    for name, value in run().items():
        print(f"{name:>24}: {value:.4g}")
