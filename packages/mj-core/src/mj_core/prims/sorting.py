"""``sort``: sort several same-shaped operands along one dimension by the first ``num_keys``
of them (lexicographically), so values and their payloads (e.g. indices) move together.

The lax wrappers ``sort`` and ``sort_key_val`` follow the rules; ``__all__`` is the family's
primitives and lax API."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, overload

import numpy as np

from mj_core._avals import ShapedArray, raise_to_shaped
from mj_core._primitive import Primitive, abstract_eval_rules, impl_rules
from mj_core._shapes import aval_error, canonicalize_axis, shape_of
from mj_core._typing import Array, ArrayLike
from mj_core.prims._operands import bind, check_axes, check_operands

__all__ = [
    "sort",
    "sort_key_val",
    "sort_p",
]

sort_p = Primitive("sort", multiple_results=True)


@abstract_eval_rules.register(sort_p)
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
def _sort_impl(*operands: object, dimension: int, is_stable: bool, num_keys: int) -> list[Any]:
    params = {"dimension": dimension, "is_stable": is_stable, "num_keys": num_keys}
    check_operands(sort_p, operands, params)
    arrays = [np.asarray(op) for op in operands]
    # NumPy cannot order bfloat16 and the float8 types (their dtypes are opaque to its sort,
    # which then mixes up NaNs and numbers): sort those keys as their exact float32 values
    keys = [a.astype(np.float32) if a.dtype.kind == "V" else a for a in arrays[:num_keys]]
    # JAX orders complex keys by real part, then imaginary part, each with NaN last; NumPy's
    # complex order instead puts every value with a NaN part after all the others
    keys = [p for k in keys for p in ((k.real, k.imag) if k.dtype.kind == "c" else (k,))]
    if len(keys) == 1:
        perm = np.argsort(keys[0], axis=dimension, kind="stable")
    else:  # np.lexsort's primary key is its last one
        perm = np.lexsort(keys[::-1], axis=dimension)
    return [np.take_along_axis(a, perm, axis=dimension) for a in arrays]


# --- lax wrappers ----------------------------------------------------------------------------
@overload
def sort(
    operand: ArrayLike, dimension: int = -1, is_stable: bool = True, num_keys: int = 1
) -> Array: ...
@overload
def sort(
    operand: Sequence[ArrayLike], dimension: int = -1, is_stable: bool = True, num_keys: int = 1
) -> tuple[Array, ...]: ...
def sort(
    operand: ArrayLike | Sequence[ArrayLike],
    dimension: int = -1,
    is_stable: bool = True,
    num_keys: int = 1,
) -> Array | tuple[Array, ...]:
    """Sort one array, or a tuple/list of arrays by their first ``num_keys`` (returned as a
    tuple)."""
    operands = list(operand) if isinstance(operand, tuple | list) else [operand]
    dim = canonicalize_axis("sort", dimension, len(shape_of(operands[0])))
    outs = bind(sort_p, *operands, dimension=dim, is_stable=bool(is_stable), num_keys=int(num_keys))
    return tuple(outs) if isinstance(operand, tuple | list) else outs[0]


def sort_key_val(
    keys: ArrayLike, values: ArrayLike, dimension: int = -1, is_stable: bool = True
) -> tuple[Array, Array]:
    """Sort ``keys`` along ``dimension`` and permute ``values`` the same way."""
    out = sort((keys, values), dimension, is_stable, 1)
    return out[0], out[1]
