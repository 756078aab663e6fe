"""Tracing cost of ``make_jaxpr``: microseconds per staged equation for an N-op chain.

``run(sizes)`` traces ``f(x) = sin(...sin(x)...)``-style chains (cycling through a few unary
and binary elementwise ops) of N equations with ``mj_ir.make_jaxpr`` and, when jax is
importable, with ``jax.make_jaxpr`` on the same chain, and returns the best-of-``repeats``
time per equation. Times are process CPU time by default (tracing is single-threaded, and on a
shared machine wall time mostly measures the neighbours); pass ``clock=time.perf_counter`` for
wall time. Run as a script to print a table::

    python benchmarks/bench_make_jaxpr.py 1000 10000 100000
"""

from __future__ import annotations

import importlib
import sys
import time
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

import numpy as np

import mj_ir
from mj_core import lax


def _chain(ops: Sequence[Callable[..., Any]], n: int) -> Callable[[Any], Any]:
    def f(x: Any) -> Any:
        for i in range(n):
            op = ops[i % len(ops)]
            x = op(x)
        return x

    return f


def _mj_ops() -> list[Callable[[Any], Any]]:
    return [lax.sin, lax.cos, lambda x: lax.mul(x, 2.0), lambda x: lax.add(x, x)]


def _jax_ops(jax: ModuleType) -> list[Callable[[Any], Any]]:
    jl = jax.lax
    return [jl.sin, jl.cos, lambda x: jl.mul(x, 2.0), lambda x: jl.add(x, x)]


def _time_per_eqn(
    make: Callable[[], Any], n: int, repeats: int, clock: Callable[[], float]
) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = clock()
        make()
        best = min(best, clock() - t0)
    return best / n * 1e6


def _try_import_jax() -> ModuleType | None:
    try:
        return importlib.import_module("jax")
    except ImportError:
        return None


def run(
    sizes: Sequence[int] = (1_000, 10_000, 100_000),
    repeats: int = 3,
    clock: Callable[[], float] = time.process_time,
) -> dict[str, Any]:
    """``{"mj": {n: us_per_eqn}, "jax": {n: us_per_eqn} or None, "note": str}``.

    Each timed call traces a freshly built function, so that ``jax.make_jaxpr``'s trace cache
    cannot answer it.
    """
    x = np.ones((3,), np.float32)
    out: dict[str, Any] = {"mj": {}, "jax": None, "note": ""}
    mj_ops = _mj_ops()
    for n in sizes:
        assert len(mj_ir.make_jaxpr(_chain(mj_ops, n))(x).eqns) == n

        def trace_mj(n: int = n) -> Any:
            return mj_ir.make_jaxpr(_chain(mj_ops, n))(x)

        out["mj"][n] = _time_per_eqn(trace_mj, n, repeats, clock)
    jax = _try_import_jax()
    if jax is None:
        out["note"] = "jax is not installed: jax.make_jaxpr skipped"
        return out
    out["jax"] = {}
    jax_ops = _jax_ops(jax)
    for n in sizes:

        def trace_jax(n: int = n) -> Any:
            return jax.make_jaxpr(_chain(jax_ops, n))(x)

        out["jax"][n] = _time_per_eqn(trace_jax, n, repeats, clock)
    return out


def main(argv: Sequence[str]) -> None:
    sizes = [int(a) for a in argv] or [1_000, 10_000, 100_000]
    res = run(sizes)
    print(f"{'N':>8} {'mj us/eqn':>10} {'jax us/eqn':>11}")
    for n in sizes:
        jax_t = f"{res['jax'][n]:11.2f}" if res["jax"] else f"{'-':>11}"
        print(f"{n:>8} {res['mj'][n]:10.2f} {jax_t}")
    if res["note"]:
        print(res["note"])


if __name__ == "__main__":
    main(sys.argv[1:])
