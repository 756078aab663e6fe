"""``mj.distributed``: several processes running one computation, as ``jax.distributed``.

Each process calls ``mj.distributed.initialize`` (:func:`distributed_initialize`) before
its first computation; process 0 also serves jaxlib's coordination service at
``coordinator_address``. The CPU backend then spans every
process's devices: ``mj.devices()`` lists all of them, ``mj.local_devices()`` this
process's, and a jitted program over a mesh of global devices runs as one SPMD program in
every process (XLA's collectives cross processes over gloo/TCP). Arrays over such a mesh
hold only this process's pieces; build them with ``mj.make_array_from_callback`` or
``mj.make_array_from_process_local_data``.
"""

from __future__ import annotations

import atexit
from collections.abc import Sequence

from mj_core.errors import user_line_suffix
from mj_xla import _jaxlib

__all__ = ["distributed_initialize", "distributed_is_initialized", "distributed_shutdown"]


def distributed_initialize(
    coordinator_address: str | None = None,
    num_processes: int | None = None,
    process_id: int | None = None,
    local_device_ids: int | Sequence[int] | None = None,
    *,
    initialization_timeout: int = 300,
    heartbeat_timeout_seconds: int = 100,
    shutdown_timeout_seconds: int = 300,
    coordinator_bind_address: str | None = None,
) -> None:
    """Join this process to a computation over ``num_processes`` processes.

    Arguments:
        coordinator_address: ``host:port`` of process 0's coordination service (every
            process passes the same one).
        num_processes: how many processes take part.
        process_id: this process's index, ``0 <= process_id < num_processes``.
        local_device_ids: accepted for JAX compatibility (it selects GPUs there); each
            process has ``config.num_cpu_devices`` CPU devices.
        initialization_timeout: seconds to wait for every process to connect.
        coordinator_bind_address: where process 0's service listens (default: every
            address, ``[::]``, on ``coordinator_address``'s port).

    Must be called once, before anything runs on a device.
    """
    del local_device_ids  # CPU devices are all visible to their process
    where = user_line_suffix()
    if coordinator_address is None:
        raise ValueError(f"mj.distributed.initialize: coordinator_address should be defined{where}")
    if num_processes is None:
        raise ValueError(f"mj.distributed.initialize: Number of processes must be defined{where}")
    if process_id is None:
        raise ValueError(
            f"mj.distributed.initialize: The process id of the current process must be "
            f"defined{where}"
        )
    if not isinstance(num_processes, int) or num_processes < 1:
        raise TypeError(
            f"mj.distributed.initialize: num_processes must be a positive int, got "
            f"{num_processes!r}{where}"
        )
    if not isinstance(process_id, int) or not 0 <= process_id < num_processes:
        raise ValueError(
            f"mj.distributed.initialize: process_id must be an int with 0 <= process_id < "
            f"num_processes, got process_id={process_id!r}, num_processes={num_processes}{where}"
        )
    if ":" not in coordinator_address:
        raise ValueError(
            f"mj.distributed.initialize: coordinator_address must be 'host:port', got "
            f"{coordinator_address!r}{where}"
        )
    port = coordinator_address.rsplit(":", 1)[1]
    _jaxlib.start_distributed(
        coordinator_address,
        coordinator_bind_address or f"[::]:{port}",
        num_processes,
        process_id,
        initialization_timeout,
        heartbeat_timeout_seconds,
        shutdown_timeout_seconds,
    )
    atexit.register(distributed_shutdown)


def distributed_is_initialized() -> bool:
    """Whether :func:`distributed_initialize` has joined this process to others."""
    return _jaxlib.is_distributed()


def distributed_shutdown() -> None:
    """Leave the distributed computation (a no-op when not initialized)."""
    _jaxlib.stop_distributed()
