"""``mj.flatten_util``: a pytree of arrays as one flat vector and back (JAX's
``jax.flatten_util``), the form optimizers, ODE solvers and line searches work on.

The vector has the leaves' promoted dtype. When all leaves share a dtype, ``unravel`` keeps
the dtype of the vector it is given (``unravel(flat < 0)`` is a tree of bools); otherwise it
casts each leaf back and insists on the promoted dtype. ``unravel`` is hashable and equal
for equal structures, so passing it as a static argument to ``jit`` does not retrace.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import mj_core.numpy as cnp
from mj_core import lax
from mj_core.extend import Array, ArrayLike
from mj_core.tree_util import PyTreeDef, tree_flatten, tree_unflatten

__all__ = ["ravel_pytree"]


@dataclass(frozen=True)
class _Unravel:
    """``flat -> pytree``: splits ``flat`` at the leaves' sizes and reshapes each piece."""

    treedef: PyTreeDef
    shapes: tuple[tuple[int, ...], ...]
    dtypes: tuple[np.dtype[Any], ...] | None  # None: keep the dtype of the given vector
    flat_dtype: np.dtype[Any]

    def __call__(self, flat: ArrayLike) -> Any:
        if self.dtypes is not None:
            dtype = cnp.result_type(flat)
            if dtype != self.flat_dtype:
                raise TypeError(
                    f"unravel function given array of dtype {dtype}, but expected dtype "
                    f"{self.flat_dtype}"
                )
        leaves, start = [], 0
        for k, shape in enumerate(self.shapes):
            size = math.prod(shape)
            leaf = lax.reshape(lax.slice(flat, (start,), (start + size,)), shape)
            if self.dtypes is not None:
                leaf = lax.convert_element_type(leaf, self.dtypes[k])
            leaves.append(leaf)
            start += size
        return tree_unflatten(self.treedef, leaves)


def ravel_pytree(pytree: object) -> tuple[Array, Callable[[Array], Any]]:
    """``(flat, unravel)``: the leaves of ``pytree`` raveled and concatenated into one 1-D
    array of their promoted dtype, and the function that rebuilds the tree from such a
    vector. A tree without leaves gives an empty float32 vector."""
    leaves, treedef = tree_flatten(pytree)
    if not leaves:
        empty = np.dtype(np.float32)
        return cnp.zeros((0,), empty), _Unravel(treedef, (), None, empty)
    arrays = [cnp.asarray(x) for x in leaves]
    dtypes = tuple(np.dtype(cnp.result_type(x)) for x in arrays)
    flat_dtype = np.dtype(cnp.result_type(*dtypes))
    shapes = tuple(tuple(cnp.shape(x)) for x in arrays)
    pieces = [
        lax.reshape(lax.convert_element_type(x, flat_dtype), (math.prod(s),))
        for x, s in zip(arrays, shapes, strict=True)
    ]
    flat = lax.concatenate(pieces, 0)
    single = all(dt == flat_dtype for dt in dtypes)
    return flat, _Unravel(treedef, shapes, None if single else dtypes, flat_dtype)
