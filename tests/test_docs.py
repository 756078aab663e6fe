"""Every ```python block in docs/ runs, and its printed output matches the page.

The blocks of one page run in order in one namespace, like a notebook. A block directly
followed by an ```output block must print exactly that text (trailing spaces ignored). Pages
run in a temporary directory, so files they write do not land in the repository.
"""

import contextlib
import io
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```\s*$", re.DOTALL | re.MULTILINE)


def blocks(page: Path) -> list[tuple[str, str, int]]:
    """``(kind, source, line)`` for each fenced block of ``page``."""
    text = page.read_text()
    return [
        (m.group(1), m.group(2), text.count("\n", 0, m.start()) + 1) for m in FENCE.finditer(text)
    ]


def runnable(page: Path) -> list[tuple[str, str | None, int]]:
    """The python blocks of ``page``, each with the output block that follows it (if any)."""
    found = blocks(page)
    out: list[tuple[str, str | None, int]] = []
    for i, (kind, source, line) in enumerate(found):
        if kind != "python":
            continue
        expected = found[i + 1][1] if i + 1 < len(found) and found[i + 1][0] == "output" else None
        out.append((source, expected, line))
    return out


def _normalise(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())


PAGES = sorted(p for p in DOCS.glob("*.md") if runnable(p))


def test_docs_have_executable_pages():
    names = {p.name for p in PAGES}
    for page in ("quickstart.md", "autodiff_cookbook.md", "sharp_bits.md"):
        assert page in names
    for page in ("custom_derivatives.md", "adding_a_primitive.md", "jaxpr_interpreter.md"):
        assert page in names


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_page_runs_and_prints_what_it_shows(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": f"docs_{page.stem}"}
    for source, expected, line in runnable(page):
        stdout = io.StringIO()
        code = compile(source, f"{page.name}:{line}", "exec")
        with contextlib.redirect_stdout(stdout):
            exec(code, namespace)
        if expected is not None:
            assert _normalise(stdout.getvalue()) == _normalise(expected), (
                f"{page.name}, block at line {line}: printed output differs from the page"
            )
