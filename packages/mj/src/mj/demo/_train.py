"""Train a small MLP on the 8x8 handwritten digits with mj, end to end.

What it shows: ``mj.random`` for initialisation and shuffling, ``mj.jit(mj.value_and_grad(loss))``
for the training step, ``mj.vmap`` for per-example metrics, pytrees of parameters updated by a
jitted Adam step, and a PNG of the learning curves.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

import mj
import mj.numpy as mnp
from mj.demo._png import Panel, Series, write_chart

Params = list[dict[str, Any]]

HIDDEN = (128, 64)
NUM_CLASSES = 10
TEST_FRACTION = 0.2


class Dataset(NamedTuple):
    train_x: np.ndarray[Any, Any]
    train_y: np.ndarray[Any, Any]
    test_x: np.ndarray[Any, Any]
    test_y: np.ndarray[Any, Any]


class History(NamedTuple):
    train_loss: list[float]
    test_loss: list[float]
    train_accuracy: list[float]
    test_accuracy: list[float]


def load_digits(key: Any) -> Dataset:
    """The 1,797 digits as float32 pixels in [0, 1], shuffled with ``key`` and split 80/20."""
    with resources.files("mj.demo").joinpath("digits.npz").open("rb") as f, np.load(f) as data:
        images = data["images"].reshape(-1, 64).astype(np.float32) / 16.0
        labels = data["labels"].astype(np.int64)
    order = np.asarray(mj.random.permutation(key, labels.size))
    images, labels = images[order], labels[order]
    n_test = round(labels.size * TEST_FRACTION)
    return Dataset(images[n_test:], labels[n_test:], images[:n_test], labels[:n_test])


def init_params(key: Any, sizes: Sequence[int]) -> Params:
    """He-initialised dense layers: ``W ~ N(0, 2 / fan_in)``, ``b = 0``."""
    keys = mj.random.split(key, len(sizes) - 1)
    return [
        {
            "w": mj.random.normal(k, (n_in, n_out), np.float32) * math.sqrt(2.0 / n_in),
            "b": np.zeros(n_out, np.float32),
        }
        for k, n_in, n_out in zip(keys, sizes[:-1], sizes[1:], strict=True)
    ]


def predict(params: Params, x: Any) -> Any:
    """Logits of one example or a batch: ReLU hidden layers, linear output layer."""
    for layer in params[:-1]:
        x = mj.nn.relu(x @ layer["w"] + layer["b"])
    return x @ params[-1]["w"] + params[-1]["b"]


def loss(params: Params, images: Any, labels: Any) -> Any:
    """Mean cross-entropy of a batch."""
    log_probs = mj.nn.log_softmax(predict(params, images))
    return -mnp.mean(mnp.sum(log_probs * mj.nn.one_hot(labels, NUM_CLASSES, np.float32), axis=-1))


def example_metrics(params: Params, image: Any, label: Any) -> tuple[Any, Any]:
    """Cross-entropy and correctness of a single example (batched with ``vmap``)."""
    log_probs = mj.nn.log_softmax(predict(params, image))
    nll = -mnp.sum(log_probs * mj.nn.one_hot(label, NUM_CLASSES, np.float32))
    return nll, mnp.argmax(log_probs) == label


@mj.jit
def evaluate(params: Params, images: Any, labels: Any) -> tuple[Any, Any]:
    """Mean loss and accuracy over a dataset, from per-example metrics."""
    nll, correct = mj.vmap(example_metrics, in_axes=(None, 0, 0))(params, images, labels)
    return mnp.mean(nll), mnp.mean(correct.astype(np.float32))


loss_and_grad = mj.jit(mj.value_and_grad(loss))


@mj.jit
def adam_step(
    params: Params, grads: Params, state: tuple[Params, Params, Any], lr: Any
) -> tuple[Params, tuple[Params, Params, Any]]:
    """One Adam update (Kingma & Ba, 2015) over the parameter pytree."""
    b1, b2, eps = 0.9, 0.999, 1e-8
    m, v, t = state
    t = t + 1
    m = mj.tree_util.tree_map(lambda m_, g: b1 * m_ + (1 - b1) * g, m, grads)
    v = mj.tree_util.tree_map(lambda v_, g: b2 * v_ + (1 - b2) * g * g, v, grads)
    scale = lr * mnp.sqrt(1 - b2**t) / (1 - b1**t)
    params = mj.tree_util.tree_map(
        lambda p, m_, v_: p - scale * m_ / (mnp.sqrt(v_) + eps), params, m, v
    )
    return params, (m, v, t)


def _progress(epoch: int, epochs: int, step: int, steps: int, value: float, out: Any) -> None:
    """Redraw the epoch's progress bar in place on a terminal; elsewhere (logs, pipes) write
    only the finished bar."""
    if step < steps and not (hasattr(out, "isatty") and out.isatty()):
        return
    width = 30
    filled = width * step // steps
    bar = "#" * filled + "." * (width - filled)
    out.write(f"\repoch {epoch:>3}/{epochs} [{bar}] {step:>3}/{steps} loss {value:.4f}")
    out.flush()


def train(args: argparse.Namespace, out: Any = sys.stdout) -> History:
    """Run the training loop, printing a progress bar per epoch; return the learning curves."""
    key = mj.random.PRNGKey(args.seed)
    data_key, init_key, shuffle_key = mj.random.split(key, 3)
    data = load_digits(data_key)
    params = init_params(init_key, (64, *HIDDEN, NUM_CLASSES))
    zeros = mj.tree_util.tree_map(np.zeros_like, params)
    state: tuple[Params, Params, Any] = (zeros, zeros, np.float32(0))
    out.write(
        f"digits: {data.train_y.size} train / {data.test_y.size} test images (8x8), "
        f"MLP 64-{'-'.join(map(str, HIDDEN))}-10, batch {args.batch_size}, Adam lr {args.lr}\n"
    )
    n_batches = data.train_y.size // args.batch_size
    steps_per_epoch = min(n_batches, args.steps) if args.steps else n_batches
    history = History([], [], [], [])
    step_times: list[float] = []
    for epoch in range(1, args.epochs + 1):
        order = np.asarray(
            mj.random.permutation(
                mj.random.fold_in(shuffle_key, epoch), n_batches * args.batch_size
            )
        )
        for step in range(steps_per_epoch):
            idx = order[step * args.batch_size : (step + 1) * args.batch_size]
            start = time.perf_counter()
            value, grads = loss_and_grad(params, data.train_x[idx], data.train_y[idx])
            params, state = adam_step(params, grads, state, np.float32(args.lr))
            value = float(value)  # waits for the step to finish
            if epoch > 1 or step > 0:  # the first step includes compilation
                step_times.append(time.perf_counter() - start)
            _progress(epoch, args.epochs, step + 1, steps_per_epoch, value, out)
        train_loss, train_acc = evaluate(params, data.train_x, data.train_y)
        test_loss, test_acc = evaluate(params, data.test_x, data.test_y)
        for series, value in zip(
            history, (train_loss, test_loss, train_acc, test_acc), strict=True
        ):
            series.append(float(value))
        out.write(
            f"  train acc {history.train_accuracy[-1]:.3f}  test loss {history.test_loss[-1]:.4f}"
            f"  test acc {history.test_accuracy[-1]:.3f}\n"
        )
    mean_step = 1e3 * float(np.mean(step_times)) if step_times else float("nan")
    out.write(
        f"test accuracy: {history.test_accuracy[-1]:.4f}   "
        f"time per step: {mean_step:.2f} ms (jit(value_and_grad(loss)) + Adam update)\n"
    )
    return history


def plot(history: History, path: Path) -> None:
    """Loss (left) and accuracy (right) per epoch; train in blue, test in orange."""
    blue, orange = (31, 119, 180), (255, 127, 14)
    top_loss = max(max(history.train_loss), max(history.test_loss))
    low_acc = min(min(history.train_accuracy), min(history.test_accuracy))
    write_chart(
        path,
        [
            Panel(
                [Series(history.train_loss, blue), Series(history.test_loss, orange)], 0.0, top_loss
            ),
            Panel(
                [Series(history.train_accuracy, blue), Series(history.test_accuracy, orange)],
                min(low_acc, 0.9),
                1.0,
            ),
        ],
    )


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m mj.demo", description="Train an MLP on 8x8 handwritten digits with mj."
    )
    parser.add_argument("--epochs", type=int, default=25, help="training epochs (default 25)")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=3e-3, help="Adam learning rate")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--steps", type=int, default=0, help="cap on steps per epoch (0: all)")
    parser.add_argument(
        "--quick", action="store_true", help="one short epoch (a smoke test; accuracy is low)"
    )
    parser.add_argument(
        "--out", type=Path, default=Path("mj-demo-curves.png"), help="where to write the PNG"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.epochs, args.steps = 1, 5
    return args


def main(argv: Sequence[str] | None = None, out: Any = sys.stdout) -> History:
    """Entry point of ``python -m mj.demo``."""
    args = parse_args(argv)
    history = train(args, out)
    plot(history, args.out)
    legend = "loss left, accuracy right; train blue, test orange"
    out.write(f"learning curves ({legend}): {args.out.resolve()}\n")
    return history
