"""The demo (``python -m mj.demo``): one short epoch always; the full run (> 95% test
accuracy) under the ``slow`` marker.

The demo's figure and progress bar come from its ``demo`` extra (matplotlib, tqdm), which the
test environment installs (hatch.toml), so the tests that draw always run. The library itself
must import, and the demo must say what to install, without either.
"""

import io
import struct
import subprocess
import sys
import zlib

import numpy as np
import pytest

from mj.demo import History, learning_curves, main

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _png_size(data: bytes) -> tuple[int, int]:
    """``(width, height)`` from a PNG's IHDR chunk, after checking the chunk's CRC."""
    assert data[:8] == PNG_SIGNATURE
    length, tag = struct.unpack(">I4s", data[8:16])
    assert (length, tag) == (13, b"IHDR")
    assert struct.unpack(">I", data[29:33])[0] == zlib.crc32(data[12:29])
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def _has_colour(pixels: np.ndarray, hex_colour: str) -> bool:
    rgb = np.array([int(hex_colour[i : i + 2], 16) for i in (1, 3, 5)]) / 255
    return bool(np.any(np.all(np.abs(pixels[..., :3] - rgb) < 2 / 255, axis=-1)))


def test_quick_epoch_trains_and_writes_the_chart(tmp_path):
    from matplotlib import image

    out = io.StringIO()
    history = main(["--quick", "--out", str(tmp_path / "curves.png")], out=out)
    text = out.getvalue()
    assert "1438 train / 359 test" in text
    assert "5/5" in text  # tqdm's finished bar
    assert "loss=" in text
    assert "time per step:" in text
    assert str(tmp_path / "curves.png") in text
    assert len(history.test_accuracy) == 1
    assert 0.0 <= history.test_accuracy[0] <= 1.0
    # five Adam steps from the He initialisation already beat chance (0.1)
    assert history.train_accuracy[0] > 0.15
    data = (tmp_path / "curves.png").read_bytes()
    width, height = _png_size(data)
    assert 600 <= width <= 3000
    assert 250 <= height <= 2000
    assert width > height  # two panels side by side
    pixels = image.imread(tmp_path / "curves.png")
    assert pixels.shape[:2] == (height, width)
    # matplotlib's default cycle: train in C0 (blue), test in C1 (orange)
    assert _has_colour(pixels, "#1f77b4")
    assert _has_colour(pixels, "#ff7f0e")


def test_learning_curves_figure_is_labelled():
    history = History(
        train_loss=[2.0, 0.5, 0.1],
        test_loss=[2.1, 0.7, 0.3],
        train_accuracy=[0.5, 0.9, 0.99],
        test_accuracy=[0.45, 0.85, 0.9625],
    )
    fig = learning_curves(history, "the title")
    assert fig.get_suptitle() == "the title"
    loss_ax, acc_ax = fig.axes
    assert loss_ax.get_yscale() == "log"
    assert "96.2%" in acc_ax.get_title()
    for ax, name, train, test in (
        (loss_ax, "loss", history.train_loss, history.test_loss),
        (acc_ax, "accuracy", history.train_accuracy, history.test_accuracy),
    ):
        assert ax.get_xlabel() == "epoch"
        assert name in ax.get_ylabel()
        assert ax.get_title()
        legend = ax.get_legend()
        assert legend is not None
        assert [t.get_text() for t in legend.get_texts()] == [f"train {name}", f"test {name}"]
        train_line, test_line = ax.get_lines()
        np.testing.assert_array_equal(train_line.get_xdata(), [1, 2, 3])
        np.testing.assert_array_equal(train_line.get_ydata(), train)
        np.testing.assert_array_equal(test_line.get_ydata(), test)
        low, high = ax.get_ylim()
        assert low <= min(train + test)
        assert high >= max(train + test)


def test_missing_extra_fails_before_training_and_names_the_fix(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if it were not installed
    out = io.StringIO()
    with pytest.raises(ModuleNotFoundError, match=r"matplotlib.*pip install 'mj\[demo\]'"):
        main(["--quick", "--out", str(tmp_path / "c.png")], out=out)
    assert out.getvalue() == ""
    assert not (tmp_path / "c.png").exists()


def test_mj_and_the_demo_module_import_without_the_extra():
    code = (
        "import sys\n"
        "sys.modules['matplotlib'] = sys.modules['tqdm'] = None\n"
        "import mj, mj.demo\n"
        "print(mj.demo.main.__name__)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True
    )
    assert proc.stdout.strip() == "main"


def test_module_entry_point_runs(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "mj.demo", "--quick", "--out", str(tmp_path / "c.png")],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    assert "test accuracy:" in proc.stdout
    assert _png_size((tmp_path / "c.png").read_bytes())[0] >= 600


@pytest.mark.slow
def test_full_demo_exceeds_95_percent(tmp_path):
    history = main(["--out", str(tmp_path / "curves.png")], out=io.StringIO())
    assert history.test_accuracy[-1] > 0.95
    assert history.train_loss[-1] < history.train_loss[0] / 10
