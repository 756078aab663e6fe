"""Runtime helpers JAX users reach for: the devices, waiting for results, and switching jit
off for debugging."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from mj_core import config
from mj_core.tree_util import tree_leaves, tree_map
from mj_xla import _jaxlib

__all__ = [
    "Device",
    "block_until_ready",
    "copy_to_host_async",
    "devices",
    "disable_jit",
    "live_arrays",
]

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


def copy_to_host_async(x: T) -> T:
    """Call ``copy_to_host_async()`` on every leaf of ``x`` that has one; returns ``x`` (as
    JAX's: other leaves are left alone, an ``AttributeError`` the method raises is not)."""
    for leaf in tree_leaves(x):
        try:
            copy = leaf.copy_to_host_async
        except AttributeError:
            continue
        copy()
    return x


def live_arrays(platform: str | None = None) -> list[Any]:
    """The device arrays alive now (``jax.live_arrays``) whose buffers are on ``platform``
    (the default backend's if None) and not deleted. mj finds them among the objects the
    garbage collector tracks (no registry on the hot path), so this is slow; eager arrays of
    host data are NumPy's and not listed."""
    from mj_xla._array import Array  # (its module imports this one)

    want = _jaxlib.devices(platform, "live_arrays")[0].platform
    out: list[Any] = []
    for obj in gc.get_objects():
        live = isinstance(obj, Array) and not obj.is_deleted()
        if live and next(iter(obj.devices())).platform == want:
            out.append(obj)
    return out
