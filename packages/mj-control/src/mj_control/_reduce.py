"""``lax.reduce`` and ``lax.reduce_window`` with a general body (JAX's ``reduce_p`` and
``reduce_window_p``).

A monoid (``lax.add`` with a concrete ``0``, ``lax.max`` with ``-inf``, ...) takes mj-core's
monoid reductions (``reduce_sum``, ``reduce_window_max``, ...); any other computation (a Python
function, a traced init value, several operands given as pytrees) is traced into a jaxpr over
scalars, ``(*xs, *ys) -> (*outs)``, which the primitive carries and lowers as the body of a
StableHLO ``reduce`` / ``reduce_window``. Eagerly the primitive is compiled and run (JAX's
``apply_primitive``), so eager and ``jit`` agree.

Derivatives follow JAX: ``reduce``'s JVP reduces the operands (reduced axes moved to the front
and flattened) as a balanced tree of calls of the computation, ``vmap``-ed over the kept axes,
and differentiates that (so ``grad`` works too); ``reduce_window``'s JVP is a variadic
``reduce_window`` over (primals, tangents) whose body is the JVP of the computation
(forward mode only, as in JAX). ``vmap`` moves the batch axis to the front and leaves it
unreduced (a batched init value is refused, as in JAX).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mj_autodiff.extend import Zero, instantiate_zeros, jvp_flat, jvp_jaxpr, jvp_rules
from mj_batch import vmap
from mj_batch.extend import move_batch_axis, not_mapped, vmap_rules
from mj_core import Primitive, ShapedArray, Tracer, bind, get_aval, impl_rules, raise_to_shaped
from mj_core.prims.reductions import int_sequence, monoid_reducer
from mj_core.prims.structural import broadcast, pad, reshape, slice_in_dim, squeeze
from mj_core.prims.windowed import (
    check_window_params,
    reduce_window_shape,
    window_monoid_reducer,
    window_params,
)
from mj_core.tree_util import PyTreeDef, tree_flatten, tree_unflatten
from mj_ir import ClosedJaxpr, abstract_eval_rules, jaxpr_as_fun
from mj_ir.extend import trace_to_closed_jaxpr
from mj_xla.extend import (
    Avals,
    LoweringContext,
    Value,
    Values,
    aval_to_ir_type,
    compiled_impl,
    hlo,
    ir,
    lowering_rules,
)

__all__ = ["reduce", "reduce_p", "reduce_window", "reduce_window_p"]

reduce_p = Primitive("reduce", multiple_results=True)
reduce_window_p = Primitive("reduce_window", multiple_results=True)


# --- the computation, traced ------------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def _computation_jaxpr(
    computation: Callable[..., Any], avals: tuple[ShapedArray, ...], tree: PyTreeDef
) -> tuple[ClosedJaxpr, PyTreeDef]:
    """``computation(xs, ys)`` (``xs``, ``ys`` pytrees ``tree`` of scalars ``avals``) as a
    closed jaxpr over the flat scalars, and the tree of its result (JAX's
    ``_variadic_reduction_jaxpr``, cached the same way)."""
    n = len(avals)
    out_tree: list[PyTreeDef] = []

    def flat(*args: Any) -> list[Any]:
        xs, ys = tree_unflatten(tree, args[:n]), tree_unflatten(tree, args[n:])
        outs, t = tree_flatten(computation(xs, ys))
        out_tree.append(t)
        return outs

    closed = trace_to_closed_jaxpr(flat, [*avals, *avals])
    if any(isinstance(c, Tracer) for c in closed.consts):
        raise NotImplementedError(
            "Reduction computations can't close over Tracers. Please open an issue "
            "at https://github.com/jax-ml/jax."
        )
    return closed, out_tree[0]


def _scalar_avals(values: Sequence[Any]) -> tuple[ShapedArray, ...]:
    return tuple(raise_to_shaped(get_aval(v)) for v in values)


def _flat_args(api: str, operands: Any, init_values: Any) -> tuple[list[Any], list[Any], Any]:
    flat_ops, op_tree = tree_flatten(operands)
    flat_inits, init_tree = tree_flatten(init_values)
    if op_tree != init_tree:
        raise ValueError(
            f"Operands must have the same tree structure as init_values: {op_tree} vs. {init_tree}"
        )
    if len(flat_ops) != len(flat_inits):
        raise ValueError(
            "Must have same total number of operands as init_values: "
            f" {len(flat_ops)} vs. {len(flat_inits)}"
        )
    if not flat_ops:
        raise ValueError(f"{api} must have at least one operand.")
    return flat_ops, flat_inits, op_tree


# --- reduce -----------------------------------------------------------------------------------


def reduce(
    operands: Any,
    init_values: Any,
    computation: Callable[[Any, Any], Any],
    dimensions: Sequence[int],
) -> Any:
    """Reduce ``operands`` (an array or a pytree of arrays of one shape) over ``dimensions``
    with ``computation`` starting from ``init_values`` (scalars, the same pytree): XLA's
    ``Reduce`` (``jax.lax.reduce``). ``computation`` should be associative and commutative
    with ``init_values`` its identity: XLA may reorder it."""
    flat_ops, flat_inits, tree = _flat_args("reduce", operands, init_values)
    dims = int_sequence("reduce", "dimensions", dimensions)
    if len(flat_ops) == 1:
        monoid = monoid_reducer(computation, flat_inits[0], flat_ops[0])
        if monoid is not None:
            return monoid(flat_ops[0], dims)
    closed, out_tree = _computation_jaxpr(computation, _scalar_avals(flat_inits), tree)
    if out_tree != tree:
        raise ValueError(
            f"reduce output must have the same tree structure as the operands {tree} vs. {out_tree}"
        )
    outs = bind(reduce_p, *flat_ops, *flat_inits, jaxpr=closed, dimensions=dims)
    return tree_unflatten(tree, outs)


def _reduce_avals(
    *avals: ShapedArray, jaxpr: ClosedJaxpr, dimensions: tuple[int, ...]
) -> list[ShapedArray]:
    n = len(avals) // 2
    ops, inits = avals[:n], avals[n:]
    if any(a.shape != () for a in inits):
        raise ValueError(f"reduce found non-scalar initial value: {[list(a.shape) for a in inits]}")
    if [a.dtype for a in ops] != [a.dtype for a in inits]:
        raise TypeError(
            "reduce operand dtypes should match corresponding initial value dtypes, got "
            f"operands={[a.str_short() for a in ops]} and "
            f"initial_values={[a.str_short() for a in inits]}"
        )
    if any(a.shape != ops[0].shape for a in ops):
        raise TypeError(f"reduce: operands must have one shape, got {[a.shape for a in ops]}")
    if len(set(dimensions)) != len(dimensions) or not all(0 <= d < ops[0].ndim for d in dimensions):
        raise ValueError(
            f"reduction axes {dimensions} contains out-of-bounds indices for {ops[0].str_short()}."
        )
    outs = jaxpr.out_avals
    if [a.dtype for a in outs] != [a.dtype for a in inits] or any(a.shape for a in outs):
        raise TypeError(
            "reduce: the computation must return scalars of the operands' dtypes, got "
            f"{[a.str_short() for a in outs]}"
        )
    shape = tuple(d for i, d in enumerate(ops[0].shape) if i not in dimensions)
    return [
        ShapedArray(shape, o.dtype, o.weak_type and i.weak_type)
        for o, i in zip(ops, inits, strict=True)
    ]


def _body(region: ir.Region, ctx: LoweringContext, jaxpr: ClosedJaxpr, avals: Avals) -> None:
    """Fill ``region`` with ``jaxpr`` over scalar block arguments of ``avals`` (twice)."""
    scalars = [aval_to_ir_type(ShapedArray((), a.dtype)) for a in avals]
    block = region.blocks.append(*scalars, *scalars)
    with ir.InsertionPoint(block):
        hlo.return_(ctx.lower_jaxpr(jaxpr, list(block.arguments)))


def _reduce_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    jaxpr: ClosedJaxpr,
    dimensions: tuple[int, ...],
) -> list[Value]:
    n = len(in_vals) // 2
    op = hlo.ReduceOp(
        [aval_to_ir_type(a) for a in avals_out],
        list(in_vals[:n]),
        list(in_vals[n:]),
        list(dimensions),
    )
    _body(op.body, ctx, jaxpr, avals_in[n:])
    return list(op.results)


def _reduce_tree(
    jaxpr: ClosedJaxpr, inits: Sequence[Any], out_shape: tuple[int, ...], *xs: Any
) -> list[Any]:
    """Reduce the leading axis of ``xs`` by halving it repeatedly (the halves combined by the
    computation, ``vmap``-ed over the other axes; an odd half padded with the init values):
    JAX's ``_reduce_tree``, which ``jvp`` and ``grad`` can go through."""
    reducer: Callable[..., Any] = jaxpr_as_fun(jaxpr)
    for _ in range(len(out_shape) + 1):
        reducer = vmap(reducer)
    parts = list(xs)
    while get_aval(parts[0]).shape[0] > 1:
        size = get_aval(parts[0]).shape[0]
        n1 = (size + 1) // 2
        first = [slice_in_dim(x, 0, n1, axis=0) for x in parts]
        second = [slice_in_dim(x, n1, size, axis=0) for x in parts]
        if size - n1 != n1:
            config = [(0, 1, 0)] + [(0, 0, 0)] * len(out_shape)
            second = [pad(x, i, config) for x, i in zip(second, inits, strict=True)]
        parts = list(reducer(*first, *second))
    if get_aval(parts[0]).shape[0] == 0:
        return [broadcast(i, out_shape) for i in inits]
    return [squeeze(x, (0,)) for x in parts]


