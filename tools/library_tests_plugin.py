"""pytest plugin for ``tools/library_tests.py``: the libraries' own test files, on mj or on JAX.

Loaded with ``-p library_tests_plugin`` (``tools/`` on ``sys.path``) before pytest collects
anything. With ``MJ_LIBRARY_TESTS_BACKEND=mj`` it calls ``mj.as_jax.install()``, so that the
test files' and the libraries' ``import jax`` resolve to mj; with ``jax`` it leaves real JAX
alone (the control run). Either way it marks absl's flags parsed, as ``absltest.main()`` would
(optax's and chex's tests are absltest cases, some of which read flags), without editing the
libraries. (pytest's report objects are typed ``Any``: the types environment has no pytest.)
"""

from __future__ import annotations

import importlib
import json
import os
from typing import Any

BACKEND = os.environ.get("MJ_LIBRARY_TESTS_BACKEND", "mj")

if BACKEND == "mj":
    import mj.as_jax

    mj.as_jax.install()
elif BACKEND != "jax":
    raise ValueError(f"MJ_LIBRARY_TESTS_BACKEND must be 'mj' or 'jax', not {BACKEND!r}")


def pytest_configure() -> None:
    """Mark absl's flags parsed (their defaults), as ``absltest.main()`` does."""
    try:
        flags = importlib.import_module("absl.flags")
    except ImportError:  # absl comes with optax and chex
        return
    if not flags.FLAGS.is_parsed():
        flags.FLAGS.mark_as_parsed()


def _log(record: dict[str, object]) -> None:
    path = os.environ.get("MJ_LIBRARY_TESTS_LOG")
    if path:
        with open(path, "a") as f:
            f.write(json.dumps(record) + "\n")


def _message(report: Any) -> str:
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        return str(crash.message)
    return str(report.longrepr or "")


def pytest_runtest_logreport(report: Any) -> None:
    """Append each phase's outcome (and a failure's message) to the run's JSON lines log."""
    if report.when != "call" and report.outcome == "passed":
        return
    outcome = report.outcome
    if hasattr(report, "wasxfail"):
        outcome = "xfailed" if report.skipped else "xpassed"
    elif report.when != "call" and report.failed:
        outcome = "error"
    record: dict[str, object] = {"nodeid": report.nodeid, "outcome": outcome}
    if report.failed:
        record["message"] = _message(report)
        crash = getattr(report.longrepr, "reprcrash", None)
        if crash is not None:  # where it raised: groups failures of one cause
            record["where"] = f"{os.path.basename(crash.path)}:{crash.lineno}"
    _log(record)


def pytest_collectreport(report: Any) -> None:
    """A file that fails to import is one record: its message stands for all its tests."""
    if report.failed:
        text = str(report.longrepr or "")
        errors = [ln[1:].strip() for ln in text.splitlines() if ln.startswith("E ")]
        _log({"collection_error": errors[-1] if errors else text or "collection failed"})
