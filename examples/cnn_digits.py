"""Train a small convnet on the 8x8 handwritten digits with stax and optimizers.adam.

The training lives in the demo: this script is ``python -m mj.demo --model cnn`` (the network
and its jitted Adam step are in ``mj.demo._cnn``; the data, the progress bars and the figure
of learning curves are the MLP demo's). Run it with ``python examples/cnn_digits.py``
(``--help`` for the options).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from mj.demo import History
from mj.demo import main as demo_main


def main(argv: Sequence[str] | None = None, out: Any = sys.stdout) -> History:
    return demo_main(["--model", "cnn", *(sys.argv[1:] if argv is None else argv)], out)


if __name__ == "__main__":
    main()
