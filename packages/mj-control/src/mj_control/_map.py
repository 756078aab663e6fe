"""``map`` (``mj.lax.map``): apply a function to each slice of the leading axis, one at a time.

Built on ``scan`` (one loop primitive, so memory holds one slice's intermediates at a time).
With ``batch_size``, each loop step ``vmap``s the function over ``batch_size`` slices, and the
slices left over by the division are ``vmap``ped once after the loop, as in JAX.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from mj_batch import vmap
from mj_control._scan import scan
from mj_core import Array, get_aval, lax
from mj_core.errors import user_line_suffix
from mj_core.extend import ArrayLike
from mj_core.tree_util import tree_flatten, tree_map, tree_unflatten

__all__ = ["map"]


def map(f: Callable[[Any], Any], xs: object, *, batch_size: int | None = None) -> Any:
    """``stack([f(x) for x in xs])`` over the leading axis of every leaf of ``xs``, as a loop.

    ``batch_size=k`` runs ``vmap(f)`` on ``k`` slices per loop step (the remainder in one
    ``vmap`` call after the loop): fewer steps, more memory per step.
    """
    if batch_size is None:
        return scan(lambda _, x: ((), f(x)), (), xs)[1]
    try:
        size = operator.index(batch_size)
    except TypeError:
        raise TypeError(
            f"lax.map: batch_size must be an int or None, got {batch_size!r}{user_line_suffix()}"
        ) from None
    if size <= 0:
        raise ValueError(f"lax.map: batch_size must be positive, got {size}{user_line_suffix()}")
    leaves, tree = tree_flatten(xs)
    if not leaves:
        return scan(lambda _, x: ((), f(x)), (), xs)[1]
    lengths = {get_aval(x).shape[0] if get_aval(x).shape else -1 for x in leaves}
    if len(lengths) != 1 or -1 in lengths:
        shapes = [get_aval(x).shape for x in leaves]
        raise ValueError(
            "lax.map: every leaf of xs needs the same leading axis length, got shapes "
            f"{shapes}{user_line_suffix()}"
        )
    (length,) = lengths
    num_batches, remainder = divmod(length, size)
    whole = num_batches * size
    ys = None
    if num_batches:
        batched = [
            lax.reshape(_leading(x, 0, whole), (num_batches, size, *get_aval(x).shape[1:]))
            for x in leaves
        ]
        _, scan_ys = scan(lambda _, x: ((), vmap(f)(x)), (), tree_unflatten(tree, batched))
        ys = tree_map(_merge_leading_axes, scan_ys)
    if remainder:
        rest = [_leading(x, whole, length) for x in leaves]
        rest_ys = vmap(f)(tree_unflatten(tree, rest))
        ys = rest_ys if ys is None else tree_map(_concatenate, ys, rest_ys)
    return ys


def _leading(x: ArrayLike, start: int, stop: int) -> Array:
    """``x[start:stop]``."""
    shape = get_aval(x).shape
    return lax.slice(x, (start, *(0 for _ in shape[1:])), (stop, *shape[1:]))


def _merge_leading_axes(y: ArrayLike) -> Array:
    shape = get_aval(y).shape
    return lax.reshape(y, (shape[0] * shape[1], *shape[2:]))


def _concatenate(a: ArrayLike, b: ArrayLike) -> Array:
    return lax.concatenate([a, b], 0)
