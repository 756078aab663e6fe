"""``sort``: sort several same-shaped operands along one dimension by the first ``num_keys``
of them (lexicographically), so values and their payloads (e.g. indices) move together."""

from __future__ import annotations

from typing import Any

import numpy as np

from mj_core.avals import ShapedArray, raise_to_shaped
from mj_core.primitive import Primitive, impl_rules
from mj_core.prims.out_avals import check_operands, out_aval_rules
from mj_core.prims.structural import check_axes
from mj_core.shapes import aval_error

__all__ = ["sort_p"]

sort_p = Primitive("sort", multiple_results=True)


@out_aval_rules.register(sort_p)
def _sort_avals(
    *operands: ShapedArray, dimension: int, is_stable: bool, num_keys: int
) -> list[ShapedArray]:
    if not operands:
        raise TypeError("sort: needs at least one operand")
    shape = operands[0].shape
    if any(op.shape != shape for op in operands):
        raise aval_error("sort", "all operands must have the same shape", operands)
    if not shape:
        raise aval_error("sort", "operands must have rank >= 1", operands)
    check_axes("sort", (dimension,), len(shape), operands)
    if not 1 <= num_keys <= len(operands):
        raise aval_error(
            "sort", f"num_keys={num_keys} must be between 1 and the number of operands", operands
        )
    return [raise_to_shaped(op) for op in operands]


@impl_rules.register(sort_p)
def _sort_impl(*operands: Any, dimension: int, is_stable: bool, num_keys: int) -> list[Any]:
    params = {"dimension": dimension, "is_stable": is_stable, "num_keys": num_keys}
    check_operands(sort_p, operands, params)
    arrays = [np.asarray(op) for op in operands]
    if num_keys == 1:
        perm = np.argsort(arrays[0], axis=dimension, kind="stable")
    else:  # np.lexsort's primary key is its last one
        perm = np.lexsort(arrays[num_keys - 1 :: -1], axis=dimension)
    return [np.take_along_axis(a, perm, axis=dimension) for a in arrays]
