"""Lowering rules of reductions, scans, ``dot_general`` and ``sort``.

Each reduction is one ``stablehlo.reduce`` whose body is the binary op and whose init is the
op's identity; argmax/argmin are one variadic reduce over (value, iota); cumulative ops are
one ``stablehlo.reduce_window`` (XLA:CPU turns the full-length window into a linear scan);
``dot_general`` is one ``stablehlo.dot_general``; ``sort`` one ``stablehlo.sort`` with a
lexicographic comparator.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mj_core.avals import ShapedArray
from mj_core.primitive import Primitive
from mj_core.prims import contractions as ct
from mj_core.prims import reductions as rd
from mj_core.prims import sorting as so
from mj_xla._jaxlib import Value, hlo, ir, ir_tensor_type
from mj_xla._precision import precision_attr
from mj_xla.lowering import (
    Avals,
    LoweringContext,
    Values,
    aval_to_ir_type,
    ir_constant,
    lowering_rules,
)
from mj_xla.structural_lowering import as_dtype

__all__ = ["reduce_op", "set_combiner"]

Binary = Callable[[Value, Value], Value]


def _scalar_type(dtype: np.dtype[Any]) -> ir.RankedTensorType:
    return ir_tensor_type((), dtype)


def _replace(current: Value, update: Value) -> Value:
    return update


def _combiner(name: str, dtype: np.dtype[Any]) -> Binary:
    """The binary op of reduction ``name`` on ``dtype`` (max/min on bool are or/and);
    ``"replace"`` is the overwriting scatter's."""
    is_bool = dtype == np.bool_
    ops: dict[str, Binary] = {
        "sum": hlo.add,
        "prod": hlo.multiply,
        "max": hlo.or_ if is_bool else hlo.maximum,
        "min": hlo.and_ if is_bool else hlo.minimum,
        "and": hlo.and_,
        "or": hlo.or_,
        "replace": _replace,
    }
    return ops[name]


def set_combiner(region: ir.Region, name: str, dtype: np.dtype[Any]) -> None:
    """Fill the body ``region`` of a reduce/reduce_window/scatter op with the scalar binary
    op ``name`` (see :func:`_combiner`) on ``dtype``."""
    scalar = _scalar_type(dtype)
    block = region.blocks.append(scalar, scalar)
    with ir.InsertionPoint(block):
        hlo.return_([_combiner(name, dtype)(*block.arguments)])


def reduce_op(x: Value, aval: ShapedArray, axes: Sequence[int], name: str) -> Value:
    """One ``stablehlo.reduce`` of ``x`` over ``axes`` with reduction ``name``'s op."""
    dtype = aval.dtype
    out_shape = [d for i, d in enumerate(aval.shape) if i not in axes]
    init = ir_constant(rd.reduction_identity(name, dtype), dtype)
    op = hlo.ReduceOp([ir_tensor_type(out_shape, dtype)], [x], [init], list(axes))
    set_combiner(op.body, name, dtype)
    return op.result


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
    (rd.reduce_sum_p, "sum"),
    (rd.reduce_prod_p, "prod"),
    (rd.reduce_max_p, "max"),
    (rd.reduce_min_p, "min"),
    (rd.reduce_and_p, "and"),
    (rd.reduce_or_p, "or"),
]:
    _register_reduction(_prim, _name)


def _compare(
    x: Value, y: Value, direction: str, dtype: np.dtype[Any], total: bool = False
) -> Value:
    kind = "TOTALORDER" if total else "FLOAT"
    if dtype.kind == "i":
        kind = "SIGNED"
    elif dtype.kind in "ub":
        kind = "UNSIGNED"
    return hlo.compare(
        x,
        y,
        hlo.ComparisonDirectionAttr.get(direction),
        compare_type=hlo.ComparisonTypeAttr.get(kind),
    )


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
        init_val = ir_constant(rd.reduction_identity(init_name, dtype), dtype)
        init_idx = ir_constant(0, idx_dtype)
        op = hlo.ReduceOp(
            [ir_tensor_type(out.shape, dtype), aval_to_ir_type(out)],
            [in_vals[0], iota],
            [init_val, init_idx],
            [axis],
        )
        sv, si = _scalar_type(dtype), _scalar_type(idx_dtype)
        block = op.body.blocks.append(sv, si, sv, si)
        av, ai, bv, bi = block.arguments
        with ir.InsertionPoint(block):
            take_a = _compare(av, bv, direction, dtype)
            if dtype.kind in "fc":
                take_a = hlo.or_(take_a, _compare(av, av, "NE", dtype))
            tie = hlo.and_(_compare(av, bv, "EQ", dtype), _compare(ai, bi, "LT", idx_dtype))
            hlo.return_([hlo.select(take_a, av, bv), hlo.select(hlo.or_(take_a, tie), ai, bi)])
        return [op.results[1]]

    rule.__name__ = f"{prim.name}_lowering"
    lowering_rules[prim] = rule


