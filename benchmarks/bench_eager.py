"""Workload 1: eager op overhead, microseconds per elementwise op.

A chain of 1000 ops (``x = sin(x) * x + 0.5``, repeated: it stays bounded, near 2.2) on a
16-element float32 array, so the time is almost all per-op dispatch: ``mj.numpy`` (eager, no
transformation), raw NumPy, JAX eager (``jax.numpy`` outside ``jit``) and torch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from harness import Config, Result, SideBySide, Workload, block, check_close

import mj.numpy as mnp

Unary = Callable[[Any], Any]
Binary = Callable[[Any, Any], Any]


def chain(sin: Unary, mul: Binary, add: Binary, n_ops: int) -> Unary:
    """``n_ops`` elementwise ops: ``x = add(mul(sin(x), x), 0.5)`` repeated."""

    def f(x: Any) -> Any:
        for _ in range(n_ops // 3):
            x = add(mul(sin(x), x), 0.5)
        return x

    return f


def eager_ops(config: Config) -> list[Result]:
    n_ops = config.pick(1000, 1000, 30)
    repeats = config.pick(30, 10, 1)
    per = 3 * (n_ops // 3)
    x = np.linspace(-1, 1, 16, dtype=np.float32)
    case = f"{per} ops on 16 float32"
    want = chain(np.sin, np.multiply, np.add, n_ops)(x)

    bench = SideBySide(1, case, "us/op", repeats=repeats, per=per, unit_scale=1e6)

    def add(system: str, label: str, f: Unary, arg: Any, sync: Callable[[Any], Any]) -> None:
        check_close(f"workload 1 {label}", sync(f(arg)), want, rtol=1e-4, atol=1e-5)
        bench.add(system, label, lambda: f(arg), sync)

    def keep(y: Any) -> Any:
        return y

    add("mj", "mj.numpy", chain(mnp.sin, mnp.multiply, mnp.add, n_ops), x, keep)
    add("numpy", "NumPy", chain(np.sin, np.multiply, np.add, n_ops), x, keep)
    results: list[Result] = []
    jax, torch = config.peers.jax, config.peers.torch
    if jax is None:
        results.append(config.peers.skip(1, "jax"))
    else:
        jnp = jax.numpy
        add("jax", "JAX eager", chain(jnp.sin, jnp.multiply, jnp.add, n_ops), jnp.asarray(x), block)
    if torch is None:
        results.append(config.peers.skip(1, "torch"))
    else:
        f = chain(torch.sin, torch.mul, torch.add, n_ops)
        add("torch", "torch eager", f, torch.from_numpy(x.copy()), keep)
    return [*bench.run(), *results]


WORKLOADS = (Workload(1, "eager op overhead: 1000 elementwise ops on 16 elements", eager_ops),)
