"""Workload 20: data parallelism on several CPU devices, mj.pmap against jax.pmap.

* A data-parallel MLP train step (32-256-256-10, tanh, MSE, a global batch of 512 split over
  the devices; ``pmap`` of grad, ``pmean`` of the gradients, an SGD update) on 1, 2, 4 and 8
  CPU devices: the scaling curve, steady state (parameters and batch stay on the devices).
* ``psum`` of a 1M-element float32 array over 8 CPU devices.

Both libraries need 8 CPU devices, and a backend's device count is fixed when it starts, so
this workload runs in a child process (``python bench_parallel.py --child SCALE``) that prints
its measurements as JSON. Every timed call waits for its result: on a machine with fewer
cores than devices, JAX dies in a rendezvous timeout when replicated programs are queued
back to back (each device's thread blocks in the collective while the next program holds
the others); mj serialises them itself.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from harness import Config, Measurement, Result, Skipped, Timing, Workload

HERE = Path(__file__).resolve().parent
N_DEVICES = 8
SIZES = (32, 256, 256, 10)
GLOBAL_BATCH = 512
PSUM_SIZE = 1_000_000


def parallel(config: Config) -> list[Result]:
    """Run the child and read its records back."""
    env = {**os.environ, "MJ_NUM_CPU_DEVICES": str(N_DEVICES)}
    peers = "jax" if config.peers.jax is not None else ""
    cmd = [sys.executable, str(HERE / "bench_parallel.py"), "--child", config.scale, peers]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False, timeout=3600)
    if done.returncode != 0:
        raise RuntimeError(f"bench_parallel child failed:\n{done.stdout}\n{done.stderr}")
    records: list[Result] = []
    for item in json.loads(done.stdout.strip().splitlines()[-1]):
        if "note" in item:
            records.append(Skipped(**item))
        else:
            item["timing"] = Timing(**item["timing"])
            records.append(Measurement(**item))
    return records


# --- the child: both libraries with 8 CPU devices ---------------------------------------------


def _init(rng: Any, sizes: tuple[int, ...]) -> list[tuple[Any, Any]]:
    import numpy as np

    return [
        (
            (rng.standard_normal((m, n)) / np.sqrt(m)).astype(np.float32),
            np.zeros(n, np.float32),
        )
        for m, n in itertools.pairwise(sizes)
    ]


def _step_fn(grad: Any, lax: Any, tree_map: Any, np_like: Any) -> Any:
    def loss(params: Any, x: Any, y: Any) -> Any:
        for w, b in params[:-1]:
            x = np_like.tanh(np_like.dot(x, w) + b)
        w, b = params[-1]
        return np_like.mean((np_like.dot(x, w) + b - y) ** 2)

    def step(params: Any, x: Any, y: Any) -> Any:
        grads = lax.pmean(grad(loss)(params, x, y), "batch")
        return tree_map(lambda p, g: p - 0.01 * g, params, grads)

    return step


def _child(scale: str, peer_names: str) -> None:
    from pinning import pin_threads

    pin_threads()
    import numpy as np

    jax = None
    if "jax" in peer_names:
        import jax

        jax.config.update("jax_num_cpu_devices", N_DEVICES)
    from harness import SideBySide, block, check_close

    import mj
    import mj.numpy as mnp

    assert mj.device_count() == N_DEVICES
    repeats = {"full": 15, "quick": 5, "tiny": 1}[scale]
    number = {"full": 5, "quick": 3, "tiny": 1}[scale]
    results: list[Result] = []
    rng = np.random.default_rng(0)
    params = _init(rng, SIZES)
    x = rng.standard_normal((GLOBAL_BATCH, SIZES[0])).astype(np.float32)
    y = rng.standard_normal((GLOBAL_BATCH, SIZES[-1])).astype(np.float32)
    mj_step = _step_fn(mj.grad, mj.lax, mj.tree_util.tree_map, mnp)
    counts = (1, 2, 4, 8) if scale != "tiny" else (2,)
    for count in counts:
        bench = SideBySide(20, f"MLP step, {count} devices", "ms", repeats=repeats, number=number)
        xs = x.reshape(count, -1, SIZES[0])
        ys = y.reshape(count, -1, SIZES[-1])
        stacked = [(np.stack([w] * count), np.stack([b] * count)) for w, b in params]
        devs = mj.devices()[:count]
        mj_pstep = mj.pmap(mj_step, axis_name="batch", devices=devs)
        place = mj.pmap(lambda a: a, devices=devs)
        mj_state = {"p": mj_pstep(stacked, place(xs), place(ys))}
        mj_x, mj_y = place(xs), place(ys)

        def mj_run(
            state: dict[str, Any] = mj_state, a: Any = mj_x, b: Any = mj_y, f: Any = mj_pstep
        ) -> Any:
            state["p"] = block(f(state["p"], a, b))
            return state["p"]

        bench.add("mj", "mj.pmap(step), pmean of grads", mj_run)
        if jax is not None:
            jdevs = jax.devices()[:count]
            j_step = _step_fn(jax.grad, jax.lax, jax.tree_util.tree_map, jax.numpy)
            jax_pstep = jax.pmap(j_step, axis_name="batch", devices=jdevs)
            jplace = jax.pmap(lambda a: a, devices=jdevs)
            j_x, j_y = jplace(xs), jplace(ys)
            jax_state = {"p": jax_pstep(stacked, j_x, j_y)}
            check_close(
                f"workload 20 MLP step, {count} devices",
                [np.asarray(leaf) for pair in mj_state["p"] for leaf in pair],
                [np.asarray(leaf) for pair in jax_state["p"] for leaf in pair],
                rtol=1e-4,
                atol=1e-5,
            )

            def jax_run(
                state: dict[str, Any] = jax_state, a: Any = j_x, b: Any = j_y, f: Any = jax_pstep
            ) -> Any:
                state["p"] = block(f(state["p"], a, b))
                return state["p"]

            bench.add("jax", "jax.pmap(step), pmean of grads", jax_run)
        results += bench.run()

    bench = SideBySide(20, "psum 1M f32, 8 devices", "ms", repeats=repeats, number=number)
    big = rng.standard_normal((N_DEVICES, PSUM_SIZE)).astype(np.float32)
    mj_psum = mj.pmap(lambda a: mj.lax.psum(a, "i"), axis_name="i")
    mj_big = mj.pmap(lambda a: a)(big)
    check_close(
        "workload 20 psum", np.asarray(mj_psum(mj_big))[0], big.sum(0), rtol=1e-4, atol=1e-3
    )
    bench.add("mj", "mj.pmap(psum)", lambda: block(mj_psum(mj_big)))
    if jax is not None:
        jax_psum = jax.pmap(lambda a: jax.lax.psum(a, "i"), axis_name="i")
        jax_big = jax.pmap(lambda a: a)(big)
        bench.add("jax", "jax.pmap(psum)", lambda: block(jax_psum(jax_big)))
    results += bench.run()
    if jax is None:
        results.append(Skipped(20, "jax", "jax not loaded; skipped"))
    print(json.dumps([dataclasses.asdict(r) for r in results]))


WORKLOADS = (
    Workload(
        20,
        "data parallelism on 8 CPU devices: pmap MLP step on 1/2/4/8 devices, psum of 1M f32",
        parallel,
    ),
)

if __name__ == "__main__" and sys.argv[1:2] == ["--child"]:
    _child(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "")
