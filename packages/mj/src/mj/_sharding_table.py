"""The text table ``mj.debug.visualize_array_sharding`` prints: one cell per distinct piece
of a 1-d or 2-d array, naming the devices holding it (as JAX's table, drawn without rich)."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

from mj_core.errors import user_line_suffix
from mj_xla import Sharding

__all__ = ["sharding_table", "visualize_array_sharding", "visualize_sharding"]


def _bounds(index: slice, size: int) -> tuple[int, int]:
    start, stop, _ = index.indices(size)
    return start, stop


def sharding_table(shape: Sequence[int], sharding: Sharding) -> str:
    """The table of a global array of ``shape`` laid out by ``sharding``."""
    if len(shape) > 2:
        raise ValueError(
            f"visualize_sharding: only 1-d and 2-d arrays can be drawn, got shape "
            f"{tuple(shape)}{user_line_suffix()}"
        )
    # a 1-d array is drawn as one row, a scalar as one cell
    dims = (1,) * (2 - len(shape)) + tuple(shape)
    cells: dict[tuple[tuple[int, int], tuple[int, int]], list[Any]] = {}
    for device, index in sharding.devices_indices_map(shape).items():
        full = (slice(None),) * (2 - len(index)) + tuple(index)
        key = (_bounds(full[0], dims[0]), _bounds(full[1], dims[1]))
        cells.setdefault(key, []).append(device)
    rows = sorted({k[0] for k in cells})
    cols = sorted({k[1] for k in cells})
    labels = {
        k: f"{ds[0].platform.upper()} "
        + ",".join(str(d.id) for d in sorted(ds, key=lambda d: d.id))
        for k, ds in cells.items()
    }
    width = max(len(s) for s in labels.values()) + 4
    line = "─" * width
    out = ["┌" + "┬".join([line] * len(cols)) + "┐"]
    for r, row in enumerate(rows):
        if r:
            out.append("├" + "┼".join([line] * len(cols)) + "┤")
        out.append("│" + "│".join(labels[(row, col)].center(width) for col in cols) + "│")
    out.append("└" + "┴".join([line] * len(cols)) + "┘")
    return "\n".join(out)


def visualize_sharding(shape: Sequence[int], sharding: Sharding) -> None:
    """Print which devices hold which piece of a global array of ``shape``."""
    builtins.print(sharding_table(shape, sharding))


def visualize_array_sharding(arr: Any) -> None:
    """Print which devices hold which piece of ``arr`` (a 1-d or 2-d mj Array)."""
    sharding = getattr(arr, "sharding", None)
    if not isinstance(sharding, Sharding):
        raise TypeError(
            f"visualize_array_sharding: expected an mj Array, got {type(arr).__name__}"
            f"{user_line_suffix()}"
        )
    visualize_sharding(arr.shape, sharding)
