"""Eager (no transformation) cost of ``mj_core.numpy``: microseconds per elementwise op.

A chain of 1000 ops (sin, mul, add) on a 16-element float32 array, timed for raw NumPy,
``mj_core.numpy`` and, when importable, JAX eager and torch, in the same run (best of
``repeats``). Target (issue 3): mj at most 1.0 us/op and within 0.7 us of NumPy. Run::

    python benchmarks/bench_eager.py
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import mj_core.numpy as mnp

N_OPS = 1000


def _chain(
    sin: Callable[[Any], Any], mul: Callable[[Any, Any], Any], add: Callable[[Any, Any], Any]
) -> Callable[[Any], Any]:
    def f(x: Any) -> Any:
        for _ in range(N_OPS // 3):
            x = add(mul(sin(x), x), x)
        return x

    return f


def _per_op_us(f: Callable[[Any], Any], x: Any, repeats: int, sync: Callable[[Any], Any]) -> float:
    sync(f(x))  # warm up (JAX compiles per-op kernels on first use)
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        sync(f(x))
        best = min(best, time.perf_counter() - t0)
    return best / (3 * (N_OPS // 3)) * 1e6


def _optional(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def run(repeats: int = 20) -> dict[str, float]:
    """Per-op microseconds by library."""
    x = np.linspace(-1, 1, 16, dtype=np.float32)
    results = {
        "numpy": _per_op_us(_chain(np.sin, np.multiply, np.add), x, repeats, lambda y: y),
        "mj_core.numpy": _per_op_us(
            _chain(mnp.sin, mnp.multiply, mnp.add), x, repeats, lambda y: y
        ),
    }
    jnp = _optional("jax.numpy")
    if jnp is not None:
        xj = jnp.asarray(x)
        results["jax"] = _per_op_us(
            _chain(jnp.sin, jnp.multiply, jnp.add),
            xj,
            max(3, repeats // 4),
            lambda y: y.block_until_ready(),
        )
    torch = _optional("torch")
    if torch is not None:
        xt = torch.from_numpy(x)
        results["torch"] = _per_op_us(
            _chain(torch.sin, torch.mul, torch.add), xt, repeats, lambda y: y
        )
    return results


if __name__ == "__main__":
    res = run()
    for lib, us in res.items():
        print(f"{lib:>15}: {us:6.3f} us/op")
    print(f"mj overhead over NumPy: {res['mj_core.numpy'] - res['numpy']:.3f} us/op")
