"""The demo (``python -m mj.demo``): an MLP trained on 8x8 handwritten digits with mj.

See :mod:`mj.demo._train` for the walk-through; ``digits.npz`` and its licence are described
in the README next to it. The figure and the progress bars need the ``demo`` extra
(``pip install 'mj[demo]'``: matplotlib and tqdm); importing this package does not.
"""

from mj.demo._train import History as History
from mj.demo._train import learning_curves as learning_curves
from mj.demo._train import main as main
