"""``jax.lax`` functions that are compositions, not primitives: ``batch_matmul`` (a
``dot_general`` with every leading axis a batch axis) and ``collapse`` (a ``reshape`` merging
a range of axes)."""

from __future__ import annotations

import math
from typing import Any

from mj_core import lax
from mj_core.errors import user_line_suffix
from mj_core.extend import Array, shape_of

__all__ = ["batch_matmul", "collapse"]


def batch_matmul(lhs: Array, rhs: Array, precision: Any = None) -> Array:
    """Matrix products of two stacks of matrices of the same rank (``[..., m, k] @
    [..., k, n]``; the leading axes are batch axes and must match, no broadcasting)."""
    lhs_nd, rhs_nd = len(shape_of(lhs)), len(shape_of(rhs))
    if min(lhs_nd, rhs_nd) < 2:
        raise ValueError(
            f"batch_matmul: arguments must be at least 2-D, got shapes {shape_of(lhs)} and "
            f"{shape_of(rhs)}{user_line_suffix()}"
        )
    if lhs_nd != rhs_nd:
        raise ValueError(
            f"batch_matmul: arguments must have the same rank, got shapes {shape_of(lhs)} "
            f"and {shape_of(rhs)}{user_line_suffix()}"
        )
    batch = tuple(range(lhs_nd - 2))
    return lax.dot_general(
        lhs, rhs, (((lhs_nd - 1,), (rhs_nd - 2,)), (batch, batch)), precision=precision
    )


def collapse(operand: Array, start_dimension: int, stop_dimension: int | None = None) -> Array:
    """``operand`` with axes ``start_dimension:stop_dimension`` (Python slice semantics)
    merged into one."""
    shape = tuple(shape_of(operand))
    lo, hi, _ = slice(start_dimension, stop_dimension).indices(len(shape))
    if hi < lo:
        raise ValueError(
            f"collapse: invalid dimension range [{start_dimension}:{stop_dimension}] for shape "
            f"{shape}{user_line_suffix()}"
        )
    return lax.reshape(operand, (*shape[:lo], math.prod(shape[lo:hi]), *shape[hi:]))
