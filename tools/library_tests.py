"""JAX libraries' own test files on mj (through ``mj.as_jax``) and on real JAX.

optax's and chex's test files ship inside the installed wheels (``optax/**/*_test.py``,
``chex/_src/*_test.py``). flax's and equinox's wheels ship none: their test files are taken
from a folder of the library's source at the installed release (``--tests flax=DIR``, e.g.
flax's ``tests/linen``, equinox's ``tests``), their ``*_test.py`` / ``test_*.py`` files, and
the folder is recorded in the results (``tests.json``) so that ``report`` finds it again.
Each file runs in its own pytest process
(``-p no:randomly``, ``--timeout`` per test), two at a time, with
``tools/library_tests_plugin.py`` loaded before collection: on mj it calls
``mj.as_jax.install()``, so ``import jax`` is mj, imported from this checkout's
``packages/*/src`` (first on ``PYTHONPATH``, whichever checkout the hatch environment
installed mj from). Every test's outcome is appended to a JSON lines file as it finishes (so
a file killed at its wall-clock limit keeps what it ran) and pytest writes its JUnit XML
next to it::

    hatch run libs-jax:library-tests --results DIR     # the control: real JAX 0.10.2
    hatch run libs:library-tests --results DIR         # the same files on mj
    hatch run libs:library-tests-report --results DIR  # rewrites docs/library_tests.md

``run`` options: ``--libs optax,chex``, ``--tests LIB=DIR`` (test files from a folder),
``--files SUBSTRING ...`` (only matching files),
``--missing`` (only files with no finished run in ``--results``), ``--jobs`` (files at once,
default 2), ``--timeout`` (seconds per test), ``--file-timeout`` (seconds per file).
``report`` compares the two runs: per file, the tests passing on JAX, those of them passing
on mj, the percentage; and mj's failures of tests that pass on JAX, grouped by cause.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import dataclasses
import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TOOLS = REPO / "tools"
PAGE = REPO / "docs" / "library_tests.md"
LIBRARIES = ("optax", "chex", "equinox", "flax")
# the test files' folders of libraries whose wheels ship none (``--tests LIB=DIR``)
TEST_DIRS: dict[str, Path] = {}
BACKENDS = ("jax", "mj")
PASSED = "passed"


def _package_dir(lib: str) -> Path | None:
    spec = importlib.util.find_spec(lib)  # finds the package without importing it (no jax)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _site_packages(lib: str) -> Path:
    """The folder the test files' names are relative to (pytest's ``--rootdir``)."""
    if lib in TEST_DIRS:
        return TEST_DIRS[lib].parent
    root = _package_dir(lib)
    assert root is not None
    return root.parent


def _test_files(lib: str) -> list[Path]:
    if lib in TEST_DIRS:
        folder = TEST_DIRS[lib]
        return sorted({*folder.rglob("*_test.py"), *folder.rglob("test_*.py")})
    root = _package_dir(lib)
    return [] if root is None else sorted(root.rglob("*_test.py"))


def _read_test_dirs(results: Path, given: Sequence[str] = ()) -> None:
    """``TEST_DIRS`` from the results' ``tests.json`` and ``--tests LIB=DIR``; saves them."""
    record = results / "tests.json"
    saved = json.loads(record.read_text()) if record.exists() else {}
    for item in given:
        lib, _, folder = item.partition("=")
        if lib not in LIBRARIES or not folder:
            raise SystemExit(f"--tests takes LIB=DIR with LIB one of {LIBRARIES}, not {item!r}")
        saved[lib] = str(Path(folder).resolve())
    TEST_DIRS.update({lib: Path(folder) for lib, folder in saved.items()})
    if given:
        record.write_text(json.dumps(saved, indent=1) + "\n")


def _results_dir(results: Path, backend: str, lib: str) -> Path:
    return results / backend / lib


def _stem(test_file: Path, lib: str) -> str:
    return str(test_file.relative_to(_site_packages(lib))).replace("/", ".").removesuffix(".py")


