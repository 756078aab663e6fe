"""Run every workload of issue 10 for mj and each installed peer, in one process.

    hatch run bench:all                 # full run: writes benchmarks/results.{md,json,png}
    hatch run bench:all --quick         # smaller sizes and fewer repeats, while developing
    hatch run bench:all --only 1,6      # some workloads
    hatch run bench:all --docs          # also refresh the table and chart in docs/

Threads are pinned (``pinning.py``) before NumPy, jaxlib or torch load; peers that are not
installed are skipped with a note in the results.
"""

from __future__ import annotations

from pinning import pin_threads

_IMPORTED_TOO_EARLY = pin_threads()

import argparse  # noqa: E402
import datetime  # noqa: E402
import importlib.metadata  # noqa: E402
import os  # noqa: E402
import platform  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
from collections.abc import Sequence  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import bench_autodiff  # noqa: E402
import bench_compile  # noqa: E402
import bench_eager  # noqa: E402
import bench_jit  # noqa: E402
import bench_make_jaxpr  # noqa: E402
import bench_parallel  # noqa: E402
import bench_scan  # noqa: E402
import bench_sharding  # noqa: E402
import bench_vmap  # noqa: E402
import report  # noqa: E402
import targets  # noqa: E402
from harness import (  # noqa: E402
    PEERS,
    Config,
    Measurement,
    Result,
    Scale,
    Skipped,
    Workload,
    load_peers,
)
from pinning import PINNED_ENV  # noqa: E402

HERE = Path(__file__).resolve().parent
DOCS = HERE.parent / "docs"
DOCS_START, DOCS_END = "<!-- results:start -->", "<!-- results:end -->"

WORKLOADS: tuple[Workload, ...] = tuple(
    sorted(
        (
            *bench_eager.WORKLOADS,
            *bench_autodiff.WORKLOADS,
            *bench_jit.WORKLOADS,
            *bench_make_jaxpr.WORKLOADS,
            *bench_parallel.WORKLOADS,
            *bench_sharding.WORKLOADS,
            *bench_vmap.WORKLOADS,
            *bench_scan.WORKLOADS,
            *bench_compile.WORKLOADS,
        ),
        key=lambda w: w.number,
    )
)


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer repeats")
    parser.add_argument("--tiny", action="store_true", help="smoke-test sizes (timings useless)")
    parser.add_argument("--only", default="", help="comma-separated workload numbers")
    parser.add_argument("--peers", default=",".join(PEERS), help="peers to load (default: all)")
    parser.add_argument("--out", type=Path, default=HERE, help="directory for results.*")
    parser.add_argument("--docs", action="store_true", help="refresh docs/benchmarks.md too")
    return parser.parse_args(argv)


def _versions() -> str:
    names = ("numpy", "jaxlib", "jax", "torch", "autograd", "mj")
    found = []
    for name in names:
        try:
            found.append(f"{name} {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            found.append(f"{name} (not installed)")
    return f"Python {platform.python_version()}, " + ", ".join(found)


def _machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{cpu}, {os.cpu_count()} logical CPUs, {platform.system()} {platform.release()}"


def _load() -> str:
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except OSError:
        return "unknown"


def _print(result: Result) -> None:
    if isinstance(result, Skipped):
        print(f"  [{result.workload}] {result.system:9s} skipped: {result.note}", flush=True)
        return
    t = result.timing
    print(
        f"  [{result.workload}] {result.system:9s} {result.case:28s} {t.median:11.4g} "
        f"{result.unit:6s} (min {t.min:.4g}, max {t.max:.4g}, n={t.repeats})  {result.label}",
        flush=True,
    )


def run(config: Config, selected: Sequence[Workload]) -> tuple[list[Result], list[str]]:
    """Every selected workload; a workload that raises is recorded as a failure, not hidden."""
    results: list[Result] = []
    failures: list[str] = []
    for workload in selected:
        print(f"workload {workload.number}: {workload.title}", flush=True)
        try:
            produced = workload.run(config)
        except Exception as err:  # reported in the results and in the exit code
            traceback.print_exc()
            note = f"workload failed: {type(err).__name__}: {err}"
            produced = [Skipped(workload.number, "mj", note)]
            failures.append(f"{workload.number}: {note}")
        for result in produced:
            _print(result)
        results.extend(produced)
    return results, failures


def _refresh_docs(results_md: str, chart: Path | None) -> None:
    page = DOCS / "benchmarks.md"
    text = page.read_text()
    if DOCS_START not in text or DOCS_END not in text:
        raise SystemExit(f"{page} has no {DOCS_START} ... {DOCS_END} section to refresh")
    body = results_md.split("\n", 2)[2].replace("\n## ", "\n### ")  # under "Latest results"
    if chart is not None:
        shutil.copyfile(chart, DOCS / "benchmarks.png")
        body = body.replace(f"]({chart.name})", "](benchmarks.png)")
    head, rest = text.split(DOCS_START, 1)
    tail = rest.split(DOCS_END, 1)[1]
    page.write_text(f"{head}{DOCS_START}\n{body}\n{DOCS_END}{tail}")


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse(argv)
    scale: Scale = "tiny" if args.tiny else "quick" if args.quick else "full"
    wanted = {int(n) for n in args.only.split(",") if n.strip()}
    selected = [w for w in WORKLOADS if not wanted or w.number in wanted]
    peers = load_peers(p for p in args.peers.split(",") if p)
    config = Config(scale, peers)
    if _IMPORTED_TOO_EARLY:
        print(f"warning: imported before pinning: {', '.join(_IMPORTED_TOO_EARLY)}")
    meta: dict[str, Any] = {
        "command": "python benchmarks/run.py " + " ".join(sys.argv[1:] if argv is None else argv),
        "date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        "scale": scale,
        "machine": _machine(),
        "versions": _versions(),
        "pinning": ", ".join(f"{k}={os.environ[k]}" for k in PINNED_ENV)
        + ", torch.set_num_threads(1)",
        "load_before": _load(),
    }
    t0 = time.perf_counter()
    results, failures = run(config, selected)
    meta["seconds"] = time.perf_counter() - t0
    meta["load_after"] = _load()
    verdicts = targets.judge(results, [w.number for w in selected])
    args.out.mkdir(parents=True, exist_ok=True)
    chart_name = report.chart(args.out / "results.png", results)
    text = report.markdown(results, verdicts, selected, meta, chart_name)
    (args.out / "results.md").write_text(text)
    report.write_json(args.out / "results.json", results, verdicts, meta)
    if args.docs:
        _refresh_docs(text, args.out / chart_name if chart_name else None)
    print()
    for v in verdicts:
        print(f"  [{v.workload}] {v.status:4s} {v.target}: {v.measured}")
    print(
        f"wrote {args.out / 'results.md'} ({sum(isinstance(r, Measurement) for r in results)} "
        f"measurements, {meta['seconds']:.0f} s)"
    )
    for failure in failures:
        print(f"FAILED workload {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
