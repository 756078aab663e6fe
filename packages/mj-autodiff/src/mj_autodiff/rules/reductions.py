"""JVP and transpose rules for reductions and cumulative reductions.

``reduce_sum`` and ``cumsum`` are linear. ``reduce_max``/``reduce_min`` split the derivative
evenly between tied maxima (as JAX). ``reduce_prod`` uses products of all *other* elements
(exclusive prefix and suffix products), so zeros in the operand are handled exactly.
``cumprod``/``cummax``/``cummin`` are differentiated through a prefix scan written with
slices and pads (the derivative of the scan's elementwise steps).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from mj_autodiff._derivatives import defjvp, defjvp2, defjvp_zero, deflinear2
from mj_autodiff._jvp import jvp_flat, jvp_rules
from mj_autodiff._tangents import Zero, shape_dtype, tangent_aval_of
from mj_autodiff._transpose import UndefPrimal
from mj_core import Primitive, bind1, lax
from mj_core.extend import Array, ArrayLike
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
)

_A = TypeVar("_A", bound=ArrayLike)


def _kept_dims(ndim: int, axes: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(d for d in range(ndim) if d not in axes)


# --- reduce_sum (linear) ----------------------------------------------------------------------
def _reduce_sum_transpose(ct: ArrayLike, x: UndefPrimal, *, axes: tuple[int, ...]) -> list[Any]:
    shape = x.aval.shape
    return [lax.broadcast_in_dim(ct, shape, _kept_dims(len(shape), axes))]


deflinear2(reduce_sum_p, _reduce_sum_transpose)


# --- reduce_max / reduce_min ------------------------------------------------------------------
def _chooser_jvp(g: ArrayLike, ans: ArrayLike, x: ArrayLike, *, axes: tuple[int, ...]) -> Array:
    shape, dtype = shape_dtype(x)
    ans_b = lax.broadcast_in_dim(ans, shape, _kept_dims(len(shape), axes))
    location = lax.convert_element_type(lax.eq(x, ans_b), dtype)
    counts = lax.reduce_sum(location, axes)
    return lax.div(lax.reduce_sum(lax.mul(g, location), axes), counts)


defjvp2(reduce_max_p, _chooser_jvp)
defjvp2(reduce_min_p, _chooser_jvp)


# --- reduce_prod ------------------------------------------------------------------------------
def _exclusive_cumprod_last(y: ArrayLike, reverse: bool) -> Array:
    """Product of the elements strictly before (after, if ``reverse``) each one, along the
    last axis."""
    shape = shape_dtype(y)[0]
    n = shape[-1]
    inclusive = lax.cumprod(y, axis=len(shape) - 1, reverse=reverse)
    starts = [0] * len(shape)
    limits = list(shape)
    pad = [(0, 0, 0)] * len(shape)
    if reverse:
        starts[-1] = 1
        pad[-1] = (0, 1, 0)
    else:
        limits[-1] = n - 1
        pad[-1] = (1, 0, 0)
    return lax.pad(lax.slice(inclusive, starts, limits), 1, pad)


def _prod_of_others(x: ArrayLike, axes: tuple[int, ...]) -> Array:
    """For every element of ``x``, the product of the other elements of its reduction
    group (no division, so zeros are fine)."""
    shape = shape_dtype(x)[0]
    kept = _kept_dims(len(shape), axes)
    perm = (*kept, *axes)
    moved = lax.transpose(x, perm)
    moved_shape = tuple(shape[d] for d in perm)
    group = int(np.prod([shape[d] for d in axes], dtype=np.int64))
    flat = lax.reshape(moved, (*moved_shape[: len(kept)], group))
    others = lax.mul(_exclusive_cumprod_last(flat, False), _exclusive_cumprod_last(flat, True))
    back = lax.reshape(others, moved_shape)
    return lax.transpose(back, tuple(int(i) for i in np.argsort(perm)))


def _reduce_prod_jvp(g: ArrayLike, x: ArrayLike, *, axes: tuple[int, ...]) -> ArrayLike:
    if not axes:
        return g
    return lax.reduce_sum(lax.mul(g, _prod_of_others(x, axes)), axes)


defjvp(reduce_prod_p, _reduce_prod_jvp)

defjvp_zero(argmax_p)
defjvp_zero(argmin_p)
defjvp_zero(reduce_and_p)
defjvp_zero(reduce_or_p)


# --- cumulative -------------------------------------------------------------------------------
def _cumsum_transpose(ct: ArrayLike, x: UndefPrimal, *, axis: int, reverse: bool) -> list[Any]:
    return [lax.cumsum(ct, axis=axis, reverse=not reverse)]


deflinear2(cumsum_p, _cumsum_transpose)


def _prefix_scan(
    combine: Callable[[ArrayLike, ArrayLike], Array],
    identity: float,
    x: _A,
    axis: int,
    reverse: bool,
) -> _A | Array:
    """Inclusive scan of ``combine`` along ``axis`` by recursive doubling (log2(n) steps of
    elementwise ``combine`` with a shifted copy), built from differentiable primitives."""
    if reverse:
        return lax.rev(_prefix_scan(combine, identity, lax.rev(x, (axis,)), axis, False), (axis,))
    shape = shape_dtype(x)[0]
    n = shape[axis]
    offset = 1
    y: _A | Array = x
    while offset < n:
        limits = list(shape)
        limits[axis] = n - offset
        pad = [(0, 0, 0)] * len(shape)
        pad[axis] = (offset, 0, 0)
        shifted = lax.pad(lax.slice(y, [0] * len(shape), limits), identity, pad)
        y = combine(shifted, y)
        offset *= 2
    return y


def _cumulative_jvp(
    combine: Callable[[ArrayLike, ArrayLike], Array], identity: float, prim: Primitive
) -> Callable[..., tuple[list[Any], list[Any]]]:
    def rule(
        primals: list[Any], tangents: list[Any], *, axis: int, reverse: bool
    ) -> tuple[list[Any], list[Any]]:
        (x,), (t,) = primals, tangents
        ans = bind1(prim, x, axis=axis, reverse=reverse)
        if type(t) is Zero:
            return [ans], [Zero(tangent_aval_of(ans))]

        def scan(v: ArrayLike) -> list[ArrayLike]:
            return [_prefix_scan(combine, identity, v, axis, reverse)]

        _, t_out = jvp_flat(scan, [x], [t])
        return [ans], t_out

    rule.__name__ = f"{prim.name}_jvp"
    return rule


jvp_rules[cumprod_p] = _cumulative_jvp(lax.mul, 1.0, cumprod_p)
jvp_rules[cummax_p] = _cumulative_jvp(lax.max, -np.inf, cummax_p)
jvp_rules[cummin_p] = _cumulative_jvp(lax.min, np.inf, cummin_p)
