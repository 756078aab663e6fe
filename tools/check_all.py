"""Run every test and check of the workspace through hatch; `hatch run all` calls this.

Steps (each in its own hatch environment, see hatch.toml):
  lint     ruff check + ruff format --check
  types    mypy --strict over every src/ and tools/
  layers   import-linter contracts, the AST layer checker, deptry per package
  docs     the documentation site, mkdocs --strict (a broken reference or docstring fails)
  oracle   tests/oracle against real JAX
  tests    the test suite (every package's tests and tests/, including the layering and
           install-isolation tests)

Every step runs even when an earlier one fails (use --fail-fast to stop early); a recap
at the end repeats pytest's summary line. Exit status 0 only when every step passed.

Hatch scripts run inside an environment whose PATH need not contain hatch itself (e.g. when
started as ``.venv/bin/hatch run all``). Hatch exports ``HATCH_UV``, the uv binary it uses,
which sits next to hatch when hatch was installed with pip or pipx; we look there first, then
on PATH. ``MJ_HATCH=/path/to/hatch`` overrides both.

Usage: python tools/check_all.py [--fail-fast] [STEP ...]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent

STEPS: dict[str, list[str]] = {
    "lint": ["run", "lint:check"],
    "types": ["run", "types:check"],
    "layers": ["run", "layers:check"],
    "docs": ["run", "docs:build"],
    "oracle": ["run", "oracle:test"],
    "tests": ["test"],
}
PYTEST_SUMMARY = re.compile(
    r"^=*\s*(\d+ (passed|failed|error|errors|skipped|xfailed|xpassed|deselected)\b.*"
    r"|no tests ran.*) in [\d.]+s.*$"
)


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
        "check_all: cannot find the hatch executable (not next to $HATCH_UV, not on PATH); "
        "set MJ_HATCH=/path/to/hatch"
    )


def run_step(hatch: str, args: list[str]) -> tuple[int, str | None]:
    """Run one hatch command, streaming its output; return (exit code, pytest summary)."""
    env = dict(os.environ)
    env.pop("HATCH_ENV_ACTIVE", None)
    summary = None
    with subprocess.Popen(
        [hatch, *args],
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        bufsize=1,
    ) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            if PYTEST_SUMMARY.match(line.strip()):
                summary = line.strip().strip("= ")
    return proc.returncode, summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run every test and check through hatch.")
    parser.add_argument("steps", nargs="*", help=f"any of {', '.join(STEPS)} (default: all)")
    parser.add_argument("--fail-fast", action="store_true", help="stop at the first failure")
    args = parser.parse_args(argv)
    steps: list[str] = args.steps or list(STEPS)
    unknown = [s for s in steps if s not in STEPS]
    if unknown:
        parser.error(f"unknown step(s) {unknown}; choose from {list(STEPS)}")
    hatch = find_hatch()

    results: list[tuple[str, int, float, str | None]] = []
    for name in steps:
        print(f"\n===== {name}: hatch {' '.join(STEPS[name])} =====", flush=True)
        start = time.monotonic()
        code, summary = run_step(hatch, STEPS[name])
        results.append((name, code, time.monotonic() - start, summary))
        if code != 0 and args.fail_fast:
            break

    print("\n===== summary =====")
    for name, code, seconds, summary in results:
        status = "ok" if code == 0 else f"FAILED (exit {code})"
        detail = f"  [{summary}]" if summary else ""
        print(f"{name:<7} {status:<16} {seconds:6.1f}s{detail}")
    failed = [name for name, code, _, _ in results if code != 0]
    tests = [summary for name, _, _, summary in results if name == "tests" and summary]
    if tests:
        print(f"pytest: {tests[0]}")
    print("all checks passed" if not failed else f"failed: {', '.join(failed)}")
    return 1 if failed or len(results) < len(steps) else 0


if __name__ == "__main__":
    sys.exit(main())
