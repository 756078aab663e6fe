"""The pmap axes of the module being lowered, for the collectives' replica groups.

``pmap`` compiles its function as one replica per device and lowers it inside
:func:`replica_axis`; a collective's lowering rule asks :func:`replica_groups` which
replicas take part together. A collective over any other axis cannot be compiled (``jit``
compiles for one device; vmap's axes are batched away before lowering).
"""

from __future__ import annotations

import threading
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from mj_core.extend import names_of
from mj_xla._jaxlib import ir

__all__ = ["int64_attr", "replica_axis", "replica_count", "replica_groups"]


class _Lowering(threading.local):
    def __init__(self) -> None:
        self.axis: tuple[Hashable, int] | None = None


_state = _Lowering()


@contextmanager
def replica_axis(name: Hashable, size: int) -> Iterator[None]:
    """Lower the block's modules as ``size`` replicas mapped over axis ``name``."""
    prev = _state.axis
    _state.axis = (name, size)
    try:
        yield
    finally:
        _state.axis = prev


def replica_groups(prim_name: str, axis_name: Any, axis_index_groups: Any = None) -> ir.Attribute:
    """The ``replica_groups`` attribute of a collective over ``axis_name``: every replica in
    one group, or the given ``axis_index_groups`` (replica ``i`` is axis index ``i``)."""
    axis = _state.axis
    names = names_of(axis_name)
    if axis is None or names != (axis[0],):
        where = "a pmap over another axis" if axis is not None else "jit (one device)"
        raise NotImplementedError(
            f"{prim_name} over axis {axis_name!r} cannot be compiled: it is not the axis of a "
            f"pmap being compiled here ({where}). Collectives over a vmap axis are computed by "
            "vmap; over a pmap axis they must be inside that pmap."
        )
    size = axis[1]
    groups = [list(range(size))] if axis_index_groups is None else axis_index_groups
    return int64_attr(groups)


def int64_attr(rows: Any) -> ir.Attribute:
    """A dense ``i64`` attribute holding the matrix ``rows`` (groups, source-target pairs)."""
    values = (
        np.asarray(rows, np.int64).reshape(len(rows), -1)
        if len(rows)
        else np.zeros((0, 2), np.int64)
    )
    attr: ir.Attribute = ir.DenseIntElementsAttr.get(values)  # type: ignore[call-overload]
    return attr


def replica_count() -> int:
    """The number of replicas of the module being lowered (1 outside a pmap)."""
    axis = _state.axis
    return 1 if axis is None else axis[1]
