"""Eager reverse-mode cost: an MLP loss gradient, and grad(f)/f on a long elementwise chain.

``run()`` measures, in one process:

* ``mlp``: ``grad`` of a 784-512-512-10 tanh MLP's mean squared error (batch 128) w.r.t. all
  six parameter arrays, without jit: mj (``mj_autodiff.grad``), a hand-written NumPy
  backprop, and autograd / JAX (no jit) / torch when importable (``None`` with a note
  otherwise). Best-of-N milliseconds.
* ``chain``: the cost ratio ``time(grad(f)) / time(f)`` for ``f`` a chain of N elementwise
  ops (cycling sin, mul by a constant, add a constant) on a 1,000-element array, for several
  N (the ratio should not grow with N), for mj and for a hand-written NumPy forward+backward.

Run as a script to print the numbers::

    python benchmarks/bench_autodiff.py
"""

from __future__ import annotations

import itertools
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import mj_core.numpy as mnp
from mj_autodiff import grad

Params = list[np.ndarray[Any, Any]]


def _best_ms(fn: Callable[[], Any], repeats: int) -> float:
    """Best of ``repeats`` wall-clock runs (robust to other processes sharing the CPU)."""
    fn()  # warm up
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best * 1e3


# --- MLP --------------------------------------------------------------------------------------
SIZES = (784, 512, 512, 10)
BATCH = 128


