"""Rewrite the ```output blocks of docs pages with what their python blocks print now.

Run after a change to what mj prints (e.g. its default dtypes): ``python tools/regen_docs_outputs.py
docs/quickstart.md ...``. The blocks of a page run in order in one namespace, in mj's default
mode, in a temporary directory, exactly as ``tests/test_docs.py`` runs them; review the diff.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
import tempfile
import types
from pathlib import Path

FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```\s*$", re.DOTALL | re.MULTILINE)


def regenerate(page: Path) -> int:
    """Rewrite ``page``'s output blocks; returns how many changed."""
    text = page.read_text()
    matches = list(FENCE.finditer(text))
    module = types.ModuleType(f"docs_{page.stem}")  # dataclasses look their module up
    sys.modules[module.__name__] = module
    namespace = module.__dict__
    replacements: list[tuple[int, int, str]] = []
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        try:
            for i, m in enumerate(matches):
                if m.group(1) != "python":
                    continue
                stdout = io.StringIO()
                line = text.count("\n", 0, m.start()) + 1
                with contextlib.redirect_stdout(stdout):
                    exec(compile(m.group(2), f"{page.name}:{line}", "exec"), namespace)
                nxt = matches[i + 1] if i + 1 < len(matches) else None
                if (
                    nxt is not None
                    and nxt.group(1) == "output"
                    and nxt.group(2) != stdout.getvalue()
                ):
                    replacements.append((nxt.start(2), nxt.end(2), stdout.getvalue()))
        finally:
            os.chdir(cwd)
    for start, end, new in reversed(replacements):
        text = text[:start] + new + text[end:]
    page.write_text(text)
    return len(replacements)


if __name__ == "__main__":
    for name in sys.argv[1:]:
        print(f"{name}: {regenerate(Path(name))} output block(s) rewritten")
