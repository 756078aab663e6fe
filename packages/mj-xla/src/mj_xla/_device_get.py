"""``device_get``: bring a pytree of arrays back to the host as NumPy arrays."""

from __future__ import annotations

from typing import Any

import numpy as np

from mj_core import EagerArray, Tracer
from mj_core.tree_util import tree_map
from mj_xla import _jaxlib
from mj_xla._array import Array

__all__ = ["device_get"]


def _get(x: Any) -> Any:
    if isinstance(x, Array | EagerArray | Tracer):  # a tracer raises ConcretizationError
        return np.asarray(x)
    return x


def device_get(x: Any) -> Any:
    """``x`` with every mj array (device ``Array`` or eager result) replaced by a host NumPy
    array; other leaves (NumPy arrays, Python scalars) are returned as they are, as in JAX."""
    with _jaxlib.explicit_transfers("get"):
        return tree_map(_get, x)
