"""A dependency-free line chart written as a PNG (zlib + the PNG chunk format).

The demo only needs two small panels of curves, so a few dozen lines of NumPy rasterising
replace a plotting library as a dependency.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

__all__ = ["Panel", "Series", "write_chart"]

Image = np.ndarray[Any, np.dtype[np.uint8]]

_BACKGROUND = (255, 255, 255)
_AXES = (60, 60, 60)
_GRID = (225, 225, 225)


class Series(NamedTuple):
    """One curve: its y values (x is the index), and an RGB colour."""

    values: Sequence[float]
    color: tuple[int, int, int]


class Panel(NamedTuple):
    """One plot area with its curves and y range."""

    series: Sequence[Series]
    y_min: float
    y_max: float


def _chunk(tag: bytes, data: bytes) -> bytes:
    crc = zlib.crc32(tag + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", crc)


def encode_png(image: Image) -> bytes:
    """The PNG file bytes of an ``(height, width, 3)`` uint8 RGB image."""
    height, width, _ = image.shape
    rows = b"".join(b"\x00" + image[r].tobytes() for r in range(height))  # filter type 0
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(rows, 9))
        + _chunk(b"IEND", b"")
    )


def _polyline(image: Image, xs: np.ndarray[Any, Any], ys: np.ndarray[Any, Any], color: Any) -> None:
    """Draw a 2-pixel-wide polyline through the pixel coordinates ``(xs, ys)``."""
    height, width, _ = image.shape
    for x0, y0, x1, y1 in zip(xs[:-1], ys[:-1], xs[1:], ys[1:], strict=True):
        n = int(max(abs(x1 - x0), abs(y1 - y0))) + 1
        px = np.rint(np.linspace(x0, x1, n)).astype(int)
        py = np.rint(np.linspace(y0, y1, n)).astype(int)
        for dx, dy in ((0, 0), (1, 0), (0, 1), (1, 1)):
            cx, cy = np.clip(px + dx, 0, width - 1), np.clip(py + dy, 0, height - 1)
            image[cy, cx] = color
    if len(xs) == 1:
        image[int(ys[0]) - 1 : int(ys[0]) + 2, int(xs[0]) - 1 : int(xs[0]) + 2] = color


def _draw_panel(image: Image, panel: Panel, left: int, top: int, w: int, h: int) -> None:
    for frac in np.linspace(0, 1, 5):  # horizontal grid lines at quarters of the y range
        image[top + round(frac * (h - 1)), left : left + w] = _GRID
    image[top : top + h, left] = _AXES
    image[top + h - 1, left : left + w] = _AXES
    span = panel.y_max - panel.y_min or 1.0
    for series in panel.series:
        values = np.asarray(series.values, np.float64)
        if values.size == 0:
            continue
        steps = max(values.size - 1, 1)
        xs = left + 2 + np.arange(values.size) * (w - 6) / steps
        ys = top + (h - 3) * (1 - (np.clip(values, panel.y_min, panel.y_max) - panel.y_min) / span)
        _polyline(image, xs, ys, series.color)


def write_chart(path: Path, panels: Sequence[Panel], width: int = 720, height: int = 300) -> None:
    """Write ``panels`` side by side as a PNG at ``path``."""
    image = np.empty((height, width, 3), np.uint8)
    image[:] = _BACKGROUND
    margin = 20
    panel_w = (width - margin * (len(panels) + 1)) // len(panels)
    for i, panel in enumerate(panels):
        left = margin + i * (panel_w + margin)
        _draw_panel(image, panel, left, margin, panel_w, height - 2 * margin)
    path.write_bytes(encode_png(image))
