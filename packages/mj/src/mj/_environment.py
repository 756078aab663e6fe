"""The environment: ``print_environment_info`` and the options that are also context
managers, as in JAX: ``enable_x64``, ``numpy_rank_promotion``, ``debug_nans``, ``debug_infs``,
``enable_checks`` (mj's ``check_jaxprs``: every jaxpr a transformation builds is typechecked),
``default_matmul_precision`` and ``log_compiles``.

``with mj.numpy_dtype_promotion("strict"):`` refuses implicit promotion between dtypes.
``with mj.enable_x64(True):`` computes with 64-bit types inside the block (``.value`` reads
the option); ``with mj.numpy_rank_promotion("raise"):`` makes implicit rank promotion an error.
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

__all__ = [
    "check_tracer_leaks",
    "checking_leaks",
    "debug_infs",
    "debug_key_reuse",
    "debug_nans",
    "default_device",
    "default_matmul_precision",
    "default_prng_impl",
    "enable_checks",
    "enable_custom_prng",
    "enable_x64",
    "legacy_prng_key",
    "log_compiles",
    "no_execution",
    "no_tracing",
    "numpy_dtype_promotion",
    "numpy_rank_promotion",
    "print_environment_info",
    "softmax_custom_jvp",
    "transfer_guard",
    "transfer_guard_device_to_device",
    "transfer_guard_device_to_host",
    "transfer_guard_host_to_device",
]


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


class _Option:
    """A config option as JAX's ``State``: ``.value`` reads it, calling it with a value gives
    a context manager that sets it for a block and restores it after."""

    def __init__(self, name: str) -> None:
        self._name = name

    @property
    def value(self) -> Any:
        return getattr(config, self._name)

    @contextmanager
    def __call__(self, new_val: object = True) -> Iterator[None]:
        with config.override(self._name, new_val):
            yield

    def __repr__(self) -> str:
        return f"{self._name}(value={self.value!r})"


enable_x64 = _Option("enable_x64")
numpy_rank_promotion = _Option("numpy_rank_promotion")
numpy_dtype_promotion = _Option("numpy_dtype_promotion")
debug_nans = _Option("debug_nans")
debug_infs = _Option("debug_infs")
enable_checks = _Option("check_jaxprs")
default_matmul_precision = _Option("default_matmul_precision")
log_compiles = _Option("log_compiles")
# ``with mj.no_tracing():`` a jit call that would trace anew raises RuntimeError; ``with
# mj.no_execution():`` running a compiled computation does (JAX's jax_no_tracing/no_execution)
no_tracing = _Option("no_tracing")
no_execution = _Option("no_execution")
# JAX's leak checker: with it on, a tracer that outlives its transformation raises
# TracerLeakError (when the next outermost transformation starts or the block ends)
check_tracer_leaks = _Option("check_tracer_leaks")
# ``with mj.softmax_custom_jvp(True):`` mj.nn.softmax is a custom_jvp function (reverse mode
# saves only its output), else differentiated through its operations (JAX's default)
softmax_custom_jvp = _Option("softmax_custom_jvp")


@contextmanager
def checking_leaks() -> Iterator[None]:
    """``with mj.checking_leaks():`` the leak checker on for the block (JAX's
    ``jax.checking_leaks``, ``check_tracer_leaks(True)``)."""
    with check_tracer_leaks(True):
        yield


# mj.random's options: raw uint32 keys allowed/warned/refused, PRNGKey giving typed keys, the
# default implementation (only "threefry2x32") and JAX's key-reuse checker (only off)
legacy_prng_key = _Option("legacy_prng_key")
enable_custom_prng = _Option("enable_custom_prng")
default_prng_impl = _Option("default_prng_impl")
debug_key_reuse = _Option("debug_key_reuse")
# JAX's transfer guards ("allow", "log", "disallow", "log_explicit", "disallow_explicit"):
# ``transfer_guard`` sets every direction, the others one each (see mj_xla._transfer_guard for
# what counts as a transfer on mj)
transfer_guard = _Option("transfer_guard")
# ``with default_device(d):`` jit computes on ``d`` (a device or a platform name) when no
# argument is committed to a device; mj's outputs are then committed to ``d`` (JAX's are not)
default_device = _Option("default_device")
transfer_guard_host_to_device = _Option("transfer_guard_host_to_device")
transfer_guard_device_to_device = _Option("transfer_guard_device_to_device")
transfer_guard_device_to_host = _Option("transfer_guard_device_to_host")
