"""``benchmarks/bench_gpu.py`` on a machine without a GPU (or without jax): it says why and
exits 0, writing nothing. (The oracle environment runs its every case at tiny sizes on the
CPU: tests/oracle/test_oracle_bench_gpu.py.)"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_gpu.py"


@pytest.mark.usefixtures("cpu_machine")
def test_bench_gpu_exits_cleanly_without_a_gpu(tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(tmp_path / "r")],
        env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    assert "jax is not installed" in out.stdout or "no GPU backend" in out.stdout
    assert list(tmp_path.iterdir()) == []