_register_arg_reduction(rd.argmax_p, "GT", "max")
_register_arg_reduction(rd.argmin_p, "LT", "min")


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
        pad = np.zeros((ndim, 2), np.int64)
        pad[axis] = (0, n - 1) if reverse else (n - 1, 0)
        window = [n if k == axis else 1 for k in range(ndim)]
        init = ir_constant(rd.reduction_identity(name, out.dtype), out.dtype)
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
    (rd.cumsum_p, "sum"),
    (rd.cumprod_p, "prod"),
    (rd.cummax_p, "max"),
    (rd.cummin_p, "min"),
]:
    _register_cumulative(_prim, _name)


@lowering_rules.register(ct.dot_general_p)
def _dot_general_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    dimension_numbers: tuple[
        tuple[Sequence[int], Sequence[int]], tuple[Sequence[int], Sequence[int]]
    ],
    precision: Any = None,
    preferred_element_type: Any = None,
) -> list[Value]:
    (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
    out = avals_out[0]
    lhs_aval, rhs_aval = avals_in
    dtype = rhs_aval.dtype if lhs_aval.weak_type else lhs_aval.dtype  # a weak one adopts
    lhs = as_dtype(in_vals[0], lhs_aval, dtype)
    rhs = as_dtype(in_vals[1], rhs_aval, dtype)
    dims = hlo.DotDimensionNumbers.get(
        lhs_batching_dimensions=list(lhs_batch),
        rhs_batching_dimensions=list(rhs_batch),
        lhs_contracting_dimensions=list(lhs_contract),
        rhs_contracting_dimensions=list(rhs_contract),
    )
    return [
        hlo.dot_general(
            aval_to_ir_type(out), lhs, rhs, dims, precision_config=precision_attr(precision)
        )
    ]


@lowering_rules.register(so.sort_p)
def _sort_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    dimension: int,
    is_stable: bool,
    num_keys: int,
) -> list[Value]:
    """Lexicographic on the first ``num_keys`` operands; floats in NumPy's order (NaN last,
    -0 == +0), complex numbers by real part then imaginary part (XLA has no complex order)."""
    ndim = avals_in[0].ndim
    op = hlo.SortOp(
        [aval_to_ir_type(a) for a in avals_out],
        list(in_vals),
        dimension=dimension % ndim,
        is_stable=is_stable,
    )
    scalars = []
    for a in avals_in:
        scalars += [_scalar_type(a.dtype)] * 2
    block = op.comparator.blocks.append(*scalars)
    args = list(block.arguments)
    with ir.InsertionPoint(block):
        keys: list[tuple[Value, Value, np.dtype[Any]]] = []
        for k in range(num_keys):
            dtype = avals_in[k].dtype
            left: Value = args[2 * k]
            right: Value = args[2 * k + 1]
            parts = [(left, right, dtype)]
            if dtype.kind == "c":
                part = np.dtype(np.float32 if dtype == np.complex64 else np.float64)
                parts = [
                    (hlo.real(left), hlo.real(right), part),
                    (hlo.imag(left), hlo.imag(right), part),
                ]
            keys += [(_canonical_key(x, t), _canonical_key(y, t), t) for x, y, t in parts]

        lhs, rhs, dtype = keys[-1]
        result = _compare(lhs, rhs, "LT", dtype, total=True)
        for lhs, rhs, dtype in reversed(keys[:-1]):
            less = _compare(lhs, rhs, "LT", dtype, total=True)
            equal = _compare(lhs, rhs, "EQ", dtype, total=True)
            result = hlo.or_(less, hlo.and_(equal, result))
        hlo.return_([result])
    return list(op.results)


def _canonical_key(x: Value, dtype: np.dtype[Any]) -> Value:
    """-0.0 -> +0.0 and every NaN -> +NaN, so TOTALORDER matches NumPy's sort order."""
    if dtype.kind != "f":
        return x
    zero = ir_constant(0, dtype)
    x = hlo.select(_compare(x, zero, "EQ", dtype), zero, x)
    nan = ir_constant(np.nan, dtype)
    return hlo.select(_compare(x, x, "NE", dtype), nan, x)
