"""The demo's convnet (``python -m mj.demo --model cnn``): a small network built with
:mod:`mj.example_libraries.stax` (two 3x3 convolutions, a max-pool, two dense layers) and
trained with :func:`mj.example_libraries.optimizers.adam` on an exponentially decaying step
size; one jitted function takes a whole training step."""

from __future__ import annotations

import argparse
from typing import Any

import mj
import mj.numpy as mnp
from mj.demo._trainer import Trainer
from mj.example_libraries import optimizers, stax

__all__ = ["cnn_trainer", "evaluate", "loss"]

NUM_CLASSES = 10
IMAGE_SHAPE = (8, 8, 1)  # NHWC, one channel

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


def _images(x: Any) -> Any:
    """Flat 64-pixel rows as the network's NHWC images, in the default float dtype of stax's
    parameters (float64 when 64-bit mode is on)."""
    return mnp.reshape(mnp.asarray(x, dtype=float), (-1, *IMAGE_SHAPE))


def loss(params: Any, images: Any, labels: Any) -> Any:
    """Mean cross-entropy of a batch."""
    log_probs = apply_net(params, _images(images))
    return -mnp.mean(mnp.sum(log_probs * mj.nn.one_hot(labels, NUM_CLASSES), axis=-1))


@mj.jit
def evaluate(params: Any, images: Any, labels: Any) -> tuple[Any, Any]:
    """Mean loss and accuracy over a dataset."""
    log_probs = apply_net(params, _images(images))
    nll = -mnp.mean(mnp.sum(log_probs * mj.nn.one_hot(labels, NUM_CLASSES), axis=-1))
    return nll, mnp.mean(mnp.argmax(log_probs, axis=-1) == labels)


def cnn_trainer(key: object, args: argparse.Namespace, steps_per_epoch: int) -> Trainer:
    """The convnet at its initial parameters with ``optimizers.adam``, its step size decaying
    by ``args.decay`` per epoch."""
    _, params = init_net(key, (-1, *IMAGE_SHAPE))
    schedule = optimizers.exponential_decay(args.lr, steps_per_epoch, args.decay)
    opt_init, opt_update, get_params = optimizers.adam(schedule)

    @mj.jit
    def step(opt_state: Any, i: Any, images: Any, labels: Any) -> tuple[Any, Any]:
        value, grads = mj.value_and_grad(loss)(get_params(opt_state), images, labels)
        return value, opt_update(i, grads, opt_state)

    return Trainer(
        name="stax convnet (conv 16, conv 32, max-pool, dense 64, dense 10)",
        optimizer=f"optimizers.adam lr {args.lr} (x{args.decay} per epoch)",
        state=opt_init(params),
        step=step,
        params=get_params,
        evaluate=evaluate,
    )
