"""Every benchmark workload runs once at tiny size, so that the suite does not rot.

No timing is asserted (that would be flaky); what is asserted is that each workload produces
well-formed measurements for mj (each workload also checks every system's answer against a
NumPy or closed-form reference before timing it), that peers which are not installed are
skipped with a note rather than faked, that the targets are judged correctly, and that the
runner writes its report.
"""

import json
import math
import os
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.fixture(scope="module")
def bench():
    """The benchmark modules (a script directory), imported without leaving the thread-pinning
    environment variables behind for other tests."""
    saved = dict(os.environ)
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import harness
        import run
        import targets

        yield run, harness, targets
    finally:
        sys.path.remove(str(BENCHMARKS))
        os.environ.clear()
        os.environ.update(saved)


@pytest.fixture(scope="module")
def tiny_config(bench):
    _, harness, _ = bench
    return harness.Config("tiny", harness.load_peers())


def test_workloads_are_issue_10s_nine_the_parallel_ones_of_issues_20_and_21_and_39s(bench):
    run, _, _ = bench
    assert [w.number for w in run.WORKLOADS] == [*range(1, 10), 20, 21, 39]


#: The peers each workload compares with (issue 10).
PEERS_USED = {
    1: ("jax", "torch"),
    2: ("jax", "torch", "autograd"),
    3: ("jax", "torch"),
    4: ("jax",),
    5: ("jax",),
    6: ("jax",),
    7: ("jax", "torch"),
    8: ("jax", "torch", "autograd"),
    9: ("jax",),
    39: ("jax",),
}


@pytest.mark.parametrize("number", [*range(1, 10), 39])
def test_workload_runs_at_tiny_size(bench, tiny_config, number):
    run, harness, _ = bench
    (workload,) = [w for w in run.WORKLOADS if w.number == number]
    results = workload.run(tiny_config)
    measured = [r for r in results if isinstance(r, harness.Measurement)]
    assert any(m.system == "mj" for m in measured)
    for m in measured:
        assert m.workload == number
        assert m.system in harness.SYSTEMS
        assert m.unit
        assert m.case
        assert m.label
        t = m.timing
        assert math.isfinite(t.median)
        assert 0 < t.min <= t.median <= t.max
    skipped = [r for r in results if isinstance(r, harness.Skipped)]
    assert all(s.note for s in skipped)
    for peer in PEERS_USED[number]:
        if getattr(tiny_config.peers, peer) is None:  # not installed: a note, no numbers
            assert not any(m.system == peer for m in measured)
            assert any(s.system == peer for s in skipped)
        else:
            assert any(m.system == peer for m in measured)


def test_timing_summary(bench):
    _, harness, _ = bench
    t = harness.Timing.of([3.0, 1.0, 2.0, 10.0])
    assert (t.median, t.min, t.max, t.repeats) == (2.5, 1.0, 10.0, 4)
    assert harness.Timing.of([2.0]).scaled(1e3) == harness.Timing(2e3, 2e3, 2e3, 1)
    with pytest.raises(ValueError, match="no samples"):
        harness.Timing.of([])


def test_measure_divides_by_ops_and_scales_units(bench):
    _, harness, _ = bench
    calls = []
    timing = harness.measure(lambda: calls.append(1), repeats=3, number=4, warmup=2, per=10)
    assert len(calls) == 2 + 3 * 4
    assert timing.repeats == 3
    assert 0 < timing.min <= timing.max


def test_side_by_side_interleaves_the_repeats_of_each_system(bench):
    _, harness, _ = bench
    calls = []
    bench_ = harness.SideBySide(3, "case", "ms", repeats=3, number=2, warmup=1, per=4)
    bench_.add("mj", "mine", lambda: calls.append("mj"))
    bench_.add("jax", "theirs", lambda: calls.append("jax"))
    results = bench_.run()
    # the warm-up calls, then repeat after repeat: never one system's repeats in a row
    assert calls == ["mj", "jax"] + ["mj", "mj", "jax", "jax"] * 3
    assert [(m.workload, m.case, m.system, m.label, m.unit) for m in results] == [
        (3, "case", "mj", "mine", "ms"),
        (3, "case", "jax", "theirs", "ms"),
    ]
    assert all(m.timing.repeats == 3 for m in results)
    assert all(0 < m.timing.min <= m.timing.max for m in results)


def test_check_close_rejects_a_wrong_answer(bench):
    _, harness, _ = bench
    harness.check_close("ok", [1.0, {"a": 2.0}], [1.0, {"a": 2.0 + 1e-9}], rtol=1e-6)
    with pytest.raises(AssertionError, match="bad"):
        harness.check_close("bad", [1.0, 2.0], [1.0, 2.5], rtol=1e-6)
    with pytest.raises(AssertionError, match="2 outputs"):
        harness.check_close("short", [1.0, 2.0], [1.0], rtol=1e-6)


def _m(harness, workload, case, system, median, unit="ms"):
    return harness.Measurement(
        workload, case, system, system, unit, harness.Timing(median, median, median, 1)
    )


