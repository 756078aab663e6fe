"""Runtime helpers JAX users reach for: the devices, waiting for results, and switching jit
off for debugging."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from mj_core import config
from mj_core.tree_util import tree_map
from mj_xla import _jaxlib

__all__ = ["Device", "block_until_ready", "devices", "disable_jit"]

T = TypeVar("T")

Device = _jaxlib.Device
"""The type of every device :func:`devices` returns (``jax.Device``: jaxlib's own)."""


def devices(backend: str | None = None) -> list[Any]:
    """Every device of ``backend`` (``"cpu"``, ``"cuda"`` or its alias ``"gpu"``; the default
    backend if None: a GPU when one is present, else the CPU with ``config.num_cpu_devices``
    devices). jit compiles for the first unless committed inputs say otherwise."""
    return _jaxlib.devices(backend, "devices")


def block_until_ready(tree: T) -> T:
    """Wait until every array in ``tree`` is computed; returns ``tree`` (as JAX's)."""

    def wait(x: Any) -> Any:
        ready = getattr(x, "block_until_ready", None)
        return ready() if callable(ready) else x

    return tree_map(wait, tree)  # type: ignore[no-any-return]


@contextmanager
def disable_jit(disable: bool = True) -> Iterator[None]:
    """Inside the block, jitted functions run their Python code eagerly (print/pdb work)."""
    with config.override("disable_jit", disable):
        yield
