"""``mj.experimental.optimizers``: seed 004's name for :mod:`mj.example_libraries.optimizers`
(the same objects, so states made by either module work with the other)."""

from mj.example_libraries.optimizers import *  # noqa: F403
from mj.example_libraries.optimizers import __all__ as __all__
