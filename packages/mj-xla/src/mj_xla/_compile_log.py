"""JAX's compile log: what ``jit`` traced, lowered and compiled, and how long each step took.

JAX logs these lines at DEBUG level, at WARNING with ``log_compiles`` on; mj logs the same
lines on the ``mj`` logger, so a user's logging setup (absl's verbosity, ``assertLogs``, a
handler on the root logger) sees the same story. Only traces and compiles log: a cached call
never reaches here.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager

from mj_core import config

__all__ = ["enabled", "log", "timed"]

_logger = logging.getLogger("mj")


def _level() -> int:
    return logging.WARNING if config.log_compiles else logging.DEBUG


def enabled() -> bool:
    """Whether the compile log's lines are wanted now (so that their text is worth making)."""
    return _logger.isEnabledFor(_level())


def log(message: str, *args: object) -> None:
    """Log ``message % args`` at the compile log's level."""
    level = _level()
    if _logger.isEnabledFor(level):
        _logger.log(level, message, *args)


@contextmanager
def timed(message: str, *args: object) -> Iterator[None]:
    """Log ``message % args`` followed by `` in <seconds> sec`` once the block has run."""
    level = _level()
    if not _logger.isEnabledFor(level):
        yield
        return
    start = time.perf_counter()
    yield
    _logger.log(level, f"{message} in %.9f sec", *args, time.perf_counter() - start)
