"""The persistent compilation cache (JAX's ``jax_compilation_cache_dir``).

With ``config.compilation_cache_dir`` set, every executable whose compilation took at least
``config.persistent_cache_min_compile_time_secs`` is serialized (jaxlib's
``serialize_executable``) into a file of that directory, named by a hash of everything the
compiled code depends on: the StableHLO text, the compile options, the jaxlib version and the
devices' platform and kind. A later process compiling the same program loads that file
instead of calling XLA. The files are written whole or not at all (a rename); one that cannot
be read or loaded is reported with a warning and the program is compiled as usual, so a
damaged cache never stops a program.

Programs that call back into Python (``pure_callback``, ``debug.print``) hold Python
functions, which do not serialize: they are always compiled.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import warnings
from collections.abc import Sequence

from mj_core import config

__all__ = ["cache_path", "read_entry", "write_entry"]


def cache_path(parts: Sequence[bytes]) -> str | None:
    """The file of the program ``parts`` describe, or None when no cache directory is set."""
    directory = config.compilation_cache_dir
    if not directory:
        return None
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "little"))
        digest.update(part)
    return os.path.join(os.fspath(directory), f"mj-{digest.hexdigest()}")


def read_entry(path: str) -> bytes | None:
    """The serialized executable stored at ``path``, None if there is none."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return None
    except OSError as e:
        warnings.warn(f"compilation cache: cannot read {path}: {e}", stacklevel=4)
        return None


def write_entry(path: str, data: bytes, compile_seconds: float) -> None:
    """Store ``data`` at ``path`` if the compilation was slow enough and the entry big enough
    to be worth it (``persistent_cache_min_compile_time_secs``/``_min_entry_size_bytes``)."""
    if compile_seconds < config.persistent_cache_min_compile_time_secs:
        return
    if len(data) < config.persistent_cache_min_entry_size_bytes:
        return
    directory = os.path.dirname(path)
    try:
        os.makedirs(directory, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)  # whole or not at all, also with processes writing at once
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError as e:
        warnings.warn(f"compilation cache: cannot write {path}: {e}", stacklevel=4)
