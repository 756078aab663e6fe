"""NumPy-style promotion and broadcasting of elementwise operands, made explicit for StableHLO.

StableHLO has no implicit broadcasting or promotion, while mj's elementwise primitives (those
of ``mj_core.prims.elementwise_specs``: arithmetic, comparisons, the special functions)
broadcast like NumPy and promote with NEP 50. Their rules therefore first bring each operand to
the output shape and the *compute* dtype with :func:`lower_operands`, then emit the natural
op. The compute dtype is the promoted operand dtype, or its inexact counterpart for
float-valued functions of integers (``sin(int32)`` computes in float64, like NumPy's ufuncs).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from mj_core import Primitive
from mj_core.dtypes import result_type
from mj_core.prims import elementwise as ew
from mj_xla._jaxlib import Value
from mj_xla._lowering import Avals, LoweringContext, Values, broadcast_to_aval, lowering_rules

__all__ = ["compute_dtype", "lower_operands", "register_elementwise"]


def compute_dtype(prim: Primitive, avals_in: Avals) -> np.dtype[Any]:
    """The dtype ``prim`` computes in: promoted operands, made inexact for float functions."""
    spec = ew.elementwise_specs[prim]
    operands = avals_in[1:] if spec.first_operand_is_selector else avals_in
    dtype, _ = result_type(*((a.dtype, a.weak_type) for a in operands))
    if spec.out_dtype is ew.to_inexact_dtype:
        return ew.to_inexact_dtype(dtype)
    return dtype


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
