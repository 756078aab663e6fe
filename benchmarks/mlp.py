"""The MLP of workloads 2, 3 and 5, written once per system.

784-512-512-10, tanh hidden layers, mean squared error, batch 128, float32. Parameters are a
flat list ``[w1, b1, w2, b2, w3, b3]``; a train step is ``p - LR * grad`` for each. The
hand-written NumPy backprop is the baseline of workload 2 and the reference every system's
gradient is checked against.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

import mj
import mj.numpy as mnp

FULL_SIZES = (784, 512, 512, 10)
TINY_SIZES = (8, 6, 6, 3)
FULL_BATCH, TINY_BATCH = 128, 4
LR = 1e-3

NDArray = np.ndarray[Any, Any]
Params = list[Any]


def init(sizes: tuple[int, ...], batch: int, seed: int = 0) -> tuple[Params, NDArray, NDArray]:
    """float32 parameters (scaled normal weights, zero biases), inputs and targets."""
    rng = np.random.default_rng(seed)
    params: Params = []
    for m, n in itertools.pairwise(sizes):
        params.append((rng.standard_normal((m, n)) / np.sqrt(m)).astype(np.float32))
        params.append(np.zeros(n, np.float32))
    x = rng.standard_normal((batch, sizes[0])).astype(np.float32)
    y = rng.standard_normal((batch, sizes[-1])).astype(np.float32)
    return params, x, y


# --- NumPy, by hand ---------------------------------------------------------------------------


def numpy_grad(params: Params, x: NDArray, y: NDArray) -> Params:
    """Backprop of the loss written out: forward, then one line per adjoint."""
    w1, b1, w2, b2, w3, b3 = params
    h1 = np.tanh(x @ w1 + b1)
    h2 = np.tanh(h1 @ w2 + b2)
    out = h2 @ w3 + b3
    d_out = (2.0 / out.size) * (out - y)
    d_h2 = (d_out @ w3.T) * (1.0 - h2 * h2)
    d_h1 = (d_h2 @ w2.T) * (1.0 - h1 * h1)
    return [x.T @ d_h1, d_h1.sum(0), h1.T @ d_h2, d_h2.sum(0), h2.T @ d_out, d_out.sum(0)]


def numpy_step(params: Params, x: NDArray, y: NDArray) -> Params:
    return [p - LR * g for p, g in zip(params, numpy_grad(params, x, y), strict=True)]


# --- mj ---------------------------------------------------------------------------------------


def mj_functions() -> tuple[Callable[..., Any], Callable[..., Any]]:
    """``(loss, step)`` written with ``mj.numpy``; fresh function objects on every call (so a
    first-call measurement cannot hit a cache keyed by function)."""

    def loss(params: Params, x: Any, y: Any) -> Any:
        w1, b1, w2, b2, w3, b3 = params
        h = mnp.tanh(mnp.dot(x, w1) + b1)
        h = mnp.tanh(mnp.dot(h, w2) + b2)
        out = mnp.dot(h, w3) + b3
        return mnp.mean((out - y) ** 2)

    grad_loss = mj.grad(loss)

    def step(params: Params, x: Any, y: Any) -> Params:
        grads = grad_loss(params, x, y)
        return [p - LR * g for p, g in zip(params, grads, strict=True)]

    return loss, step


# --- JAX --------------------------------------------------------------------------------------


def jax_functions(jax: ModuleType) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """``(loss, step)`` written with ``jax.numpy``; fresh function objects on every call."""
    jnp = jax.numpy

    def loss(params: Params, x: Any, y: Any) -> Any:
        w1, b1, w2, b2, w3, b3 = params
        h = jnp.tanh(jnp.dot(x, w1) + b1)
        h = jnp.tanh(jnp.dot(h, w2) + b2)
        out = jnp.dot(h, w3) + b3
        return jnp.mean((out - y) ** 2)

    grad_loss = jax.grad(loss)

    def step(params: Params, x: Any, y: Any) -> Params:
        grads = grad_loss(params, x, y)
        return [p - LR * g for p, g in zip(params, grads, strict=True)]

    return loss, step


# --- torch ------------------------------------------------------------------------------------


def torch_loss(torch: ModuleType, params: Params, x: Any, y: Any) -> Any:
    w1, b1, w2, b2, w3, b3 = params
    h = torch.tanh(x @ w1 + b1)
    h = torch.tanh(h @ w2 + b2)
    out = h @ w3 + b3
    return ((out - y) ** 2).mean()


def torch_grad(torch: ModuleType, params: Params, x: Any, y: Any) -> Any:
    return torch.autograd.grad(torch_loss(torch, params, x, y), params)


def torch_step(torch: ModuleType, params: Params, x: Any, y: Any) -> Params:
    grads = torch_grad(torch, params, x, y)
    with torch.no_grad():
        return [(p - LR * g).requires_grad_() for p, g in zip(params, grads, strict=True)]


def torch_params(torch: ModuleType, params: Params) -> Params:
    return [torch.tensor(p, requires_grad=True) for p in params]
