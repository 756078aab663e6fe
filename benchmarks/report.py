"""Writing a run down: ``results.md`` (targets, table, every measurement), ``results.json``
and the PNG chart of mj/peer ratios."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from harness import SYSTEMS, Measurement, Result, Skipped, Workload
from targets import Verdict

SYSTEM_NAMES = {
    "mj": "mj",
    "numpy": "NumPy",
    "jax": "JAX",
    "torch": "torch",
    "autograd": "autograd",
}


def _num(x: float) -> str:
    """Four significant digits, no exponent for the ranges benchmarks produce."""
    if x == 0 or not math.isfinite(x):
        return str(x)
    digits = max(0, 3 - math.floor(math.log10(abs(x))))
    return f"{x:.{digits}f}"


def _rows(results: Sequence[Result]) -> dict[tuple[int, str], dict[str, Measurement]]:
    """(workload, case) -> system -> measurement, in the order the workloads produced them."""
    rows: dict[tuple[int, str], dict[str, Measurement]] = {}
    for r in results:
        if isinstance(r, Measurement):
            rows.setdefault((r.workload, r.case), {})[r.system] = r
    return rows


def summary_table(results: Sequence[Result]) -> list[str]:
    """Workload x system medians; each peer cell also shows mj/peer (< 1: mj is faster)."""
    head = ["#", "case", "unit", *(SYSTEM_NAMES[s] for s in SYSTEMS)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (workload, case), by_system in _rows(results).items():
        unit = next(iter(by_system.values())).unit
        mine = by_system.get("mj")
        cells = []
        for system in SYSTEMS:
            m = by_system.get(system)
            if m is None:
                cells.append("")
                continue
            cell = f"{_num(m.timing.median)}<br>*{m.label}*"
            if mine is not None and system != "mj" and m.timing.median > 0:
                cell += (
                    f"<br>mj/{SYSTEM_NAMES[system]} **{mine.timing.median / m.timing.median:.2f}**"
                )
            cells.append(cell)
        lines.append(f"| {workload} | {case} | {unit} | " + " | ".join(cells) + " |")
    return lines


def targets_table(verdicts: Sequence[Verdict]) -> list[str]:
    lines = ["| # | target | measured (medians) | result |", "|---|---|---|---|"]
    for v in verdicts:
        mark = {"PASS": "PASS", "FAIL": "**FAIL**", "n/a": "n/a"}[v.status]
        lines.append(f"| {v.workload} | {v.target} | {v.measured} | {mark} |")
    return lines


def detail_table(results: Sequence[Result]) -> list[str]:
    lines = [
        "| # | case | system | how | unit | median | min | max | repeats |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        if isinstance(r, Measurement):
            t = r.timing
            lines.append(
                f"| {r.workload} | {r.case} | {r.system} | {r.label} | {r.unit} | "
                f"{_num(t.median)} | {_num(t.min)} | {_num(t.max)} | {t.repeats} |"
            )
    return lines


def skipped_list(results: Sequence[Result]) -> list[str]:
    return [
        f"- workload {r.workload}, {r.system}: {r.note}" for r in results if isinstance(r, Skipped)
    ]


def markdown(
    results: Sequence[Result],
    verdicts: Sequence[Verdict],
    workloads: Sequence[Workload],
    meta: dict[str, Any],
    chart: str | None,
) -> str:
    out = [
        "# mj benchmark results",
        "",
        f"Produced by `{meta['command']}` on {meta['date']} (scale: {meta['scale']}, "
        f"{meta['seconds']:.0f} s). Every system ran in the same process, one thread each.",
        "",
        f"- machine: {meta['machine']}",
        f"- load average (1 min) before / after: {meta['load_before']} / {meta['load_after']}",
        f"- versions: {meta['versions']}",
        f"- thread pinning: {meta['pinning']}",
        "",
        "## Workloads",
        "",
        *(f"{w.number}. {w.title}" for w in workloads),
        "",
        "## Targets (issue 10)",
        "",
        *targets_table(verdicts),
        "",
        "## Medians, workload x system",
        "",
        "Each peer cell shows the peer's median and **mj/peer** (below 1: mj is faster).",
        "",
        *summary_table(results),
        "",
    ]
    if chart:
        out += [f"![mj / peer, median ratios]({chart})", ""]
    skipped = skipped_list(results)
    if skipped:
        out += ["## Skipped", "", *skipped, ""]
    out += ["## Every measurement (median, min, max of the repeats)", "", *detail_table(results)]
    return "\n".join(out) + "\n"


def write_json(
    path: Path, results: Sequence[Result], verdicts: Sequence[Verdict], meta: dict[str, Any]
) -> None:
    records = [{"kind": type(r).__name__, **asdict(r)} for r in results]
    data = {"meta": meta, "results": records, "verdicts": [asdict(v) for v in verdicts]}
    path.write_text(json.dumps(data, indent=1) + "\n")


def chart(path: Path, results: Sequence[Result]) -> str | None:
    """Horizontal bars of mj/peer per (workload, case), log scale; ``None`` if matplotlib is
    missing (the bench environment installs it)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    labels: list[str] = []
    bars: dict[str, list[float]] = {s: [] for s in SYSTEMS if s != "mj"}
    for (workload, case), by_system in _rows(results).items():
        mine = by_system.get("mj")
        if mine is None or len(by_system) < 2:
            continue
        labels.append(f"{workload}: {case}")
        for system, values in bars.items():
            m = by_system.get(system)
            ok = m is not None and m.timing.median > 0 and mine.timing.median > 0
            values.append(mine.timing.median / m.timing.median if ok and m else math.nan)
    if not labels:
        return None
    height = 0.8 / len(bars)
    fig, ax = plt.subplots(figsize=(9, 0.45 * len(labels) + 1.5))
    for i, (system, values) in enumerate(bars.items()):
        ys = [row + i * height for row in range(len(labels))]
        ax.barh(ys, values, height=height, label=f"mj / {SYSTEM_NAMES[system]}")
    ax.set_yticks([row + 0.4 - height / 2 for row in range(len(labels))], labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_xlabel("mj time / peer time (median; left of 1: mj faster)")
    ax.legend(fontsize=8, loc="lower right")
    ax.set_title("mj vs peers, same process, one thread")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path.name
