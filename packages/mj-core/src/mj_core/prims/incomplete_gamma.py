"""Regularized incomplete gamma functions ``igamma(a, x) = P(a, x)`` and
``igammac(a, x) = Q(a, x) = 1 - P(a, x)``, binary elementwise primitives.

The NumPy impls follow the classic split (Numerical Recipes' ``gser``/``gcf``, as XLA's
``Igamma`` does): the power series of ``P`` for ``x < a + 1`` and the modified-Lentz continued
fraction of ``Q`` otherwise, each multiplied by ``x^a e^-x / Gamma(a)`` and iterated
(vectorised, with a mask) until every element converged, so the other function is ``1 -``
a value below about 1/2. NaN where ``x < 0`` or ``a <= 0`` (as XLA), ``P(a, 0) = 0``,
``P(a, inf) = 1``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mj_core.prims.elementwise import REAL, _define, to_inexact_dtype

__all__ = ["igamma_p", "igammac_p"]

F64 = np.dtype(np.float64)
_MAX_ITERATIONS = 2000
_EPS = np.finfo(np.float64).eps
_TINY = 1e-300
_lgamma_object = np.frompyfunc(math.lgamma, 1, 1)


def _operands(name: str, a: Any, x: Any) -> tuple[Any, Any, np.dtype[Any]]:
    dtype = to_inexact_dtype(np.result_type(a, x))
    if dtype.kind == "c":
        raise TypeError(f"{name} is not defined for complex inputs, got {dtype.name}")
    a64, x64 = np.broadcast_arrays(np.asarray(a, F64), np.asarray(x, F64))
    return a64, x64, dtype


def _log_prefactor(a: Any, x: Any) -> Any:
    """``log(x^a e^-x / Gamma(a))``."""
    return a * np.log(x) - x - np.asarray(_lgamma_object(a), F64)


def _lower_series(a: Any, x: Any) -> Any:
    """``P(a, x)`` by its power series (converges fast for ``x < a + 1``)."""
    term = 1.0 / a
    total = term.copy()
    active = np.ones(a.shape, bool)
    n = a.copy()
    for _ in range(_MAX_ITERATIONS):
        n = n + 1.0
        term = np.where(active, term * x / n, 0.0)
        total = total + term
        active = active & (np.abs(term) > np.abs(total) * _EPS)
        if not active.any():
            break
    return total * np.exp(_log_prefactor(a, x))


def _upper_continued_fraction(a: Any, x: Any) -> Any:
    """``Q(a, x)`` by the modified Lentz continued fraction (fast for ``x >= a + 1``)."""
    b = x + 1.0 - a
    c = np.full(a.shape, 1.0 / _TINY)
    d = 1.0 / np.where(b == 0, _TINY, b)
    h = d.copy()
    active = np.ones(a.shape, bool)
    for i in range(1, _MAX_ITERATIONS):
        an = -i * (i - a)
        b = b + 2.0
        d = an * d + b
        d = 1.0 / np.where(np.abs(d) < _TINY, _TINY, d)
        c = b + an / c
        c = np.where(np.abs(c) < _TINY, _TINY, c)
        delta = np.where(active, d * c, 1.0)
        h = h * delta
        active = active & (np.abs(delta - 1.0) > _EPS)
        if not active.any():
            break
    return h * np.exp(_log_prefactor(a, x))


def _igamma_pair(a: Any, x: Any) -> tuple[Any, Any]:
    """``(P, Q)`` with the one of them below ~1/2 computed directly."""
    use_series = x < a + 1.0
    bad = np.isnan(a) | np.isnan(x) | (x < 0) | (a <= 0)
    regular = ~bad & (x > 0) & np.isfinite(x)
    safe_a = np.where(regular, a, 1.0)
    safe_x = np.where(regular, x, 1.0)
    p = np.zeros(a.shape)
    q = np.zeros(a.shape)
    series = regular & use_series
    if series.any():
        p[series] = _lower_series(safe_a[series], safe_x[series])
        q[series] = 1.0 - p[series]
    fraction = regular & ~use_series
    if fraction.any():
        q[fraction] = _upper_continued_fraction(safe_a[fraction], safe_x[fraction])
        p[fraction] = 1.0 - q[fraction]
    zero = ~bad & (x == 0)
    p[zero], q[zero] = 0.0, 1.0
    inf = ~bad & np.isinf(x)
    p[inf], q[inf] = 1.0, 0.0
    p[bad], q[bad] = np.nan, np.nan
    return p, q


def _igamma(a: Any, x: Any) -> Any:
    a64, x64, dtype = _operands("igamma", a, x)
    with np.errstate(all="ignore"):
        p, _ = _igamma_pair(a64, x64)
    return np.asarray(p, dtype)[()]


def _igammac(a: Any, x: Any) -> Any:
    a64, x64, dtype = _operands("igammac", a, x)
    with np.errstate(all="ignore"):
        _, q = _igamma_pair(a64, x64)
    return np.asarray(q, dtype)[()]


igamma_p = _define("igamma", 2, REAL, to_inexact_dtype, _igamma)
igammac_p = _define("igammac", 2, REAL, to_inexact_dtype, _igammac)
