"""Reductions over axes (``reduce_*``, ``argmax``/``argmin``) and cumulative scans
(``cumsum``/``cumprod``/``cummax``/``cummin``).

Results keep the operand dtype (NumPy would widen ``int32`` sums to ``int64``; XLA does not),
and ``reduce_max``/``reduce_min`` of an empty axis give the reduction's identity (``-inf`` /
``+inf`` or the integer limits) as XLA does, instead of NumPy's error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from mj_core.avals import ShapedArray, raise_to_shaped
from mj_core.primitive import Primitive, impl_rules
from mj_core.prims.out_avals import check_operands, out_aval_rules
from mj_core.prims.structural import check_axes
from mj_core.shapes import aval_error

__all__ = [
    "argmax_p",
    "argmin_p",
    "cummax_p",
    "cummin_p",
    "cumprod_p",
    "cumsum_p",
    "reduce_and_p",
    "reduce_max_p",
    "reduce_min_p",
    "reduce_or_p",
    "reduce_prod_p",
    "reduce_sum_p",
    "reduction_identity",
]

_KIND_NAMES = {"b": "bool", "i": "int", "u": "uint", "f": "float", "c": "complex"}


def _check_kind(prim_name: str, x: ShapedArray, kinds: str) -> None:
    if x.dtype.kind not in kinds:
        allowed = "/".join(_KIND_NAMES[k] for k in kinds)
        raise aval_error(prim_name, f"requires a {allowed} operand", [x])


def reduction_identity(name: str, dtype: np.dtype[Any]) -> Any:
    """The identity element of ``reduce_<name>`` (``max``/``min``/``sum``/...) for ``dtype``."""
    if name in ("max", "min"):
        big = name == "min"
        if dtype.kind == "b":
            return np.array(big, dtype)
        if dtype.kind in "iu":
            info = np.iinfo(dtype)
            return np.array(info.max if big else info.min, dtype)
        return np.array(np.inf if big else -np.inf, dtype)
    value = {"sum": 0, "prod": 1, "or": 0, "and": -1}[name]
    if dtype.kind == "b":
        return np.array(name == "and", dtype)
    if dtype.kind == "u" and value == -1:
        return np.array(np.iinfo(dtype).max, dtype)
    return np.array(value, dtype)


def _define_reduction(name: str, kinds: str, compute: Callable[..., Any]) -> Primitive:
    prim = Primitive(f"reduce_{name}")

    def out_avals(x: ShapedArray, *, axes: tuple[int, ...]) -> list[ShapedArray]:
        _check_kind(prim.name, x, kinds)
        dims = check_axes(prim.name, axes, x.ndim, [x])
        shape = tuple(s for i, s in enumerate(x.shape) if i not in dims)
        return [ShapedArray(shape, x.dtype, x.weak_type)]

    def impl(x: Any, *, axes: tuple[int, ...]) -> list[Any]:
        (out,) = check_operands(prim, (x,), {"axes": axes})
        return [compute(np.asarray(x), tuple(axes), out.dtype)]

    out_avals.__name__ = f"_reduce_{name}_avals"
    impl.__name__ = f"_reduce_{name}_impl"
    out_aval_rules[prim] = out_avals
    impl_rules[prim] = impl
    return prim


def _sum(x: np.ndarray[Any, Any], axes: tuple[int, ...], dtype: np.dtype[Any]) -> Any:
    return np.sum(x, axis=axes, dtype=dtype)


def _prod(x: np.ndarray[Any, Any], axes: tuple[int, ...], dtype: np.dtype[Any]) -> Any:
    return np.prod(x, axis=axes, dtype=dtype)


def _max(x: np.ndarray[Any, Any], axes: tuple[int, ...], dtype: np.dtype[Any]) -> Any:
    return np.max(x, axis=axes, initial=reduction_identity("max", dtype))


def _min(x: np.ndarray[Any, Any], axes: tuple[int, ...], dtype: np.dtype[Any]) -> Any:
    return np.min(x, axis=axes, initial=reduction_identity("min", dtype))


def _and(x: np.ndarray[Any, Any], axes: tuple[int, ...], dtype: np.dtype[Any]) -> Any:
    if dtype.kind == "b":
        return np.all(x, axis=axes)
    return np.bitwise_and.reduce(x, axis=axes, initial=reduction_identity("and", dtype))


def _or(x: np.ndarray[Any, Any], axes: tuple[int, ...], dtype: np.dtype[Any]) -> Any:
    if dtype.kind == "b":
        return np.any(x, axis=axes)
    return np.bitwise_or.reduce(x, axis=axes, initial=reduction_identity("or", dtype))


reduce_sum_p = _define_reduction("sum", "iufc", _sum)
reduce_prod_p = _define_reduction("prod", "iufc", _prod)
reduce_max_p = _define_reduction("max", "biuf", _max)
reduce_min_p = _define_reduction("min", "biuf", _min)
reduce_and_p = _define_reduction("and", "biu", _and)
reduce_or_p = _define_reduction("or", "biu", _or)


# --- argmax / argmin --------------------------------------------------------------------------
def _define_arg_reduction(name: str, compute: Callable[..., Any]) -> Primitive:
    prim = Primitive(name)

    def out_avals(
        x: ShapedArray, *, axes: tuple[int, ...], index_dtype: np.dtype[Any]
    ) -> list[ShapedArray]:
        _check_kind(name, x, "biuf")
        if len(axes) != 1:
            raise aval_error(name, f"axes must hold exactly one axis, got {tuple(axes)}", [x])
        (axis,) = check_axes(name, axes, x.ndim, [x])
        if x.shape[axis] == 0:
            raise aval_error(name, f"cannot reduce the empty axis {axis}", [x])
        idx = np.dtype(index_dtype)
        if idx.kind not in "iu":
            raise aval_error(name, f"index_dtype must be an integer dtype, got {idx.name}", [x])
        shape = tuple(s for i, s in enumerate(x.shape) if i != axis)
        return [ShapedArray(shape, idx)]

    def impl(x: Any, *, axes: tuple[int, ...], index_dtype: np.dtype[Any]) -> list[Any]:
        (out,) = check_operands(prim, (x,), {"axes": axes, "index_dtype": index_dtype})
        return [np.asarray(compute(x, axis=axes[0]), out.dtype)]

    out_avals.__name__ = f"_{name}_avals"
    impl.__name__ = f"_{name}_impl"
    out_aval_rules[prim] = out_avals
    impl_rules[prim] = impl
    return prim


argmax_p = _define_arg_reduction("argmax", np.argmax)
argmin_p = _define_arg_reduction("argmin", np.argmin)


# --- cumulative reductions --------------------------------------------------------------------
def _define_cumulative(name: str, kinds: str, compute: Callable[..., Any]) -> Primitive:
    prim = Primitive(name)

    def out_avals(x: ShapedArray, *, axis: int, reverse: bool) -> list[ShapedArray]:
        _check_kind(name, x, kinds)
        check_axes(name, (axis,), x.ndim, [x])
        return [raise_to_shaped(x)]

    def impl(x: Any, *, axis: int, reverse: bool) -> list[Any]:
        (out,) = check_operands(prim, (x,), {"axis": axis, "reverse": reverse})
        arr = np.asarray(x)
        if reverse:
            return [np.flip(compute(np.flip(arr, axis), axis, out.dtype), axis)]
        return [compute(arr, axis, out.dtype)]

    out_avals.__name__ = f"_{name}_avals"
    impl.__name__ = f"_{name}_impl"
    out_aval_rules[prim] = out_avals
    impl_rules[prim] = impl
    return prim


def _cumsum(x: np.ndarray[Any, Any], axis: int, dtype: np.dtype[Any]) -> Any:
    return np.cumsum(x, axis=axis, dtype=dtype)


def _cumprod(x: np.ndarray[Any, Any], axis: int, dtype: np.dtype[Any]) -> Any:
    return np.cumprod(x, axis=axis, dtype=dtype)


def _cummax(x: np.ndarray[Any, Any], axis: int, dtype: np.dtype[Any]) -> Any:
    return np.maximum.accumulate(x, axis=axis, dtype=dtype)


def _cummin(x: np.ndarray[Any, Any], axis: int, dtype: np.dtype[Any]) -> Any:
    return np.minimum.accumulate(x, axis=axis, dtype=dtype)


cumsum_p = _define_cumulative("cumsum", "iufc", _cumsum)
cumprod_p = _define_cumulative("cumprod", "iufc", _cumprod)
cummax_p = _define_cumulative("cummax", "biuf", _cummax)
cummin_p = _define_cumulative("cummin", "biuf", _cummin)
