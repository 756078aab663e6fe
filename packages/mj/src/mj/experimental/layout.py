"""``mj.experimental.layout``: JAX's ``Layout`` / ``Format`` descriptions of an array's
memory layout paired with its sharding.

mj lets XLA choose every layout (its ``jit`` takes no layouts), so these are descriptions
only: code that builds, inspects or rewrites them (flax renames the sharding inside a
``Format``) works; passing one to ``mj.jit`` or ``mj.device_put`` is not supported.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Format", "Layout"]


@dataclass(frozen=True)
class Layout:
    """An array's dimension order in memory, major to minor (JAX's ``Layout``); ``tiling``
    is kept as given."""

    major_to_minor: tuple[int, ...]
    tiling: tuple[tuple[int, ...], ...] | None = None


@dataclass(frozen=True)
class Format:
    """A layout with a sharding (JAX's ``Format``); either may be ``None`` (unspecified)."""

    layout: Layout | None = None
    sharding: Any = None
