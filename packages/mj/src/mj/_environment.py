"""The environment: ``print_environment_info`` and ``enable_x64``.

mj always computes with NumPy 2's dtypes (float64 and int64 by default), which is what JAX
gives with x64 enabled; ``enable_x64`` is accepted so JAX code runs unchanged, and, like
``config.update("jax_enable_x64", ...)``, never switches mj to 32-bit defaults.
"""

from __future__ import annotations

import platform
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from mj_core import config
from mj_xla import device_count, local_device_count, process_index

__all__ = ["enable_x64", "print_environment_info"]


def _version(module: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(module)
    except PackageNotFoundError:
        return "not installed"


def print_environment_info(return_string: bool = False) -> str | None:
    """Print (or return) the versions and devices mj runs with, for bug reports."""
    from mj import __version__

    info = "\n".join(
        [
            f"mj:     {__version__}",
            f"jaxlib: {_version('jaxlib')}",
            f"numpy:  {np.__version__}",
            f"python: {sys.version}",
            f"device info: cpu-{device_count()}, {local_device_count()} local devices",
            f"process_index: {process_index()}",
            f"platform: {platform.uname()}",
        ]
    )
    if return_string:
        return info
    print(info)
    return None


class _EnableX64:
    """``enable_x64``: ``.value`` is always True; ``with enable_x64(True):`` is a no-op, and
    ``enable_x64(False)`` raises like ``config.update("jax_enable_x64", False)``."""

    @property
    def value(self) -> bool:
        return True

    @contextmanager
    def __call__(self, new_val: Any = True) -> Iterator[None]:
        config.update("jax_enable_x64", new_val)
        yield

    def __repr__(self) -> str:
        return "enable_x64(value=True)"


enable_x64 = _EnableX64()
