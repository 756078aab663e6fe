"""``array_equiv``: equality of two arrays up to broadcasting (``array_equal`` also asks for
equal shapes), answered as a bool array so it traces."""

from __future__ import annotations

import itertools

import mj_core.numpy as cnp
from mj_core import lax
from mj_core.extend import Array, ArrayLike

__all__ = ["array_equiv"]


def _broadcastable(s1: tuple[int, ...], s2: tuple[int, ...]) -> bool:
    pairs = itertools.zip_longest(reversed(s1), reversed(s2), fillvalue=1)
    return all(d1 == d2 or 1 in (d1, d2) for d1, d2 in pairs)


def array_equiv(a1: ArrayLike, a2: ArrayLike) -> Array:
    """Whether ``a1`` and ``a2`` broadcast together and are equal everywhere (False, not an
    error, when their shapes do not broadcast)."""
    a1, a2 = cnp.asarray(a1), cnp.asarray(a2)
    if not _broadcastable(cnp.shape(a1), cnp.shape(a2)):
        return cnp.asarray(False)
    return cnp.all(lax.eq(a1, a2))
