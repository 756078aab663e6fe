"""The profiler (mj_xla.profiler, JAX's jax.profiler): a trace written for TensorBoard holds
the named spans of the traced block; one trace at a time; device memory profiles are pprof."""

import functools
import gzip
import socket

import numpy as np
import pytest

from mj_core import lax
from mj_xla import jit, profiler


def _trace_events(log_dir):
    (run,) = (log_dir / "plugins" / "profile").iterdir()
    assert any(p.name.endswith(".xplane.pb") for p in run.iterdir())
    (events,) = [p for p in run.iterdir() if p.name.endswith(".trace.json.gz")]
    return gzip.decompress(events.read_bytes()).decode()


def test_a_trace_holds_the_annotated_spans(tmp_path):
    @functools.partial(profiler.annotate_function, name="mj_annotated_call")
    def run(x):
        return jit(lambda v: lax.sin(v) * 2.0)(x)

    with profiler.trace(tmp_path):
        for step in range(2):
            with (
                profiler.StepTraceAnnotation("mj_train_step", step_num=step),
                profiler.TraceAnnotation("mj_inner_span"),
            ):
                out = run(np.ones(3, np.float32))
    np.testing.assert_allclose(out, 2 * np.sin(np.ones(3)), rtol=1e-6)
    assert run.__name__ == "run"
    events = _trace_events(tmp_path)
    for name in ("mj_annotated_call", "mj_train_step", "mj_inner_span"):
        assert name in events


def test_one_trace_at_a_time_and_clear_errors(tmp_path):
    with pytest.raises(RuntimeError, match="No profile started"):
        profiler.stop_trace()
    profiler.start_trace(tmp_path)
    try:
        with pytest.raises(RuntimeError, match="already been started"):
            profiler.start_trace(tmp_path / "other")
    finally:
        profiler.stop_trace()
    with pytest.raises(NotImplementedError, match="perfetto"):
        profiler.start_trace(tmp_path, create_perfetto_trace=True)
    profiler.start_trace(tmp_path / "again", profiler_options=profiler.ProfileOptions())
    profiler.stop_trace()  # a new trace after the first one ended
    assert (tmp_path / "again" / "plugins" / "profile").is_dir()


def test_device_memory_profile_and_server(tmp_path):
    keep = jit(lambda v: v + 1.0)(np.ones(1000, np.float32))
    profile = gzip.decompress(profiler.device_memory_profile())
    assert len(profile) > 0
    profiler.save_device_memory_profile(tmp_path / "memory.prof")
    assert (tmp_path / "memory.prof").stat().st_size > 0
    del keep
    with socket.socket() as s:
        s.bind(("localhost", 0))
        port = s.getsockname()[1]
    profiler.start_server(port)
    try:
        with pytest.raises(ValueError, match="Only one profiler server"):
            profiler.start_server(port)
    finally:
        profiler.stop_server()
    with pytest.raises(ValueError, match="No active profiler server"):
        profiler.stop_server()
