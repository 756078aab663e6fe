"""Lowering of the windowed reductions: one ``stablehlo.reduce_window`` with the monoid's
identity as init value and its binary op as body, as JAX emits."""

from __future__ import annotations

import numpy as np

from mj_core import Primitive
from mj_core.prims.reductions import reduction_identity
from mj_core.prims.windowed import reduce_window_max_p, reduce_window_min_p, reduce_window_sum_p
from mj_xla._jaxlib import Value, hlo, ir
from mj_xla._lowering import (
    Avals,
    LoweringContext,
    Values,
    as_dtype,
    aval_to_ir_type,
    ir_constant,
    lowering_rules,
)
from mj_xla._monoids import set_combiner

__all__: list[str] = []


def _register(prim: Primitive, name: str) -> None:
    def rule(
        ctx: LoweringContext,
        avals_in: Avals,
        avals_out: Avals,
        in_vals: Values,
        *,
        window_dimensions: tuple[int, ...],
        window_strides: tuple[int, ...],
        padding: tuple[tuple[int, int], ...],
        base_dilation: tuple[int, ...],
        window_dilation: tuple[int, ...],
    ) -> list[Value]:
        aval, out = avals_in[0], avals_out[0]
        x = as_dtype(in_vals[0], aval, out.dtype)
        init = ir_constant(reduction_identity(name, out.dtype), out.dtype)
        pads = np.asarray(padding, np.int64).reshape(len(window_dimensions), 2)
        op = hlo.ReduceWindowOp(
            [aval_to_ir_type(out)],
            [x],
            [init],
            list(window_dimensions),
            window_strides=list(window_strides),
            base_dilations=list(base_dilation),
            window_dilations=list(window_dilation),
            padding=ir.DenseIntElementsAttr.get(pads),  # type: ignore[call-overload]
        )
        set_combiner(op.body, name, out.dtype)
        return [op.result]

    rule.__name__ = f"{prim.name}_lowering"
    lowering_rules[prim] = rule


_register(reduce_window_sum_p, "sum")
_register(reduce_window_max_p, "max")
_register(reduce_window_min_p, "min")