def _reduce_jvp(
    primals: Sequence[Any],
    tangents: Sequence[Any],
    *,
    jaxpr: ClosedJaxpr,
    dimensions: tuple[int, ...],
) -> tuple[list[Any], list[Any]]:
    n = len(primals) // 2
    ops, inits = list(primals[:n]), list(primals[n:])
    if not all(isinstance(t, Zero) for t in tangents[n:]):
        raise NotImplementedError("reduce: the JVP of a differentiated init value")
    shape = get_aval(ops[0]).shape
    kept = tuple(i for i in range(len(shape)) if i not in dimensions)
    size = int(np.prod([shape[d] for d in dimensions], dtype=np.int64))
    flat_shape = (size, *(shape[i] for i in kept))
    order = (*dimensions, *kept)
    xs = [reshape(x, flat_shape, order) for x in ops]
    ts = [reshape(instantiate_zeros(t), flat_shape, order) for t in tangents[:n]]
    out_shape = tuple(shape[i] for i in kept)

    def tree(*args: Any) -> list[Any]:
        return _reduce_tree(jaxpr, inits, out_shape, *args)

    outs, touts = jvp_flat(tree, xs, ts)
    return list(outs), list(touts)


def _reduce_batch(
    axis_size: int, vals: Sequence[Any], dims: Sequence[Any], **params: Any
) -> tuple[list[Any], list[Any]]:
    n = len(vals) // 2
    if any(d is not not_mapped for d in dims[n:]):
        raise NotImplementedError("reduce batching is not implemented for initial values")
    ops = [move_batch_axis(axis_size, d, 0, v) for v, d in zip(vals[:n], dims[:n], strict=True)]
    dimensions = tuple(d + 1 for d in params.pop("dimensions"))
    outs = bind(reduce_p, *ops, *vals[n:], dimensions=dimensions, **params)
    return outs, [0] * n


