"""Elementwise helpers, NaN-ignoring reductions and one-argument ``where`` (``nonzero``, which
is mj-core's with ``argwhere``: it needs concrete input or a static ``size``, as in JAX)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import mj_core.numpy as cnp
from mj_autodiff import custom_jvp
from mj_core import lax
from mj_core.dtypes import canonical_dtype, is_inexact
from mj_core.extend import (
    AnyArray,
    Array,
    ArrayLike,
    Axis,
    DTypeLike,
    as_dtype,
    canonicalize_axis,
    check_ranks,
    const_like,
    logaddexp_parts,
    promote_inexact,
    promoted_dtype,
    wrap_between,
)
from mj_core.prims.elementwise import to_inexact_dtype

__all__ = [
    "allclose",
    "array_equal",
    "astype",
    "fix",
    "float_power",
    "geomspace",
    "isneginf",
    "isposinf",
    "isscalar",
    "logaddexp2",
    "logspace",
    "nanmax",
    "nanmean",
    "nanmin",
    "nanprod",
    "nansum",
    "polyval",
    "select",
    "sinc",
    "where",
]


def astype(x: ArrayLike, dtype: DTypeLike | None) -> Array:
    """``x`` converted to ``dtype`` (NumPy 2's ``np.astype``)."""
    return lax.convert_element_type(x, np.dtype(dtype))


def isscalar(element: ArrayLike) -> bool:
    """True for Python/NumPy scalars and 0-d arrays (traced ones included)."""
    if isinstance(element, int | float | complex | bool | np.generic):
        return True
    return hasattr(element, "shape") and cnp.ndim(element) == 0


def allclose(
    a: ArrayLike, b: ArrayLike, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> Array:
    """Whether all elements of ``a`` and ``b`` are close (a bool scalar array)."""
    return cnp.all(cnp.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def array_equal(a1: ArrayLike, a2: ArrayLike, equal_nan: bool = False) -> Array:
    """Whether ``a1`` and ``a2`` have the same shape and elements."""
    a1, a2 = cnp.asarray(a1), cnp.asarray(a2)
    if cnp.shape(a1) != cnp.shape(a2):
        return cnp.asarray(False)
    eq = lax.eq(a1, a2)
    if equal_nan:
        eq = lax.bitwise_or(eq, lax.bitwise_and(cnp.isnan(a1), cnp.isnan(a2)))
    return cnp.all(eq)


def fix(x: ArrayLike) -> Array:
    """Round towards zero (NumPy's older name for ``trunc``)."""
    return cnp.trunc(x)


def isposinf(x: ArrayLike) -> Array:
    return _is_infinity(x, np.inf)


def isneginf(x: ArrayLike) -> Array:
    return _is_infinity(x, -np.inf)


def _is_infinity(x: ArrayLike, inf: float) -> Array:
    """``x == inf`` for inexact ``x``; bools and integers are never infinite (JAX's rule)."""
    x = cnp.asarray(x)
    if not is_inexact(x.dtype):
        return cnp.zeros(cnp.shape(x), bool)
    return cnp.equal(x, inf)


def sinc(x: ArrayLike) -> Array:
    """``sin(pi x) / (pi x)``, equal to 1 at 0 (with a finite derivative there); integers
    promote as JAX's ``promote_args_inexact`` (a Python int gives a weak float)."""
    (x,) = promote_inexact(x)
    is_zero = lax.eq(x, 0)
    pix = lax.mul(np.pi, x)
    safe = lax.select(is_zero, cnp.ones_like(x), pix)
    return lax.select(is_zero, _sinc_maclaurin(0)(pix), lax.div(lax.sin(safe), safe))


@functools.cache
def _sinc_maclaurin(k: int) -> Callable[[Array], Array]:
    """``x -> 0 * x + c_k``, the k-th derivative of ``sin(x) / x`` at 0, as JAX's: its
    derivative is ``_sinc_maclaurin(k + 1)``, so ``sinc`` has every derivative at 0 (the second
    is ``-pi**2 / 3``), not only the first."""
    coefficient = 0.0 if k % 2 else (-1) ** (k // 2) / (k + 1)

    @custom_jvp
    def term(x: Array) -> Array:
        return lax.add(lax.mul(x, cnp.zeros_like(x)), lax.full_like(x, coefficient))

    @term.defjvp
    def _term_jvp(primals: Sequence[Array], tangents: Sequence[Array]) -> tuple[Array, Array]:
        (x,), (t,) = primals, tangents
        return term(x), lax.mul(_sinc_maclaurin(k + 1)(x), t)

    return term


def logaddexp(x: ArrayLike, y: ArrayLike) -> Array:
    """``log(exp(x1) + exp(x2))`` without overflow (mj_core's values) with JAX's custom JVP:
    ``tx exp(x - out) + ty exp(y - out)``, a ``+inf`` counting as 0 there, so a NaN input
    gives a NaN tangent and ``logaddexp(inf, y)`` has derivative ``exp(y)`` in ``y``."""
    out: Array = _logaddexp(*promote_inexact(x, y))
    return out


def logaddexp2(x1: ArrayLike, x2: ArrayLike) -> Array:
    """``log2(2**x1 + 2**x2)`` without overflow, JAX's formula: ``max + log1p(2**-|x1 - x2|) /
    ln 2`` (``logaddexp2(-1, -1)`` is then ``-1e-8`` in float32, as in JAX); for complex
    numbers ``max + log1p(2**(x1 + x2 - 2 max)) / ln 2``, its imaginary part wrapped into
    ``[-pi / ln 2, pi / ln 2]``. Its JVP is JAX's, as :func:`logaddexp`'s (base 2)."""
    check_ranks("logaddexp2", x1, x2)
    out: Array = _logaddexp2(*promote_inexact(x1, x2))
    return out


def _replace_inf(x: Array) -> Array:
    """``x`` with ``+inf`` (in the real part) replaced by 0, as JAX's JVP rules use it."""
    re = cnp.real(x)
    return lax.select(lax.eq(re, np.inf), cnp.zeros_like(x), x)


def _logaddexp_rule(
    value: Callable[[Array, Array], Array], exp: Callable[[Array], Array]
) -> Callable[[Sequence[Array], Sequence[Array]], tuple[Array, Array]]:
    def rule(primals: Sequence[Array], tangents: Sequence[Array]) -> tuple[Array, Array]:
        (x1, x2), (t1, t2) = primals, tangents
        out = value(x1, x2)
        r_out = _replace_inf(out)
        d1 = lax.mul(t1, exp(lax.sub(_replace_inf(x1), r_out)))
        return out, lax.add(d1, lax.mul(t2, exp(lax.sub(_replace_inf(x2), r_out))))

    return rule


@custom_jvp
def _logaddexp(x1: Array, x2: Array) -> Array:
    return cnp.logaddexp(x1, x2)


@custom_jvp
def _logaddexp2(x1: Array, x2: Array) -> Array:
    amax = lax.max(x1, x2)
    inv_ln2 = const_like(amax, 1 / float(np.log(2)))  # JAX's: strong for a weak array
    if cnp.iscomplexobj(amax):
        delta = lax.sub(lax.add(x1, x2), lax.mul(amax, const_like(amax, 2)))
        out = lax.add(amax, lax.mul(lax.log1p(cnp.exp2(delta)), inv_ln2))
        return lax.complex(lax.real(out), wrap_between(lax.imag(out), np.pi / float(np.log(2))))
    delta = lax.sub(x1, x2)
    nan = lax.ne(delta, delta)  # a NaN input, or equal infinities: the answer is x1 + x2
    big, gap = logaddexp_parts(x1, x2, nan)  # (derivatives of every order: see logaddexp)
    safe = lax.add(big, lax.mul(lax.log1p(cnp.exp2(gap)), inv_ln2))
    return lax.select(nan, lax.add(x1, x2), safe)


_logaddexp.defjvp(_logaddexp_rule(_logaddexp, cnp.exp))
_logaddexp2.defjvp(_logaddexp_rule(_logaddexp2, cnp.exp2))


def float_power(x1: ArrayLike, x2: ArrayLike) -> Array:
    """``x1 ** x2`` in the operands' inexact dtype, as JAX computes it (NumPy's float64
    is not JAX's rule)."""
    check_ranks("float_power", x1, x2)
    return lax.pow(*promote_inexact(x1, x2))


def _space_dtypes(
    api: str, start: ArrayLike, stop: ArrayLike, dtype: DTypeLike | None
) -> tuple[np.dtype[Any], np.dtype[Any]]:
    """The result dtype (given, or the operands' inexact one) and the computation dtype."""
    dt = as_dtype(dtype, api)
    if dt is None:
        dt = canonical_dtype(to_inexact_dtype(promoted_dtype(start, stop)[0]))
    return dt, canonical_dtype(to_inexact_dtype(dt))


def logspace(
    start: ArrayLike,
    stop: ArrayLike,
    num: int = 50,
    endpoint: bool = True,
    base: ArrayLike = 10.0,
    dtype: DTypeLike | None = None,
    axis: int = 0,
) -> Array:
    """``base ** linspace(start, stop, num)``, the samples along ``axis`` (JAX's steps)."""
    dt, comp = _space_dtypes("logspace", start, stop, dtype)
    start, stop = cnp.asarray(start, comp), cnp.asarray(stop, comp)
    lin = cnp.linspace(start, stop, num, endpoint=endpoint, axis=axis)
    return lax.convert_element_type(cnp.power(base, lin), dt)


def geomspace(
    start: ArrayLike,
    stop: ArrayLike,
    num: int = 50,
    endpoint: bool = True,
    dtype: DTypeLike | None = None,
    axis: int = 0,
) -> Array:
    """Numbers spaced evenly on a log scale from ``start`` to ``stop`` (same sign), the
    samples along ``axis`` (JAX's steps)."""
    dt, comp = _space_dtypes("geomspace", start, stop, dtype)
    start, stop = cnp.asarray(start, comp), cnp.asarray(stop, comp)
    sign = cnp.sign(start)
    log_start, log_stop = (cnp.log10(cnp.divide(x, sign)) for x in (start, stop))
    res = cnp.multiply(
        sign, logspace(log_start, log_stop, num, endpoint=endpoint, base=10.0, dtype=comp)
    )
    ndim = cnp.ndim(res)
    axis = canonicalize_axis("geomspace", axis, ndim)
    if axis != 0:
        res = lax.transpose(res, (*range(1, axis + 1), 0, *range(axis + 1, ndim)))
    return lax.convert_element_type(res, dt)


def select(
    condlist: Sequence[ArrayLike], choicelist: Sequence[ArrayLike], default: ArrayLike = 0
) -> Array:
    """Elements from ``choicelist[i]`` where ``condlist[i]`` is first true, else ``default``."""
    if len(condlist) != len(choicelist):
        raise ValueError("select: condlist and choicelist must have the same length")
    out = default
    for cond, choice in reversed(list(zip(condlist, choicelist, strict=True))):
        out = cnp.where(cond, choice, out)
    return cnp.asarray(out)


def polyval(p: ArrayLike, x: ArrayLike) -> Array:
    """The polynomial with coefficients ``p`` (highest degree first) at ``x``, by Horner."""
    p = cnp.asarray(p)
    n = cnp.shape(p)[0]
    out = cnp.zeros_like(cnp.asarray(x), dtype=cnp.result_type(p, x))
    for i in range(n):
        out = cnp.add(cnp.multiply(out, x), p[i])  # (bools: or / and, as JAX's)
    return out


def _nan_reduce(
    reduce: Any, a: AnyArray, fill: Any, axis: Axis, keepdims: bool, **kw: Any
) -> AnyArray:
    a = cnp.asarray(a)
    if not is_inexact(a.dtype):
        return reduce(a, axis=axis, keepdims=keepdims, **kw)
    return reduce(cnp.where(cnp.isnan(a), fill, a), axis=axis, keepdims=keepdims, **kw)


def nansum(
    a: ArrayLike,
    axis: Axis = None,
    dtype: DTypeLike | None = None,
    keepdims: bool = False,
    *,
    out: None = None,
    initial: ArrayLike | None = None,
    where: ArrayLike | None = None,
) -> AnyArray:
    """``sum`` treating NaNs as zero (``initial``/``where`` as in :func:`sum`)."""
    kw = {"dtype": dtype, "out": out, "initial": initial, "where": where}
    return _nan_reduce(cnp.sum, a, 0, axis, keepdims, **kw)


def nanprod(
    a: ArrayLike,
    axis: Axis = None,
    dtype: DTypeLike | None = None,
    keepdims: bool = False,
    *,
    out: None = None,
    initial: ArrayLike | None = None,
    where: ArrayLike | None = None,
) -> AnyArray:
    """``prod`` treating NaNs as one (``initial``/``where`` as in :func:`prod`)."""
    kw = {"dtype": dtype, "out": out, "initial": initial, "where": where}
    return _nan_reduce(cnp.prod, a, 1, axis, keepdims, **kw)


def nanmax(
    a: ArrayLike,
    axis: Axis = None,
    keepdims: bool = False,
    *,
    out: None = None,
    initial: ArrayLike | None = None,
    where: ArrayLike | None = None,
) -> AnyArray:
    """``max`` ignoring NaNs (NaN where a slice is all NaN, whatever ``where`` masks, as in
    JAX); ``initial``/``where`` as in :func:`max`."""
    return _nan_extremum(cnp.max, -np.inf, a, axis, keepdims, out, initial, where)


def nanmin(
    a: ArrayLike,
    axis: Axis = None,
    keepdims: bool = False,
    *,
    out: None = None,
    initial: ArrayLike | None = None,
    where: ArrayLike | None = None,
) -> AnyArray:
    """``min`` ignoring NaNs (NaN where a slice is all NaN, whatever ``where`` masks, as in
    JAX); ``initial``/``where`` as in :func:`min`."""
    return _nan_extremum(cnp.min, np.inf, a, axis, keepdims, out, initial, where)


def _nan_extremum(
    reduce: object,
    fill: float,
    a: ArrayLike,
    axis: Axis,
    keepdims: bool,
    out: None,
    initial: ArrayLike | None,
    where: ArrayLike | None,
) -> AnyArray:
    """``reduce`` (max or min) with NaNs replaced by ``fill``, and NaN again where a slice
    held nothing but NaNs."""
    kw = {"out": out, "initial": initial, "where": where}
    result = _nan_reduce(reduce, a, fill, axis, keepdims, **kw)
    a = cnp.asarray(a)
    if not is_inexact(a.dtype):
        return result
    all_nan = cnp.all(cnp.isnan(a), axis=axis, keepdims=keepdims)
    return cnp.where(all_nan, np.nan, result)


def nanmean(
    a: ArrayLike,
    axis: Axis = None,
    dtype: DTypeLike | None = None,
    keepdims: bool = False,
    *,
    out: None = None,
    where: ArrayLike | None = None,
) -> Array:
    """``mean`` over the non-NaN elements (of those ``where`` selects)."""
    a = cnp.asarray(a)
    if not is_inexact(a.dtype):
        return cnp.mean(a, axis=axis, dtype=dtype, keepdims=keepdims, out=out, where=where)
    total = nansum(a, axis=axis, dtype=dtype, keepdims=keepdims, out=out, where=where)
    present = lax.bitwise_not(cnp.isnan(a))
    count = cnp.sum(present, axis=axis, keepdims=keepdims, where=where)
    return lax.div(total, lax.convert_element_type(count, cnp.result_type(total)))


def where(
    condition: ArrayLike,
    x: ArrayLike | None = None,
    y: ArrayLike | None = None,
    *,
    size: int | None = None,
    fill_value: ArrayLike | None = None,
) -> Any:
    """``x`` where ``condition`` holds, else ``y``; with only ``condition``, ``nonzero``."""
    if x is None and y is None:
        return cnp.nonzero(condition, size=size, fill_value=fill_value)
    if x is None or y is None:
        raise ValueError("where: give both x and y, or neither")
    return cnp.where(condition, x, y)
