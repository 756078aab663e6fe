"""Reductions with NumPy's ``axis``/``keepdims``/``dtype`` conventions and JAX's dtypes.

As in ``jnp``: ``sum``/``prod`` of bools and integers narrower than the default integer
accumulate in it (int32/uint32, int64/uint64 with x64), ``cumsum``/``cumprod`` keep integer
dtypes (bools accumulate in the default integer), ``mean``/``var`` of integers are JAX's
float (float32 up to 32-bit integers), and ``max``/``min``/``argmax`` of an empty axis raise
``ValueError``. ``where=`` masks replace the elements left out by the reduction's identity
(``max``/``min`` have none: they need ``initial=``), ``initial=`` joins the result, and
``out=`` is refused: arrays are immutable.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mj_core import lax
from mj_core._shapes import canonicalize_axes, canonicalize_axis, int_tuple
from mj_core._typing import Array, ArrayLike, Axis, DTypeLike
from mj_core.dtypes import bfloat16, default_int_dtype
from mj_core.numpy._math import where as _where
from mj_core.numpy._promotion import as_dtype, check_arraylike, convert, dtype_weak
from mj_core.numpy._promotion import shape_of as _shape
from mj_core.numpy._shape import broadcast_to, ravel, reshape
from mj_core.prims.complex import real_dtype
from mj_core.prims.elementwise import to_inexact_dtype

__all__ = [
    "all",
    "amax",
    "amin",
    "any",
    "argmax",
    "argmin",
    "count_nonzero",
    "cumprod",
    "cumsum",
    "max",
    "mean",
    "min",
    "prod",
    "ptp",
    "std",
    "sum",
    "var",
]


def _reduced_axes(name: str, a: ArrayLike, axis: Axis) -> tuple[int, ...]:
    nd = len(_shape(a))
    if axis is None:
        return tuple(range(nd))
    return tuple(sorted(canonicalize_axes(name, int_tuple(name, "axis", axis), nd)))


def _keep(out: Array, shape: tuple[int, ...], axes: tuple[int, ...], keepdims: bool) -> Array:
    if not keepdims:
        return out
    return lax.reshape(out, tuple(1 if i in axes else d for i, d in enumerate(shape)))


def _promote_integer(dt: np.dtype[Any]) -> np.dtype[Any]:
    """JAX's accumulation dtype for sum/prod: bools and integers narrower than the default
    integer of their signedness widen to it (NumPy would always widen to 64 bits)."""
    if dt.kind not in "biu":
        return dt
    default = default_int_dtype()
    if dt.kind == "u":
        default = np.dtype(f"u{default.itemsize}")
    return default if dt.kind == "b" or dt.itemsize < default.itemsize else dt


def _accumulation_dtype(a: ArrayLike, dtype: DTypeLike | None, integers: bool) -> np.dtype[Any]:
    """The dtype sum/prod (``integers``) or cumsum/cumprod accumulate ``a`` in: an explicit
    ``dtype``, else :func:`_promote_integer` of ``a``'s dtype (for cumulative functions only
    bools are widened, as in JAX)."""
    dt = as_dtype(dtype)
    if dt is not None:
        return dt
    src, _ = dtype_weak(a)
    return _promote_integer(src) if integers or src.kind == "b" else src


def _no_out(name: str, out: object) -> None:
    if out is not None:
        raise NotImplementedError(
            f"The 'out' argument to mnp.{name} is not supported: mj arrays are immutable."
        )


def _identity(name: str, dtype: np.dtype[Any]) -> Any:
    """The value a ``where=`` mask puts in place of the elements it leaves out."""
    if name in ("sum", "any"):
        return False if dtype.kind == "b" else 0
    if name in ("prod", "all"):
        return True if dtype.kind == "b" else 1
    low = name == "max"  # max's identity is the lowest value, min's the highest
    if dtype.kind == "b":
        return not low
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return int(info.min if low else info.max)
    return -math.inf if low else math.inf


def _reduction(
    name: str,
    reduce: Callable[[ArrayLike, Sequence[int]], Array],
    a: ArrayLike,
    axis: Axis,
    keepdims: bool,
    dtype: np.dtype[Any] | None,
    where: ArrayLike | None = None,
    initial: ArrayLike | None = None,
    combine: Callable[[ArrayLike, ArrayLike], Array] | None = None,
) -> Array:
    """``reduce`` over ``axis`` of ``a`` (as ``dtype``), the elements ``where`` leaves out
    replaced by the identity, and ``initial`` joined to the result by ``combine``."""
    check_arraylike(name, [a])
    # strong, as JAX reduces: sum(2.0) is not weakly typed
    a = convert(a, dtype_weak(a)[0] if dtype is None else dtype)
    if where is not None:
        a = _where(where, a, _identity(name, dtype_weak(a)[0]))
    axes = _reduced_axes(name, a, axis)
    out = _keep(reduce(a, axes), _shape(a), axes, keepdims)
    if initial is None or combine is None:
        return out
    if _shape(initial) != ():
        raise ValueError(f"{name}: initial value must be a scalar, got shape {_shape(initial)}")
    return combine(convert(initial, dtype_weak(out)[0]), out)


_HALF = frozenset({np.dtype(np.float16), np.dtype(bfloat16)})


def _upcast_half(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """JAX sums and averages float16/bfloat16 in float32 (NumPy rounds every partial sum to
    float16): the result is then cast back."""
    return np.dtype(np.float32) if dtype in _HALF else dtype


def _accumulate(
    name: str,
    reduce: Callable[[ArrayLike, Sequence[int]], Array],
    combine: Callable[[ArrayLike, ArrayLike], Array],
    a: ArrayLike,
    axis: Axis,
    dtype: DTypeLike | None,
    keepdims: bool,
    where: ArrayLike | None,
    initial: ArrayLike | None,
    promote_integers: bool,
) -> Array:
    if promote_integers or dtype is not None:
        out_dtype = _accumulation_dtype(a, dtype, integers=True)
    else:
        out_dtype = dtype_weak(a)[0]
    compute = np.dtype(np.float32) if dtype is None and out_dtype in _HALF else out_dtype
    total = _reduction(name, reduce, a, axis, keepdims, compute, where, initial, combine)
    return total if compute == out_dtype else convert(total, out_dtype)


def sum(
    a: ArrayLike,
    axis: Axis = None,
    dtype: DTypeLike | None = None,
    keepdims: bool = False,
    *,
    out: None = None,
    initial: ArrayLike | None = None,
    where: ArrayLike | None = None,
    promote_integers: bool = True,
) -> Array:
    _no_out("sum", out)
    return _accumulate(
        "sum", lax.reduce_sum, lax.add, a, axis, dtype, keepdims, where, initial, promote_integers
    )


def prod(
    a: ArrayLike,
    axis: Axis = None,
    dtype: DTypeLike | None = None,
    keepdims: bool = False,
    *,
    out: None = None,
    initial: ArrayLike | None = None,
    where: ArrayLike | None = None,
    promote_integers: bool = True,
) -> Array:
    _no_out("prod", out)
    return _accumulate(
        "prod", lax.reduce_prod, lax.mul, a, axis, dtype, keepdims, where, initial, promote_integers
    )


def _check_nonempty(name: str, a: ArrayLike, axis: Axis) -> None:
    shp = _shape(a)
    if builtins.any(shp[i] == 0 for i in _reduced_axes(name, a, axis)):
        raise ValueError(
            f"{name}: zero-size array to reduction operation which has no identity "
            f"(shape {shp}, axis {axis})"
        )


def _extremum(
    name: str,
    reduce: Callable[[ArrayLike, Sequence[int]], Array],
    combine: Callable[[ArrayLike, ArrayLike], Array],
    a: ArrayLike,
    axis: Axis,
    keepdims: bool,
    out: None,
    initial: ArrayLike | None,
    where: ArrayLike | None,
) -> Array:
    """max/min (complex numbers ordered by real, then imaginary part, as lax orders them)."""
    _no_out(name, out)
    if initial is None:
        if where is not None:
            raise ValueError(
                f"reduction operation {name} does not have an identity, so to use a where mask "
                "one has to specify 'initial'"
            )
        _check_nonempty(name, a, axis)
    return _reduction(name, reduce, a, axis, keepdims, None, where, initial, combine)


def max(
    a: ArrayLike,
    axis: Axis = None,
    keepdims: bool = False,
    *,
    out: None = None,
    initial: ArrayLike | None = None,
    where: ArrayLike | None = None,
) -> Array:
    return _extremum("max", lax.reduce_max, lax.max, a, axis, keepdims, out, initial, where)


def min(
    a: ArrayLike,
    axis: Axis = None,
    keepdims: bool = False,
    *,
    out: None = None,
    initial: ArrayLike | None = None,
    where: ArrayLike | None = None,
) -> Array:
    return _extremum("min", lax.reduce_min, lax.min, a, axis, keepdims, out, initial, where)


amax = max
amin = min


def ptp(a: ArrayLike, axis: Axis = None, keepdims: bool = False) -> Array:
    return lax.sub(max(a, axis, keepdims), min(a, axis, keepdims))


def _as_bool(a: ArrayLike) -> ArrayLike:
    return a if dtype_weak(a)[0].kind == "b" else lax.ne(a, 0)


def _truth(a: ArrayLike) -> ArrayLike:
    """JAX's ``_cast_to_bool`` for all/any: a complex number's truth is its real part's
    (``all(2j)`` is False in JAX, True in NumPy)."""
    return _as_bool(lax.real(a) if dtype_weak(a)[0].kind == "c" else a)


def all(
    a: ArrayLike,
    axis: Axis = None,
    keepdims: bool = False,
    *,
    out: None = None,
    where: ArrayLike | None = None,
) -> Array:
    _no_out("all", out)
    return _reduction("all", lax.reduce_and, _truth(a), axis, keepdims, None, where)


def any(
    a: ArrayLike,
    axis: Axis = None,
    keepdims: bool = False,
    *,
    out: None = None,
    where: ArrayLike | None = None,
) -> Array:
    _no_out("any", out)
    return _reduction("any", lax.reduce_or, _truth(a), axis, keepdims, None, where)


def count_nonzero(a: ArrayLike, axis: Axis = None, keepdims: bool = False) -> Array:
    return sum(_as_bool(a), axis, default_int_dtype(), keepdims)


def _count(a: ArrayLike, axes: tuple[int, ...]) -> int:
    shp = _shape(a)
    return math.prod(shp[i] for i in axes)


def _float_dtype(a: ArrayLike, dtype: DTypeLike | None) -> np.dtype[Any]:
    """JAX's dtype for mean/var: float32 for bools and integers up to 32 bits, float64 for
    64-bit integers (NumPy's float64 for all of them is not JAX's rule)."""
    dt = as_dtype(dtype)
    if dt is not None:
        return dt
    return to_inexact_dtype(dtype_weak(a)[0])


def _kept_count(
    a: ArrayLike, axis: Axis, where: ArrayLike, dtype: DTypeLike | None, keepdims: bool
) -> Array:
    """The number of elements ``where`` keeps along ``axis``: a masked mean's divisor."""
    kept = broadcast_to(where, np.broadcast_shapes(_shape(a), _shape(where)))
    return sum(kept, axis, dtype, keepdims)


