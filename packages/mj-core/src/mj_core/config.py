"""Global switches, read on hot paths as plain attributes.

``check_jaxprs``: run ``typecheck_jaxpr`` on every jaxpr a transformation produces (off by
default for speed; the test suites switch it on). ``debug_nans``: make jit re-run a function
that produced a NaN op by op and raise ``FloatingPointError`` naming the primitive.
Both can be preset with the environment variables ``MJ_CHECK_JAXPRS=1`` / ``MJ_DEBUG_NANS=1``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["config"]


class _Config:
    __slots__ = ("check_jaxprs", "debug_nans")

    def __init__(self) -> None:
        self.check_jaxprs = os.environ.get("MJ_CHECK_JAXPRS", "") not in ("", "0")
        self.debug_nans = os.environ.get("MJ_DEBUG_NANS", "") not in ("", "0")

    def update(self, name: str, value: Any) -> None:
        """JAX-style ``config.update("debug_nans", True)`` (``jax_`` prefixes accepted)."""
        name = name.removeprefix("jax_").removeprefix("mj_")
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
