"""Global switches, read on hot paths as plain attributes.

``check_jaxprs``: run ``typecheck_jaxpr`` on every jaxpr a transformation produces (off by
default for speed; the test suites switch it on). ``debug_nans``: make jit re-run a function
that produced a NaN op by op and raise ``FloatingPointError`` naming the primitive.
``disable_jit``: make ``jit`` call the Python function directly (for debugging with print
and pdb; see ``mj.disable_jit()``).
Both can be preset with the environment variables ``MJ_CHECK_JAXPRS=1`` / ``MJ_DEBUG_NANS=1``.
``enable_x64`` is always on (NumPy's dtypes, float64 by default): JAX code that runs
``config.update("jax_enable_x64", True)`` works unchanged.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["config"]


class _Config:
    __slots__ = ("check_jaxprs", "debug_nans", "disable_jit")

    def __init__(self) -> None:
        self.check_jaxprs = os.environ.get("MJ_CHECK_JAXPRS", "") not in ("", "0")
        self.debug_nans = os.environ.get("MJ_DEBUG_NANS", "") not in ("", "0")
        self.disable_jit = os.environ.get("MJ_DISABLE_JIT", "") not in ("", "0")

    @property
    def enable_x64(self) -> bool:
        """mj always has 64-bit types (float64 is the default float, like NumPy)."""
        return True

    jax_enable_x64 = enable_x64

    def update(self, name: str, value: Any) -> None:
        """JAX-style ``config.update("debug_nans", True)`` (``jax_`` prefixes accepted)."""
        name = name.removeprefix("jax_").removeprefix("mj_")
        if name == "enable_x64":
            if not value:
                raise ValueError(
                    "mj always computes with 64-bit types (float64 is the default float, as in "
                    "NumPy); enable_x64 cannot be switched off. Cast inputs to float32 instead."
                )
            return
        if name not in self.__slots__:
            raise ValueError(f"Unknown config option {name!r}; options: {self.__slots__}")
        setattr(self, name, value)

    @contextmanager
    def override(self, name: str, value: Any) -> Iterator[None]:
        old = getattr(self, name)
        self.update(name, value)
        try:
            yield
        finally:
            setattr(self, name, old)


config = _Config()
