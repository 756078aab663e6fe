"""Run every test and check of the workspace through hatch; `hatch run all` calls this.

Steps (each in its own hatch environment, see hatch.toml):
  lint     ruff check + ruff format --check
  types    mypy --strict over every src/ and tools/
  layers   import-linter contracts, the AST layer checker, deptry per package
  docs     the documentation site, mkdocs --strict (a broken reference or docstring fails)
  oracle   tests/oracle against real JAX (pytest-xdist: -n auto, at most 4 workers)
  tests    the test suite (every package's tests and tests/, including the layering and
           install-isolation tests), on pytest-xdist workers like the oracle tests

The four checks (lint, types, layers, docs) run at the same time: they are short, mostly one
core each, and setting up their environments waits on the network. Each one's output is held
and printed whole when it ends, in the order above. The two pytest steps then run one after
the other (each already keeps every core busy), their output streamed. Every step runs even
when an earlier one fails (use --fail-fast to stop after the first phase that fails); a recap
at the end gives each step's time and repeats pytest's summary lines. Exit status 0 only when
every step passed.

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
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent

# pytest-xdist for the test suite: one worker per core, at most 4 (most of a test's time is
# XLA compiling on one core; more workers than cores only add memory), as the oracle step.
# loadfile: each test module runs on one worker, so a module fixture (install isolation's
# seven venvs) is built once, not once per worker. (xdist_group marks with loadgroup would
# be finer, but xdist 3.8 ignores them under pytest 9: the tests spread over the workers.)
XDIST = ["-n", "auto", "--maxprocesses", "4", "--dist", "loadfile"]
STEPS: dict[str, list[str]] = {
    "lint": ["run", "lint:check"],
    "types": ["run", "types:check"],
    "layers": ["run", "layers:check"],
    "docs": ["run", "docs:build"],
    "oracle": ["run", "oracle:test"],
    "tests": ["test", *XDIST],
}
CONCURRENT = ("lint", "types", "layers", "docs")
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


def hatch_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("HATCH_ENV_ACTIVE", None)
    return env


def pytest_summary(line: str) -> str | None:
    return line.strip().strip("= ") if PYTEST_SUMMARY.match(line.strip()) else None


def run_step(hatch: str, args: list[str]) -> tuple[int, str | None]:
    """Run one hatch command, streaming its output; return (exit code, pytest summary)."""
    summary = None
    with subprocess.Popen(
        [hatch, *args],
        cwd=REPO_ROOT,
        env=hatch_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        bufsize=1,
    ) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            summary = pytest_summary(line) or summary
    return proc.returncode, summary


def run_concurrently(hatch: str, names: list[str]) -> list[tuple[str, int, float, str | None]]:
    """Start every step of ``names`` at once, each writing to its own temporary file; print
    each one's output whole as it ends. Returns the results in the order of ``names``."""
    print(f"===== {', '.join(names)}: running at the same time =====", flush=True)
    results: dict[str, tuple[str, int, float, str | None]] = {}
    with tempfile.TemporaryDirectory(prefix="mj-check-all-") as tmp:
        running = {}
        for name in names:
            log = open(Path(tmp) / f"{name}.log", "w+")  # noqa: SIM115 (closed when it ends)
            proc = subprocess.Popen(
                [hatch, *STEPS[name]],
                cwd=REPO_ROOT,
                env=hatch_env(),
                stdout=log,
                stderr=subprocess.STDOUT,
                text=True,
            )
            running[name] = (proc, log, time.monotonic())
        while running:
            ended = [name for name, (proc, _, _) in running.items() if proc.poll() is not None]
            if not ended:
                time.sleep(0.2)
            for name in ended:
                proc, log, start = running.pop(name)
                seconds = time.monotonic() - start
                log.seek(0)
                output = log.read()
                log.close()
                print(f"\n===== {name}: hatch {' '.join(STEPS[name])} =====", flush=True)
                sys.stdout.write(output)
                sys.stdout.flush()
                summary = None
                for line in output.splitlines():
                    summary = pytest_summary(line) or summary
                results[name] = (name, proc.returncode, seconds, summary)
    return [results[name] for name in names]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run every test and check through hatch.")
    parser.add_argument("steps", nargs="*", help=f"any of {', '.join(STEPS)} (default: all)")
    parser.add_argument("--fail-fast", action="store_true", help="stop at the first failure")
    args = parser.parse_args(argv)
    steps: list[str] = args.steps or list(STEPS)
    unknown = [s for s in steps if s not in STEPS]
    if unknown:
        parser.error(f"unknown step(s) {unknown}; choose from {list(STEPS)}")
    steps = [s for s in STEPS if s in steps]  # the order of STEPS, each once
    hatch = find_hatch()
    began = time.monotonic()

    concurrent = [s for s in steps if s in CONCURRENT]
    results = run_concurrently(hatch, concurrent) if concurrent else []
    for name in (s for s in steps if s not in CONCURRENT):
        if args.fail_fast and any(code != 0 for _, code, _, _ in results):
            break
        print(f"\n===== {name}: hatch {' '.join(STEPS[name])} =====", flush=True)
        start = time.monotonic()
        code, summary = run_step(hatch, STEPS[name])
        results.append((name, code, time.monotonic() - start, summary))

    print("\n===== summary =====")
    for name, code, seconds, summary in results:
        status = "ok" if code == 0 else f"FAILED (exit {code})"
        detail = f"  [{summary}]" if summary else ""
        print(f"{name:<7} {status:<16} {seconds:6.1f}s{detail}")
    print(f"{'total':<7} {'':<16} {time.monotonic() - began:6.1f}s")
    failed = [name for name, code, _, _ in results if code != 0]
    oracle = [summary for name, _, _, summary in results if name == "oracle" and summary]
    if oracle:
        print(f"pytest (oracle): {oracle[0]}")
    tests = [summary for name, _, _, summary in results if name == "tests" and summary]
    if tests:
        print(f"pytest: {tests[0]}")
    print("all checks passed" if not failed else f"failed: {', '.join(failed)}")
    return 1 if failed or len(results) < len(steps) else 0


if __name__ == "__main__":
    sys.exit(main())
