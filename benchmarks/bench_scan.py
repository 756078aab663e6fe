"""scan speed: compile time independent of the length, and grad through a long RNN-like scan.

``run()`` returns a dict of measurements:

* ``compile_s_len10`` / ``compile_s_len10000``: trace + lower + compile of ``jit`` over a
  ``scan`` of that length with the same body (median of 3 fresh ``jit`` objects), and
  ``compile_ratio`` (long / short; the loop is one ``stablehlo.while``, so it stays near 1);
* ``rnn_grad_us_per_step``: ``jit(grad(loss))`` of a 1,000-step scan with carry update
  ``h = tanh(W @ h + x_t)``, width 256, float32, w.r.t. ``W`` (median per call / 1,000).

Each key has a ``jax_`` twin when jax is importable (measured in the same process with the
same functions written in jax), and ``ratio_*`` keys compare mj with JAX. Run as a script to
print them. For one-thread numbers pin the process first (``taskset -c 0``).
"""

from __future__ import annotations

import importlib
import statistics
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from mj_autodiff import grad
from mj_control import scan
from mj_core import lax
from mj_xla import device_put, jit

SHORT, LONG = 10, 10_000
WIDTH = 256
STEPS = 1_000
COMPILE_WIDTH = 16


def _block(x: Any) -> None:
    if hasattr(x, "block_until_ready"):
        x.block_until_ready()


def _median(fn: Callable[[], Any], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


# --- the two programs, once per library ----------------------------------------------------------


def _mj_programs() -> tuple[Callable[..., Any], Callable[..., Any]]:
    def short_body(c: Any, x: Any) -> tuple[Any, Any]:
        c = lax.tanh(c * 0.9 + x)
        return c, lax.reduce_sum(c, (0,))

    def scan_fn(xs: Any) -> Any:
        return scan(short_body, np.zeros(COMPILE_WIDTH, np.float32), xs)

    def rnn_loss(w: Any, xs: Any) -> Any:
        def step(h: Any, x: Any) -> tuple[Any, None]:
            return lax.tanh(lax.dot(w, h) + x), None

        h, _ = scan(step, np.zeros(WIDTH, np.float32), xs)
        return lax.reduce_sum(h * h, (0,))

    return scan_fn, grad(rnn_loss)


def _jax_programs(jax: ModuleType) -> tuple[Callable[..., Any], Callable[..., Any]]:
    jnp = jax.numpy

    def short_body(c: Any, x: Any) -> tuple[Any, Any]:
        c = jnp.tanh(c * 0.9 + x)
        return c, jnp.sum(c)

    def scan_fn(xs: Any) -> Any:
        return jax.lax.scan(short_body, jnp.zeros(COMPILE_WIDTH, np.float32), xs)

    def rnn_loss(w: Any, xs: Any) -> Any:
        def step(h: Any, x: Any) -> tuple[Any, None]:
            return jnp.tanh(w @ h + x), None

        h, _ = jax.lax.scan(step, jnp.zeros(WIDTH, np.float32), xs)
        return jnp.sum(h * h)

    return scan_fn, jax.grad(rnn_loss)


def _measure(
    jit_fn: Callable[..., Any],
    put: Callable[[Any], Any],
    programs: Callable[[], tuple[Any, Any]],
) -> dict[str, float]:
    results: dict[str, float] = {}
    for length in (SHORT, LONG):
        xs = np.ones((length, COMPILE_WIDTH), np.float32)

        def compile_once(xs: Any = xs) -> None:
            scan_fn, _ = programs()  # new function objects: no compile cache hit
            jit_fn(scan_fn).lower(xs).compile()

        compile_once()  # warm up the tracing machinery itself
        results[f"compile_s_len{length}"] = _median(compile_once, 3)
    results["compile_ratio"] = results[f"compile_s_len{LONG}"] / results[f"compile_s_len{SHORT}"]

    rng = np.random.default_rng(0)
    w = put((rng.normal(size=(WIDTH, WIDTH)) / np.sqrt(WIDTH)).astype(np.float32))
    xs = put(rng.normal(size=(STEPS, WIDTH)).astype(np.float32))
    step = jit_fn(programs()[1])
    _block(step(w, xs))

    def one_call() -> None:
        _block(step(w, xs))

    results["rnn_grad_us_per_step"] = _median(one_call, 15) / STEPS * 1e6
    return results


def _try_import_jax() -> ModuleType | None:
    try:
        return importlib.import_module("jax")
    except ImportError:
        return None


def run() -> dict[str, float]:
    """Measure mj (and jax when importable); see the module docstring."""
    results = _measure(jit, device_put, _mj_programs)
    jax = _try_import_jax()
    if jax is not None:
        theirs = _measure(jax.jit, jax.device_put, lambda: _jax_programs(jax))
        results.update({f"jax_{k}": v for k, v in theirs.items()})
        for key in ("compile_s_len10", "compile_s_len10000", "rnn_grad_us_per_step"):
            results[f"ratio_{key}"] = results[key] / results[f"jax_{key}"]
    return results


if __name__ == "__main__":
    for name, value in run().items():
        print(f"{name:>32}: {value:.4g}")
