"""GPU benchmarks: mj and JAX side by side on the same GPU, in one process (issue 19's table).

Cases: an MLP train step (784-2048-2048-10, tanh, MSE, ``jit(grad)`` + SGD) at batch 128 and
4096, its first call (trace + compile + run), ``jit`` dispatch of ``x + 1.0``, one eager op on
a device array, a small CNN step (conv + pooling) and a ``scan``-based RNN grad step. Both
systems compute the same steps from the same data; their losses are checked to agree before
anything is timed. Repeats alternate between the systems, so a change in the machine's load
reaches both alike. Results go to ``benchmarks/results_gpu.json`` and ``results_gpu.md``.

Run on a machine with an NVIDIA GPU, jax and the CUDA plugin (``hatch run gpu:bench``, or
``PYTHONPATH=$(ls -d packages/*/src | paste -sd:) python benchmarks/bench_gpu.py``). Without
jax or without a GPU it says so and exits 0. ``--cpu`` runs every case at tiny sizes on the
CPU instead (a check of the script itself, not a measurement), ``--out`` picks the file stem.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import itertools
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
TARGETS = {  # issue 19: mj's time over JAX's, same run
    "mlp_step_4096": 1.02,
    "mlp_step_128": 1.1,
    "first_call": 1.0,
    "jit_dispatch": 1.2,
    "eager_op": 1.0,
}


def _systems(device_kind: str) -> dict[str, SimpleNamespace]:
    """mj and JAX behind one interface, each on its default device, which must be of
    ``device_kind`` (data is placed there uncommitted, as ``jnp.asarray`` does). JAX starts
    its backends first: it loads the CUDA plugin (and registers its kernels); mj then finds
    it loaded and uses it."""
    import jax
    import jax.numpy as jnp

    jax_device = jax.devices()[0]
    import mj
    import mj.numpy as mnp

    mj_device = mj.devices()[0]
    for name, device in (("jax", jax_device), ("mj", mj_device)):
        if device.platform != device_kind:
            raise SystemExit(f"bench_gpu: {name}'s default device is {device}, not a {device_kind}")
    return {
        "mj": SimpleNamespace(
            np=mnp, lax=mj.lax, jit=mj.jit, grad=mj.grad, value_and_grad=mj.value_and_grad,
            put=mj.device_put, ready=mj.block_until_ready,
            device=mj_device,
        ),
        "jax": SimpleNamespace(
            np=jnp, lax=jax.lax, jit=jax.jit, grad=jax.grad, value_and_grad=jax.value_and_grad,
            put=jax.device_put, ready=jax.block_until_ready,
            device=jax_device,
        ),
    }  # fmt: skip


# --- the models, written once for both systems -------------------------------------------------


def _mlp_init(sizes: tuple[int, ...], batch: int) -> tuple[list[np.ndarray], np.ndarray, Any]:
    rng = np.random.default_rng(0)
    params = []
    for m, n in itertools.pairwise(sizes):
        params += [(rng.standard_normal((m, n)) / np.sqrt(m)).astype(np.float32)]
        params += [np.zeros(n, np.float32)]
    x = rng.standard_normal((batch, sizes[0])).astype(np.float32)
    y = rng.standard_normal((batch, sizes[-1])).astype(np.float32)
    return params, x, y


def _mlp_step(s: SimpleNamespace, lr: float = 1e-3) -> Callable[..., Any]:
    def loss(params: list[Any], x: Any, y: Any) -> Any:
        h = x
        for i in range(0, len(params) - 2, 2):
            h = s.np.tanh(h @ params[i] + params[i + 1])
        out = h @ params[-2] + params[-1]
        return s.np.mean((out - y) ** 2)

    def step(params: list[Any], x: Any, y: Any) -> tuple[list[Any], Any]:
        value, grads = s.value_and_grad(loss)(params, x, y)
        return [p - lr * g for p, g in zip(params, grads, strict=True)], value

    return step


def _cnn_step(s: SimpleNamespace, lr: float = 1e-2) -> Callable[..., Any]:
    """conv 3x3 (1 -> 8 channels, NCHW), relu, 2x2 average pooling, dense to 10, MSE."""

    def loss(params: list[Any], x: Any, y: Any) -> Any:
        k, w = params
        h = s.lax.conv_general_dilated(x, k, (1, 1), "SAME")
        h = s.np.maximum(h, 0.0)
        b, c, hh, ww = h.shape
        h = h.reshape(b, c, hh // 2, 2, ww // 2, 2).mean(axis=(3, 5))
        return s.np.mean((h.reshape(b, -1) @ w - y) ** 2)

    def step(params: list[Any], x: Any, y: Any) -> tuple[list[Any], Any]:
        value, grads = s.value_and_grad(loss)(params, x, y)
        return [p - lr * g for p, g in zip(params, grads, strict=True)], value

    return step


def _cnn_init(batch: int, side: int) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    k = (rng.standard_normal((8, 1, 3, 3)) / 3).astype(np.float32)
    w = (rng.standard_normal((8 * (side // 2) ** 2, 10)) / 30).astype(np.float32)
    x = rng.standard_normal((batch, 1, side, side)).astype(np.float32)
    y = rng.standard_normal((batch, 10)).astype(np.float32)
    return [k, w], x, y


def _rnn_step(s: SimpleNamespace, lr: float = 1e-2) -> Callable[..., Any]:
    """h' = tanh(x_t Wx + h Wh + b) over the sequence with ``scan``; loss on the last h."""

    def loss(params: list[Any], xs: Any, y: Any) -> Any:
        wx, wh, b = params

        def cell(h: Any, x_t: Any) -> tuple[Any, None]:
            return s.np.tanh(x_t @ wx + h @ wh + b), None

        h0 = s.np.zeros((xs.shape[1], wh.shape[0]), xs.dtype)
        h, _ = s.lax.scan(cell, h0, xs)
        return s.np.mean((h - y) ** 2)

    def step(params: list[Any], xs: Any, y: Any) -> tuple[list[Any], Any]:
        value, grads = s.value_and_grad(loss)(params, xs, y)
        return [p - lr * g for p, g in zip(params, grads, strict=True)], value

    return step


