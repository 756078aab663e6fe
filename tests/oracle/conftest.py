"""Oracle tests compare mj with real JAX in 64-bit mode (mj's default float is float64, like
NumPy; JAX needs x64 enabled to agree). Jaxprs mj produces are typechecked here too."""

import jax

from mj_core import config

jax.config.update("jax_enable_x64", True)
config.check_jaxprs = True
