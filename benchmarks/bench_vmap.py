"""Workload 7: per-example gradients, ``vmap(grad(loss))``, eager and jitted.

A linear model ``pred = x @ w + b`` (64 inputs, 10 outputs) with a squared-error loss per
example, a batch of 128, float32. Eager: ``mj.vmap(mj.grad(loss))``, JAX's the same under
``jax.disable_jit()``, and ``torch.func.vmap(torch.func.grad(loss))``. Jitted: ``mj.jit`` and
``jax.jit`` of the same. Every system's gradients are checked against the closed form.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from harness import Config, Result, SideBySide, Skipped, Workload, block, check_close

import mj
import mj.numpy as mnp

N_IN, N_OUT = 64, 10
NDArray = np.ndarray[Any, Any]


def data(batch: int, seed: int = 0) -> dict[str, NDArray]:
    rng = np.random.default_rng(seed)
    arrays = {
        "w": rng.standard_normal((N_IN, N_OUT)) / np.sqrt(N_IN),
        "b": rng.standard_normal(N_OUT),
        "x": rng.standard_normal((batch, N_IN)),
        "y": rng.standard_normal((batch, N_OUT)),
    }
    return {k: v.astype(np.float32) for k, v in arrays.items()}


def closed_form(d: dict[str, NDArray]) -> dict[str, NDArray]:
    """d/dw and d/db of ``sum((x @ w + b - y)**2)`` for each example."""
    err = d["x"] @ d["w"] + d["b"] - d["y"]
    return {"b": 2 * err, "w": 2 * d["x"][:, :, None] * err[:, None, :]}


def _loss(np_like: Any) -> Callable[..., Any]:
    def loss(params: dict[str, Any], x: Any, y: Any) -> Any:
        err = np_like.dot(x, params["w"]) + params["b"] - y
        return np_like.sum(err * err)

    return loss


def per_example_grads(config: Config) -> list[Result]:
    batch = config.pick(128, 128, 4)
    repeats, number = config.pick(15, 5, 1), config.pick(10, 5, 1)
    d = data(batch)
    want = closed_form(d)
    params = {"w": d["w"], "b": d["b"]}

    benches = {
        case: SideBySide(7, case, "ms", repeats=repeats, number=number, warmup=2)
        for case in ("eager", "jitted")
    }

    def one(case: str, system: str, label: str, fn: Callable[[], Any]) -> None:
        check_close(f"workload 7 {label}", fn(), want, rtol=1e-4, atol=1e-5)
        benches[case].add(system, label, fn, block)

    mj_eager = mj.vmap(mj.grad(_loss(mnp)), in_axes=(None, 0, 0))
    mj_jitted = mj.jit(mj.vmap(mj.grad(_loss(mnp)), in_axes=(None, 0, 0)))
    dev = {k: mj.device_put(v) for k, v in d.items()}
    dev_params = {"w": dev["w"], "b": dev["b"]}
    one("eager", "mj", "mj.vmap(mj.grad)", lambda: mj_eager(params, d["x"], d["y"]))
    one("jitted", "mj", "mj.jit(vmap(grad))", lambda: mj_jitted(dev_params, dev["x"], dev["y"]))
    results: list[Result] = []
    jax, torch = config.peers.jax, config.peers.torch
    if jax is None:
        results.append(config.peers.skip(7, "jax"))
    else:
        per_example = jax.vmap(jax.grad(_loss(jax.numpy)), in_axes=(None, 0, 0))
        jd = {k: jax.device_put(v) for k, v in d.items()}
        jparams = {"w": jd["w"], "b": jd["b"]}

        def jax_eager() -> Any:
            with jax.disable_jit():
                return block(per_example(jparams, jd["x"], jd["y"]))

        jitted = jax.jit(per_example)
        one("eager", "jax", "jax.vmap(jax.grad), no jit", jax_eager)
        one("jitted", "jax", "jax.jit(vmap(grad))", lambda: jitted(jparams, jd["x"], jd["y"]))
    if torch is None:
        results.append(config.peers.skip(7, "torch"))
    else:
        from torch.func import grad as tgrad
        from torch.func import vmap as tvmap

        tper = tvmap(tgrad(_loss(_TorchNumpy(torch))), in_dims=(None, 0, 0))
        tparams = {"w": torch.from_numpy(d["w"]), "b": torch.from_numpy(d["b"])}
        tx, ty = torch.from_numpy(d["x"]), torch.from_numpy(d["y"])
        one("eager", "torch", "torch.func.vmap(grad)", lambda: tper(tparams, tx, ty))
        results.append(
            Skipped(
                7,
                "torch",
                "jitted: torch.compile not measured (needs a C++ "
                "toolchain; compile takes tens of seconds)",
            )
        )
    return [*benches["eager"].run(), *benches["jitted"].run(), *results]


class _TorchNumpy:
    """The two NumPy names the loss uses, on torch tensors."""

    def __init__(self, torch: Any) -> None:
        self.dot = torch.matmul
        self.sum = torch.sum


WORKLOADS = (
    Workload(7, "per-example gradients vmap(grad), linear 64->10, batch 128", per_example_grads),
)