def mean(
    a: ArrayLike,
    axis: Axis = None,
    dtype: DTypeLike | None = None,
    keepdims: bool = False,
    *,
    out: None = None,
    where: ArrayLike | None = None,
) -> Array:
    """Arithmetic mean; integers and bools average in JAX's float (:func:`_float_dtype`)."""
    check_arraylike("mean", [a])
    _no_out("mean", out)
    dt = _float_dtype(a, dtype)
    compute = _upcast_half(dt)
    total = sum(a, axis, compute, keepdims, where=where)
    if where is not None:
        return convert(lax.div(total, _kept_count(a, axis, where, compute, keepdims)), dt)
    n = _count(a, _reduced_axes("mean", a, axis))
    if compute.kind == "c":  # XLA folds JAX's division by the constant count into this
        return convert(lax.mul(total, convert(1 / n, compute)), dt)
    return convert(lax.div(total, convert(n, compute)), dt)


_mean = mean  # for var, whose ``mean`` parameter (NumPy 2's name) hides the function


def var(
    a: ArrayLike,
    axis: Axis = None,
    dtype: DTypeLike | None = None,
    ddof: int = 0,
    keepdims: bool = False,
    *,
    out: None = None,
    where: ArrayLike | None = None,
    correction: int | float | None = None,
    mean: ArrayLike | None = None,
) -> Array:
    """Variance ``mean(|a - mean(a)|**2) * n / (n - ddof)`` (``correction`` is ``ddof``'s
    Array API name; ``mean``, shaped as ``mean(a, axis, keepdims=True)``, is used instead of
    computing it, as NumPy 2's)."""
    check_arraylike("var", [a])
    _no_out("var", out)
    if correction is not None:
        if ddof:
            raise ValueError("var: ddof and correction can't both be provided")
        ddof = correction  # type: ignore[assignment]
    dt = _float_dtype(a, dtype)
    compute = _upcast_half(dt)
    axes = _reduced_axes("var", a, axis)
    a = convert(a, compute)
    center = _mean(a, axis, compute, keepdims=True, where=where) if mean is None else mean
    centered = lax.sub(a, convert(center, compute))
    if compute.kind == "c":  # |a - mean|**2: the variance of complex data is real
        sq = lax.real(lax.mul(centered, lax.conj(centered)))
        compute, dt = real_dtype(compute), real_dtype(dt)
    else:
        sq = lax.mul(centered, centered)
    total = sum(sq, axis, compute, keepdims, where=where)
    if where is not None:
        count = lax.sub(_kept_count(a, axis, where, compute, keepdims), convert(ddof, compute))
        ratio = lax.div(total, count)  # NaN where no degree of freedom is left, as in JAX
        return convert(_where(lax.gt(count, convert(0, compute)), ratio, np.nan), dt)
    n = _count(a, axes) - ddof
    return convert(lax.div(total, convert(n if n > 0 else np.nan, compute)), dt)


