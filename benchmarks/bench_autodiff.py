"""Workloads 2 and 8: eager reverse mode (no jit anywhere).

* 2: the gradient of the MLP loss of ``mlp.py`` (784-512-512-10, batch 128, tanh, MSE,
  float32) w.r.t. its six parameter arrays: ``mj.grad``, the hand-written NumPy backprop
  (the baseline), HIPS autograd, JAX without jit (``jax.disable_jit()``) and torch autograd.
* 8: the cost ratio ``time(grad(f)) / time(f)`` for ``f`` a chain of N elementwise ops
  (sin, multiply by a constant, add a constant, cycling) on 1,000 float32 elements, summed; for
  N = 1,000 and 10,000 (the ratio should not grow with N). Each repeat times ``f`` and then
  ``grad(f)``, and the ratio is taken per repeat. The NumPy row is a hand-written
  forward (saving ``cos`` for the sin steps) and backward over the same chain.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import mlp
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
import mj.numpy as mnp

CASE_MLP = "MLP grad"
CHAIN_ELEMENTS = 1000
MUL, ADD = 1.0001, 0.5


# --- workload 2 -------------------------------------------------------------------------------


def mlp_grad(config: Config) -> list[Result]:
    sizes, batch = config.pick(
        (mlp.FULL_SIZES, mlp.FULL_BATCH),
        (mlp.FULL_SIZES, mlp.FULL_BATCH),
        (mlp.TINY_SIZES, mlp.TINY_BATCH),
    )
    repeats = config.pick(21, 7, 1)
    params, x, y = mlp.init(sizes, batch)
    want = mlp.numpy_grad(params, x, y)

    bench = SideBySide(2, CASE_MLP, "ms", repeats=repeats)

    def one(system: str, label: str, fn: Callable[[], Any]) -> None:
        check_close(f"workload 2 {label}", fn(), want, rtol=1e-3, atol=1e-5)
        bench.add(system, label, fn, block)

    mj_grad = mj.grad(mlp.mj_functions()[0])
    one("mj", "mj.grad (eager)", lambda: mj_grad(params, x, y))
    one("numpy", "NumPy by hand", lambda: mlp.numpy_grad(params, x, y))
    results: list[Result] = []
    peers = config.peers
    if peers.jax is None:
        results.append(peers.skip(2, "jax"))
    else:
        jax = peers.jax
        jgrad = jax.grad(mlp.jax_functions(jax)[0])
        jparams = [jax.numpy.asarray(p) for p in params]
        jx, jy = jax.numpy.asarray(x), jax.numpy.asarray(y)

        def jax_nojit() -> Any:
            with jax.disable_jit():
                return block(jgrad(jparams, jx, jy))

        one("jax", "JAX, no jit", jax_nojit)
    if peers.torch is None:
        results.append(peers.skip(2, "torch"))
    else:
        torch = peers.torch
        tparams = mlp.torch_params(torch, params)
        tx, ty = torch.from_numpy(x), torch.from_numpy(y)
        one("torch", "torch autograd", lambda: mlp.torch_grad(torch, tparams, tx, ty))
    if peers.autograd is None:
        results.append(peers.skip(2, "autograd"))
    else:
        one("autograd", "HIPS autograd", _autograd_mlp(peers.autograd, params, x, y))
    return [*bench.run(), *results]


def _autograd_mlp(autograd: Any, params: mlp.Params, x: Any, y: Any) -> Callable[[], Any]:
    anp = autograd.numpy

    def loss(p: mlp.Params) -> Any:
        h = anp.tanh(anp.dot(x, p[0]) + p[1])
        h = anp.tanh(anp.dot(h, p[2]) + p[3])
        return anp.mean((anp.dot(h, p[4]) + p[5] - y) ** 2)

    g = autograd.grad(loss)
    return lambda: g(params)


# --- workload 8 -------------------------------------------------------------------------------


def chain(sin: Callable[[Any], Any], total: Callable[[Any], Any], n: int) -> Callable[[Any], Any]:
    """``n`` elementwise ops cycling ``sin``, ``* MUL``, ``+ ADD``, then the sum."""

    def f(x: Any) -> Any:
        for i in range(n):
            k = i % 3
            if k == 0:
                x = sin(x)
            elif k == 1:
                x = x * MUL
            else:
                x = x + ADD
        return total(x)

    return f


def numpy_chain_grad(n: int) -> Callable[[Any], Any]:
    """Hand-written forward (saving ``cos`` at the sin steps) and backward of :func:`chain`."""

    def g(x: Any) -> Any:
        saved = []
        for i in range(n):
            k = i % 3
            if k == 0:
                saved.append(np.cos(x))
                x = np.sin(x)
            elif k == 1:
                x = x * MUL
            else:
                x = x + ADD
        ct = np.ones_like(x)
        cos_steps = reversed(saved)
        for i in reversed(range(n)):
            k = i % 3
            if k == 0:
                ct = ct * next(cos_steps)
            elif k == 1:
                ct = ct * MUL
        return ct

    return g


def _ratio(
    workload: int,
    n: int,
    system: str,
    label: str,
    f: Callable[[], Any],
    g: Callable[[], Any],
    repeats: int,
) -> list[Result]:
    """f and grad times, and their ratio taken per repeat (both timed back to back), after
    one untimed call of each (the caller has already checked that call's gradient)."""
    block(f())
    f_times, g_times = [], []
    for _ in range(repeats):
        f_times += time_samples(f, repeats=1, warmup=0, sync=block)
        g_times += time_samples(g, repeats=1, warmup=0, sync=block)
    ratios = [tg / tf for tf, tg in zip(f_times, g_times, strict=True)]
    return [
        Measurement(workload, f"N={n}", system, label, "x", Timing.of(ratios)),
        Measurement(workload, f"f, N={n}", system, label, "ms", Timing.of(f_times).scaled(1e3)),
        Measurement(workload, f"grad, N={n}", system, label, "ms", Timing.of(g_times).scaled(1e3)),
    ]


def _chain_case(n: int, want: Any, repeats: int) -> Callable[..., list[Result]]:
    """Check a system's gradient of the N-op chain against NumPy's, then time f and grad."""

    def one(
        system: str,
        label: str,
        f: Callable[[Any], Any],
        g: Callable[[Any], Any],
        arg: Any,
        reps: int = repeats,
    ) -> list[Result]:
        check_close(f"workload 8 {label} N={n}", g(arg), want, rtol=1e-3, atol=1e-5)  # warm-up
        return _ratio(8, n, system, label, lambda: f(arg), lambda: g(arg), reps)

    return one


def grad_ratio(config: Config) -> list[Result]:
    lengths = config.pick((1_000, 10_000), (300, 3_000), (6, 12))
    repeats = config.pick(7, 3, 1)
    x = np.linspace(-1.0, 1.0, CHAIN_ELEMENTS, dtype=np.float32)
    peers = config.peers
    results: list[Result] = []
    for n in lengths:
        one = _chain_case(n, numpy_chain_grad(n)(x), repeats)
        f_mj = chain(mnp.sin, mnp.sum, n)
        results += one("mj", "mj.grad (eager)", f_mj, mj.grad(f_mj), x)
        f_np = chain(np.sin, np.sum, n)
        results += one("numpy", "NumPy by hand", f_np, numpy_chain_grad(n), x)
        if peers.jax is None:
            results.append(peers.skip(8, "jax"))
        else:
            jax = peers.jax
            f_jax = chain(jax.numpy.sin, jax.numpy.sum, n)
            g_jax = jax.grad(f_jax)

            def nojit(fn: Callable[[Any], Any], jax: Any = jax) -> Callable[[Any], Any]:
                def call(a: Any) -> Any:
                    with jax.disable_jit():
                        return block(fn(a))

                return call

            reps = max(3, repeats // 2) if config.scale == "full" else repeats
            results += one(
                "jax", "JAX, no jit", nojit(f_jax), nojit(g_jax), jax.numpy.asarray(x), reps
            )
        if peers.autograd is None:
            results.append(peers.skip(8, "autograd"))
        else:
            anp = peers.autograd.numpy
            f_ag = chain(anp.sin, anp.sum, n)
            results += one("autograd", "HIPS autograd", f_ag, peers.autograd.grad(f_ag), x)
        if peers.torch is None:
            results.append(peers.skip(8, "torch"))
        else:
            results += one("torch", "torch autograd", *_torch_chain(peers.torch, n), x)
    return results


def _torch_chain(torch: Any, n: int) -> tuple[Callable[[Any], Any], Callable[[Any], Any]]:
    f = chain(torch.sin, torch.sum, n)

    def value(x: Any) -> Any:
        with torch.no_grad():
            return f(torch.from_numpy(x))

    def gradient(x: Any) -> Any:
        t = torch.from_numpy(x).requires_grad_()
        (g,) = torch.autograd.grad(f(t), t)
        return g

    return value, gradient


WORKLOADS = (
    Workload(2, "eager grad of an MLP loss (784-512-512-10, batch 128, tanh, MSE)", mlp_grad),
    Workload(
        8, "grad(f)/f cost ratio, N-op elementwise chain on 1,000 elements, eager", grad_ratio
    ),
)