# --- reduce_window ----------------------------------------------------------------------------


def reduce_window(
    operand: Any,
    init_value: Any,
    computation: Callable[[Any, Any], Any],
    window_dimensions: Sequence[int],
    window_strides: Sequence[int] | None = None,
    padding: str | Sequence[tuple[int, int]] = "VALID",
    base_dilation: Sequence[int] | None = None,
    window_dilation: Sequence[int] | None = None,
) -> Any:
    """Reduce every (strided, padded, dilated) window of ``operand`` (an array or a pytree of
    arrays of one shape) with ``computation`` from ``init_value`` (``jax.lax.reduce_window``,
    XLA's ``ReduceWindowWithGeneralPadding``); a monoid (``lax.add``/``max``/``min`` with its
    identity) is ``reduce_window_sum``/``_max``/``_min``."""
    flat_ops, flat_inits, tree = _flat_args("reduce_window", operand, init_value)
    if len(flat_ops) == 1:
        monoid = window_monoid_reducer(computation, flat_inits[0], flat_ops[0])
        if monoid is not None:
            return monoid(
                flat_ops[0],
                window_dimensions,
                window_strides,
                padding,
                base_dilation,
                window_dilation,
            )
    params = window_params(
        get_aval(flat_ops[0]).shape,
        window_dimensions,
        window_strides,
        padding,
        base_dilation,
        window_dilation,
    )
    closed, out_tree = _computation_jaxpr(computation, _scalar_avals(flat_inits), tree)
    if out_tree != tree:
        raise ValueError(
            "reduce_window output must have the same tree structure as the operands "
            f"{tree} vs. {out_tree}"
        )
    outs = bind(reduce_window_p, *flat_ops, *flat_inits, jaxpr=closed, **params)
    return tree_unflatten(tree, outs)


