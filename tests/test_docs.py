"""Every ```python block in docs/ runs, and its printed output matches the page.

The blocks of one page run in order in one namespace, like a notebook. A block directly
followed by an ```output block must print that text: the same words and punctuation in the
same order, and the same numbers, floats to a relative 1e-6 (see ``first_difference``). Pages
run in a temporary directory, so files they write do not land in the repository.
"""

import contextlib
import io
import math
import os
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


# A decimal number as Python and NumPy print one: 3, -0.5, 2., .25, 1e-07, 2.6253145541558722.
NUMBER = re.compile(r"([-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?)")
INTEGER = re.compile(r"[-+]?\d+")
RTOL, ATOL = 1e-6, 1e-12


def tokens(text: str) -> list[str]:
    """``text`` cut into numbers and the runs of other characters between them.

    Whitespace only separates tokens: NumPy pads an array's columns to its widest entry, so a
    last-digit difference in one element can change the spacing (or the line breaks) of all.
    """
    return [piece for word in text.split() for piece in NUMBER.split(word) if piece]


def _same_token(printed: str, expected: str) -> bool:
    """Text and integers exactly; floats to ``RTOL`` (``ATOL`` near zero).

    A float may be printed as an integer: Python writes ``complex(1.0, 2.0)`` as ``(1+2j)``.
    """
    if printed == expected:
        return True
    if not (NUMBER.fullmatch(printed) and NUMBER.fullmatch(expected)):
        return False
    if INTEGER.fullmatch(printed) and INTEGER.fullmatch(expected):
        return False  # shapes, sizes, counts, dtype widths: exact
    return math.isclose(float(printed), float(expected), rel_tol=RTOL, abs_tol=ATOL)


def first_difference(printed: str, expected: str) -> str | None:
    """Where ``printed`` stops matching ``expected``, or None if it matches.

    Floats are compared with a tolerance because their last digits depend on the machine
    (BLAS, libm): the page was written on one machine and the test runs on another, so a page
    must never depend on the 17th significant digit.
    """
    got, want = tokens(printed), tokens(expected)
    for i, (g, w) in enumerate(zip(got, want, strict=False)):
        if not _same_token(g, w):
            return f"token {i}: printed {g!r} where the page has {w!r}"
    if len(got) != len(want):
        extra = got[len(want) :] or want[len(got) :]
        side = "printed" if len(got) > len(want) else "the page has"
        return f"{side} {len(extra)} more token(s), from {extra[0]!r}"
    return None


# A page that sets the CPU device count runs in a fresh process (test_docs_own_process.py
# starts one, with MJ_DOCS_OWN_PROCESS=1): the backend's device count is fixed once it starts.
OWN_PROCESS = "<!-- docs: own process"
_ALONE = os.environ.get("MJ_DOCS_OWN_PROCESS") == "1"
PAGES = sorted(
    p for p in DOCS.glob("*.md") if runnable(p) and (OWN_PROCESS in p.read_text()) == _ALONE
)


def test_docs_have_executable_pages():
    names = {p.name for p in PAGES}
    for page in ("quickstart.md", "autodiff_cookbook.md", "sharp_bits.md"):
        assert page in names
    for page in ("custom_derivatives.md", "adding_a_primitive.md", "jaxpr_interpreter.md"):
        assert page in names


@pytest.mark.x32
@pytest.mark.usefixtures("cpu_machine")  # the pages show a CPU-only machine's output
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
            difference = first_difference(stdout.getvalue(), expected)
            assert difference is None, (
                f"{page.name}, block at line {line}: printed output differs from the page "
                f"({difference}):\n{stdout.getvalue()}"
            )


@pytest.mark.parametrize(
    ("printed", "expected"),
    [
        ("2.6253145541558722\n", "2.625314554155872"),  # last digit from another machine's BLAS
        ("[1.50000001 2.        ]", "[1.5 2. ]"),  # NumPy re-pads the columns
        ("[[1. 2.]\n [3. 4.]]", "[[1. 2.] [3. 4.]]"),
        ("x: 1e-07 -0. (3, 4) float32 True", "x:  1.0000000000000002e-07 0. (3, 4) float32 True"),
        ("0.5247999999999998 2.220446049250313e-16", "0.5248 2.220446049250313e-16"),
        ("residual -1.1102230246251565e-16", "residual 0.0"),
        ("(1.0000000000000002+2j)", "(1+2j)"),  # Python drops ".0" in a complex's parts
    ],
)
def test_comparison_tolerates_last_digits_and_spacing(printed, expected):
    assert first_difference(printed, expected) is None


@pytest.mark.parametrize(
    ("printed", "expected"),
    [
        ("2.625", "2.626"),  # a wrong number, off in the fourth digit
        ("[1. 2.]", "[1. 3.]"),
        ("1.00001", "1.0"),  # a relative 1e-5 is a real difference
        ("residual 1e-06", "residual 0.0"),
        ("(3, 4)", "(3, 5)"),  # integers are exact
        ("float64", "float32"),
        ("True", "False"),
        ("1 2 3", "1 2"),
        ("1 2", "1 2 3"),
        ("nan", "0.0"),
        ("ab", "a b"),
    ],
)
def test_comparison_still_catches_wrong_output(printed, expected):
    assert first_difference(printed, expected) is not None
