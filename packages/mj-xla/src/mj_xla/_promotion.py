"""NumPy-style promotion and broadcasting of elementwise operands, made explicit for StableHLO.

StableHLO has no implicit broadcasting or conversion, while mj's elementwise primitives (those
of ``mj_core.prims.elementwise_specs``: arithmetic, comparisons, the special functions)
broadcast like NumPy and let weak operands (Python scalars) take the other operands' dtype.
Their rules therefore first bring each operand to the output shape and the *compute* dtype
with :func:`lower_operands`, then emit the natural op. The compute dtype is mj-core's
``compute_dtype``: the operands' common dtype, or its inexact counterpart for float-valued
functions of integers (``sin(int32)`` computes in float32, as in JAX).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from mj_core import Primitive
from mj_core.prims.elementwise import compute_dtype
from mj_xla._jaxlib import Value
from mj_xla._lowering import Avals, LoweringContext, Values, broadcast_to_aval, lowering_rules

__all__ = ["compute_dtype", "lower_operands", "register_elementwise"]


def lower_operands(
    prim: Primitive, avals_in: Avals, avals_out: Avals, in_vals: Values
) -> tuple[list[Value], np.dtype[Any]]:
    """Every operand converted and broadcast to the output shape and compute dtype."""
    dtype = compute_dtype(prim, avals_in)
    shape = avals_out[0].shape
    return [
        broadcast_to_aval(v, a, shape, dtype) for v, a in zip(in_vals, avals_in, strict=True)
    ], dtype


def register_elementwise(prim: Primitive, op: Callable[..., Value]) -> None:
    """Register the rule "promote/broadcast the operands, then apply ``op``"."""

    def rule(
        ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values, **params: Any
    ) -> list[Value]:
        args, _ = lower_operands(prim, avals_in, avals_out, in_vals)
        return [op(*args)]

    rule.__name__ = f"{prim.name}_lowering"
    lowering_rules[prim] = rule