def _reduce_window_avals(
    *avals: ShapedArray, jaxpr: ClosedJaxpr, **params: Any
) -> list[ShapedArray]:
    n = len(avals) // 2
    ops, inits = avals[:n], avals[n:]
    if any(o.dtype != i.dtype for o, i in zip(ops, inits, strict=True)):
        raise TypeError(
            "reduce_window got inconsistent dtypes for operands and init_values: got operand "
            f"dtypes {[o.dtype for o in ops]} and init_value dtypes {[i.dtype for i in inits]}."
        )
    if any(i.shape != () for i in inits):
        raise TypeError(
            "reduce_window expected init_values to be scalars but init_values have shapes "
            f"{[i.shape for i in inits]}."
        )
    if any(o.shape != ops[0].shape for o in ops):
        raise TypeError(
            f"reduce_window: operands must have one shape, got {[o.shape for o in ops]}"
        )
    check_window_params("reduce_window", ops[0], **params)
    shape = reduce_window_shape(ops[0].shape, **params)
    return [ShapedArray(shape, o.dtype) for o in ops]


def _reduce_window_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    jaxpr: ClosedJaxpr,
    window_dimensions: tuple[int, ...],
    window_strides: tuple[int, ...],
    padding: tuple[tuple[int, int], ...],
    base_dilation: tuple[int, ...],
    window_dilation: tuple[int, ...],
) -> list[Value]:
    n = len(in_vals) // 2
    pads = np.asarray(padding, np.int64).reshape(len(window_dimensions), 2)
    op = hlo.ReduceWindowOp(
        [aval_to_ir_type(a) for a in avals_out],
        list(in_vals[:n]),
        list(in_vals[n:]),
        list(window_dimensions),
        window_strides=list(window_strides),
        base_dilations=list(base_dilation),
        window_dilations=list(window_dilation),
        padding=ir.DenseIntElementsAttr.get(pads),  # type: ignore[call-overload]
    )
    _body(op.body, ctx, jaxpr, avals_in[n:])
    return list(op.results)


def _reduce_window_jvp(
    primals: Sequence[Any], tangents: Sequence[Any], *, jaxpr: ClosedJaxpr, **params: Any
) -> tuple[list[Any], list[Any]]:
    """A ``reduce_window`` over (primals, tangents) whose body is the computation's JVP
    (JAX's ``reduce_window_jvp``)."""
    n = len(primals) // 2
    if not all(isinstance(t, Zero) for t in tangents[n:]):
        raise TypeError("reduce_window jvp does not support non-zero init_value_tangent.")
    ops, inits = list(primals[:n]), list(primals[n:])
    op_ts = [instantiate_zeros(t) for t in tangents[:n]]
    init_ts = [instantiate_zeros(t) for t in tangents[n:]]
    body, _ = jvp_jaxpr(jaxpr, [True] * (2 * n), True)
    # body: (*xs, *ys, *txs, *tys) -> (*outs, *touts); the window reduction pairs (x, tx) and
    # (y, ty), so its arguments are reordered to (*xs, *txs, *ys, *tys).
    run = jaxpr_as_fun(body)

    def paired(*args: Any) -> list[Any]:
        xs, txs, ys, tys = args[:n], args[n : 2 * n], args[2 * n : 3 * n], args[3 * n :]
        return list(run(*xs, *ys, *txs, *tys))

    avals = _scalar_avals([*inits, *init_ts])
    closed = trace_to_closed_jaxpr(paired, [*avals, *avals])
    outs = bind(reduce_window_p, *ops, *op_ts, *inits, *init_ts, jaxpr=closed, **params)
    return outs[:n], outs[n:]


def _reduce_window_batch(
    axis_size: int, vals: Sequence[Any], dims: Sequence[Any], **params: Any
) -> tuple[list[Any], list[Any]]:
    n = len(vals) // 2
    if any(d is not not_mapped for d in dims[n:]):
        raise NotImplementedError("reduce_window batching is not implemented for initial values")
    ops = [move_batch_axis(axis_size, d, 0, v) for v, d in zip(vals[:n], dims[:n], strict=True)]
    new = {
        "jaxpr": params["jaxpr"],
        "window_dimensions": (1, *params["window_dimensions"]),
        "window_strides": (1, *params["window_strides"]),
        "padding": ((0, 0), *params["padding"]),
        "base_dilation": (1, *params["base_dilation"]),
        "window_dilation": (1, *params["window_dilation"]),
    }
    outs = bind(reduce_window_p, *ops, *vals[n:], **new)
    return outs, [0] * n


impl_rules[reduce_p] = compiled_impl(reduce_p)
abstract_eval_rules[reduce_p] = _reduce_avals
lowering_rules[reduce_p] = _reduce_lowering
jvp_rules[reduce_p] = _reduce_jvp
vmap_rules[reduce_p] = _reduce_batch
impl_rules[reduce_window_p] = compiled_impl(reduce_window_p)
abstract_eval_rules[reduce_window_p] = _reduce_window_avals
lowering_rules[reduce_window_p] = _reduce_window_lowering
jvp_rules[reduce_window_p] = _reduce_window_jvp
vmap_rules[reduce_window_p] = _reduce_window_batch
