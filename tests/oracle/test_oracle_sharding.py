"""Runs ``sharding_cases.py`` (mj's shardings, sharded jit and shard_map against JAX's on
the same 4x2 mesh) in a process whose CPU backends, mj's and JAX's, both have 8 devices:
each backend's device count is fixed when it starts."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.oracle

CASES = Path(__file__).resolve().parent / "sharding_cases.py"


def test_sharding_matches_jax_on_eight_cpu_devices():
    env = {**os.environ, "MJ_NUM_CPU_DEVICES": "8", "TF_CPP_MIN_LOG_LEVEL": "2"}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]
    result = subprocess.run(
        [*cmd, str(CASES)], env=env, capture_output=True, text=True, timeout=900, check=False
    )
    assert result.returncode == 0, result.stdout[-8000:] + result.stderr[-4000:]
    assert " passed" in result.stdout
