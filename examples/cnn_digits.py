"""Train a small convnet on the 8x8 handwritten digits with stax and optimizers.adam.

The data are the MLP demo's (``python -m mj.demo``): 1,797 digits, shuffled with the seed's
key and split 80/20. The network is built with :mod:`mj.example_libraries.stax` (two 3x3
convolutions, a max-pool, two dense layers) and trained with
:func:`mj.example_libraries.optimizers.adam`; one jitted function takes a whole training step.
Run it with ``python examples/cnn_digits.py`` (``--help`` for the options); it prints the
training loss and the test accuracy after each epoch.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from importlib import resources
from typing import Any, NamedTuple

import numpy as np

import mj
import mj.numpy as mnp
from mj.example_libraries import optimizers, stax

NUM_CLASSES = 10
TEST_FRACTION = 0.2

init_net, apply_net = stax.serial(
    stax.Conv(16, (3, 3), padding="SAME"),
    stax.Relu,
    stax.Conv(32, (3, 3), padding="SAME"),
    stax.Relu,
    stax.MaxPool((2, 2), strides=(2, 2)),
    stax.Flatten,
    stax.Dense(64),
    stax.Relu,
    stax.Dense(NUM_CLASSES),
    stax.LogSoftmax,
)


class Dataset(NamedTuple):
    train_x: np.ndarray[Any, Any]
    train_y: np.ndarray[Any, Any]
    test_x: np.ndarray[Any, Any]
    test_y: np.ndarray[Any, Any]


class Epoch(NamedTuple):
    train_loss: float  # mean of the epoch's mini-batch losses
    test_accuracy: float


def load_digits(key: Any) -> Dataset:
    """The digits as NHWC images (N, 8, 8, 1) with pixels in [0, 1], shuffled and split."""
    with resources.files("mj.demo").joinpath("digits.npz").open("rb") as f, np.load(f) as data:
        # float64, canonicalized like the parameters (to float32 when 64-bit is off)
        images = data["images"].reshape(-1, 8, 8, 1).astype(np.float64) / 16.0
        labels = data["labels"].astype(np.int64)
    order = np.asarray(mj.random.permutation(key, labels.size))
    images, labels = images[order], labels[order]
    n_test = round(labels.size * TEST_FRACTION)
    return Dataset(images[n_test:], labels[n_test:], images[:n_test], labels[:n_test])


def loss(params: Any, images: Any, labels: Any) -> Any:
    """Mean cross-entropy of a batch."""
    log_probs = apply_net(params, images)
    return -mnp.mean(mnp.sum(log_probs * mj.nn.one_hot(labels, NUM_CLASSES), axis=-1))


@mj.jit
def accuracy(params: Any, images: Any, labels: Any) -> Any:
    return mnp.mean(mnp.argmax(apply_net(params, images), axis=-1) == labels)


def train(args: argparse.Namespace, out: Any = sys.stdout) -> list[Epoch]:
    """Train for ``args.epochs`` epochs; print and return each epoch's loss and accuracy."""
    data_key, init_key, shuffle_key = mj.random.split(mj.random.PRNGKey(args.seed), 3)
    data = load_digits(data_key)
    _, params = init_net(init_key, (-1, 8, 8, 1))
    n_batches = data.train_y.size // args.batch_size
    steps = min(n_batches, args.steps) if args.steps else n_batches
    # the step size decays by ``args.decay`` per epoch
    schedule = optimizers.exponential_decay(args.lr, steps, args.decay)
    opt_init, opt_update, get_params = optimizers.adam(schedule)

    @mj.jit
    def step(i: Any, opt_state: Any, images: Any, labels: Any) -> tuple[Any, Any]:
        value, grads = mj.value_and_grad(loss)(get_params(opt_state), images, labels)
        return value, opt_update(i, grads, opt_state)

    opt_state = opt_init(params)
    out.write(
        f"digits: {data.train_y.size} train / {data.test_y.size} test images, stax convnet, "
        f"batch {args.batch_size}, optimizers.adam(exponential_decay({args.lr}, {steps}, "
        f"{args.decay}))\n"
    )
    history = []
    start = time.perf_counter()
    for epoch in range(args.epochs):
        epoch_key = mj.random.fold_in(shuffle_key, epoch)
        order = np.asarray(mj.random.permutation(epoch_key, data.train_y.size))
        losses = []
        for b in range(steps):
            idx = order[b * args.batch_size : (b + 1) * args.batch_size]
            value, opt_state = step(
                epoch * steps + b, opt_state, data.train_x[idx], data.train_y[idx]
            )
            losses.append(float(value))
        test_acc = float(accuracy(get_params(opt_state), data.test_x, data.test_y))
        history.append(Epoch(float(np.mean(losses)), test_acc))
        out.write(
            f"epoch {epoch + 1:>2}/{args.epochs}  train loss {history[-1].train_loss:.4f}  "
            f"test accuracy {test_acc:.4f}  ({time.perf_counter() - start:.1f} s)\n"
        )
    return history


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=3e-3, help="Adam's initial step size")
    parser.add_argument("--decay", type=float, default=0.9, help="step-size decay per epoch")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--steps", type=int, default=0, help="cap on steps per epoch (0: all)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None, out: Any = sys.stdout) -> list[Epoch]:
    return train(parse_args(argv), out)


if __name__ == "__main__":
    main()