def _rnn_init(
    steps: int, batch: int, hidden: int
) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    rng = np.random.default_rng(2)
    wx = (rng.standard_normal((hidden, hidden)) / np.sqrt(hidden)).astype(np.float32)
    wh = (rng.standard_normal((hidden, hidden)) / np.sqrt(hidden)).astype(np.float32)
    b = np.zeros(hidden, np.float32)
    xs = rng.standard_normal((steps, batch, hidden)).astype(np.float32)
    y = rng.standard_normal((batch, hidden)).astype(np.float32)
    return [wx, wh, b], xs, y


# --- timing -------------------------------------------------------------------------------------


def _side_by_side(
    calls: dict[str, Callable[[], Any]], repeats: int, number: int
) -> dict[str, list[float]]:
    """Seconds per call of each system: ``repeats`` rounds, each timing ``number`` calls of
    every system in turn (the last result waited for)."""
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(repeats):
        for name, call in calls.items():
            gc.collect()
            start = time.perf_counter()
            for _ in range(number - 1):
                call()
            _wait(call())
            times[name].append((time.perf_counter() - start) / number)
    return times


def _wait(tree: Any) -> None:
    for leaf in tree if isinstance(tree, list | tuple) else [tree]:
        if isinstance(leaf, list | tuple):
            _wait(leaf)
        else:
            leaf.block_until_ready()


def _train(systems: dict[str, SimpleNamespace], make: Callable[..., Any], data: Any) -> dict:
    """A jitted train step per system on committed device data: their losses after a few
    steps must agree, then the step is timed (a step feeds the next, as in training)."""
    params, x, y = data
    state: dict[str, Any] = {}
    losses = {}
    for name, s in systems.items():
        step = s.jit(make(s))
        p, dx, dy = s.put(params), s.put(x), s.put(y)
        for _ in range(3):
            p, value = step(p, dx, dy)
        losses[name] = float(value)
        state[name] = (step, p, dx, dy)
    if not np.isclose(losses["mj"], losses["jax"], rtol=2e-3):
        raise AssertionError(f"mj and JAX disagree on the loss: {losses}")

    def caller(name: str) -> Callable[[], Any]:
        step, p, dx, dy = state[name]
        holder = [p]

        def call() -> Any:
            holder[0], value = step(holder[0], dx, dy)
            return value

        return call

    return {"calls": {n: caller(n) for n in systems}, "losses": losses}


def _first_call(systems: dict[str, SimpleNamespace], data: Any) -> dict[str, list[float]]:
    """Seconds from a new jitted function to its first result (trace, compile, run)."""
    params, x, y = data
    times: dict[str, list[float]] = {name: [] for name in systems}
    for _ in range(2):
        for name, s in systems.items():
            p, dx, dy = s.put(params), s.put(x), s.put(y)
            step = s.jit(_mlp_step(s))  # a new function: nothing cached
            start = time.perf_counter()
            _wait(step(p, dx, dy))
            times[name].append(time.perf_counter() - start)
    return times


