"""``Trainer``: what the demo's training loop needs from a model (the MLP of ``_train`` or
the convnet of ``_cnn``), so both share one loop, progress bar and figure."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple


class Trainer(NamedTuple):
    """A model ready to train: ``step(state, i, images, labels) -> (loss, state)`` takes the
    ``i``-th optimisation step, ``params(state)`` reads the parameters out of the training
    state, and ``evaluate(params, images, labels) -> (mean loss, accuracy)`` scores them."""

    name: str  # e.g. "MLP 64-128-64-10"
    optimizer: str  # e.g. "Adam lr 0.003"
    state: Any
    step: Callable[[Any, int, Any, Any], tuple[Any, Any]]
    params: Callable[[Any], Any]
    evaluate: Callable[[Any, Any, Any], tuple[Any, Any]]
