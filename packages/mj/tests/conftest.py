"""mj (layer 7) tests: every produced jaxpr is type-checked."""

from mj_core import config

config.check_jaxprs = True
