"""Runs ``multidevice/pmap_cases.py`` in a process whose CPU backend has 8 devices.

The backend's device count is fixed once it starts, and this process's backend has one
device, so the pmap cases get their own interpreter (``MJ_NUM_CPU_DEVICES=8``), with a time
limit. Its pytest report is shown when a case fails.
"""

import os
import subprocess
import sys
from pathlib import Path

CASES = Path(__file__).resolve().parent / "multidevice" / "pmap_cases.py"


def test_pmap_cases_on_eight_cpu_devices():
    env = {**os.environ, "MJ_NUM_CPU_DEVICES": "8", "TF_CPP_MIN_LOG_LEVEL": "2"}
    env["MJ_PLATFORMS"] = "cpu"  # the CPU devices, also where a GPU is the default
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]
    result = subprocess.run(
        [*cmd, str(CASES)], env=env, capture_output=True, text=True, timeout=900, check=False
    )
    assert result.returncode == 0, result.stdout[-8000:] + result.stderr[-4000:]
    assert " passed" in result.stdout
