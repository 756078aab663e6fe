"""``benchmarks/bench_gpu.py --cpu``: every case of the GPU benchmark runs (tiny sizes, on
the CPU) for mj and JAX side by side, their training losses agree, and the results files
hold the issue's table. A check of the script, so that the GPU run has nothing to debug."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.oracle

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_gpu.py"
CASES = [
    "mlp_step_128", "mlp_step_4096", "first_call", "jit_dispatch", "eager_op", "cnn_step",
    "rnn_scan_step",
]  # fmt: skip


def test_every_case_runs_and_the_losses_agree(tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "JAX_PLATFORMS": "cpu"}
    env.pop("MJ_PLATFORMS", None)
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--cpu", "--out", str(tmp_path / "r")],
        env=env, capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    report = json.loads((tmp_path / "r.json").read_text())
    assert list(report["cases"]) == CASES
    for case, row in report["cases"].items():
        assert row["mj"]["median"] > 0, case
        assert row["jax"]["median"] > 0, case
        if "losses" in row:
            assert row["losses"]["mj"] == pytest.approx(row["losses"]["jax"], rel=2e-3)
    table = (tmp_path / "r.md").read_text()
    assert "| mlp_step_4096 |" in table
    assert "<= 1.02x" in table
