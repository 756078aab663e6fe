"""Runs ``parallel_cases.py`` (mj's collectives against JAX's under vmap and pmap) in a
process whose CPU backends, mj's and JAX's, both have 8 devices: each backend's device count
is fixed when it starts, so the cases get their own interpreter, with a time limit."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.oracle

CASES = Path(__file__).resolve().parent / "parallel_cases.py"


def test_collectives_match_jax_on_eight_cpu_devices():
    env = {**os.environ, "MJ_NUM_CPU_DEVICES": "8", "TF_CPP_MIN_LOG_LEVEL": "2"}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]
    result = subprocess.run(
        [*cmd, str(CASES)], env=env, capture_output=True, text=True, timeout=1200, check=False
    )
    assert result.returncode == 0, result.stdout[-8000:] + result.stderr[-4000:]
    assert " passed" in result.stdout
