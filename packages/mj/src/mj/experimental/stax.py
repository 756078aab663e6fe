"""``mj.experimental.stax``: seed 004's name for :mod:`mj.example_libraries.stax` (the same
objects: ``mj.experimental.stax.Dense is mj.example_libraries.stax.Dense``)."""

from mj.example_libraries.stax import *  # noqa: F403
from mj.example_libraries.stax import __all__ as __all__
