"""Workload 9: ``scan``: compile time independent of the length, and grad through a long scan.

* compile: trace + lower + compile (``jit(f).lower(xs).compile()``) of a scan whose body is
  ``c = tanh(0.9 * c + x)`` (width 16), for length 10 and 10,000, fresh functions each time.
  A scan lowers to one loop, so the ratio long/short should stay near 1 (taken per repeat).
* RNN grad step: ``jit(grad(loss))`` of a 1,000-step scan ``h = tanh(W @ h + x_t)``, width
  256, float32, w.r.t. ``W``; milliseconds per call. mj vs JAX.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
from harness import (
    Config,
    Measurement,
    Result,
    SideBySide,
    Timing,
    Workload,
    block,
    check_close,
    time_samples,
)

import mj

SHORT = 10
COMPILE_WIDTH = 16
CASE_RATIO, CASE_GRAD = "compile ratio", "RNN grad step"


def _programs(scan: Callable[..., Any], np_like: Any, width: int) -> tuple[Any, Any]:
    """``(scan_fn, rnn_loss)``, fresh function objects on every call."""

    def body(c: Any, x: Any) -> tuple[Any, Any]:
        c = np_like.tanh(c * 0.9 + x)
        return c, np_like.sum(c)

    def scan_fn(xs: Any) -> Any:
        return scan(body, np_like.zeros(COMPILE_WIDTH, np.float32), xs)

    def rnn_loss(w: Any, xs: Any) -> Any:
        def step(h: Any, x: Any) -> tuple[Any, None]:
            return np_like.tanh(np_like.dot(w, h) + x), None

        h, _ = scan(step, np_like.zeros(width, np.float32), xs)
        return np_like.sum(h * h)

    return scan_fn, rnn_loss


def _rnn_grad_reference(w: Any, xs: Any) -> Any:
    """d/dw sum(h_T**2) by hand (float64 backprop through time)."""
    w64, hs = w.astype(np.float64), [np.zeros(w.shape[0])]
    for x in xs.astype(np.float64):
        hs.append(np.tanh(w64 @ hs[-1] + x))
    ct, grad = 2 * hs[-1], np.zeros_like(w64)
    for t in range(len(xs), 0, -1):
        pre = ct * (1 - hs[t] ** 2)
        grad += np.outer(pre, hs[t - 1])
        ct = w64.T @ pre
    return grad


def scan_workload(config: Config) -> list[Result]:
    long = config.pick(10_000, 10_000, 100)
    steps, width = config.pick((1_000, 256), (1_000, 256), (20, 8))
    compile_repeats, grad_repeats = config.pick(5, 3, 1), config.pick(15, 5, 1)
    rng = np.random.default_rng(0)
    w = (rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32)
    xs = (0.5 * rng.standard_normal((steps, width))).astype(np.float32)
    want = _rnn_grad_reference(w, xs)

    # (system, its module: jit, grad, device_put, lax.scan, numpy)
    systems: list[tuple[str, Any]] = [("mj", mj)]
    jax = config.peers.jax
    if jax is not None:
        systems.append(("jax", jax))
    results: list[Result] = [] if jax is not None else [config.peers.skip(9, "jax")]
    grad_bench = SideBySide(9, CASE_GRAD, "ms", repeats=grad_repeats, warmup=2)
    for system, lib in systems:
        scan, np_like = lib.lax.scan, lib.numpy

        def compile_once(
            length: int, lib: Any = lib, scan: Any = scan, np_like: Any = np_like
        ) -> Any:
            scan_fn, _ = _programs(scan, np_like, width)
            return lib.jit(scan_fn).lower(np.ones((length, COMPILE_WIDTH), np.float32)).compile()

        compile_once(SHORT)  # warm up the tracing and compiling machinery itself
        short_t, long_t = [], []
        for _ in range(compile_repeats):
            short_t += time_samples(lambda: compile_once(SHORT), repeats=1, warmup=0)
            long_t += time_samples(lambda: compile_once(long), repeats=1, warmup=0)
        ratios = [b / a for a, b in zip(short_t, long_t, strict=True)]
        label = f"{system}.jit(scan).lower().compile()"
        results += [
            Measurement(9, f"compile, length {SHORT}", system, label, "s", Timing.of(short_t)),
            Measurement(9, f"compile, length {long}", system, label, "s", Timing.of(long_t)),
            Measurement(
                9, CASE_RATIO, system, f"length {long} / length {SHORT}", "x", Timing.of(ratios)
            ),
        ]

        _, rnn_loss = _programs(scan, np_like, width)
        grad_fn = lib.jit(lib.grad(rnn_loss))
        dw, dxs = lib.device_put(w), lib.device_put(xs)
        check_close(f"workload 9 {system}", grad_fn(dw, dxs), want, rtol=2e-3, atol=1e-4)
        label = f"{system}.jit({system}.grad(scan loss))"
        grad_bench.add(system, label, partial(grad_fn, dw, dxs), block)
    return [*results, *grad_bench.run()]


WORKLOADS = (
    Workload(
        9, "scan: compile time vs length; grad through a 1,000-step RNN-like scan", scan_workload
    ),
)
