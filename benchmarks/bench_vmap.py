"""Per-example gradients, eager: ``vmap(grad(loss))`` for a linear model.

The model is ``pred = x @ W + b`` with ``x`` of size 64 and 10 outputs, a squared-error loss
per example, and a batch of 128 examples. ``run()`` times, in the same process:

* ``mj_vmap``: ``mj_batch.vmap(mj_autodiff.grad(loss), in_axes=(None, 0, 0))``, eager;
* ``mj_loop``: a Python loop of ``grad(loss)`` over the examples, stacked;
* ``jax_vmap`` (jax without jit) and ``torch_func`` (``torch.func.vmap(grad)``) when those
  are importable, otherwise ``None`` with a note.

Times are the median of ``repeats`` runs, in milliseconds (``mj_vmap_min``: the fastest run,
a steadier figure on a shared machine). Run as a script to print them::

    python benchmarks/bench_vmap.py
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from mj_autodiff import grad
from mj_batch import vmap
from mj_core import lax

N_IN, N_OUT, BATCH = 64, 10, 128


def _data(seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        "w": rng.normal(size=(N_IN, N_OUT)) / np.sqrt(N_IN),
        "b": rng.normal(size=(N_OUT,)),
        "x": rng.normal(size=(BATCH, N_IN)),
        "y": rng.normal(size=(BATCH, N_OUT)),
    }


def _mj_loss(params: dict[str, Any], x: Any, y: Any) -> Any:
    err = lax.dot(x, params["w"]) + params["b"] - y
    return lax.reduce_sum(err * err, (0,))


def _expected(d: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    err = d["x"] @ d["w"] + d["b"] - d["y"]  # (batch, out)
    return {"w": 2 * d["x"][:, :, None] * err[:, None, :], "b": 2 * err}


def _times_ms(fn: Callable[[], Any], repeats: int) -> list[float]:
    fn()  # warm up (caches, first-call imports)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return times


def _median_ms(fn: Callable[[], Any], repeats: int) -> float:
    return statistics.median(_times_ms(fn, repeats))


def _jax_ms(d: dict[str, np.ndarray], repeats: int) -> float | None:
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None

    def loss(params: Any, x: Any, y: Any) -> Any:
        err = jnp.dot(x, params["w"]) + params["b"] - y
        return jnp.sum(err * err)

    params = {"w": jnp.asarray(d["w"]), "b": jnp.asarray(d["b"])}
    x, y = jnp.asarray(d["x"]), jnp.asarray(d["y"])
    per_example = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))
    with jax.disable_jit():
        return _median_ms(lambda: jax.block_until_ready(per_example(params, x, y)), repeats)


def _torch_ms(d: dict[str, np.ndarray], repeats: int) -> float | None:
    try:
        import torch
        from torch.func import grad as tgrad
        from torch.func import vmap as tvmap
    except ImportError:
        return None

    def loss(params: Any, x: Any, y: Any) -> Any:
        err = x @ params["w"] + params["b"] - y
        return (err * err).sum()

    params = {"w": torch.tensor(d["w"]), "b": torch.tensor(d["b"])}
    x, y = torch.tensor(d["x"]), torch.tensor(d["y"])
    per_example = tvmap(tgrad(loss), in_dims=(None, 0, 0))
    return _median_ms(lambda: per_example(params, x, y), repeats)


def run(repeats: int = 50) -> dict[str, Any]:
    """``{"mj_vmap": ms, "mj_vmap_min": ms, "mj_loop": ms, "speedup_vs_loop": x,
    "jax_vmap": ms | None, "torch_func": ms | None, "note": str}``; checks mj's gradients
    against closed forms first."""
    d = _data()
    params = {"w": d["w"], "b": d["b"]}
    per_example = vmap(grad(_mj_loss), in_axes=(None, 0, 0))
    g = per_example(params, d["x"], d["y"])
    expected = _expected(d)
    for key in ("w", "b"):
        np.testing.assert_allclose(g[key], expected[key], rtol=1e-10, atol=1e-12)

    single = grad(_mj_loss)

    def loop() -> Any:
        gs = [single(params, d["x"][i], d["y"][i]) for i in range(BATCH)]
        return {k: np.stack([gi[k] for gi in gs]) for k in ("w", "b")}

    mj_times = _times_ms(lambda: per_example(params, d["x"], d["y"]), repeats)
    out: dict[str, Any] = {
        "mj_vmap": statistics.median(mj_times),
        "mj_vmap_min": min(mj_times),
        "mj_loop": _median_ms(loop, max(3, repeats // 10)),
        "jax_vmap": _jax_ms(d, repeats),
        "torch_func": _torch_ms(d, repeats),
    }
    out["speedup_vs_loop"] = out["mj_loop"] / out["mj_vmap"]
    missing = [name for name in ("jax_vmap", "torch_func") if out[name] is None]
    out["note"] = f"not installed, skipped: {', '.join(missing)}" if missing else ""
    return out


if __name__ == "__main__":
    result = run(int(sys.argv[1]) if len(sys.argv) > 1 else 50)
    for name, value in result.items():
        shown = f"{value:.3f}" if isinstance(value, float) else value
        print(f"{name:>16}: {shown}")
