"""JVP and transpose rules for ``gather`` and the ``scatter`` family.

``gather`` (linear in the operand) and ``scatter_add`` (linear in operand and updates) are
each other's transposes. The overwriting ``scatter`` is made linear in its tangents the way
JAX does it: tag every update with an id, scatter the ids to see which update won each
location, then mask the losers and use ``scatter_add``. ``scatter_mul`` is differentiable
in the operand (and in the updates when indices are unique); ``scatter_min``/``scatter_max``
split the derivative between tied winners.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypedDict, Unpack

import numpy as np

from mj_autodiff._derivatives import Linear, derivative_kinds
from mj_autodiff._jvp import jvp_rules
from mj_autodiff._tangents import Zero, instantiate_zeros, shape_dtype, tangent_aval_of
from mj_autodiff._transpose import Operand, UndefPrimal, transpose_rules
from mj_core import Primitive, bind1, lax
from mj_core.extend import Array, ArrayLike
from mj_core.prims.indexing import (
    GatherDimensionNumbers,
    ScatterDimensionNumbers,
    gather_p,
    scatter_add_p,
    scatter_max_p,
    scatter_min_p,
    scatter_mul_p,
    scatter_p,
    scatter_window_sizes,
)


class ScatterParams(TypedDict):
    """The params of every scatter primitive, which the rules bind on unchanged."""

    dimension_numbers: ScatterDimensionNumbers
    indices_are_sorted: bool
    unique_indices: bool
    mode: str


def _scatter_dnums(dn: GatherDimensionNumbers) -> ScatterDimensionNumbers:
    """The scatter that writes back what a gather with ``dn`` reads."""
    return ScatterDimensionNumbers(
        update_window_dims=dn.offset_dims,
        inserted_window_dims=dn.collapsed_slice_dims,
        scatter_dims_to_operand_dims=dn.start_index_map,
        operand_batching_dims=dn.operand_batching_dims,
        scatter_indices_batching_dims=dn.start_indices_batching_dims,
    )


def _gather_dnums(dn: ScatterDimensionNumbers) -> GatherDimensionNumbers:
    """The gather that reads what a scatter with ``dn`` writes."""
    return GatherDimensionNumbers(
        offset_dims=dn.update_window_dims,
        collapsed_slice_dims=dn.inserted_window_dims,
        start_index_map=dn.scatter_dims_to_operand_dims,
        operand_batching_dims=dn.operand_batching_dims,
        start_indices_batching_dims=dn.scatter_indices_batching_dims,
    )


def _gather(
    operand: ArrayLike,
    indices: ArrayLike,
    dn: GatherDimensionNumbers,
    slice_sizes: tuple[int, ...],
    mode: str,
    fill_value: ArrayLike | None,
) -> Array:
    out: Array = bind1(
        gather_p,
        operand,
        indices,
        dimension_numbers=dn,
        slice_sizes=slice_sizes,
        mode=mode,
        fill_value=fill_value,
    )
    return out


def _scatter(
    prim: Primitive,
    operand: ArrayLike,
    indices: ArrayLike,
    updates: ArrayLike,
    dn: ScatterDimensionNumbers,
    mode: str,
    unique_indices: bool = False,
) -> Array:
    out: Array = bind1(
        prim,
        operand,
        indices,
        updates,
        dimension_numbers=dn,
        indices_are_sorted=False,
        unique_indices=unique_indices,
        mode=mode,
    )
    return out


def _updates_cotangent(
    ct: ArrayLike, indices: ArrayLike, updates: UndefPrimal, dn: ScatterDimensionNumbers, mode: str
) -> Array:
    """The cotangent of a scatter's updates: ``ct`` read back at the windows they wrote."""
    sizes = scatter_window_sizes(dn, len(shape_dtype(ct)[0]), updates.aval.shape)
    return _gather(ct, indices, _gather_dnums(dn), sizes, mode, 0)


# --- gather -----------------------------------------------------------------------------------
def _gather_jvp(
    primals: list[Any],
    tangents: list[Any],
    *,
    dimension_numbers: GatherDimensionNumbers,
    slice_sizes: tuple[int, ...],
    mode: str,
    fill_value: ArrayLike | None,
) -> tuple[list[Any], list[Any]]:
    operand, indices = primals
    ans = _gather(operand, indices, dimension_numbers, slice_sizes, mode, fill_value)
    t = tangents[0]
    if type(t) is Zero:
        return [ans], [Zero(tangent_aval_of(ans))]
    return [ans], [_gather(t, indices, dimension_numbers, slice_sizes, mode, 0)]


