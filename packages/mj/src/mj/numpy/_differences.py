"""Finite differences and what is built on them: ``diff`` (n-th differences, with
``prepend``/``append``), ``ediff1d``, ``gradient`` (central differences inside, one-sided
first-order ones at the edges, uniform or coordinate spacing), ``trapezoid`` (the trapezoidal
rule) and ``unwrap`` (phase unwrapping by cumulative corrections). Each is a fixed sequence of
static slices and ``lax`` arithmetic, so it differentiates, jits and batches."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import mj_core.numpy as cnp
from mj_core import lax
from mj_core.errors import user_line_suffix
from mj_core.extend import (
    AnyArray,
    Array,
    ArrayLike,
    canonicalize_axes,
    canonicalize_axis,
    check_arraylike,
    dtype_weak,
    int_tuple,
    promote,
    promote_inexact,
    static_int,
)

__all__ = ["diff", "ediff1d", "gradient", "trapezoid", "unwrap"]


def _slice(a: ArrayLike, start: int | None, stop: int | None, axis: int) -> Array:
    """``a[start:stop]`` along ``axis`` with Python's slice semantics (negative and
    out-of-range bounds included)."""
    lo, hi, _ = slice(start, stop).indices(cnp.shape(a)[axis])
    return lax.slice_in_dim(a, lo, max(lo, hi), 1, axis)


def _edges(name: str, arr: ArrayLike, edges: list[AnyArray], axis: int) -> list[AnyArray]:
    """``prepend``/``append`` promoted with ``arr`` (a weak scalar takes its dtype), a scalar
    broadcast to one slice along ``axis``."""
    check_arraylike(name, edges)
    shape = tuple(1 if i == axis else d for i, d in enumerate(cnp.shape(arr)))
    _, *edges = promote(arr, *edges)
    return [e if cnp.ndim(e) else cnp.broadcast_to(e, shape) for e in edges]


def diff(
    a: ArrayLike,
    n: int = 1,
    axis: int = -1,
    prepend: ArrayLike | None = None,
    append: ArrayLike | None = None,
) -> Array:
    """The ``n``-th discrete difference ``a[i+1] - a[i]`` along ``axis`` (``!=`` for bools);
    ``prepend``/``append`` values are joined on first."""
    check_arraylike("diff", [a])
    arr = cnp.asarray(a)
    n = static_int("diff", n, "the order n")
    axis = static_int("diff", axis, "axis")
    if n == 0:
        return arr
    if n < 0:
        raise ValueError(f"diff: the order n must be non-negative, got {n}{user_line_suffix()}")
    if cnp.ndim(arr) == 0:
        raise ValueError(f"diff: the input must be at least one-dimensional{user_line_suffix()}")
    ax = canonicalize_axis("diff", axis, cnp.ndim(arr))
    if prepend is not None or append is not None:
        edges = _edges("diff", arr, [e for e in (prepend, append) if e is not None], ax)
        before = [edges.pop(0)] if prepend is not None else []
        arr = cnp.concatenate([*before, arr, *edges], ax)
    step = lax.ne if dtype_weak(arr)[0].kind == "b" else lax.sub
    for _ in range(n):
        arr = step(_slice(arr, 1, None, ax), _slice(arr, None, -1, ax))
    return arr


def ediff1d(
    ary: ArrayLike, to_end: ArrayLike | None = None, to_begin: ArrayLike | None = None
) -> Array:
    """Differences of the flattened array, with ``to_begin``/``to_end`` (cast to its dtype)
    joined on."""
    check_arraylike("ediff1d", [ary])
    arr = cnp.ravel(cnp.asarray(ary))
    dtype, _ = dtype_weak(arr)
    if dtype.kind == "b":
        raise TypeError(
            f"ediff1d: bool input cannot be subtracted; convert it to integers first"
            f"{user_line_suffix()}"
        )
    parts = [lax.sub(_slice(arr, 1, None, 0), _slice(arr, None, -1, 0))]
    if to_begin is not None:
        check_arraylike("ediff1d", [to_begin])
        parts.insert(0, cnp.ravel(lax.convert_element_type(to_begin, dtype)))
    if to_end is not None:
        check_arraylike("ediff1d", [to_end])
        parts.append(cnp.ravel(lax.convert_element_type(to_end, dtype)))
    return cnp.concatenate(parts) if len(parts) > 1 else parts[0]


def _gradient_along(a: ArrayLike, h: ArrayLike, axis: int) -> Array:
    """Second-order central differences inside, first-order one-sided ones at both ends."""
    upper = lax.sub(_slice(a, 1, 2, axis), _slice(a, 0, 1, axis))
    lower = lax.sub(_slice(a, -1, None, axis), _slice(a, -2, -1, axis))
    if cnp.ndim(h) == 0:
        inner = lax.div(
            lax.mul(lax.sub(_slice(a, 2, None, axis), _slice(a, None, -2, axis)), 0.5), h
        )
        return cnp.concatenate([lax.div(upper, h), inner, lax.div(lower, h)], axis)
    if cnp.ndim(h) != 1:
        raise ValueError(
            f"gradient: a spacing must be a scalar or a 1-D array of coordinates, got shape "
            f"{cnp.shape(h)}{user_line_suffix()}"
        )
    n = cnp.shape(a)[axis]
    if cnp.shape(h)[0] != n:
        raise ValueError(
            f"gradient: a coordinate array must have the length of its axis ({n}), got "
            f"{cnp.shape(h)[0]}{user_line_suffix()}"
        )
    h = lax.reshape(h, tuple(n if i == axis else 1 for i in range(cnp.ndim(a))))
    upper = lax.div(upper, lax.sub(_slice(h, 1, 2, axis), _slice(h, 0, 1, axis)))
    lower = lax.div(lower, lax.sub(_slice(h, -1, None, axis), _slice(h, -2, -1, axis)))
    dx1 = lax.sub(_slice(h, 1, -1, axis), _slice(h, 0, -2, axis))
    dx2 = lax.sub(_slice(h, 2, None, axis), _slice(h, 1, -1, axis))
    w_prev = lax.neg(lax.div(dx2, lax.mul(dx1, lax.add(dx1, dx2))))
    w_mid = lax.div(lax.sub(dx2, dx1), lax.mul(dx1, dx2))
    w_next = lax.div(dx1, lax.mul(dx2, lax.add(dx1, dx2)))
    inner = lax.add(
        lax.add(lax.mul(w_prev, _slice(a, 0, -2, axis)), lax.mul(w_mid, _slice(a, 1, -1, axis))),
        lax.mul(w_next, _slice(a, 2, None, axis)),
    )
    return cnp.concatenate([upper, inner, lower], axis)


def gradient(
    f: ArrayLike,
    *varargs: ArrayLike,
    axis: int | Sequence[int] | None = None,
    edge_order: int | None = None,
) -> Array | list[Array]:
    """The gradient of sampled ``f`` along ``axis`` (all axes by default; a list for several).
    ``varargs``: one spacing for all axes, or one per axis, each a scalar step or the 1-D
    coordinates of the samples. Edges are first order (``edge_order=2`` is not supported)."""
    if edge_order not in (None, 1):
        raise NotImplementedError(
            f"gradient: only first-order edges are supported (edge_order=1), got "
            f"edge_order={edge_order!r}{user_line_suffix()}"
        )
    check_arraylike("gradient", [f, *varargs])
    a, *spacing = promote_inexact(cnp.asarray(f), *varargs)
    nd = cnp.ndim(a)
    axes = tuple(range(nd)) if axis is None else int_tuple("gradient", "axis", axis)
    axes = canonicalize_axes("gradient", axes, nd)
    if not axes:
        return []
    if min(cnp.shape(a)[i] for i in axes) < 2:
        raise ValueError(
            f"gradient: at least 2 samples are needed along each axis, got shape "
            f"{cnp.shape(a)}{user_line_suffix()}"
        )
    if len(spacing) == 0:
        steps: list[AnyArray] = [1.0] * len(axes)
    elif len(spacing) == 1:
        steps = spacing * len(axes)
    elif len(spacing) == len(axes):
        steps = spacing
    else:
        raise TypeError(
            f"gradient: expected no spacing, one, or one per axis ({len(axes)}), got "
            f"{len(spacing)}{user_line_suffix()}"
        )
    grads = [_gradient_along(a, h, ax) for ax, h in zip(axes, steps, strict=True)]
    return grads[0] if len(axes) == 1 else grads


def trapezoid(
    y: ArrayLike, x: ArrayLike | None = None, dx: ArrayLike = 1.0, axis: int = -1
) -> Array:
    """The integral of sampled ``y`` along ``axis`` by the trapezoidal rule, at coordinates
    ``x`` or with spacing ``dx`` (a scalar, or per-interval steps)."""
    if x is None:
        check_arraylike("trapezoid", [y])
        (y_arr,) = promote_inexact(cnp.asarray(y))
        dx_arr = dx  # a Python scalar stays weakly typed: float32 y keeps its dtype
        if cnp.ndim(dx) > 0:
            dx_arr = cnp.asarray(dx)
            dx_arr = lax.expand_dims(dx_arr, tuple(range(cnp.ndim(y_arr) - cnp.ndim(dx_arr))))
            dx_arr = cnp.moveaxis(dx_arr, axis, -1)
    else:
        check_arraylike("trapezoid", [y, x])
        y_arr, x_arr = promote_inexact(cnp.asarray(y), cnp.asarray(x))
        if cnp.ndim(x_arr) == 1:
            dx_arr = diff(x_arr)
        else:
            dx_arr = cnp.moveaxis(diff(x_arr, axis=axis), axis, -1)
    y_arr = cnp.moveaxis(y_arr, canonicalize_axis("trapezoid", axis, cnp.ndim(y_arr)), -1)
    last = cnp.ndim(y_arr) - 1
    if cnp.shape(y_arr)[-1] == 0:
        raise IndexError(
            f"trapezoid: the integration axis of y (shape {cnp.shape(y)}) has no samples"
            f"{user_line_suffix()}"
        )
    if cnp.ndim(dx_arr) == 0 or cnp.shape(dx_arr)[-1] == 1:  # a constant step
        step = dx_arr if cnp.ndim(dx_arr) == 0 else cnp.squeeze(dx_arr, -1)
        ends = lax.add(
            cnp.squeeze(_slice(y_arr, 0, 1, last), -1),
            cnp.squeeze(_slice(y_arr, -1, None, last), -1),
        )
        return lax.mul(step, lax.sub(cnp.sum(y_arr, -1), lax.mul(0.5, ends)))
    pairs = lax.add(_slice(y_arr, 1, None, last), _slice(y_arr, None, -1, last))
    return lax.mul(0.5, cnp.sum(lax.mul(dx_arr, pairs), -1))


def unwrap(
    p: AnyArray, discont: AnyArray | None = None, axis: int = -1, period: AnyArray = 2 * np.pi
) -> AnyArray:
    """``p`` with jumps larger than ``discont`` (default ``period / 2``) between neighbours
    along ``axis`` replaced by their equivalents modulo ``period``."""
    check_arraylike("unwrap", [p])
    p, period = promote(cnp.asarray(p), period)
    dtype, _ = dtype_weak(p)
    if dtype.kind == "c":
        raise ValueError(
            f"unwrap: complex inputs are not supported, got {dtype}{user_line_suffix()}"
        )
    ax = canonicalize_axis("unwrap", axis, cnp.ndim(p))
    if cnp.shape(p)[ax] == 0:
        return p
    if discont is None:
        discont = cnp.true_divide(period, 2)
    interval = cnp.floor_divide(period, 2) if dtype.kind in "iu" else lax.div(period, 2.0)
    dd = diff(p, axis=ax)
    ddmod = lax.sub(cnp.remainder(lax.add(dd, interval), period), interval)
    at_minus = lax.bitwise_and(lax.eq(ddmod, lax.neg(interval)), lax.gt(dd, 0))
    ddmod = cnp.where(at_minus, interval, ddmod)
    correction = cnp.where(cnp.less(cnp.abs(dd), discont), 0, lax.sub(ddmod, dd))
    rest = lax.add(_slice(p, 1, None, ax), lax.cumsum(correction, ax))
    return cnp.concatenate([_slice(p, 0, 1, ax), rest], ax)
