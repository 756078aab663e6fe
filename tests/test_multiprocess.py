"""Two processes with 2 CPU devices each, joined by ``mj.distributed`` on 127.0.0.1, run a
sharded jitted computation and a ``shard_map`` psum over a mesh of all 4 devices
(``multiprocess/two_process_worker.py``); their results must equal one process's.

The processes get a free port and 120 s; on failure or timeout both are killed and their
output shown. Skipped when jaxlib has no gloo collectives or no local port can be bound.
"""

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from jaxlib import _jax as jaxlib_jax

import mj
import mj.numpy as mnp

WORKER = Path(__file__).resolve().parent / "multiprocess" / "two_process_worker.py"
TIME_LIMIT = 120


def free_port() -> int:
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("127.0.0.1", 0))
            return int(s.getsockname()[1])
    except OSError as e:
        pytest.skip(f"no local TCP port can be bound: {e}")


def run_processes(out_dir: Path, n: int = 2) -> list[str]:
    if not hasattr(jaxlib_jax, "make_gloo_tcp_collectives"):
        pytest.skip("this jaxlib has no gloo collectives for CPU")
    address = f"127.0.0.1:{free_port()}"
    env = {**os.environ, "MJ_NUM_CPU_DEVICES": "2", "TF_CPP_MIN_LOG_LEVEL": "2"}
    env["MJ_PLATFORMS"] = "cpu"  # the CPU devices, also where a GPU is the default
    procs = [
        subprocess.Popen(
            [sys.executable, str(WORKER), address, str(n), str(i), str(out_dir)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for i in range(n)
    ]
    deadline = time.monotonic() + TIME_LIMIT
    outputs = []
    try:
        for p in procs:
            out, _ = p.communicate(timeout=max(1.0, deadline - time.monotonic()))
            outputs.append(out)
    except subprocess.TimeoutExpired:
        pass
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    report = "\n".join(f"--- process {i}:\n{o[-3000:]}" for i, o in enumerate(outputs))
    assert len(outputs) == n, f"the processes did not finish within {TIME_LIMIT} s\n{report}"
    for i, (p, out) in enumerate(zip(procs, outputs, strict=True)):
        assert p.returncode == 0, report
        assert f"ok {i}" in out, report
    return outputs


def test_two_processes_agree_with_one(tmp_path):
    run_processes(tmp_path)
    results = [np.load(tmp_path / f"process{i}.npz") for i in range(2)]
    rng = np.random.default_rng(21)  # the workers' global data
    a = rng.normal(size=(8, 6)).astype(np.float32)
    w = rng.normal(size=(6, 4)).astype(np.float32)
    hidden = np.asarray(mj.jit(lambda a, w: mnp.tanh(a @ w))(a, w))
    total = np.asarray(mj.jit(lambda a: (a**2).sum(axis=0))(a))
    summed = np.asarray(mj.jit(lambda a, w: a.T @ (a @ w))(a, w))
    for r in results:
        first = int(r["first_row"])
        rows = r["hidden_rows"]
        np.testing.assert_allclose(rows, hidden[first : first + len(rows)], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(r["total"], total, rtol=1e-5)
        np.testing.assert_allclose(r["summed"], summed, rtol=1e-4, atol=1e-5)
    assert sorted(int(r["first_row"]) for r in results) == [0, 4]
