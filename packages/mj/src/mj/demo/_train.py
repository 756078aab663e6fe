"""Train a small MLP (or, with ``--model cnn``, the stax convnet of :mod:`mj.demo._cnn`) on
the 8x8 handwritten digits with mj, end to end.

What the MLP shows: ``mj.random`` for initialisation and shuffling,
``mj.jit(mj.value_and_grad(loss))`` for the training step, ``mj.vmap`` for per-example
metrics, pytrees of parameters updated by a jitted Adam step, and a matplotlib figure of the
learning curves (saved as a PNG).

matplotlib and tqdm are the ``demo`` extra (``pip install 'mj[demo]'``), not dependencies of the
library: they are imported inside the functions that use them, so ``import mj`` never needs them.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import sys
import time
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

import mj
import mj.numpy as mnp
from mj.demo._cnn import cnn_trainer
from mj.demo._trainer import Trainer

if TYPE_CHECKING:
    from matplotlib.figure import Figure

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


def load_digits(key: object) -> Dataset:
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


def predict(params: Params, x: object) -> Any:
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
def evaluate(params: Params, images: object, labels: object) -> tuple[Any, Any]:
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


DEMO_EXTRA = ("matplotlib", "tqdm")


def require_demo_extra() -> None:
    """Fail before training, not after it, when the ``demo`` extra is not installed."""
    missing = [name for name in DEMO_EXTRA if importlib.util.find_spec(name) is None]
    if missing:
        raise ModuleNotFoundError(
            f"the mj demo needs {' and '.join(missing)}, which mj itself does not depend on: "
            "install the demo extra with `pip install 'mj[demo]'` (or run `hatch run demo` in "
            "the mj repository)",
            name=missing[0],
        )


def mlp_trainer(key: object, args: argparse.Namespace, steps_per_epoch: int) -> Trainer:
    """The MLP at its initial parameters with the hand-written Adam step above."""
    params = init_params(key, (64, *HIDDEN, NUM_CLASSES))
    zeros = mj.tree_util.tree_map(np.zeros_like, params)
    lr = np.float32(args.lr)

    def step(state: Any, i: int, images: Any, labels: Any) -> tuple[Any, Any]:
        params, adam_state = state
        value, grads = loss_and_grad(params, images, labels)
        return value, adam_step(params, grads, adam_state, lr)

    return Trainer(
        name=f"MLP {_architecture()}",
        optimizer=f"Adam lr {args.lr}",
        state=(params, (zeros, zeros, np.float32(0))),
        step=step,
        params=lambda state: state[0],
        evaluate=evaluate,
    )


MODELS = {"mlp": mlp_trainer, "cnn": cnn_trainer}
DEFAULTS = {"mlp": (25, 64), "cnn": (15, 32)}  # (epochs, batch size) per model


def train(args: argparse.Namespace, out: Any = sys.stdout) -> History:
    """Run the training loop with a progress bar per epoch; return the learning curves."""
    from tqdm import tqdm

    key = mj.random.PRNGKey(args.seed)
    data_key, init_key, shuffle_key = mj.random.split(key, 3)
    data = load_digits(data_key)
    n_batches = data.train_y.size // args.batch_size
    steps_per_epoch = min(n_batches, args.steps) if args.steps else n_batches
    trainer = MODELS[args.model](init_key, args, steps_per_epoch)
    state = trainer.state
    out.write(
        f"digits: {data.train_y.size} train / {data.test_y.size} test images (8x8), "
        f"{trainer.name}, batch {args.batch_size}, {trainer.optimizer}\n"
    )
    history = History([], [], [], [])
    step_times: list[float] = []
    for epoch in range(1, args.epochs + 1):
        order = np.asarray(
            mj.random.permutation(
                mj.random.fold_in(shuffle_key, epoch), n_batches * args.batch_size
            )
        )
        desc = f"epoch {epoch:>{len(str(args.epochs))}}/{args.epochs}"
        with tqdm(total=steps_per_epoch, desc=desc, unit="step", file=out) as bar:
            for step in range(steps_per_epoch):
                idx = order[step * args.batch_size : (step + 1) * args.batch_size]
                start = time.perf_counter()
                value, state = trainer.step(
                    state,
                    (epoch - 1) * steps_per_epoch + step,
                    data.train_x[idx],
                    data.train_y[idx],
                )
                value = float(value)  # waits for the step to finish
                if epoch > 1 or step > 0:  # the first step includes compilation
                    step_times.append(time.perf_counter() - start)
                bar.set_postfix(loss=f"{value:.4f}", refresh=False)
                bar.update()
            params = trainer.params(state)
            train_loss, train_acc = trainer.evaluate(params, data.train_x, data.train_y)
            test_loss, test_acc = trainer.evaluate(params, data.test_x, data.test_y)
            for series, metric in zip(
                history, (train_loss, test_loss, train_acc, test_acc), strict=True
            ):
                series.append(float(metric))
            bar.set_postfix(
                loss=f"{value:.4f}", test_acc=f"{history.test_accuracy[-1]:.3f}", refresh=False
            )
    mean_step = 1e3 * float(np.mean(step_times)) if step_times else float("nan")
    out.write(
        f"test accuracy: {history.test_accuracy[-1]:.4f}   "
        f"time per step: {mean_step:.2f} ms (jit(value_and_grad(loss)) + Adam update)\n"
    )
    return history


def _architecture() -> str:
    return "-".join(map(str, (64, *HIDDEN, NUM_CLASSES)))


def learning_curves(history: History, title: str) -> Figure:
    """Loss (log scale) and accuracy per epoch, train and test, as a matplotlib figure.

    A bare ``Figure`` (not ``pyplot``) renders with the Agg backend on save, so the demo needs
    no display and leaves matplotlib's global state alone.
    """
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator, PercentFormatter

    fig = Figure(figsize=(9.0, 3.8), layout="constrained")
    loss_ax, acc_ax = fig.subplots(1, 2)
    epochs = np.arange(1, len(history.train_loss) + 1)
    panels = (
        (loss_ax, history.train_loss, history.test_loss, "cross-entropy loss", "loss"),
        (acc_ax, history.train_accuracy, history.test_accuracy, "accuracy", "accuracy"),
    )
    for ax, train_values, test_values, ylabel, name in panels:
        ax.plot(epochs, train_values, marker="o", markersize=3, label=f"train {name}")
        ax.plot(epochs, test_values, marker="s", markersize=3, label=f"test {name}")
        ax.set_xlabel("epoch")
        ax.set_ylabel(ylabel)
        ax.set_xlim(0.5, epochs.size + 0.5)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))
        ax.grid(True, alpha=0.3)
    # At least a decade of loss and ten points of accuracy, so a short run's axes stay legible.
    losses = history.train_loss + history.test_loss
    loss_ax.set_yscale("log")
    loss_ax.set_ylim(min(min(losses) / 1.5, max(losses) / 10), max(losses) * 1.5)
    accuracies = history.train_accuracy + history.test_accuracy
    acc_ax.set_ylim(min(min(accuracies), 0.9) - 0.02, 1.005)
    loss_ax.set_title("loss after each epoch (log scale)")
    loss_ax.legend()
    acc_ax.yaxis.set_major_formatter(PercentFormatter(xmax=1.0))
    acc_ax.set_title(f"accuracy (final test: {history.test_accuracy[-1]:.1%})")
    acc_ax.legend()
    fig.suptitle(title)
    return fig


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m mj.demo",
        description="Train an MLP (or a stax convnet) on 8x8 handwritten digits with mj.",
    )
    parser.add_argument(
        "--model", choices=sorted(MODELS), default="mlp", help="the network (default mlp)"
    )
    parser.add_argument(
        "--epochs", type=int, default=None, help="training epochs (default 25 mlp, 15 cnn)"
    )
    parser.add_argument("--batch-size", type=int, default=None, help="(default 64 mlp, 32 cnn)")
    parser.add_argument("--lr", type=float, default=3e-3, help="Adam learning rate")
    parser.add_argument(
        "--decay", type=float, default=0.9, help="cnn: step-size decay per epoch (default 0.9)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--steps", type=int, default=0, help="cap on steps per epoch (0: all)")
    parser.add_argument(
        "--quick", action="store_true", help="one short epoch (a smoke test; accuracy is low)"
    )
    parser.add_argument(
        "--out", type=Path, default=Path("mj-demo-curves.png"), help="where to write the PNG"
    )
    args = parser.parse_args(argv)
    epochs, batch_size = DEFAULTS[args.model]
    args.epochs = epochs if args.epochs is None else args.epochs
    args.batch_size = batch_size if args.batch_size is None else args.batch_size
    if args.quick:
        args.epochs, args.steps = 1, 5
    return args


def main(argv: Sequence[str] | None = None, out: Any = sys.stdout) -> History:
    """Entry point of ``python -m mj.demo``."""
    args = parse_args(argv)
    require_demo_extra()
    history = train(args, out)
    model = f"MLP {_architecture()}" if args.model == "mlp" else "stax convnet"
    title = (
        f"mj demo: {model} on 8x8 handwritten digits (Adam, lr {args.lr}, batch {args.batch_size})"
    )
    learning_curves(history, title).savefig(args.out, dpi=120)
    out.write(f"learning curves: {args.out.resolve()}\n")
    return history
