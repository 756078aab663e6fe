"""Oracle tests compare mj with real JAX in 64-bit mode (mj's default float is float64, like
NumPy; JAX needs x64 enabled to agree). Jaxprs mj produces are typechecked here too."""

import jax
import pytest

from mj_core import config

jax.config.update("jax_enable_x64", True)
config.check_jaxprs = True


@pytest.fixture(params=[False, True], ids=["x32", "x64"])
def x64(request):
    """Both modes, JAX's and mj's switched together (tests comparing 32-bit defaults)."""
    before = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", request.param)
    with config.override("enable_x64", request.param):
        yield request.param
    jax.config.update("jax_enable_x64", before)
