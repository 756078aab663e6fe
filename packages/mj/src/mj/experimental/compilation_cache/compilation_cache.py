"""``set_cache_dir``: where compiled executables persist between processes (the same as
``mj.config.update("jax_compilation_cache_dir", path)``; see ``mj_xla._compilation_cache``)."""

from __future__ import annotations

import os

from mj_core import config

__all__ = ["set_cache_dir"]


def set_cache_dir(path: str | os.PathLike[str]) -> None:
    """Persist compiled executables in ``path`` (created when the first one is written)."""
    config.update("compilation_cache_dir", os.fspath(path))
