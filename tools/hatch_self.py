"""Run the hatch that is running the current hatch script, with the given arguments.

Hatch scripts run inside an environment whose PATH need not contain hatch itself (for example
when hatch was started as ``.venv/bin/hatch run all``). Hatch exports ``HATCH_UV``, the uv
binary it uses, which lives next to hatch when hatch was installed with pip or pipx; we look
there after PATH.

Usage (from hatch.toml): python tools/hatch_self.py run lint:check
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path


def find_hatch() -> str:
    override = os.environ.get("MJ_HATCH")
    if override:
        return override
    candidates: list[str] = []
    uv = os.environ.get("HATCH_UV")
    if uv:
        bindir = Path(uv).parent
        candidates += [str(bindir / "hatch"), str(bindir / "hatch.exe")]
    on_path = shutil.which("hatch")
    if on_path:
        candidates.append(on_path)
    for candidate in candidates:
        if Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    sys.exit(
        "hatch_self: cannot find the hatch executable (not next to $HATCH_UV, not on PATH); "
        "set MJ_HATCH=/path/to/hatch"
    )


def main() -> int:
    hatch = find_hatch()
    env = dict(os.environ)
    env.pop("HATCH_ENV_ACTIVE", None)
    return subprocess.call([hatch, *sys.argv[1:]], env=env)


if __name__ == "__main__":
    sys.exit(main())
