"""Runs ``multidevice/device_cases.py`` in a process whose CPU backend has four devices (the
device count is fixed once the backend starts)."""

import os
import subprocess
import sys
from pathlib import Path

CASES = Path(__file__).resolve().parent / "multidevice" / "device_cases.py"


def test_device_cases_on_four_cpu_devices():
    env = {**os.environ, "MJ_NUM_CPU_DEVICES": "4", "TF_CPP_MIN_LOG_LEVEL": "2"}
    env["MJ_PLATFORMS"] = "cpu"  # the CPU devices, also where a GPU is the default
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]
    result = subprocess.run(
        [*cmd, str(CASES)], env=env, capture_output=True, text=True, timeout=600, check=False
    )
    assert result.returncode == 0, result.stdout[-8000:] + result.stderr[-4000:]
    assert " passed" in result.stdout
