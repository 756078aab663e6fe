"""The demo (``python -m mj.demo``): one short epoch always; the full run (> 95% test
accuracy) under the ``slow`` marker."""

import io
import struct
import subprocess
import sys
import zlib

import numpy as np
import pytest

from mj.demo import main


def _png_pixels(data: bytes) -> np.ndarray:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height, depth, color = struct.unpack(">IIBB", data[16:26])
    assert (depth, color) == (8, 2)
    idat = data.index(b"IDAT")
    (length,) = struct.unpack(">I", data[idat - 4 : idat])
    rows = zlib.decompress(data[idat + 4 : idat + 4 + length])
    raw = np.frombuffer(rows, np.uint8).reshape(height, 1 + 3 * width)
    assert np.all(raw[:, 0] == 0)
    return raw[:, 1:].reshape(height, width, 3)


def test_quick_epoch_trains_and_writes_the_chart(tmp_path):
    out = io.StringIO()
    history = main(["--quick", "--out", str(tmp_path / "curves.png")], out=out)
    text = out.getvalue()
    assert "1438 train / 359 test" in text
    assert "5/5 loss" in text
    assert "time per step:" in text
    assert str(tmp_path / "curves.png") in text
    assert len(history.test_accuracy) == 1
    assert 0.0 <= history.test_accuracy[0] <= 1.0
    # five Adam steps from the He initialisation already beat chance (0.1)
    assert history.train_accuracy[0] > 0.15
    pixels = _png_pixels((tmp_path / "curves.png").read_bytes())
    blue, orange = (31, 119, 180), (255, 127, 14)
    assert np.any(np.all(pixels == blue, axis=-1))
    assert np.any(np.all(pixels == orange, axis=-1))


def test_module_entry_point_runs(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "mj.demo", "--quick", "--out", str(tmp_path / "c.png")],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    assert "test accuracy:" in proc.stdout
    assert (tmp_path / "c.png").stat().st_size > 100


@pytest.mark.slow
def test_full_demo_exceeds_95_percent(tmp_path):
    history = main(["--out", str(tmp_path / "curves.png")], out=io.StringIO())
    assert history.test_accuracy[-1] > 0.95
    assert history.train_loss[-1] < history.train_loss[0] / 10
