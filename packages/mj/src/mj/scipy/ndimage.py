"""``mj.scipy.ndimage``: ``map_coordinates``, interpolation of an array at arbitrary
coordinates (orders 0 and 1), as ``jax.scipy.ndimage``.

Built from gathers and elementwise operations, so it differentiates with respect to the
input and the coordinates, batches and compiles. The boundary modes are JAX's: ``'wrap'``
and ``'constant'`` behave as SciPy's ``'grid-wrap'`` and ``'grid-constant'``.
"""

from __future__ import annotations

import functools
import itertools
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mj import numpy as mnp
from mj_core import lax
from mj_core.errors import user_line_suffix
from mj_core.extend import AnyArray, Array, ArrayLike

__all__ = ["map_coordinates"]


def _mirror_index_fixer(index: AnyArray, size: int) -> Array:
    s = size - 1  # half-wavelength of the triangular wave
    return mnp.abs(mnp.remainder(index + s, 2 * s) - s)


def _reflect_index_fixer(index: AnyArray, size: int) -> Array:
    return mnp.floor_divide(_mirror_index_fixer(2 * index + 1, 2 * size + 1) - 1, 2)


def _constant_index(index: object, size: int) -> AnyArray:
    return index  # out-of-range indices are masked to cval (the gather clamps them)


def _nearest_index(index: ArrayLike, size: int) -> Array:
    return mnp.clip(index, 0, size - 1)


def _wrap_index(index: ArrayLike, size: int) -> Array:
    return mnp.remainder(index, size)


_INDEX_FIXERS: dict[str, Callable[[AnyArray, int], AnyArray]] = {
    "constant": _constant_index,
    "nearest": _nearest_index,
    "wrap": _wrap_index,
    "mirror": _mirror_index_fixer,
    "reflect": _reflect_index_fixer,
}

# One interpolation node: (integer index, weight).
_Node = tuple[AnyArray, Any]


def _nearest_nodes(coordinate: AnyArray) -> list[_Node]:
    rounded = coordinate if mnp.issubdtype(coordinate.dtype, np.integer) else lax.round(coordinate)
    return [(rounded.astype(np.int32), 1)]


def _linear_nodes(coordinate: ArrayLike) -> list[_Node]:
    lower = mnp.floor(coordinate)
    upper_weight = coordinate - lower
    index = lower.astype(np.int32)
    return [(index, 1 - upper_weight), (index + 1, upper_weight)]


_INTERPOLATIONS: dict[int, Callable[[AnyArray], list[_Node]]] = {
    0: _nearest_nodes,
    1: _linear_nodes,
}


def map_coordinates(
    input: AnyArray,
    coordinates: Sequence[AnyArray],
    order: int,
    mode: str = "constant",
    cval: Any = 0.0,
) -> AnyArray:
    """``input`` interpolated at ``coordinates`` (one array per axis of ``input``, all of the
    result's shape): ``order=0`` takes the nearest element (halves round away from zero),
    ``order=1`` interpolates linearly. Points outside the array follow ``mode``:
    ``'constant'`` (``cval``), ``'nearest'``, ``'wrap'``, ``'mirror'`` or ``'reflect'``.
    Integer inputs give rounded integer results."""
    arr = mnp.asarray(input)
    coords = [mnp.asarray(c) for c in coordinates]
    if len(coords) != arr.ndim:
        raise ValueError(
            "map_coordinates: coordinates must be a sequence of length input.ndim, but "
            f"{len(coords)} != {arr.ndim}{user_line_suffix()}"
        )
    fixer = _INDEX_FIXERS.get(mode)
    if fixer is None:
        raise NotImplementedError(
            f"map_coordinates: mode {mode!r} is not supported; expected one of "
            f"{sorted(_INDEX_FIXERS)}"
        )
    interpolate = _INTERPOLATIONS.get(order)
    if interpolate is None:
        raise NotImplementedError(
            f"map_coordinates: order {order!r} is not supported; expected 0 (nearest) or 1 (linear)"
        )
    cval_arr = mnp.asarray(cval, arr.dtype)
    per_axis = []
    for coordinate, size in zip(coords, arr.shape, strict=True):
        nodes = []
        for index, weight in interpolate(coordinate):
            valid = (index >= 0) & (index < size) if mode == "constant" else None
            nodes.append((fixer(index, size), valid, weight))
        per_axis.append(nodes)
    contributions = []
    for items in itertools.product(*per_axis):
        indices = tuple(index for index, _, _ in items)
        values = arr[indices]
        masks = [valid for _, valid, _ in items if valid is not None]
        if masks:
            values = mnp.where(functools.reduce(operator.and_, masks), values, cval_arr)
        weight = functools.reduce(operator.mul, [w for _, _, w in items])
        contributions.append(weight * values)
    result = functools.reduce(operator.add, contributions)
    if mnp.issubdtype(arr.dtype, np.integer):
        result = lax.round(result) if mnp.issubdtype(result.dtype, np.inexact) else result
    return result.astype(arr.dtype)
