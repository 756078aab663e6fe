"""examples/cnn_digits.py (stax convnet + optimizers.adam on the digits): a short run trains."""

import importlib.util
import io
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "cnn_digits.py"


def load_example():
    spec = importlib.util.spec_from_file_location("cnn_digits", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_short_run_lowers_the_loss():
    example = load_example()
    out = io.StringIO()
    history = example.main(["--epochs", "3", "--steps", "10"], out)
    losses = [epoch.train_loss for epoch in history]
    assert losses[2] < losses[1] < losses[0]
    assert history[-1].test_accuracy > 0.5  # 30 steps already beat chance (0.1) by far
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("digits: 1438 train / 359 test images, stax convnet")
    assert [line.split()[1] for line in lines[1:]] == ["1/3", "2/3", "3/3"]
    assert all("test accuracy" in line for line in lines[1:])