def _gather_transpose(
    cts: list[Any],
    operand: UndefPrimal,
    indices: Operand,
    *,
    dimension_numbers: GatherDimensionNumbers,
    slice_sizes: tuple[int, ...],
    mode: str,
    fill_value: ArrayLike | None,
) -> list[Any]:
    if type(indices) is UndefPrimal:
        raise TypeError("gather: the indices cannot be a linear (tangent) value.")
    ct = cts[0]
    zeros = np.zeros(operand.aval.shape, shape_dtype(ct)[1])
    scatter_mode = "fill" if mode == "fill" else mode
    out = _scatter(
        scatter_add_p, zeros, indices, ct, _scatter_dnums(dimension_numbers), scatter_mode
    )
    return [out, None]


jvp_rules[gather_p] = _gather_jvp
transpose_rules[gather_p] = _gather_transpose
derivative_kinds[gather_p] = Linear()  # in the operand (the indices are integers)


# --- scatter_add (linear in operand and updates) ----------------------------------------------
# The scatter rules take the primitive's params (dimension_numbers, indices_are_sorted,
# unique_indices, mode) as ``**params`` so that they can bind them on unchanged.
def _scatter_add_jvp(
    primals: list[Any], tangents: list[Any], **params: Unpack[ScatterParams]
) -> tuple[list[Any], list[Any]]:
    operand, indices, updates = primals
    ans = bind1(scatter_add_p, operand, indices, updates, **params)
    t_op, t_up = tangents[0], tangents[2]
    if type(t_op) is Zero and type(t_up) is Zero:
        return [ans], [Zero(tangent_aval_of(ans))]
    t_out = bind1(
        scatter_add_p, instantiate_zeros(t_op), indices, instantiate_zeros(t_up), **params
    )
    return [ans], [t_out]


def _scatter_add_transpose(
    cts: list[Any],
    operand: Operand,
    indices: Operand,
    updates: Operand,
    **params: Unpack[ScatterParams],
) -> list[Any]:
    if type(indices) is UndefPrimal:
        raise TypeError("scatter_add: the indices cannot be a linear (tangent) value.")
    ct = cts[0]
    ct_operand = ct if type(operand) is UndefPrimal else None
    ct_updates = None
    if type(updates) is UndefPrimal:
        dn, mode = params["dimension_numbers"], params["mode"]
        ct_updates = _updates_cotangent(ct, indices, updates, dn, mode)
    return [ct_operand, None, ct_updates]


jvp_rules[scatter_add_p] = _scatter_add_jvp
transpose_rules[scatter_add_p] = _scatter_add_transpose
derivative_kinds[scatter_add_p] = Linear()  # in operand and updates


# --- scatter (overwrite) ----------------------------------------------------------------------
def _update_ids(dn: ScatterDimensionNumbers, updates_shape: tuple[int, ...]) -> Array:
    """An int array of ``updates_shape`` giving every update window its own id (1, 2, ...)."""
    scatter_dims = [d for d in range(len(updates_shape)) if d not in dn.update_window_dims]
    ids_shape = tuple(updates_shape[d] for d in scatter_dims)
    count = int(np.prod(ids_shape, dtype=np.int64))
    ids = np.arange(1, count + 1, dtype=np.int64).reshape(ids_shape)
    return lax.broadcast_in_dim(ids, updates_shape, tuple(scatter_dims))


def _scatter_jvp(
    primals: list[Any], tangents: list[Any], **params: Unpack[ScatterParams]
) -> tuple[list[Any], list[Any]]:
    operand, indices, updates = primals
    t_op, t_up = tangents[0], tangents[2]
    dn, mode = params["dimension_numbers"], params["mode"]
    if params["unique_indices"]:
        ans = bind1(scatter_p, operand, indices, updates, **params)
        t_out = bind1(
            scatter_p, instantiate_zeros(t_op), indices, instantiate_zeros(t_up), **params
        )
        return [ans], [t_out]
    op_shape, _op_dtype = shape_dtype(operand)
    up_shape = tuple(shape_dtype(updates)[0])
    ids = _update_ids(dn, up_shape)
    winners = _scatter(scatter_p, np.zeros(op_shape, np.int64), indices, ids, dn, mode)
    sizes = scatter_window_sizes(dn, len(op_shape), up_shape)
    won = lax.eq(ids, _gather(winners, indices, _gather_dnums(dn), sizes, mode, 0))
    kept = lax.eq(winners, 0)
    ans = _scatter(
        scatter_add_p,
        lax.select_n(kept, 0, operand),
        indices,
        lax.select_n(won, 0, updates),
        dn,
        mode,
    )
    t_op_masked = lax.select_n(kept, 0, instantiate_zeros(t_op))
    t_up_masked = lax.select_n(won, 0, instantiate_zeros(t_up))
    t_out = _scatter(scatter_add_p, t_op_masked, indices, t_up_masked, dn, mode)
    return [ans], [t_out]


