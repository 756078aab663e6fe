"""The demo (``python -m mj.demo``): an MLP trained on 8x8 handwritten digits with mj.

See :mod:`mj.demo._train` for the walk-through; ``digits.npz`` and its licence are described
in the README next to it.
"""

from mj.demo._train import main as main
