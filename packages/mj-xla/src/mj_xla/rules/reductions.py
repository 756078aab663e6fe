"""Lowering rules of reductions, arg-reductions and cumulative reductions.

Each reduction is one ``stablehlo.reduce`` whose body is the binary op and whose init is the
op's identity (see :mod:`mj_xla._monoids`); argmax/argmin are one variadic reduce over (value,
iota); cumulative ops are one ``stablehlo.reduce_window`` (XLA:CPU turns the full-length window
into a linear scan).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mj_core import Primitive
from mj_core.dtypes import is_inexact
from mj_core.prims.reductions import (
    argmax_p,
    argmin_p,
    cummax_p,
    cummin_p,
    cumprod_p,
    cumsum_p,
    reduce_and_p,
    reduce_max_p,
    reduce_min_p,
    reduce_or_p,
    reduce_prod_p,
    reduce_sum_p,
    reduction_identity,
)
from mj_xla._jaxlib import Value, hlo, ir, ir_tensor_type
from mj_xla._lowering import (
    Avals,
    LoweringContext,
    Values,
    as_dtype,
    aval_to_ir_type,
    compare,
    ir_constant,
    lowering_rules,
)
from mj_xla._monoids import reduce_op, set_combiner

__all__: list[str] = []


def _register_reduction(prim: Primitive, name: str) -> None:
    def rule(
        ctx: LoweringContext,
        avals_in: Avals,
        avals_out: Avals,
        in_vals: Values,
        *,
        axes: tuple[int, ...],
    ) -> list[Value]:
        ndim = avals_in[0].ndim
        dims = sorted({a % ndim for a in axes}) if ndim else []
        return [reduce_op(in_vals[0], avals_in[0], dims, name)]

    rule.__name__ = f"{prim.name}_lowering"
    lowering_rules[prim] = rule


for _prim, _name in [
    (reduce_sum_p, "sum"),
    (reduce_prod_p, "prod"),
    (reduce_max_p, "max"),
    (reduce_min_p, "min"),
    (reduce_and_p, "and"),
    (reduce_or_p, "or"),
]:
    _register_reduction(_prim, _name)


def _register_arg_reduction(prim: Primitive, direction: str, init_name: str) -> None:
    """argmax/argmin: a variadic reduce over (value, index). The first NaN wins (like NumPy);
    ties go to the lower index."""

    def rule(
        ctx: LoweringContext,
        avals_in: Avals,
        avals_out: Avals,
        in_vals: Values,
        *,
        axes: tuple[int, ...],
        index_dtype: np.dtype[Any],
    ) -> list[Value]:
        aval, out = avals_in[0], avals_out[0]
        axis = axes[0] % aval.ndim
        dtype, idx_dtype = aval.dtype, out.dtype
        iota = hlo.iota(ir_tensor_type(aval.shape, idx_dtype), axis)
        init_val = ir_constant(reduction_identity(init_name, dtype), dtype)
        init_idx = ir_constant(0, idx_dtype)
        op = hlo.ReduceOp(
            [ir_tensor_type(out.shape, dtype), aval_to_ir_type(out)],
            [in_vals[0], iota],
            [init_val, init_idx],
            [axis],
        )
        sv, si = ir_tensor_type((), dtype), ir_tensor_type((), idx_dtype)
        block = op.body.blocks.append(sv, si, sv, si)
        av, ai, bv, bi = block.arguments
        with ir.InsertionPoint(block):
            take_a = compare(av, bv, direction, dtype)
            if is_inexact(dtype):  # a NaN wins (bfloat16 and the float8 types too)
                take_a = hlo.or_(take_a, compare(av, av, "NE", dtype))
            tie = hlo.and_(compare(av, bv, "EQ", dtype), compare(ai, bi, "LT", idx_dtype))
            hlo.return_([hlo.select(take_a, av, bv), hlo.select(hlo.or_(take_a, tie), ai, bi)])
        return [op.results[1]]

    rule.__name__ = f"{prim.name}_lowering"
    lowering_rules[prim] = rule


_register_arg_reduction(argmax_p, "GT", "max")
_register_arg_reduction(argmin_p, "LT", "min")


def _register_cumulative(prim: Primitive, name: str) -> None:
    """A reduce_window whose window spans the whole axis, padded on the leading side."""

    def rule(
        ctx: LoweringContext,
        avals_in: Avals,
        avals_out: Avals,
        in_vals: Values,
        *,
        axis: int,
        reverse: bool,
    ) -> list[Value]:
        aval, out = avals_in[0], avals_out[0]
        x = as_dtype(in_vals[0], aval, out.dtype)
        ndim = aval.ndim
        axis %= ndim
        n = aval.shape[axis]
        if n == 0:  # nothing to accumulate, and XLA refuses an empty window
            return [x]
        pad = np.zeros((ndim, 2), np.int64)
        pad[axis] = (0, n - 1) if reverse else (n - 1, 0)
        window = [n if k == axis else 1 for k in range(ndim)]
        init = ir_constant(reduction_identity(name, out.dtype), out.dtype)
        op = hlo.ReduceWindowOp(
            [aval_to_ir_type(out)],
            [x],
            [init],
            window,
            padding=ir.DenseIntElementsAttr.get(pad),  # type: ignore[call-overload]
        )
        set_combiner(op.body, name, out.dtype)
        return [op.result]

    rule.__name__ = f"{prim.name}_lowering"
    lowering_rules[prim] = rule


for _prim, _name in [
    (cumsum_p, "sum"),
    (cumprod_p, "prod"),
    (cummax_p, "max"),
    (cummin_p, "min"),
]:
    _register_cumulative(_prim, _name)