def test_targets_pass_fail_and_missing_peer(bench):
    _, harness, targets = bench
    results = [
        _m(harness, 1, "1000 ops", "mj", 0.9, "us/op"),
        _m(harness, 2, "MLP grad", "mj", 13.0),
        _m(harness, 2, "MLP grad", "numpy", 10.0),
        _m(harness, 3, "train step", "mj", 4.0),  # no jax: n/a, never PASS
        _m(harness, 4, "N=1000", "mj", 4.0, "us/eqn"),
        _m(harness, 4, "N=100000", "mj", 5.5, "us/eqn"),
        _m(harness, 8, "N=1000", "mj", 5.0, "x"),
        _m(harness, 8, "N=10000", "mj", 7.0, "x"),
        _m(harness, 9, "compile ratio", "mj", 1.1, "x"),
    ]
    verdicts = {(v.workload, v.target): v.status for v in targets.judge(results, range(1, 10))}
    assert verdicts[(1, "<= 1.0 us/op")] == "PASS"
    assert verdicts[(2, "<= 1.2x NumPy by hand")] == "FAIL"  # 1.3x
    assert verdicts[(3, "<= 1.05x jax.jit")] == "n/a"
    assert verdicts[(4, "<= 6 us/eqn at every N")] == "PASS"
    assert verdicts[(4, "N=100000 within 1.3x of N=1000")] == "FAIL"  # 1.375x
    assert verdicts[(8, "grad/f <= 8x at every N")] == "PASS"
    assert verdicts[(8, "flat in N (N=10000 ratio within 1.25x of N=1000)")] == "FAIL"
    assert verdicts[(9, "compile-time ratio (long vs short scan) <= 1.5")] == "PASS"
    assert verdicts[(9, "grad step <= 1.2x JAX")] == "n/a"
    assert verdicts[(5, "<= JAX")] == "n/a"


def test_sharding_targets_compare_each_case_with_jax(bench):
    _, harness, targets = bench
    import bench_sharding as w21

    results = [
        _m(harness, 21, w21.CASE_STEP, "mj", 10.5),
        _m(harness, 21, w21.CASE_STEP, "jax", 10.0),
        _m(harness, 21, w21.CASE_COMPILE, "mj", 0.5, "s"),
        _m(harness, 21, w21.CASE_COMPILE, "jax", 0.4, "s"),
        _m(harness, 21, w21.CASE_PSUM, "mj", 2.0),  # no jax: n/a
    ]
    verdicts = [v.status for v in targets.judge(results, [21])]
    assert verdicts == ["PASS", "FAIL", "n/a"]  # 1.05x <= 1.1x; 1.25x > 1x; not measured


def test_compile_targets_compare_each_case_with_jax(bench):
    _, harness, targets = bench
    import bench_compile as w39

    results = [
        _m(harness, 39, w39.CASE_LOOP, "mj", 1.1, "s"),
        _m(harness, 39, w39.CASE_LOOP, "jax", 1.0, "s"),
        _m(harness, 39, w39.CASE_IMAGE, "mj", 13.0, "s"),
        _m(harness, 39, w39.CASE_IMAGE, "jax", 4.0, "s"),
    ]
    verdicts = [v.status for v in targets.judge(results, [39])]
    assert verdicts == ["PASS", "FAIL", "n/a"]  # 1.1x <= 1.2x; 3.25x > 1.2x; not measured
    assert [v.status for v in targets.judge(results[:1], [39])] == ["n/a"] * 3


def test_module_size_counts_operations_functions_and_loops(bench):
    import bench_compile as w39

    text = """module {
  func.func public @main(%arg0: tensor<2xui32>) -> tensor<2xui32> {
    %0 = call @f(%arg0) : (tensor<2xui32>) -> tensor<2xui32>
    %1:2 = stablehlo.while(%iterArg = %0) : tensor<2xui32>
    return %0 : tensor<2xui32>
  }
  func.func private @f(%arg0: tensor<2xui32>) -> tensor<2xui32> {
    %0 = stablehlo.add %arg0, %arg0 : tensor<2xui32>
    return %0 : tensor<2xui32>
  }
}"""
    assert w39.module_size(text) == "5 ops, 2 funcs, 1 whiles"


def test_runner_writes_report(bench, tmp_path, capsys):
    run, _, _ = bench
    assert run.main(["--tiny", "--only", "1,6", "--peers", "", "--out", str(tmp_path)]) == 0
    text = (tmp_path / "results.md").read_text()
    assert "## Targets (issue 10)" in text
    assert "| 1 | <= 1.0 us/op |" in text
    assert "jax not requested" in text  # skipped with a note, never faked
    data = json.loads((tmp_path / "results.json").read_text())
    systems = {(r["workload"], r["system"]) for r in data["results"] if r["kind"] == "Measurement"}
    assert systems == {(1, "mj"), (1, "numpy"), (6, "mj")}
    assert {v["workload"] for v in data["verdicts"]} == {1, 6}
    assert "wrote" in capsys.readouterr().out
