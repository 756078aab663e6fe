"""The shared timing harness: result records, sizes, peers, and the one timing loop.

Every workload module (``bench_*.py``) exposes ``WORKLOADS``, a tuple of :class:`Workload`
whose ``run(config)`` returns :class:`Measurement` records (and :class:`Skipped` ones for a
peer that is not installed: skipped with a note, never faked). ``run.py`` runs them all in one
process and hands the records to ``report.py``; ``targets.py`` judges them.

Timings are wall-clock (``time.perf_counter``) medians of repeated runs, with min and max; the
process is pinned to one thread per library first (``pinning.py``). ``gc.collect()`` runs
before each repeat, outside the timed region, so that one repeat does not pay for the garbage
of the previous one. Systems compared on one case are timed :class:`SideBySide`: their
repeats alternate, so a change in the machine's load (these are shared machines) reaches
every system alike instead of whichever happened to run during it.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Literal, TypeVar

Scale = Literal["full", "quick", "tiny"]
T = TypeVar("T")

#: Systems in table order; ``mj`` is always present, the rest are peers or baselines.
SYSTEMS = ("mj", "numpy", "jax", "torch", "autograd")
PEERS = ("jax", "torch", "autograd")


@dataclass(frozen=True, slots=True)
class Timing:
    """Median, min and max of repeated measurements (already in the record's unit)."""

    median: float
    min: float
    max: float
    repeats: int

    @classmethod
    def of(cls, samples: Sequence[float]) -> Timing:
        if not samples:
            raise ValueError("Timing.of: no samples")
        return cls(statistics.median(samples), min(samples), max(samples), len(samples))

    def scaled(self, factor: float) -> Timing:
        return Timing(self.median * factor, self.min * factor, self.max * factor, self.repeats)


@dataclass(frozen=True, slots=True)
class Measurement:
    """One system's time (or ratio) for one case of one workload."""

    workload: int
    case: str  # what is measured within the workload: "N=1000", "eager", "grad/f ratio"
    system: str  # one of SYSTEMS
    label: str  # how that system ran it: "jax.jit", "NumPy by hand", "torch.func", ...
    unit: str  # "us/op", "ms", "s", "x", ...
    timing: Timing


@dataclass(frozen=True, slots=True)
class Skipped:
    """A system that could not run a workload (peer not installed, unsupported), with why."""

    workload: int
    system: str
    note: str


Result = Measurement | Skipped


@dataclass(frozen=True, slots=True)
class Peers:
    """The peer libraries importable in this process (``None`` when not installed)."""

    jax: ModuleType | None = None
    torch: ModuleType | None = None
    autograd: ModuleType | None = None
    notes: dict[str, str] = field(default_factory=dict)

    def skip(self, workload: int, name: str) -> Skipped:
        return Skipped(workload, name, self.notes.get(name, f"{name} not loaded"))


def load_peers(names: Iterable[str] = PEERS) -> Peers:
    """Import the requested peers; a missing one becomes a note. torch gets one thread."""
    found: dict[str, ModuleType | None] = dict.fromkeys(PEERS)
    notes: dict[str, str] = {}
    for name in names:
        try:
            module = importlib.import_module(name)
        except ImportError as err:
            notes[name] = f"{name} is not installed ({err}); skipped"
            continue
        if name == "torch":
            module.set_num_threads(1)
            # Only settable before torch's first parallel work.
            with contextlib.suppress(RuntimeError):
                module.set_num_interop_threads(1)
        found[name] = module
    for name in PEERS:
        if name not in notes and found[name] is None:
            notes[name] = f"{name} not requested (--peers); skipped"
    return Peers(found["jax"], found["torch"], found["autograd"], notes)


@dataclass(frozen=True, slots=True)
class Config:
    """How big to run (``full`` for the record, ``quick`` while developing, ``tiny`` for the
    smoke test) and which peers are available."""

    scale: Scale
    peers: Peers

    def pick(self, full: T, quick: T, tiny: T) -> T:
        """The value for this run's scale."""
        if self.scale == "full":
            return full
        return quick if self.scale == "quick" else tiny


@dataclass(frozen=True, slots=True)
class Workload:
    """One numbered workload of issue 10."""

    number: int
    title: str
    run: Callable[[Config], list[Result]]


def block(tree: Any) -> Any:
    """Wait for device computations (mj and JAX arrays) anywhere in a list/tuple/dict tree."""
    if isinstance(tree, list | tuple):
        for leaf in tree:
            block(leaf)
    elif isinstance(tree, dict):
        for leaf in tree.values():
            block(leaf)
    elif hasattr(tree, "block_until_ready"):
        tree.block_until_ready()
    return tree


def _no_sync(x: Any) -> Any:
    return x


def time_samples(
    fn: Callable[[], Any],
    *,
    repeats: int,
    number: int = 1,
    warmup: int = 1,
    sync: Callable[[Any], Any] = _no_sync,
) -> list[float]:
    """Seconds per call of ``fn``: ``repeats`` samples, each the mean over ``number`` calls
    (the last output is synced, e.g. ``block``), after ``warmup`` untimed calls."""
    for _ in range(warmup):
        sync(fn())
    samples = []
    clock = time.perf_counter
    for _ in range(repeats):
        gc.collect()
        out = None
        t0 = clock()
        for _ in range(number):
            out = fn()
        sync(out)
        samples.append((clock() - t0) / number)
    return samples


def measure(
    fn: Callable[[], Any],
    *,
    repeats: int,
    number: int = 1,
    warmup: int = 1,
    sync: Callable[[Any], Any] = _no_sync,
    per: float = 1.0,
    unit_scale: float = 1e3,
) -> Timing:
    """:func:`time_samples` summarised; each sample is divided by ``per`` (e.g. ops per call)
    and multiplied by ``unit_scale`` (1e3: milliseconds, 1e6: microseconds)."""
    samples = time_samples(fn, repeats=repeats, number=number, warmup=warmup, sync=sync)
    return Timing.of(samples).scaled(unit_scale / per)


class SideBySide:
    """Several systems timed on one case with their repeats interleaved: repeat ``r`` of every
    system runs before repeat ``r + 1`` of any. Each sample is the mean over ``number`` calls
    (the last output synced), divided by ``per`` and multiplied by ``unit_scale``."""

    def __init__(
        self,
        workload: int,
        case: str,
        unit: str,
        *,
        repeats: int,
        number: int = 1,
        warmup: int = 1,
        per: float = 1.0,
        unit_scale: float = 1e3,
    ) -> None:
        self.workload, self.case, self.unit = workload, case, unit
        self.repeats, self.number, self.warmup = repeats, number, warmup
        self.scale = unit_scale / per
        self._entries: list[tuple[str, str, Callable[[], Any], Callable[[Any], Any]]] = []

    def add(
        self, system: str, label: str, fn: Callable[[], Any], sync: Callable[[Any], Any] = _no_sync
    ) -> None:
        """Time ``fn`` as ``system`` (run as ``label``) in :meth:`run`."""
        self._entries.append((system, label, fn, sync))

    def run(self) -> list[Measurement]:
        for _, _, fn, sync in self._entries:
            for _ in range(self.warmup):
                sync(fn())
        samples: list[list[float]] = [[] for _ in self._entries]
        for _ in range(self.repeats):
            for (_, _, fn, sync), out in zip(self._entries, samples, strict=True):
                out += time_samples(fn, repeats=1, number=self.number, warmup=0, sync=sync)
        return [
            Measurement(
                self.workload, self.case, system, label, self.unit, Timing.of(s).scaled(self.scale)
            )
            for (system, label, _, _), s in zip(self._entries, samples, strict=True)
        ]


def check_close(name: str, got: Any, want: Any, rtol: float, atol: float = 0.0) -> None:
    """Fail the workload (not silently time a wrong program) when a system's answer differs
    from the reference."""
    import numpy as np

    got_leaves, want_leaves = _leaves(got), _leaves(want)
    if len(got_leaves) != len(want_leaves):
        raise AssertionError(f"{name}: {len(got_leaves)} outputs, expected {len(want_leaves)}")
    for g, w in zip(got_leaves, want_leaves, strict=True):
        np.testing.assert_allclose(
            np.asarray(g, np.float64),
            np.asarray(w, np.float64),
            rtol=rtol,
            atol=atol,
            err_msg=name,
        )


def _leaves(tree: Any) -> list[Any]:
    if isinstance(tree, list | tuple):
        return [leaf for sub in tree for leaf in _leaves(sub)]
    if isinstance(tree, dict):
        return [leaf for key in sorted(tree) for leaf in _leaves(tree[key])]
    if hasattr(tree, "detach"):  # torch tensors
        return [tree.detach().numpy()]
    return [tree]
