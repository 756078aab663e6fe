"""Workload 4: tracing cost of ``make_jaxpr``, microseconds per staged equation.

N-op chains (sin, cos, multiply by 2.0, add to itself, cycling) for N = 1e3, 1e4, 1e5, traced
with ``mj.make_jaxpr`` and ``jax.make_jaxpr``. Each timed call traces a freshly built function,
so that JAX's trace cache cannot answer it. The cost should stay flat in N (no quadratic pass).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from harness import Config, Measurement, Result, Workload, measure

import mj

Op = Callable[[Any], Any]


def chain(ops: Sequence[Op], n: int) -> Op:
    def f(x: Any) -> Any:
        for i in range(n):
            x = ops[i % len(ops)](x)
        return x

    return f


def lax_ops(lax: Any) -> list[Op]:
    """The cycle of ops, from ``mj.lax`` or ``jax.lax`` (same names)."""

    def double(x: Any) -> Any:  # (lax takes one dtype: x is float32, in both modes)
        return lax.mul(x, np.float32(2.0))

    def twice(x: Any) -> Any:
        return lax.add(x, x)

    return [lax.sin, lax.cos, double, twice]


def make_jaxpr(config: Config) -> list[Result]:
    sizes = config.pick((1_000, 10_000, 100_000), (1_000, 10_000), (10, 20))
    repeats = {1_000: config.pick(9, 5, 1), 10_000: config.pick(5, 3, 1), 100_000: 3}
    x = np.ones((3,), np.float32)
    systems: list[tuple[str, str, Callable[..., Any], Any]] = [
        ("mj", "mj.make_jaxpr", mj.make_jaxpr, mj.lax)
    ]
    jax = config.peers.jax
    if jax is not None:
        systems.append(("jax", "jax.make_jaxpr", jax.make_jaxpr, jax.lax))
    results: list[Result] = [] if jax is not None else [config.peers.skip(4, "jax")]
    for system, label, make, lax in systems:
        ops = lax_ops(lax)
        for n in sizes:
            eqns = len(make(chain(ops, n))(x).jaxpr.eqns)
            if eqns != n:
                raise AssertionError(f"workload 4 {label}: {eqns} equations, expected {n}")

            def trace(make: Any = make, ops: list[Op] = ops, n: int = n) -> Any:
                return make(chain(ops, n))(x)

            timing = measure(trace, repeats=repeats.get(n, 1), per=n, unit_scale=1e6)
            results.append(Measurement(4, f"N={n}", system, label, "us/eqn", timing))
    return results


WORKLOADS = (Workload(4, "make_jaxpr of N-op chains, per equation", make_jaxpr),)
