"""``block``: assemble an array from nested lists of blocks, the innermost lists joined along
the last axis, each enclosing level along the axis before it (``numpy.block``)."""

from __future__ import annotations

from typing import Any

import mj_core.numpy as cnp
from mj_core.errors import user_line_suffix
from mj_core.extend import AnyArray, Array

__all__ = ["block"]


def _at_least(x: AnyArray, rank: int) -> AnyArray:
    """``x`` with leading unit axes added up to ``rank``."""
    missing = rank - cnp.ndim(x)
    return cnp.reshape(x, (1,) * missing + cnp.shape(x)) if missing > 0 else x


def _block(xs: Any) -> tuple[Array, int]:
    """``(assembled, list depth)`` for one level of nesting."""
    if isinstance(xs, tuple):
        raise ValueError(
            f"block: tuples are not allowed, use lists; got {xs!r}{user_line_suffix()}"
        )
    if not isinstance(xs, list):
        return cnp.asarray(xs), 1
    if not xs:
        raise ValueError(f"block: empty lists are not allowed{user_line_suffix()}")
    parts, depths = zip(*(_block(x) for x in xs), strict=True)
    if any(d != depths[0] for d in depths[1:]):
        raise ValueError(
            f"block: mismatched list depths {list(depths)} (every branch of the nesting must be "
            f"equally deep){user_line_suffix()}"
        )
    rank = max(depths[0], max(cnp.ndim(p) for p in parts))
    return cnp.concatenate([_at_least(p, rank) for p in parts], axis=-depths[0]), depths[0] + 1


def block(arrays: object) -> Array:
    """The array assembled from the nested list of blocks ``arrays``."""
    out, _ = _block(arrays)
    return out
