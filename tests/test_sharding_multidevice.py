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
