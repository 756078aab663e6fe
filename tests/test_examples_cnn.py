"""The convnet demo (``python -m mj.demo --model cnn``, also examples/cnn_digits.py): a short
run trains with the MLP demo's progress bar and figure; the full run passes 97%."""

import importlib.util
import io
from pathlib import Path

import pytest

from mj.demo import main

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "cnn_digits.py"


def load_example():
    spec = importlib.util.spec_from_file_location("cnn_digits", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_short_run_lowers_the_loss(tmp_path):
    out = io.StringIO()
    png = tmp_path / "cnn.png"
    history = load_example().main(["--epochs", "3", "--steps", "10", "--out", str(png)], out)
    assert history.train_loss[2] < history.train_loss[1] < history.train_loss[0]
    assert history.test_accuracy[-1] > 0.5  # 30 steps already beat chance (0.1) by far
    text = out.getvalue()
    assert text.startswith("digits: 1438 train / 359 test images (8x8), stax convnet")
    assert "optimizers.adam lr 0.003" in text
    assert "epoch 3/3" in text
    assert "10/10" in text  # tqdm's finished bar
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_full_cnn_demo_exceeds_97_percent(tmp_path):
    history = main(["--model", "cnn", "--out", str(tmp_path / "cnn.png")], out=io.StringIO())
    assert history.test_accuracy[-1] > 0.97
