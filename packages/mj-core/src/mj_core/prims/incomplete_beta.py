"""Regularized incomplete beta function ``regularized_incomplete_beta(a, b, x) = I_x(a, b)``,
a ternary elementwise primitive (JAX's ``lax.betainc``).

The NumPy impl evaluates the continued fraction of DLMF 8.17.22 by the modified Lentz method,
as XLA's decomposition does (the same partial numerators, tiny-value guards and tolerance),
vectorised with a mask until every element converged. The fraction converges fast for
``x < (a + 1) / (a + b + 2)``; elsewhere ``I_x(a, b) = 1 - I_{1-x}(b, a)`` (DLMF 8.17.4).
It computes in float64 and rounds to the operands' float dtype. Edge values follow JAX:
``a == 0`` or ``b == inf`` give 1 (0 at ``x == 0``), ``b == 0`` or ``a == inf`` give 0 (1 at
``x == 1``), and NaN for negative ``a``/``b``, ``x`` outside ``[0, 1]``, both shapes zero, or
a NaN operand.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mj_core.prims.elementwise import REAL, _define, to_inexact_dtype

__all__ = ["BETAINC_MAX_ITERATIONS", "regularized_incomplete_beta_p"]

F64 = np.dtype(np.float64)
#: Lentz iterations at most, per compute dtype (XLA's: 600 for float64, 200 for float32).
BETAINC_MAX_ITERATIONS = {np.dtype(np.float64): 600, np.dtype(np.float32): 200}
_lgamma_object = np.frompyfunc(math.lgamma, 1, 1)


def _lgamma(x: Any) -> Any:
    return np.asarray(_lgamma_object(x), F64)


def partial_numerator(i: int, a: Any, b: Any, x: Any) -> Any:
    """The ``i``-th partial numerator of the fraction (``i >= 1``; the first is 1)."""
    if i == 1:
        return np.ones_like(x)
    m = float((i - 1) // 2)
    if i % 2 == 1:
        return m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
    if m == 0:
        return -(a + b) * x / (a + 1)
    return -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))


def _continued_fraction(a: Any, b: Any, x: Any) -> Any:
    """Modified Lentz evaluation of ``0 + n_1/(1 + n_2/(1 + ...))`` (elementwise)."""
    small = np.finfo(F64).eps / 2
    h = np.full(x.shape, small)
    c = h.copy()
    d = np.zeros(x.shape)
    active = np.ones(x.shape, bool)
    for i in range(1, BETAINC_MAX_ITERATIONS[F64]):
        numerator = partial_numerator(i, a, b, x)
        c_new = 1.0 + numerator / c
        c_new = np.where(np.abs(c_new) < small, small, c_new)
        d_new = 1.0 + numerator * d
        d_new = 1.0 / np.where(np.abs(d_new) < small, small, d_new)
        delta = c_new * d_new
        h = np.where(active, h * delta, h)
        c = np.where(active, c_new, c)
        d = np.where(active, d_new, d)
        active = active & (np.abs(delta - 1.0) >= small)
        if not active.any():
            break
    return h


def _betainc64(a: Any, b: Any, x: Any) -> Any:
    a_is_zero = (a == 0) | (b == np.inf)
    b_is_zero = (b == 0) | (a == np.inf)
    nan = (a < 0) | (b < 0) | (x < 0) | (x > 1) | (a_is_zero & b_is_zero)
    nan = nan | np.isnan(a) | np.isnan(b) | np.isnan(x)
    zero = (b_is_zero & (x != 1)) | (a_is_zero & (x == 0))
    one = (a_is_zero & (x != 0)) | (b_is_zero & (x == 1))
    regular = ~(nan | zero | one)
    direct = x < (a + 1) / (a + b + 2)
    # safe operands where the answer is fixed anyway, so the fraction sees no NaN/inf
    aa = np.where(regular, np.where(direct, a, b), 1.0)
    bb = np.where(regular, np.where(direct, b, a), 1.0)
    xx = np.where(regular, np.where(direct, x, 1.0 - x), 0.5)
    fraction = _continued_fraction(aa, bb, xx)
    log_beta_rest = _lgamma(bb) - _lgamma(aa + bb)
    tiny_a = aa < np.finfo(F64).tiny * 2
    factor = np.where(
        tiny_a,
        np.exp(np.log1p(-xx) * bb - log_beta_rest),
        np.exp(np.log(xx) * aa + np.log1p(-xx) * bb - (_lgamma(aa) + log_beta_rest)) / aa,
    )
    value = fraction * factor
    value = np.where(direct, value, 1.0 - value)
    value = np.where(zero, 0.0, value)
    value = np.where(one, 1.0, value)
    return np.where(nan, np.nan, value)


def _betainc(a: Any, b: Any, x: Any) -> Any:
    dtype = to_inexact_dtype(np.result_type(a, b, x))
    if dtype.kind == "c":
        raise TypeError(
            f"regularized_incomplete_beta is not defined for complex inputs, got {dtype.name}"
        )
    a64, b64, x64 = np.broadcast_arrays(np.asarray(a, F64), np.asarray(b, F64), np.asarray(x, F64))
    with np.errstate(all="ignore"):
        value = _betainc64(a64, b64, x64)
    return np.asarray(value, dtype)[()]


regularized_incomplete_beta_p = _define(
    "regularized_incomplete_beta", 3, REAL, to_inexact_dtype, _betainc
)
