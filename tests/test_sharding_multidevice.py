"""Runs ``multidevice/sharding_cases.py`` in a process whose CPU backend has 8 devices (the
device count is fixed once the backend starts), with a time limit; its pytest report is
shown when a case fails."""

import os
import subprocess
import sys
from pathlib import Path

CASES = Path(__file__).resolve().parent / "multidevice"


def run_cases(name: str) -> None:
    env = {**os.environ, "MJ_NUM_CPU_DEVICES": "8", "TF_CPP_MIN_LOG_LEVEL": "2"}
    env["MJ_PLATFORMS"] = "cpu"  # the CPU devices, also where a GPU is the default
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]
    result = subprocess.run(
        [*cmd, str(CASES / name)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-8000:] + result.stderr[-4000:]
    assert " passed" in result.stdout


def test_sharding_cases_on_eight_cpu_devices():
    run_cases("sharding_cases.py")


SHARDY_SCRIPT = """
import numpy as np, mj, mj.numpy as mnp
from mj.sharding import Mesh, NamedSharding, PartitionSpec as P
mesh = Mesh(np.array(mj.devices()).reshape(4, 2), ("x", "y"))
a = np.arange(32.0, dtype=np.float32).reshape(8, 4)
x = mj.device_put(a, NamedSharding(mesh, P("x", "y")))
f = mj.jit(lambda v: mnp.tanh(v @ v.T))
assert "sdy.sharding" in f.lower(x).as_text()
np.testing.assert_allclose(np.asarray(f(x)), np.tanh(a @ a.T), rtol=1e-5)
np.testing.assert_allclose(np.asarray(mnp.flip(x, 0) * 2), 2 * a[::-1])  # eager, sharded
print("ok")
"""


def test_sharded_programs_compile_with_shardy_without_xla_warnings():
    """Shardy partitions mesh-spelled programs (JAX 0.10's partitioner): XLA logs nothing at
    mj's default log level (GSPMD logs a deprecation warning per compile)."""
    env = {k: v for k, v in os.environ.items() if k != "TF_CPP_MIN_LOG_LEVEL"}
    env["MJ_NUM_CPU_DEVICES"] = "8"
    env["MJ_PLATFORMS"] = "cpu"
    result = subprocess.run(
        [sys.executable, "-c", SHARDY_SCRIPT],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    assert result.stdout.strip() == "ok"
    assert "GSPMD" not in result.stderr, result.stderr[-4000:]
