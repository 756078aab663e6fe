"""The text table ``mj.debug.visualize_array_sharding`` prints: one cell per distinct piece
of a 1-d or 2-d array, naming the devices holding it, sized in proportion to the piece.

It is JAX's ``visualize_sharding`` as ``rich`` draws it without colour (what JAX prints to a
file or pipe): the same cell sizes and padding, drawn here without ``rich``. A table wider
than ``max_width`` is drawn in full (``rich`` squeezes it, cutting labels short).
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

from mj_core.errors import user_line_suffix
from mj_xla import Sharding

__all__ = ["sharding_table", "visualize_array_sharding", "visualize_sharding"]

_HEIGHT_TO_WIDTH = 2.5  # a character cell is about 2.5 times taller than wide


class _Cell:
    """One piece: its label, the padding around it, and its size in characters."""

    __slots__ = ("bottom", "label", "left", "right", "top")

    def __init__(self, label: str, width: int, height: int) -> None:
        self.label = label
        self.left, extra = divmod(width - len(label) - 2, 2)
        self.right = self.left + extra
        self.top, extra = divmod(height - 2, 2)
        self.bottom = self.top + extra
        self.left, self.right = max(self.left, 0), max(self.right, 0)
        self.top, self.bottom = max(self.top, 0), max(self.bottom, 0)

    @property
    def width(self) -> int:
        return self.left + len(self.label) + self.right

    def lines(self, width: int, height: int) -> list[str]:
        """The cell drawn ``width`` wide and ``height`` tall (blank lines below if taller)."""
        inner = width - self.left - self.right
        before = (inner - len(self.label)) // 2
        text = " " * before + self.label + " " * (inner - len(self.label) - before)
        middle = " " * self.left + text + " " * self.right
        out = [" " * width] * self.top + [middle] + [" " * width] * self.bottom
        return out + [" " * width] * (height - len(out))


def _chunk(size: int, index: slice) -> tuple[int, int]:
    """The piece's position along a dimension and its length."""
    start, stop, _ = index.indices(size)
    return (start // (stop - start) if stop > start else 0), stop - start


def sharding_table(
    shape: Sequence[int],
    sharding: Sharding,
    *,
    scale: float = 1.0,
    min_width: int = 9,
    max_width: int = 80,
) -> str:
    """The table of a global array of ``shape`` laid out by ``sharding``."""
    if not 1 <= len(shape) <= 2:
        raise ValueError(
            f"visualize_sharding: only works for shapes with 1 and 2 dimensions, got shape "
            f"{tuple(shape)}{user_line_suffix()}"
        )
    base_height = int(10 * scale)
    base_width = int(base_height * (shape[1] if len(shape) == 2 else 1) / shape[0])
    pieces: dict[tuple[int, int], tuple[set[int], float, float | None]] = {}
    kind = ""
    for device, index in sharding.devices_indices_map(tuple(shape)).items():
        kind = device.platform.upper()
        index = tuple(slice(i, i + 1) if isinstance(i, int) else i for i in index)
        if len(shape) == 2:
            (r, rows), (c, cols) = _chunk(shape[0], index[0]), _chunk(shape[1], index[1])
            key, width, height = (r, c), cols / shape[1], rows / shape[0]
        else:
            (c, cols) = _chunk(shape[0], index[0])
            key, width, height = (0, c), cols / shape[0], None
        pieces.setdefault(key, (set(), width, height))[0].add(device.id)
    n_rows = max(k[0] for k in pieces) + 1
    n_cols = max(k[1] for k in pieces) + 1
    grid: list[list[_Cell]] = []
    for i in range(n_rows):
        row = []
        for j in range(n_cols):
            ids, width, height = pieces[i, j]
            label = f"{kind} " + ",".join(str(d) for d in sorted(ids))
            chars = min(max(int(width * base_width * _HEIGHT_TO_WIDTH), min_width), max_width)
            lines = 1 if height is None else int(height * base_height)
            row.append(_Cell(label, chars, lines))
        grid.append(row)
    widths = [max(grid[i][j].width for i in range(n_rows)) for j in range(n_cols)]
    rules = ["─" * w for w in widths]
    out = ["┌" + "┬".join(rules) + "┐"]
    for i, row in enumerate(grid):
        if i:
            out.append("├" + "┼".join(rules) + "┤")
        height = max(1 + c.top + c.bottom for c in row)
        drawn = [c.lines(w, height) for c, w in zip(row, widths, strict=True)]
        out += ["│" + "│".join(parts) + "│" for parts in zip(*drawn, strict=True)]
    out.append("└" + "┴".join(rules) + "┘")
    return "\n".join(out)


def visualize_sharding(
    shape: Sequence[int],
    sharding: Sharding,
    *,
    use_color: bool = True,
    scale: float = 1.0,
    min_width: int = 9,
    max_width: int = 80,
    color_map: object = None,
) -> None:
    """Print which devices hold which piece of a global array of ``shape``, as JAX's table
    (``use_color`` and ``color_map`` are accepted; the table is drawn without colour)."""
    del use_color, color_map
    table = sharding_table(shape, sharding, scale=scale, min_width=min_width, max_width=max_width)
    builtins.print(table)


def visualize_array_sharding(arr: Any, **kwargs: Any) -> None:
    """Print which devices hold which piece of ``arr`` (a 1-d or 2-d mj Array)."""
    sharding = getattr(arr, "sharding", None)
    if not isinstance(sharding, Sharding):
        raise TypeError(
            f"visualize_array_sharding: expected an mj Array, got {type(arr).__name__}"
            f"{user_line_suffix()}"
        )
    visualize_sharding(arr.shape, sharding, **kwargs)