jvp_rules[scatter_p] = _scatter_jvp


def _scatter_transpose(
    cts: list[Any],
    operand: Operand,
    indices: Operand,
    updates: Operand,
    **params: Unpack[ScatterParams],
) -> list[Any]:
    if not params["unique_indices"]:
        raise NotImplementedError(
            "scatter: transposition is only defined for unique_indices=True (differentiating "
            "an overwriting scatter goes through its JVP, which handles repeated indices)."
        )
    ct = cts[0]
    dn, mode = params["dimension_numbers"], params["mode"]
    ct_dtype = shape_dtype(ct)[1]
    ct_operand = ct_updates = None
    if type(operand) is UndefPrimal:
        up_shape = updates.aval.shape if type(updates) is UndefPrimal else shape_dtype(updates)[0]
        ct_operand = _scatter(scatter_p, ct, indices, np.zeros(up_shape, ct_dtype), dn, mode, True)
    if type(updates) is UndefPrimal:
        ct_updates = _updates_cotangent(ct, indices, updates, dn, mode)
    return [ct_operand, None, ct_updates]


transpose_rules[scatter_p] = _scatter_transpose


# --- scatter_mul ------------------------------------------------------------------------------
def _scatter_mul_jvp(
    primals: list[Any], tangents: list[Any], **params: Unpack[ScatterParams]
) -> tuple[list[Any], list[Any]]:
    operand, indices, updates = primals
    ans = bind1(scatter_mul_p, operand, indices, updates, **params)
    t_op, t_up = tangents[0], tangents[2]
    out: Any = Zero(tangent_aval_of(ans))
    if type(t_op) is not Zero:
        out = bind1(scatter_mul_p, t_op, indices, updates, **params)
    if type(t_up) is not Zero:
        if not params["unique_indices"]:
            raise NotImplementedError(
                "scatter_mul: derivatives with respect to the updates need unique_indices=True."
            )
        spread = _scatter(
            scatter_add_p,
            np.zeros(shape_dtype(operand)[0], shape_dtype(ans)[1]),
            indices,
            t_up,
            params["dimension_numbers"],
            params["mode"],
            True,
        )
        contribution = lax.mul(operand, spread)
        out = contribution if type(out) is Zero else lax.add(out, contribution)
    return [ans], [out]


jvp_rules[scatter_mul_p] = _scatter_mul_jvp


def _scatter_mul_transpose(
    cts: list[Any],
    operand: UndefPrimal,
    indices: ArrayLike,
    updates: Operand,
    **params: Unpack[ScatterParams],
) -> list[Any]:
    if type(updates) is UndefPrimal:
        raise NotImplementedError("scatter_mul is not linear in its updates.")
    ct = cts[0]
    ones = np.ones(operand.aval.shape, shape_dtype(ct)[1])
    factors = bind1(scatter_mul_p, ones, indices, updates, **params)
    return [lax.mul(ct, factors), None, None]


transpose_rules[scatter_mul_p] = _scatter_mul_transpose


# --- scatter_min / scatter_max ----------------------------------------------------------------
def _scatter_extremal_jvp(prim: Primitive) -> Callable[..., tuple[list[Any], list[Any]]]:
    def rule(
        primals: list[Any], tangents: list[Any], **params: Unpack[ScatterParams]
    ) -> tuple[list[Any], list[Any]]:
        operand, indices, updates = primals
        dn, mode = params["dimension_numbers"], params["mode"]
        ans = bind1(prim, operand, indices, updates, **params)
        op_shape, dtype = shape_dtype(ans)
        up_shape = tuple(shape_dtype(updates)[0])
        sizes = scatter_window_sizes(dn, len(op_shape), up_shape)
        op_wins = lax.convert_element_type(lax.eq(operand, ans), dtype)
        ans_at_updates = _gather(ans, indices, _gather_dnums(dn), sizes, mode, 0)
        up_wins = lax.convert_element_type(lax.eq(updates, ans_at_updates), dtype)
        zeros = np.zeros(op_shape, dtype)
        counts = lax.add(op_wins, _scatter(scatter_add_p, zeros, indices, up_wins, dn, mode))
        t_op, t_up = tangents[0], tangents[2]
        total = _scatter(
            scatter_add_p,
            lax.mul(instantiate_zeros(t_op), op_wins),
            indices,
            lax.mul(instantiate_zeros(t_up), up_wins),
            dn,
            mode,
        )
        return [ans], [lax.div(total, counts)]

    rule.__name__ = f"{prim.name}_jvp"
    return rule


jvp_rules[scatter_min_p] = _scatter_extremal_jvp(scatter_min_p)
jvp_rules[scatter_max_p] = _scatter_extremal_jvp(scatter_max_p)
