"""The targets of issue 10, judged on the medians of one run.

Each target compares mj with a peer (or with itself) measured in the same process. A target
whose peer was not measured (not installed, or the workload was not selected) is ``n/a``,
never a pass.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from bench_compile import CASE_EVALUATE, CASE_IMAGE, CASE_LOOP
from bench_jit import CASE_HOST, CASE_HOST_STEP
from bench_sharding import CASE_COMPILE, CASE_PSUM, CASE_STEP
from harness import Measurement, Result

Status = Literal["PASS", "FAIL", "n/a"]


@dataclass(frozen=True, slots=True)
class Verdict:
    workload: int
    target: str
    measured: str
    status: Status


class _Lookup:
    """Median of (workload, case, system); ``None`` when not measured."""

    def __init__(self, results: Sequence[Result]) -> None:
        self.values: dict[tuple[int, str, str], Measurement] = {}
        for r in results:
            if isinstance(r, Measurement):
                self.values[(r.workload, r.case, r.system)] = r

    def get(self, workload: int, case: str, system: str) -> float | None:
        m = self.values.get((workload, case, system))
        return None if m is None else m.timing.median

    def best(self, workload: int, case: str, system: str) -> float | None:
        m = self.values.get((workload, case, system))
        return None if m is None else m.timing.min

    def cases(self, workload: int, system: str) -> list[str]:
        return [c for (w, c, s) in self.values if w == workload and s == system]


def _status(ok: bool) -> Status:
    return "PASS" if ok else "FAIL"


def _versus(
    look: _Lookup, workload: int, case: str, peer: str, factor: float, target: str, unit: str
) -> Verdict:
    """mj <= factor * peer on ``case``."""
    mine, theirs = look.get(workload, case, "mj"), look.get(workload, case, peer)
    if mine is None or theirs is None:
        missing = "mj" if mine is None else peer
        return Verdict(workload, target, f"{missing} not measured", "n/a")
    ratio = mine / theirs
    shown = f"mj {mine:.4g} {unit} vs {theirs:.4g} {unit}: {ratio:.2f}x"
    best_mine, best_theirs = look.best(workload, case, "mj"), look.best(workload, case, peer)
    if best_mine and best_theirs:  # shown for judging noise; the verdict uses medians
        shown += f" (fastest runs: {best_mine / best_theirs:.2f}x)"
    return Verdict(workload, target, shown, _status(ratio <= factor))


def _w1(look: _Lookup) -> list[Verdict]:
    """The absolute 1.0 us/op was set on a machine where NumPy took 0.31 us/op; the issue
    spells it out as "ahead of torch and JAX, within 0.7 us of NumPy", which is judged too,
    in the same run, so a slower machine does not decide the verdict alone."""
    target = "<= 1.0 us/op"
    (case,) = look.cases(1, "mj") or [""]
    mine = look.get(1, case, "mj")
    if mine is None:
        return [Verdict(1, target, "mj not measured", "n/a")]
    verdicts = [Verdict(1, target, f"mj {mine:.3f} us/op", _status(mine <= 1.0))]
    relative = "i.e. within 0.7 us/op of NumPy and ahead of torch and JAX (same run)"
    numpy, torch, jax = (look.get(1, case, p) for p in ("numpy", "torch", "jax"))
    if numpy is None or torch is None or jax is None:
        verdicts.append(Verdict(1, relative, "a peer was not measured", "n/a"))
        return verdicts
    shown = (
        f"mj {mine:.3f} = NumPy {numpy:.3f} + {mine - numpy:.3f} us/op; "
        f"torch {torch:.3f}, JAX {jax:.3f}"
    )
    ok = mine - numpy <= 0.7 and mine < torch and mine < jax
    verdicts.append(Verdict(1, relative, shown, _status(ok)))
    return verdicts


def _w2(look: _Lookup) -> list[Verdict]:
    return [_versus(look, 2, "MLP grad", "numpy", 1.2, "<= 1.2x NumPy by hand", "ms")]


def _w3(look: _Lookup) -> list[Verdict]:
    return [_versus(look, 3, "train step", "jax", 1.05, "<= 1.05x jax.jit", "ms")]


def _sizes(cases: Sequence[str]) -> list[tuple[int, str]]:
    """``"N=1000"``-style cases sorted by N."""
    return sorted((int(c.split("=")[1]), c) for c in cases if c.startswith("N="))


def _w4(look: _Lookup) -> list[Verdict]:
    sizes = _sizes(look.cases(4, "mj"))
    if not sizes:
        return [Verdict(4, "<= 6 us/eqn", "mj not measured", "n/a")]
    per_eqn = [(n, look.get(4, c, "mj") or 0.0) for n, c in sizes]
    worst = max(t for _, t in per_eqn)
    shown = ", ".join(f"N={n}: {t:.2f}" for n, t in per_eqn) + " us/eqn"
    out = [Verdict(4, "<= 6 us/eqn at every N", shown, _status(worst <= 6.0))]
    (n0, t0), (n1, t1) = per_eqn[0], per_eqn[-1]
    flat = f"N={n1} within 1.3x of N={n0}"
    if n0 == n1:
        out.append(Verdict(4, flat, "one size only", "n/a"))
    else:
        out.append(Verdict(4, flat, f"{t1 / t0:.2f}x", _status(t1 / t0 <= 1.3)))
    return out


def _w5(look: _Lookup) -> list[Verdict]:
    return [_versus(look, 5, "first call", "jax", 1.0, "<= JAX", "s")]


def _w6(look: _Lookup) -> list[Verdict]:
    verdict = _versus(look, 6, "x + 1.0", "jax", 1.5, "<= 1.5x jax.jit (stretch: match)", "us")
    host = [  # issue 38: a host NumPy argument costs what JAX's costs (within 1.2x)
        _versus(look, 6, case, "jax", 1.2, f"{case}: <= 1.2x jax.jit", "us")
        for case in (CASE_HOST, CASE_HOST_STEP)
    ]
    return [verdict, *host]


def _w7(look: _Lookup) -> list[Verdict]:
    return [
        _versus(look, 7, "eager", "torch", 1.0, "eager <= torch.func", "ms"),
        _versus(look, 7, "jitted", "jax", 1.2, "jitted <= 1.2x jax.jit", "ms"),
    ]


def _w8(look: _Lookup) -> list[Verdict]:
    sizes = _sizes(look.cases(8, "mj"))
    if not sizes:
        return [Verdict(8, "grad/f <= 8x", "mj not measured", "n/a")]
    ratios = [(n, look.get(8, c, "mj") or 0.0) for n, c in sizes]
    shown = ", ".join(f"N={n}: {r:.2f}x" for n, r in ratios)
    out = [Verdict(8, "grad/f <= 8x at every N", shown, _status(max(r for _, r in ratios) <= 8))]
    (n0, r0), (n1, r1) = ratios[0], ratios[-1]
    flat = f"flat in N (N={n1} ratio within 1.25x of N={n0})"
    if n0 == n1:
        out.append(Verdict(8, flat, "one size only", "n/a"))
    else:
        out.append(Verdict(8, flat, f"{r1 / r0:.2f}x", _status(r1 / r0 <= 1.25)))
    return out


def _w9(look: _Lookup) -> list[Verdict]:
    ratio = look.get(9, "compile ratio", "mj")
    if ratio is None:
        compile_verdict = Verdict(9, "compile-time ratio <= 1.5", "mj not measured", "n/a")
    else:
        compile_verdict = Verdict(
            9,
            "compile-time ratio (long vs short scan) <= 1.5",
            f"{ratio:.2f}x",
            _status(ratio <= 1.5),
        )
    grad = _versus(look, 9, "RNN grad step", "jax", 1.2, "grad step <= 1.2x JAX", "ms")
    return [compile_verdict, grad]


def _w20(look: _Lookup) -> list[Verdict]:
    cases = sorted(look.cases(20, "mj"))
    if not cases:
        return [Verdict(20, "pmap <= 1.1x jax.pmap", "mj not measured", "n/a")]
    return [_versus(look, 20, c, "jax", 1.1, f"{c} <= 1.1x jax.pmap", "ms") for c in cases]


def _w21(look: _Lookup) -> list[Verdict]:
    return [
        _versus(look, 21, CASE_STEP, "jax", 1.1, "data+model MLP step <= 1.1x JAX", "ms"),
        _versus(look, 21, CASE_COMPILE, "jax", 1.0, "its compile time <= JAX's", "s"),
        _versus(look, 21, CASE_PSUM, "jax", 1.1, "shard_map psum-of-matmul <= 1.1x JAX", "ms"),
    ]


def _w39(look: _Lookup) -> list[Verdict]:
    """Issue 39: every jitted program compiles in at most 1.2x JAX's time, same run."""
    return [
        _versus(look, 39, case, "jax", 1.2, f"{case} first call <= 1.2x JAX", "s")
        for case in (CASE_LOOP, CASE_IMAGE, CASE_EVALUATE)
    ]


JUDGES: dict[int, Callable[[_Lookup], list[Verdict]]] = {
    1: _w1,
    2: _w2,
    3: _w3,
    4: _w4,
    5: _w5,
    6: _w6,
    7: _w7,
    8: _w8,
    9: _w9,
    20: _w20,
    21: _w21,
    39: _w39,
}


def judge(results: Sequence[Result], workloads: Sequence[int]) -> list[Verdict]:
    """One or two verdicts per workload that ran."""
    look = _Lookup(results)
    return [v for w in workloads if w in JUDGES for v in JUDGES[w](look)]
