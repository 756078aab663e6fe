"""``save``, ``savez`` and ``load``: NumPy's ``.npy`` / ``.npz`` files, as ``jax.numpy``'s.

``save`` and ``savez`` are NumPy's own functions (an mj array converts through
``__array__``), as in JAX. ``load`` wraps :func:`numpy.load`: an ``.npy`` array comes back as
an mj array, with ``bfloat16`` restored from the ``V2`` void type NumPy writes for it; an
array of a type mj refuses (``object``) and an ``.npz`` archive come back as NumPy gives them.
"""

from __future__ import annotations

import contextlib
import os
from typing import IO, Any

import numpy as np
from numpy import save as save
from numpy import savez as savez

from mj_core.dtypes import bfloat16
from mj_core.numpy import asarray

__all__ = ["load", "save", "savez"]


def load(file: IO[bytes] | str | os.PathLike[Any], *args: Any, **kwargs: Any) -> Any:
    """The array stored in ``file`` (see :func:`numpy.load` for the other arguments)."""
    out = np.load(file, *args, **kwargs)
    if isinstance(out, np.ndarray):
        if out.dtype == "V2":  # NumPy writes bfloat16 as a 2-byte void type
            out = out.view(bfloat16)
        with contextlib.suppress(TypeError, AssertionError):  # a dtype mj has no arrays of
            out = asarray(out)
    return out
