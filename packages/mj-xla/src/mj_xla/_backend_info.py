"""What JAX users ask about the backend: its name, the devices, the process. mj compiles
for jaxlib's CPU client only: one backend (``"cpu"``), one device, one process."""

from __future__ import annotations

from typing import Any

from mj_core.errors import user_line_suffix
from mj_xla import _jaxlib

__all__ = [
    "default_backend",
    "device_count",
    "local_device_count",
    "local_devices",
    "process_index",
]

_PLATFORM = "cpu"


def _check_backend(api: str, backend: Any) -> None:
    if backend is not None and backend != _PLATFORM:
        raise ValueError(
            f"{api}: backend {backend!r} is not available; mj runs on the {_PLATFORM!r} backend "
            f"only{user_line_suffix()}"
        )


def default_backend() -> str:
    """The platform name of the default backend (always ``"cpu"``)."""
    return _PLATFORM


def device_count(backend: str | None = None) -> int:
    """The number of devices (across all processes; mj has one)."""
    _check_backend("device_count", backend)
    return 1


def local_device_count(backend: str | None = None) -> int:
    """The number of devices addressable by this process."""
    _check_backend("local_device_count", backend)
    return 1


def local_devices(
    process_index: int | None = None, backend: str | None = None, host_id: int | None = None
) -> list[Any]:
    """The devices addressable by process ``process_index`` (this one by default)."""
    _check_backend("local_devices", backend)
    index = host_id if process_index is None else process_index
    if index not in (None, 0):
        raise ValueError(
            f"local_devices: process_index {index} does not exist; mj runs as process 0 only"
            f"{user_line_suffix()}"
        )
    return [_jaxlib.device()]


def process_index(backend: str | None = None) -> int:
    """This process's index among the processes of the computation (always 0)."""
    _check_backend("process_index", backend)
    return 0