def _mlp_data(seed: int = 0) -> tuple[Params, np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    rng = np.random.default_rng(seed)
    params: Params = []
    for m, n in itertools.pairwise(SIZES):
        params.append(rng.standard_normal((m, n)) / np.sqrt(m))
        params.append(np.zeros(n))
    x = rng.standard_normal((BATCH, SIZES[0]))
    y = rng.standard_normal((BATCH, SIZES[-1]))
    return params, x, y


def mj_mlp_loss(params: Params, x: Any, y: Any) -> Any:
    w1, b1, w2, b2, w3, b3 = params
    h = mnp.tanh(mnp.dot(x, w1) + b1)
    h = mnp.tanh(mnp.dot(h, w2) + b2)
    out = mnp.dot(h, w3) + b3
    return mnp.mean((out - y) ** 2)


def numpy_mlp_grad(params: Params, x: np.ndarray[Any, Any], y: np.ndarray[Any, Any]) -> Params:
    """Hand-written backprop of :func:`mj_mlp_loss`."""
    w1, b1, w2, b2, w3, b3 = params
    h1 = np.tanh(x @ w1 + b1)
    h2 = np.tanh(h1 @ w2 + b2)
    out = h2 @ w3 + b3
    d_out = (2.0 / out.size) * (out - y)
    d_w3 = h2.T @ d_out
    d_b3 = d_out.sum(0)
    d_h2 = (d_out @ w3.T) * (1.0 - h2 * h2)
    d_w2 = h1.T @ d_h2
    d_b2 = d_h2.sum(0)
    d_h1 = (d_h2 @ w2.T) * (1.0 - h1 * h1)
    d_w1 = x.T @ d_h1
    d_b1 = d_h1.sum(0)
    return [d_w1, d_b1, d_w2, d_b2, d_w3, d_b3]


def _peer_mlp(name: str, params: Params, x: Any, y: Any) -> Callable[[], Any] | None:
    if name == "autograd":
        import autograd  # type: ignore[import-not-found]
        import autograd.numpy as anp  # type: ignore[import-not-found]

        def loss(p: Params) -> Any:
            h = anp.tanh(anp.dot(x, p[0]) + p[1])
            h = anp.tanh(anp.dot(h, p[2]) + p[3])
            return anp.mean((anp.dot(h, p[4]) + p[5] - y) ** 2)

        g = autograd.grad(loss)
        return lambda: g(params)
    if name == "jax_nojit":
        import jax  # type: ignore[import-not-found]
        import jax.numpy as jnp  # type: ignore[import-not-found]

        jax.config.update("jax_enable_x64", True)
        jp = [jnp.asarray(p) for p in params]
        jx, jy = jnp.asarray(x), jnp.asarray(y)

        def jloss(p: Params) -> Any:
            h = jnp.tanh(jx @ p[0] + p[1])
            h = jnp.tanh(h @ p[2] + p[3])
            return jnp.mean((h @ p[4] + p[5] - jy) ** 2)

        jg = jax.grad(jloss)
        with jax.disable_jit():
            jg(jp)
        return lambda: [a.block_until_ready() for a in jg(jp)]
    if name == "torch":
        import torch  # type: ignore[import-not-found]

        tp = [torch.tensor(p, requires_grad=True) for p in params]
        tx, ty = torch.tensor(x), torch.tensor(y)

        def tgrad() -> Any:
            h = torch.tanh(tx @ tp[0] + tp[1])
            h = torch.tanh(h @ tp[2] + tp[3])
            loss = ((h @ tp[4] + tp[5] - ty) ** 2).mean()
            return torch.autograd.grad(loss, tp)

        return tgrad
    raise ValueError(name)


def bench_mlp(repeats: int = 20) -> dict[str, Any]:
    params, x, y = _mlp_data()
    mj_grad = grad(mj_mlp_loss)
    mj_g = mj_grad(params, x, y)
    np_g = numpy_mlp_grad(params, x, y)
    for a, b in zip(mj_g, np_g, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
    out: dict[str, Any] = {
        "mj_ms": _best_ms(lambda: mj_grad(params, x, y), repeats),
        "numpy_ms": _best_ms(lambda: numpy_mlp_grad(params, x, y), repeats),
    }
    notes = []
    for peer in ("autograd", "jax_nojit", "torch"):
        try:
            fn = _peer_mlp(peer, params, x, y)
        except ImportError:
            out[f"{peer}_ms"] = None
            notes.append(f"{peer} not installed")
            continue
        assert fn is not None
        out[f"{peer}_ms"] = _best_ms(fn, repeats)
    out["mj_over_numpy"] = out["mj_ms"] / out["numpy_ms"]
    out["notes"] = notes
    return out


# --- elementwise chain ------------------------------------------------------------------------
CHAIN_SIZE = 1000


def mj_chain(n: int) -> Callable[[Any], Any]:
    def f(x: Any) -> Any:
        for i in range(n):
            k = i % 3
            if k == 0:
                x = mnp.sin(x)
            elif k == 1:
                x = x * 1.0001
            else:
                x = x + 0.5
        return mnp.sum(x)

    return f


def numpy_chain_grad(n: int) -> Callable[[np.ndarray[Any, Any]], np.ndarray[Any, Any]]:
    """Hand-written forward (saving cos for the sin steps) and backward of :func:`mj_chain`."""

    def g(x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        saved = []
        for i in range(n):
            k = i % 3
            if k == 0:
                saved.append(np.cos(x))
                x = np.sin(x)
            elif k == 1:
                x = x * 1.0001
            else:
                x = x + 0.5
        ct = np.ones_like(x)
        it = iter(reversed(saved))
        for i in reversed(range(n)):
            k = i % 3
            if k == 0:
                ct = ct * next(it)
            elif k == 1:
                ct = ct * 1.0001
        return ct

    return g


def bench_chain(lengths: tuple[int, ...] = (1000, 10000), repeats: int = 5) -> dict[str, Any]:
    x = np.linspace(-1.0, 1.0, CHAIN_SIZE)
    out: dict[str, Any] = {}
    for n in lengths:
        f = mj_chain(n)
        g = grad(f)
        ng = numpy_chain_grad(n)
        np.testing.assert_allclose(g(x), ng(x), rtol=1e-10)
        t_f = _best_ms(lambda f=f: f(x), repeats)
        t_g = _best_ms(lambda g=g: g(x), repeats)
        t_ng = _best_ms(lambda ng=ng: ng(x), repeats)
        out[n] = {
            "f_ms": t_f,
            "grad_ms": t_g,
            "ratio": t_g / t_f,
            "numpy_grad_ms": t_ng,
            "numpy_ratio": t_ng / t_f,
        }
    return out


def run() -> dict[str, Any]:
    """Both workloads; see the module docstring."""
    return {"mlp": bench_mlp(), "chain": bench_chain()}


if __name__ == "__main__":
    res = run()
    mlp = res["mlp"]
    print("MLP grad (784-512-512-10, batch 128, eager), best-of-N ms:")
    for key in ("mj_ms", "numpy_ms", "autograd_ms", "jax_nojit_ms", "torch_ms"):
        val = mlp[key]
        print(f"  {key:14s} {'n/a' if val is None else f'{val:8.2f}'}")
    print(f"  mj / numpy     {mlp['mj_over_numpy']:8.2f}x   {'; '.join(mlp['notes'])}")
    print(f"Elementwise chain on {CHAIN_SIZE} elements: grad(f) / f")
    for n, r in res["chain"].items():
        print(
            f"  N={n:6d}  f {r['f_ms']:8.2f} ms  grad {r['grad_ms']:8.2f} ms  "
            f"ratio {r['ratio']:5.2f}x  (numpy backprop {r['numpy_ratio']:5.2f}x)"
        )
    sys.exit(0)
