"""``python -m mj.demo``: train the digits classifier and write its learning curves."""

from mj.demo._train import main

main()
