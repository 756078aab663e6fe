"""``mj_xla.profiler``, as ``jax.profiler``: traces of a program's host and device activity for
TensorBoard/XProf (``trace``/``start_trace``/``stop_trace``), the annotations that name spans
in them (``TraceAnnotation``, ``StepTraceAnnotation``, ``annotate_function``), the profiler
server that TensorBoard connects to, and device memory profiles (pprof).

Everything is jaxlib's profiler (``jaxlib._profiler``); it is loaded on first use. An
annotation outside a trace costs little, as in JAX.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import os
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from mj_xla import _jaxlib

__all__ = [
    "ProfileOptions",
    "StepTraceAnnotation",
    "TraceAnnotation",
    "annotate_function",
    "device_memory_profile",
    "save_device_memory_profile",
    "start_server",
    "start_trace",
    "stop_server",
    "stop_trace",
    "trace",
]

F = TypeVar("F", bound=Callable[..., Any])

_lock = threading.Lock()
_session: list[Any] = []  # the running ProfilerSession and its log directory, if any
_server: list[Any] = []


def ProfileOptions() -> Any:  # noqa: N802  (JAX's class name)
    """jaxlib's profiler options (``host_tracer_level``, ``python_tracer_level``, ...)."""
    return _jaxlib.profiler_library().ProfileOptions()


def start_trace(
    log_dir: os.PathLike[str] | str,
    create_perfetto_link: bool = False,
    create_perfetto_trace: bool = False,
    profiler_options: Any = None,
) -> None:
    """Start collecting a trace, written to ``log_dir`` by :func:`stop_trace` (the
    ``plugins/profile/<run>`` layout TensorBoard reads). One trace at a time."""
    if create_perfetto_link or create_perfetto_trace:
        raise NotImplementedError(
            "start_trace: create_perfetto_link/create_perfetto_trace are not supported; the "
            "trace directory holds a *.trace.json.gz that ui.perfetto.dev opens"
        )
    with _lock:
        if _session:
            raise RuntimeError(
                "Profile has already been started. Only one profile may be run at a time."
            )
        _jaxlib.devices()  # the backends start first, so that their tracers are registered
        lib = _jaxlib.profiler_library()
        options = profiler_options if profiler_options is not None else lib.ProfileOptions()
        _session.extend((lib.ProfilerSession(options), os.fspath(log_dir)))


def stop_trace() -> None:
    """Stop the trace :func:`start_trace` began and write it to its directory."""
    with _lock:
        if not _session:
            raise RuntimeError("No profile started")
        session, log_dir = _session
        _session.clear()
        session.stop_and_export(log_dir)


@contextlib.contextmanager
def trace(
    log_dir: os.PathLike[str] | str,
    create_perfetto_link: bool = False,
    create_perfetto_trace: bool = False,
    profiler_options: Any = None,
) -> Iterator[None]:
    """Trace the block (:func:`start_trace` before it, :func:`stop_trace` after)."""
    start_trace(log_dir, create_perfetto_link, create_perfetto_trace, profiler_options)
    try:
        yield
    finally:
        stop_trace()


class TraceAnnotation:
    """A named span on the trace timeline for the block it encloses (keyword arguments are
    shown as its metadata)."""

    __slots__ = ("_kwargs", "_name", "_span")

    def __init__(self, name: str, **kwargs: Any) -> None:
        self._name = name
        self._kwargs = kwargs
        self._span: Any = None

    def __enter__(self) -> TraceAnnotation:
        self._span = _jaxlib.profiler_library().TraceMe(self._name, **self._kwargs)
        self._span.__enter__()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self._span.__exit__(*exc_info)
        self._span = None


class StepTraceAnnotation(TraceAnnotation):
    """A :class:`TraceAnnotation` marking one step of a loop (``step_num=...``), which the
    profiler's per-step analysis groups by."""

    __slots__ = ()

    def __init__(self, name: str, **kwargs: Any) -> None:
        super().__init__(name, _r=1, **kwargs)


def annotate_function(func: F, name: str | None = None, **decorator_kwargs: Any) -> F:
    """``func`` with each call inside a :class:`TraceAnnotation` named after it."""
    label = name or getattr(func, "__qualname__", None) or func.__name__

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with TraceAnnotation(label, **decorator_kwargs):
            return func(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def start_server(port: int) -> Any:
    """Start the profiler server TensorBoard captures traces from (one per process)."""
    with _lock:
        if _server:
            raise ValueError("Only one profiler server can be active at a time.")
        _jaxlib.devices()
        _server.append(_jaxlib.profiler_library().start_server(port))
        return _server[0]


def stop_server() -> None:
    """Stop the server :func:`start_server` started."""
    with _lock:
        if not _server:
            raise ValueError("No active profiler server.")
        _server.clear()  # jaxlib stops it when it is collected


def device_memory_profile(backend: str | None = None) -> bytes:
    """The live device buffers and executables of ``backend`` (the default one), as a
    gzipped pprof protocol buffer."""
    return gzip.compress(_jaxlib.heap_profile(backend))


def save_device_memory_profile(
    filename: os.PathLike[str] | str, backend: str | None = None
) -> None:
    """Write :func:`device_memory_profile` to ``filename``."""
    profile = device_memory_profile(backend)
    with open(filename, "wb") as f:
        f.write(profile)