def _run_file(
    test_file: Path, lib: str, backend: str, results: Path, timeout: int, file_timeout: int
) -> tuple[str, float, str]:
    out = _results_dir(results, backend, lib)
    out.mkdir(parents=True, exist_ok=True)
    stem = _stem(test_file, lib)
    log = out / f"{stem}.jsonl"
    log.unlink(missing_ok=True)
    ini = results / "pytest.ini"  # an empty config: no repository's pytest settings apply
    env = dict(os.environ)
    # mj from this checkout's sources, whichever checkout the environment installed it from
    sources = [str(p) for p in sorted(REPO.glob("packages/*/src"))] if backend == "mj" else []
    env["PYTHONPATH"] = os.pathsep.join(
        [str(TOOLS), *sources, *filter(None, [env.get("PYTHONPATH", "")])]
    )
    env["MJ_LIBRARY_TESTS_BACKEND"] = backend
    env["MJ_LIBRARY_TESTS_LOG"] = str(log)
    env.setdefault("JAX_PLATFORMS", "cpu")
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        str(test_file),
        "-c",
        str(ini),
        "--rootdir",
        str(_site_packages(lib)),
        "-q",
        "-p",
        "no:randomly",
        "-p",
        "no:cacheprovider",
        "-p",
        "library_tests_plugin",
        f"--timeout={timeout}",
        "--timeout-method=signal",
        f"--junitxml={out / f'{stem}.xml'}",
    ]
    start = time.monotonic()
    proc = subprocess.Popen(
        cmd,
        cwd=results,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        output, _ = proc.communicate(timeout=file_timeout)
        status = f"exit {proc.returncode}"
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        output, _ = proc.communicate()
        status = f"killed after {file_timeout} s"
        with log.open("a") as f:
            f.write(json.dumps({"file_status": "timeout", "seconds": file_timeout}) + "\n")
    (out / f"{stem}.out").write_text(output)
    return stem, time.monotonic() - start, status


def run(args: argparse.Namespace) -> None:
    results: Path = args.results.resolve()
    results.mkdir(parents=True, exist_ok=True)
    (results / "pytest.ini").write_text("[pytest]\n")
    _read_test_dirs(results, args.tests)
    jobs = []
    for lib in args.libs.split(","):
        files = _test_files(lib)
        if not files:
            print(f"{lib}: no test files installed")
        for test_file in files:
            if args.files and not any(s in str(test_file) for s in args.files):
                continue
            done = _results_dir(results, args.backend, lib) / f"{_stem(test_file, lib)}.out"
            if args.missing and done.exists():
                continue
            jobs.append((test_file, lib))
    print(f"{args.backend}: {len(jobs)} test files, {args.jobs} at a time", flush=True)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = [
            pool.submit(_run_file, f, lib, args.backend, results, args.timeout, args.file_timeout)
            for f, lib in jobs
        ]
        for future in concurrent.futures.as_completed(futures):
            stem, seconds, status = future.result()
            print(f"  {stem}: {status}, {seconds:.0f} s", flush=True)


# ---------------------------------------------------------------------------------------
# report


@dataclasses.dataclass
class FileRun:
    """One test file's outcomes on one backend."""

    outcomes: dict[str, str] = dataclasses.field(default_factory=dict)
    messages: dict[str, str] = dataclasses.field(default_factory=dict)
    collection_error: str | None = None
    timed_out: bool = False
    present: bool = False


_RANK = {"passed": 0, "xpassed": 0, "skipped": 1, "xfailed": 1, "failed": 2, "error": 2}


def _load(results: Path, backend: str, lib: str, stem: str) -> FileRun:
    log = _results_dir(results, backend, lib) / f"{stem}.jsonl"
    run = FileRun()
    if not log.exists():
        return run
    run.present = log.with_suffix(".out").exists()  # the file's run ended (or was killed)
    for line in log.read_text().splitlines():
        rec = json.loads(line)
        if rec.get("file_status") == "timeout":
            run.timed_out = True
        elif rec.get("collection_error") is not None:
            run.collection_error = rec["collection_error"]
        else:
            nodeid = rec["nodeid"]
            # a test's worst phase: setup / call / teardown
            if _RANK[rec["outcome"]] >= _RANK.get(run.outcomes.get(nodeid, ""), -1):
                run.outcomes[nodeid] = rec["outcome"]
                if rec.get("message"):
                    where = f" [{rec['where']}]" if rec.get("where") else ""
                    run.messages[nodeid] = rec["message"].split("\n", 1)[0] + where
    return run


# (category, pattern): the first match names a failure's kind; its cause is the message's
# first line with numbers and addresses blanked.
CATEGORIES: list[tuple[str, re.Pattern[str]]] = [
    ("timeout", re.compile(r"Timeout|timed out|killed after")),
    (
        "missing API name",
        re.compile(
            r"has no attribute|cannot import name|No module named|has no counterpart"
            r"|is not defined|not implemented on mj"
        ),
    ),
    (
        "different error (type or text)",
        re.compile(
            r"does not match|not raised|DID NOT RAISE|Regex pattern did not match"
            r"|Expected .*(Error|Exception)"
        ),
    ),
    (
        "wrong value",
        re.compile(
            r"Not equal to tolerance|Arrays are not|Mismatched elements|not close"
            r"|!=|Values not|not equal|AssertionError: (?:False|True|\d)"
        ),
    ),
    ("NotImplementedError", re.compile(r"NotImplementedError")),
    ("TypeError", re.compile(r"TypeError")),
    ("ValueError", re.compile(r"ValueError")),
]

# causes another helper is implementing now (issue 36): counted, marked in the table
IN_PROGRESS = re.compile(
    r"key<|PRNGKey|prng|wrap_key_data|key_data|random\.key\b|iscomplexobj"
    r"|top_k|sharding|fori_loop.*unroll|unroll|softmax.*where|static_argnums"
    r"|default_device|live_arrays|tree_util",
    re.IGNORECASE,
)


def _category(message: str) -> str:
    for name, pattern in CATEGORIES:
        if pattern.search(message):
            return name
    return "other: " + (message.split(":", 1)[0].strip()[:40] or "no message")


def _cause(message: str) -> str:
    first = next((ln for ln in message.splitlines() if ln.strip()), "no message").strip()
    first = re.sub(r" \(in \S+ at /.*", "", first)  # mj's location suffix
    first = re.sub(r"\b(jit|pmap|vmap|grad)\([\w<>.]+\)", r"\1(f)", first)
    first = re.sub(r"0x[0-9a-f]+", "0x…", first)
    first = re.sub(r"(?<![\w.])-?\d+(\.\d+)?(e-?\d+)?", "N", first)
    return first[:160]


def report(args: argparse.Namespace) -> None:
    results: Path = args.results.resolve()
    _read_test_dirs(results)
    rows: list[str] = []
    failures: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    examples: dict[tuple[str, str], str] = {}
    totals: dict[str, list[int]] = {}
    for lib in LIBRARIES:
        stems = sorted(
            {p.stem for b in BACKENDS for p in _results_dir(results, b, lib).glob("*.jsonl")}
        )
        if not stems:
            continue
        lib_total = totals.setdefault(lib, [0, 0, 0, 0, 0, len(_test_files(lib))])
        for stem in stems:
            jax = _load(results, "jax", lib, stem)
            mj = _load(results, "mj", lib, stem)
            jax_pass = {t for t, o in jax.outcomes.items() if o == PASSED}
            mj_pass = {t for t, o in mj.outcomes.items() if o == PASSED}
            both = jax_pass & mj_pass
            for test in sorted(jax_pass - mj_pass):
                message = _why(mj, test)
                cause = _cause(message)
                category = _category(message)
                failures[category][cause] += 1
                examples.setdefault((category, cause), test)
            notes = [f"{b}: {r}" for b, run in (("JAX", jax), ("mj", mj)) for r in _file_notes(run)]
            pct = f"{100 * len(both) / len(jax_pass):.0f}%" if jax_pass else "-"
            rows.append(
                f"| {lib} | `{stem.removeprefix(lib + '.')}` | {len(jax.outcomes)} | "
                f"{len(jax_pass)} | {len(mj_pass)} | {len(both)} | {pct} | "
                f"{'; '.join(notes)} |"
            )
            if not (jax.present and mj.present):
                continue  # totals over the files run on both
            lib_total[4] += 1
            for i, n in enumerate((len(jax.outcomes), len(jax_pass), len(mj_pass), len(both))):
                lib_total[i] += n
    measured = [lib for lib in LIBRARIES if lib in totals]
    kept_totals, kept_rows, kept_causes = _kept(measured)
    page = _page(kept_rows + rows, totals, failures, examples, args, measured)
    page = page.replace(_TOTALS_MARK, "\n".join([*kept_totals, _TOTALS_MARK])).replace(
        _TOTALS_MARK + "\n", ""
    )
    PAGE.write_text(page + "".join(kept_causes))
    print(f"wrote {PAGE.relative_to(REPO)}")


_CAUSES = "## mj's failures of tests that pass on JAX, by cause"
_TOTALS_MARK = "<!-- totals -->"


def _kept(measured: Sequence[str]) -> tuple[list[str], list[str], list[str]]:
    """The current page's totals rows, per-file rows and cause sections of the libraries not
    in this report's results (each library's tests run on their own: flax's and equinox's
    from their source folders, optax's and chex's from the wheels)."""
    if not PAGE.exists():
        return [], [], []
    text = PAGE.read_text()
    totals_part, _, rest = text.partition("## Per file")
    files_part = rest.partition(_CAUSES)[0]
    ours = tuple(f"| {lib} |" for lib in measured)
    kept_totals = [
        ln
        for ln in totals_part.splitlines()
        if ln.startswith("| ") and not ln.startswith(("| library", *ours))
    ]
    kept_rows = [
        ln
        for ln in files_part.splitlines()
        if ln.startswith("| ") and not ln.startswith(("| library", *ours))
    ]
    kept_libs = sorted({ln.split("|")[1].strip() for ln in kept_rows})
    sections = []
    for section in text.split("\n" + _CAUSES)[1:]:
        head, _, body = section.partition("\n")
        named = [lib.strip() for lib in head.strip().strip("()").split(",") if lib.strip()]
        libs = named or kept_libs
        if libs and not set(libs) & set(measured):
            sections.append(f"\n{_CAUSES} ({', '.join(libs)})\n{body.rstrip()}\n")
    return kept_totals, kept_rows, sections


def _why(run: FileRun, test: str) -> str:
    if not run.present:
        return "not run on mj"
    if test in run.outcomes:
        outcome = run.outcomes[test]
        return run.messages.get(test, outcome)
    if run.collection_error is not None:
        return run.collection_error
    if run.timed_out:
        return "file killed after its time limit before this test ran"
    return "not collected on mj"


def _file_notes(run: FileRun) -> Iterable[str]:
    if not run.present:
        yield "not run (to the end)"
    if run.collection_error is not None:
        yield "collection error: " + _cause(run.collection_error).replace("|", "\\|")[:80]
    if run.timed_out:
        yield "file time limit reached"


def _page(
    rows: Sequence[str],
    totals: dict[str, list[int]],
    failures: dict[str, collections.Counter[str]],
    examples: dict[tuple[str, str], str],
    args: argparse.Namespace,
    measured: Sequence[str],
) -> str:
    total_rows = [
        f"| {lib} | {t[4]} of {t[5]} | {t[0]} | {t[1]} | {t[2]} | {t[3]} | "
        f"{100 * t[3] / t[1]:.1f}% |"
        for lib, t in totals.items()
        if t[1]
    ]
    out = [
        "# JAX libraries' own tests on mj",
        "",
        "JAX libraries' own test files run under `mj.as_jax` (`import jax` is mj), and under",
        "real JAX 0.10.2 as the control, by `tools/library_tests.py` (see its docstring; the",
        "commands are below). optax's and chex's test files ship in their wheels; flax's and",
        "equinox's do not, and are taken from the libraries' sources at the installed release",
        "(flax 0.12.8's `tests/linen` at commit 3a491108, the release's version bump;",
        "equinox's `tests` at tag v0.13.8), given with `--tests flax=DIR`. A test counts for",
        "mj when it passes on JAX and on mj; the percentage is of the tests passing on JAX.",
        "A report rewrites the rows of the libraries in its results and keeps the others'.",
        "",
        "```bash",
        "hatch run libs-jax:library-tests --results DIR   # the control, once",
        "hatch run libs:library-tests --results DIR       # on mj",
        "hatch run libs-jax:library-tests --libs flax --tests flax=FLAX/tests/linen --results D2",
        "hatch run libs:library-tests --libs flax --results D2",
        "hatch run libs:library-tests-report --results DIR",
        "```",
        "",
        "Each file runs in its own pytest process, `-p no:randomly`, with a per-test",
        f"`--timeout` ({args.timeout_note}); CPU, mj's default dtypes (float32).",
        "",
        "## Totals",
        "",
        "Over the files run on both (a file missing from a run is marked in its row).",
        "",
        "| library | test files run on both | tests (on JAX) | pass on JAX | pass on mj "
        "| pass on both | % of JAX's |",
        "|---|---|---|---|---|---|---|",
        *total_rows,
        _TOTALS_MARK,
        "",
        "## Per file",
        "",
        "| library | file | tests | pass on JAX | pass on mj | both | % | notes |",
        "|---|---|---|---|---|---|---|---|",
        *rows,
        "",
        f"{_CAUSES} ({', '.join(measured)})",
        "",
        "The first line of mj's failure message, numbers blanked; *in progress* marks a cause",
        "another change of issue 36 is implementing (typed PRNG keys, `top_k`, `.sharding`,",
        "...).",
        "",
    ]
    for category, causes in sorted(failures.items(), key=lambda kv: -sum(kv[1].values())):
        out += [
            f"### {category}: {sum(causes.values())} tests",
            "",
            "| tests | cause | example |",
            "|---|---|---|",
        ]
        for cause, n in causes.most_common():
            mark = " *(in progress)*" if IN_PROGRESS.search(cause) else ""
            example = examples[(category, cause)].split("::", 1)[-1]
            cause_md = cause.replace("|", "\\|").replace("`", "'")
            out.append(f"| {n} | `{cause_md}`{mark} | `{example}` |")
        out.append("")
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    sub = parser.add_subparsers(dest="command", required=True)
    run_p = sub.add_parser("run", help="run the test files on one backend")
    run_p.add_argument("--backend", choices=BACKENDS, required=True)
    run_p.add_argument("--libs", default=",".join(LIBRARIES))
    run_p.add_argument("--files", nargs="*", default=[])
    run_p.add_argument(
        "--tests", nargs="*", default=[], metavar="LIB=DIR", help="test files from a folder"
    )
    run_p.add_argument("--missing", action="store_true", help="only files not run to the end")
    run_p.add_argument("--jobs", type=int, default=2)
    run_p.add_argument("--timeout", type=int, default=120)
    run_p.add_argument("--file-timeout", type=int, default=1800)
    rep_p = sub.add_parser("report", help="compare the two runs, rewrite the docs page")
    rep_p.add_argument("--timeout-note", default="120 s; 1800 s per file")
    for p in (run_p, rep_p):
        p.add_argument("--results", type=Path, default=REPO / "build" / "library-tests")
    args = parser.parse_args(argv)
    run(args) if args.command == "run" else report(args)


if __name__ == "__main__":
    main()
