"""What JAX users ask about the backends: their names, the devices, the processes. The CPU
backend (``config.num_cpu_devices`` devices per process, one unless set before the backends
start) is always there; a GPU backend comes from a PJRT plugin (see ``mj_xla._plugins``) and
is the default when present (``config.platforms`` chooses otherwise). One process, or several
joined by ``mj.distributed.initialize``."""

from __future__ import annotations

from typing import Any

from mj_core.errors import user_line_suffix
from mj_xla import _jaxlib

__all__ = [
    "default_backend",
    "device_count",
    "local_device_count",
    "local_devices",
    "process_count",
    "process_index",
]


def _check_backend(api: str, backend: Any) -> None:
    """A backend that did not start is JAX's ``RuntimeError`` naming the available ones."""
    if backend is not None:
        _jaxlib.devices(backend, api)


def default_backend() -> str:
    """The platform name of the default backend: ``"gpu"`` for a CUDA (or ROCm) GPU, else
    ``"cpu"`` (as JAX names them)."""
    return _jaxlib.default_platform()


def device_count(backend: str | None = None) -> int:
    """The number of devices across all processes."""
    return len(_jaxlib.devices(backend, "device_count"))


def local_device_count(backend: str | None = None) -> int:
    """The number of devices addressable by this process."""
    return len(_jaxlib.local_devices(backend, "local_device_count"))


def local_devices(
    process_index: int | None = None, backend: str | None = None, host_id: int | None = None
) -> list[Any]:
    """The devices addressable by process ``process_index`` (this one by default)."""
    _check_backend("local_devices", backend)
    index = host_id if process_index is None else process_index
    if index is None:
        return _jaxlib.local_devices(backend, "local_devices")
    count = _jaxlib.process_count()
    if not 0 <= index < count:
        raise ValueError(
            f"local_devices: process_index {index} does not exist; the computation has "
            f"{count} process(es){user_line_suffix()}"
        )
    return [d for d in _jaxlib.devices(backend, "local_devices") if d.process_index == index]


def process_index(backend: str | None = None) -> int:
    """This process's index among the processes of the computation (0 when alone)."""
    _check_backend("process_index", backend)
    return _jaxlib.process_index()


def process_count(backend: str | None = None) -> int:
    """The number of processes of the computation (see ``mj.distributed.initialize``)."""
    _check_backend("process_count", backend)
    return _jaxlib.process_count()
