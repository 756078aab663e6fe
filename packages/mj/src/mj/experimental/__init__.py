"""``mj.experimental``: the modules seed 004 documents under ``jax.experimental``.

:mod:`~mj.experimental.stax` and :mod:`~mj.experimental.optimizers` are
:mod:`mj.example_libraries`' (JAX's later home for them), under their old names;
:mod:`~mj.experimental.optix` (composable gradient transformations),
:mod:`~mj.experimental.loops` (``Scope``: Python-looking loops staged as ``scan``/``cond``/
``while_loop``) and :mod:`~mj.experimental.ode` (``odeint``, with the adjoint method for
gradients) live here, with :mod:`~mj.experimental.checkify` and ``io_callback``.
"""

from collections.abc import Iterator
from contextlib import contextmanager

from mj.experimental import checkify as checkify
from mj.experimental import compilation_cache as compilation_cache
from mj.experimental import mesh_utils as mesh_utils
from mj.experimental._io_callback import io_callback as io_callback
from mj_core import config


@contextmanager
def enable_x64(new_val: bool = True) -> Iterator[None]:
    """``with mj.experimental.enable_x64():`` 64-bit types inside the block (JAX's older
    spelling of ``mj.enable_x64(True)``)."""
    with config.override("enable_x64", new_val):
        yield


@contextmanager
def disable_x64() -> Iterator[None]:
    """``with mj.experimental.disable_x64():`` 32-bit defaults inside the block."""
    with config.override("enable_x64", False):
        yield
