"""Workload 21: sharded computation on 8 CPU devices, mj against JAX on the same mesh.

* A 2-layer MLP train step (256-1024-16, tanh, MSE, a global batch of 1024) jitted with
  data- and model-parallel shardings over a 4x2 mesh (``data`` x ``model``): the batch split
  over ``data``, the hidden layer's weights over ``model``; ``in_shardings``/``out_shardings``
  given, parameters donated. Steady state (everything stays on the devices), and the compile
  time of the step (trace + lower + compile of a fresh function).
* ``shard_map`` psum-of-matmul on a 1-d mesh of 8 devices: ``(256, 2048) @ (2048, 256)``
  with the contracting dimension split, each device multiplying its blocks and ``psum``
  adding the partial products.

Both libraries need 8 CPU devices, fixed when their backends start, so this workload runs in
a child process (``python bench_sharding.py --child SCALE``) printing JSON, as workload 20.
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

from harness import Config, Measurement, Result, Skipped, Timing, Workload, time_samples

HERE = Path(__file__).resolve().parent
N_DEVICES = 8
SIZES = (256, 1024, 16)
GLOBAL_BATCH = 1024
MATMUL = (256, 2048, 256)
CASE_STEP = "MLP step, data+model, 8 dev"
CASE_COMPILE = "MLP step compile, 8 dev"
CASE_PSUM = "shard_map psum-matmul, 8 dev"


def sharding(config: Config) -> list[Result]:
    """Run the child and read its records back."""
    env = {**os.environ, "MJ_NUM_CPU_DEVICES": str(N_DEVICES)}
    peers = "jax" if config.peers.jax is not None else ""
    cmd = [sys.executable, str(HERE / "bench_sharding.py"), "--child", config.scale, peers]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False, timeout=3600)
    if done.returncode != 0:
        raise RuntimeError(f"bench_sharding child failed:\n{done.stdout}\n{done.stderr}")
    records: list[Result] = []
    for item in json.loads(done.stdout.strip().splitlines()[-1]):
        if "note" in item:
            records.append(Skipped(**item))
        else:
            item["timing"] = Timing(**item["timing"])
            records.append(Measurement(**item))
    return records


# --- the child: both libraries with 8 CPU devices ---------------------------------------------


def _step_fn(grad: Any, np_like: Any) -> Any:
    """A fresh SGD step function (a new object each call: nothing cached from before)."""

    def loss(params: Any, x: Any, y: Any) -> Any:
        (w1, b1), (w2, b2) = params
        h = np_like.tanh(np_like.dot(x, w1) + b1)
        return np_like.mean((np_like.dot(h, w2) + b2 - y) ** 2)

    def step(params: Any, x: Any, y: Any) -> Any:
        grads = grad(loss)(params, x, y)
        return [
            (w - 0.01 * gw, b - 0.01 * gb) for (w, b), (gw, gb) in zip(params, grads, strict=True)
        ]

    return step


class _Lib:
    """One library's names, mesh and shardings for the workload."""

    def __init__(
        self, name: str, lib: Any, np_like: Any, sharding_mod: Any, shard_map: Any
    ) -> None:
        import numpy as np

        self.name, self.lib, self.np_like, self.shard_map = name, lib, np_like, shard_map
        named, spec = sharding_mod.NamedSharding, sharding_mod.PartitionSpec
        devices = np.array(lib.devices()[:N_DEVICES])
        self.mesh = sharding_mod.Mesh(devices.reshape(4, 2), ("data", "model"))
        self.line = sharding_mod.Mesh(devices, ("i",))
        self.spec = spec

        def s(*p: Any) -> Any:
            return named(self.mesh, spec(*p))

        self.params_s = [(s(None, "model"), s("model")), (s("model", None), s())]
        self.batch_s = s("data")

    def step(self, donate: bool) -> Any:
        f = _step_fn(self.lib.grad, self.np_like)
        shardings = (self.params_s, self.batch_s, self.batch_s)
        return self.lib.jit(
            f,
            in_shardings=shardings,
            out_shardings=self.params_s,
            donate_argnums=(0,) if donate else (),
        )

    def psum_matmul(self) -> Any:
        p, lax = self.spec, self.lib.lax
        body = self.shard_map(
            lambda a, b: lax.psum(a @ b, "i"),
            mesh=self.line,
            in_specs=(p(None, "i"), p("i", None)),
            out_specs=p(),
        )
        return self.lib.jit(body)


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
    import mj.sharding

    assert mj.device_count() == N_DEVICES
    repeats = {"full": 15, "quick": 5, "tiny": 1}[scale]
    number = {"full": 5, "quick": 3, "tiny": 1}[scale]
    compile_repeats = {"full": 7, "quick": 3, "tiny": 1}[scale]
    rng = np.random.default_rng(0)
    params = [
        (
            (rng.standard_normal((m, n)) / np.sqrt(m)).astype(np.float32),
            np.zeros(n, np.float32),
        )
        for m, n in itertools.pairwise(SIZES)
    ]
    x = rng.standard_normal((GLOBAL_BATCH, SIZES[0])).astype(np.float32)
    y = rng.standard_normal((GLOBAL_BATCH, SIZES[-1])).astype(np.float32)
    m, k, n = MATMUL
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)

    libs = [_Lib("mj", mj, mnp, mj.sharding, mj.shard_map)]
    if jax is not None:
        import jax.numpy as jnp
        import jax.sharding

        libs.append(_Lib("jax", jax, jnp, jax.sharding, jax.shard_map))

    results: list[Result] = []
    step_bench = SideBySide(21, CASE_STEP, "ms", repeats=repeats, number=number)
    psum_bench = SideBySide(21, CASE_PSUM, "ms", repeats=repeats, number=number)
    finals, sums = [], []
    for lib in libs:
        put = lib.lib.device_put
        state = {
            "p": [
                (put(w, sw), put(c, sc))
                for (w, c), (sw, sc) in zip(params, lib.params_s, strict=True)
            ]
        }
        xs, ys = put(x, lib.batch_s), put(y, lib.batch_s)
        step = lib.step(donate=True)
        state["p"] = block(step(state["p"], xs, ys))
        finals.append([np.asarray(leaf) for pair in state["p"] for leaf in pair])

        def run_step(st: dict[str, Any] = state, f: Any = step, u: Any = xs, v: Any = ys) -> Any:
            st["p"] = block(f(st["p"], u, v))
            return st["p"]

        step_bench.add(lib.name, f"{lib.name}.jit(step, in/out_shardings, donate)", run_step)
        pm = lib.psum_matmul()
        sums.append(np.asarray(pm(a, b)))
        pa = put(a, lib.lib.sharding.NamedSharding(lib.line, lib.spec(None, "i")))
        pb = put(b, lib.lib.sharding.NamedSharding(lib.line, lib.spec("i", None)))
        psum_bench.add(
            lib.name,
            f"{lib.name}.jit(shard_map(psum(a @ b)))",
            lambda f=pm, u=pa, v=pb: block(f(u, v)),
        )
    np.testing.assert_allclose(sums[0], a @ b, rtol=1e-3, atol=1e-3)
    if len(libs) > 1:
        check_close("workload 21 MLP step", finals[0], finals[1], rtol=1e-4, atol=1e-5)
        check_close("workload 21 psum-matmul", sums[0], sums[1], rtol=1e-4, atol=1e-3)
    results += step_bench.run()
    results += psum_bench.run()

    for lib in libs:

        def compile_once(lib: _Lib = lib) -> Any:
            return lib.step(donate=True).lower(params, x, y).compile()

        compile_once()  # warm up the tracing and compiling machinery itself
        samples = time_samples(compile_once, repeats=compile_repeats, warmup=0)
        label = f"{lib.name}.jit(fresh step).lower().compile()"
        results.append(Measurement(21, CASE_COMPILE, lib.name, label, "s", Timing.of(samples)))
    if jax is None:
        results.append(Skipped(21, "jax", "jax not loaded; skipped"))
    print(json.dumps([dataclasses.asdict(r) for r in results]))


WORKLOADS = (
    Workload(
        21,
        "sharding on 8 CPU devices: data+model-parallel MLP step (and its compile time), "
        "shard_map psum-of-matmul",
        sharding,
    ),
)

if __name__ == "__main__" and sys.argv[1:2] == ["--child"]:
    _child(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "")
