"""The docs pages marked ``<!-- docs: own process -->`` (they set the CPU device count,
which is fixed once the backend starts) run through ``test_docs.py`` in a fresh process."""

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def test_pages_that_need_a_fresh_backend():
    pages = [
        p.name
        for p in (HERE.parent / "docs").glob("*.md")
        if "<!-- docs: own process" in p.read_text()
    ]
    assert "parallelism.md" in pages
    env = {**os.environ, "MJ_DOCS_OWN_PROCESS": "1", "TF_CPP_MIN_LOG_LEVEL": "2"}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]
    result = subprocess.run(
        [*cmd, str(HERE / "test_docs.py"), "-k", "test_page_runs_and_prints_what_it_shows"],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-8000:] + result.stderr[-4000:]
    assert f"{len(pages)} passed" in result.stdout, result.stdout[-2000:]