def std(
    a: ArrayLike,
    axis: Axis = None,
    dtype: DTypeLike | None = None,
    ddof: int = 0,
    keepdims: bool = False,
    *,
    out: None = None,
    where: ArrayLike | None = None,
    correction: int | float | None = None,
    mean: ArrayLike | None = None,
) -> Array:
    return lax.sqrt(
        var(a, axis, dtype, ddof, keepdims, out=out, where=where, correction=correction, mean=mean)
    )


def _arg_reduction(
    name: str,
    reduce: Callable[[ArrayLike, int, Any], Array],
    a: ArrayLike,
    axis: int | None,
    keepdims: bool,
) -> Array:
    check_arraylike(name, [a])
    shp = _shape(a)
    if axis is None:
        flat = ravel(a)
        if not _shape(flat)[0]:
            raise ValueError(f"{name}: attempt to get {name} of an empty sequence")
        out = reduce(flat, 0, np.int64)
        return reshape(out, (1,) * len(shp)) if keepdims else out
    ax = canonicalize_axis(name, axis, len(shp))
    if shp[ax] == 0:
        raise ValueError(f"{name}: attempt to get {name} of an empty sequence (axis {ax})")
    return _keep(reduce(a, ax, np.int64), shp, (ax,), keepdims)


def argmax(a: ArrayLike, axis: int | None = None, keepdims: bool = False) -> Array:
    return _arg_reduction("argmax", lax.argmax, a, axis, keepdims)


def argmin(a: ArrayLike, axis: int | None = None, keepdims: bool = False) -> Array:
    return _arg_reduction("argmin", lax.argmin, a, axis, keepdims)


def _cumulative(
    name: str, scan: Callable[..., Array], a: ArrayLike, axis: int | None, dtype: DTypeLike | None
) -> Array:
    check_arraylike(name, [a])
    if axis is None:
        a, axis = ravel(a), 0
    a = convert(a, _accumulation_dtype(a, dtype, integers=False))
    return scan(a, canonicalize_axis(name, axis, len(_shape(a))))


def cumsum(a: ArrayLike, axis: int | None = None, dtype: DTypeLike | None = None) -> Array:
    return _cumulative("cumsum", lax.cumsum, a, axis, dtype)


def cumprod(a: ArrayLike, axis: int | None = None, dtype: DTypeLike | None = None) -> Array:
    return _cumulative("cumprod", lax.cumprod, a, axis, dtype)
