"""``mj.ops``: functional indexed updates that work on any array, NumPy arrays included.

``x.at[idx].set(v)`` is the everyday spelling, but eager mj computations return plain NumPy
arrays, which have no ``.at``. These functions (the names of JAX's original API) accept any
array: ``index_update(x, index[1, :], 1.0)`` is ``x.at[1, :].set(1.0)``.
"""

from __future__ import annotations

from typing import Any

from mj_core.extend import Array, IndexUpdateRef

__all__ = ["index", "index_add", "index_max", "index_min", "index_mul", "index_update"]


class _Index:
    """``index[...]`` returns the index expression itself: ``index[::2, 3:]``."""

    __slots__ = ()

    def __getitem__(self, idx: Any) -> Any:
        return idx


index = _Index()


def index_update(x: Array, idx: Any, y: Array) -> Array:
    """A copy of ``x`` with ``x[idx] = y``."""
    return IndexUpdateRef(x, idx).set(y)


def index_add(x: Array, idx: Any, y: Array) -> Array:
    """A copy of ``x`` with ``x[idx] += y`` (repeated indices accumulate)."""
    return IndexUpdateRef(x, idx).add(y)


def index_mul(x: Array, idx: Any, y: Array) -> Array:
    """A copy of ``x`` with ``x[idx] *= y``."""
    return IndexUpdateRef(x, idx).multiply(y)


def index_min(x: Array, idx: Any, y: Array) -> Array:
    """A copy of ``x`` with ``x[idx] = minimum(x[idx], y)``."""
    return IndexUpdateRef(x, idx).min(y)


def index_max(x: Array, idx: Any, y: Array) -> Array:
    """A copy of ``x`` with ``x[idx] = maximum(x[idx], y)``."""
    return IndexUpdateRef(x, idx).max(y)
