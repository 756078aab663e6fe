"""Runs ``committed_cases.py`` (eager operations on arrays committed to one device, against
JAX's) in a process whose CPU backends, mj's and JAX's, both have 4 devices: each backend's
device count is fixed when it starts."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.oracle

CASES = Path(__file__).resolve().parent / "committed_cases.py"


def test_committed_eager_matches_jax_on_four_cpu_devices():
    env = {**os.environ, "MJ_NUM_CPU_DEVICES": "4", "TF_CPP_MIN_LOG_LEVEL": "2"}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]
    result = subprocess.run(
        [*cmd, str(CASES)], env=env, capture_output=True, text=True, timeout=900, check=False
    )
    assert result.returncode == 0, result.stdout[-8000:] + result.stderr[-4000:]
    assert " passed" in result.stdout


DEVICE_CHOICE = Path(__file__).resolve().parent / "device_choice_cases.py"


def test_jit_device_choice_matches_jax_on_four_cpu_devices():
    env = {**os.environ, "MJ_NUM_CPU_DEVICES": "4", "TF_CPP_MIN_LOG_LEVEL": "2"}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]
    result = subprocess.run(
        [*cmd, str(DEVICE_CHOICE)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-8000:] + result.stderr[-4000:]
    assert " passed" in result.stdout