def run(device_kind: str, tiny: bool) -> dict[str, Any]:
    systems = _systems(device_kind)
    hidden = 32 if tiny else 2048
    sizes = (784, hidden, hidden, 10)
    reps, num = (2, 2) if tiny else (7, 20)
    results: dict[str, Any] = {}

    def record(
        case: str, times: dict[str, list[float]], unit: str, extra: dict[str, Any] | None = None
    ) -> None:
        scale = {"us": 1e6, "ms": 1e3, "s": 1.0}[unit]
        row = {n: {"median": statistics.median(t) * scale, "min": min(t) * scale}
               for n, t in times.items()}  # fmt: skip
        row["ratio"] = row["mj"]["median"] / row["jax"]["median"]
        row["unit"] = unit
        row["target"] = TARGETS.get(case)
        row.update(extra or {})
        results[case] = row
        mine, theirs = row["mj"]["median"], row["jax"]["median"]
        print(f"{case:16s} mj {mine:10.1f} {unit}   jax {theirs:10.1f} {unit}   mj/jax "
              f"{row['ratio']:.2f}", flush=True)  # fmt: skip

    for batch in (128, 4096):
        trained = _train(systems, _mlp_step, _mlp_init(sizes, 8 if tiny else batch))
        record(f"mlp_step_{batch}", _side_by_side(trained["calls"], reps, num), "us",
               {"losses": trained["losses"]})  # fmt: skip
    record("first_call", _first_call(systems, _mlp_init(sizes, 8 if tiny else 128)), "s")

    small = np.arange(8, dtype=np.float32)
    plus = {n: (s.jit(lambda x: x + 1.0), s.put(small)) for n, s in systems.items()}
    for f, x in plus.values():
        _wait(f(x))
    record("jit_dispatch", _side_by_side(
        {n: (lambda f=f, x=x: f(x)) for n, (f, x) in plus.items()}, reps, 10 if tiny else 1000
    ), "us")  # fmt: skip
    eager = {n: (s.np.sin, s.put(small)) for n, s in systems.items()}
    record("eager_op", _side_by_side(
        {n: (lambda f=f, x=x: f(x)) for n, (f, x) in eager.items()}, reps, 10 if tiny else 1000
    ), "us")  # fmt: skip

    cnn = _train(systems, _cnn_step, _cnn_init(4 if tiny else 256, 8 if tiny else 28))
    record("cnn_step", _side_by_side(cnn["calls"], reps, num), "us", {"losses": cnn["losses"]})
    rnn = _train(systems, _rnn_step, _rnn_init(5 if tiny else 50, 4 if tiny else 64,
                                                8 if tiny else 256))  # fmt: skip
    record("rnn_scan_step", _side_by_side(rnn["calls"], reps, num), "us", {"losses": rnn["losses"]})
    return {
        "device": str(systems["mj"].device.device_kind),
        "platform": device_kind,
        "python": platform.python_version(),
        "jax": importlib.import_module("jax").__version__,
        "jaxlib": importlib.import_module("jaxlib").__version__,
        "tiny": tiny,
        "cases": results,
    }


def _markdown(report: dict[str, Any]) -> str:
    lines = [
        f"# GPU benchmarks: mj vs JAX ({report['device']}, jax {report['jax']}, jaxlib "
        f"{report['jaxlib']})",
        "",
        "| case | JAX | mj | mj/JAX | target |",
        "|---|---|---|---|---|",
    ]
    for case, row in report["cases"].items():
        target = "" if row["target"] is None else f"<= {row['target']}x"
        unit = row["unit"]
        lines.append(
            f"| {case} | {row['jax']['median']:.1f} {unit} | {row['mj']['median']:.1f} {unit} "
            f"| {row['ratio']:.2f} | {target} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpu", action="store_true", help="tiny sizes on the CPU (a check)")
    parser.add_argument("--out", default=str(HERE / "results_gpu"), help="results file stem")
    args = parser.parse_args(argv)
    if importlib.util.find_spec("jax") is None:
        print("bench_gpu: jax is not installed (pip install 'jax[cuda12]'); nothing to compare")
        return 0
    kind = "cpu" if args.cpu else "gpu"
    if not args.cpu:
        import jax

        try:
            jax.devices("gpu")
        except RuntimeError as err:
            print(f"bench_gpu: no GPU backend ({err}); nothing to measure")
            return 0
    report = run(kind, tiny=args.cpu)
    out = Path(args.out)
    out.with_suffix(".json").write_text(json.dumps(report, indent=1) + "\n")
    out.with_suffix(".md").write_text(_markdown(report))
    print(f"bench_gpu: wrote {out.with_suffix('.json')} and {out.with_suffix('.md')}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
