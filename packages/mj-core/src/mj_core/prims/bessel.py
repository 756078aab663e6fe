"""Exponentially scaled modified Bessel functions ``bessel_i0e(x) = exp(-|x|) I0(x)`` and
``bessel_i1e(x) = exp(-|x|) I1(x)``, elementwise like ``lgamma``.

``i0e`` evaluates Cephes' Chebyshev expansions (``|x| <= 8`` and ``|x| > 8``), the same
ones JAX lowers ``bessel_i0e`` to, so eager and jit agree. ``i1e`` (which XLA lowers as
``chlo.bessel_i1e``) sums the power series ``I1(x) = sum (x/2)^(2k+1) / (k! (k+1)!)`` of
positive terms for ``|x| <= 40`` and the Hankel asymptotic series above: a few ulps in
float64. Both compute in float64 and round to the operand's float dtype.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from mj_core.prims.elementwise import REAL, _define, to_inexact_dtype

__all__ = ["I0E_CHEBYSHEV_BIG", "I0E_CHEBYSHEV_SMALL", "bessel_i0e_p", "bessel_i1e_p"]

F64 = np.dtype(np.float64)

# Cephes i0e: Chebyshev coefficients for |x| <= 8 (in x/2 - 2) and |x| > 8 (in 32/x - 2)
I0E_CHEBYSHEV_SMALL = (
    -4.41534164647933937950e-18, 3.33079451882223809783e-17, -2.43127984654795469359e-16,
    1.71539128555513303061e-15, -1.16853328779934516808e-14, 7.67618549860493561688e-14,
    -4.85644678311192946090e-13, 2.95505266312963983461e-12, -1.72682629144155570723e-11,
    9.67580903537323691224e-11, -5.18979560163526290666e-10, 2.65982372468238665035e-9,
    -1.30002500998624804212e-8, 6.04699502254191894932e-8, -2.67079385394061173391e-7,
    1.11738753912010371815e-6, -4.41673835845875056359e-6, 1.64484480707288970893e-5,
    -5.75419501008210370398e-5, 1.88502885095841655729e-4, -5.76375574538582365885e-4,
    1.63947561694133579842e-3, -4.32430999505057594430e-3, 1.05464603945949983183e-2,
    -2.37374148058994688156e-2, 4.93052842396707084878e-2, -9.49010970480476444210e-2,
    1.71620901522208775349e-1, -3.04682672343198398683e-1, 6.76795274409476084995e-1,
)  # fmt: skip
I0E_CHEBYSHEV_BIG = (
    -7.23318048787475395456e-18, -4.83050448594418207126e-18, 4.46562142029675999901e-17,
    3.46122286769746109310e-17, -2.82762398051658348494e-16, -3.42548561967721913462e-16,
    1.77256013305652638360e-15, 3.81168066935262242075e-15, -9.55484669882830764870e-15,
    -4.15056934728722208663e-14, 1.54008621752140982691e-14, 3.85277838274214270114e-13,
    7.18012445138366623367e-13, -1.79417853150680611778e-12, -1.32158118404477131188e-11,
    -3.14991652796324136454e-11, 1.18891471078464383424e-11, 4.94060238822496958910e-10,
    3.39623202570838634515e-9, 2.26666899049817806459e-8, 2.04891858946906374183e-7,
    2.89137052083475648297e-6, 6.88975834691682398426e-5, 3.36911647825569408990e-3,
    8.04490411014108831608e-1,
)  # fmt: skip
_SERIES_UP_TO = 40.0
_SERIES_TERMS = 90
_ASYMPTOTIC_TERMS = 25


def _chebyshev(t: Any, coefficients: Sequence[float]) -> Any:
    """Clenshaw's recurrence, Cephes' ``chbevl``."""
    b0 = np.zeros_like(t)
    b1 = np.zeros_like(t)
    b2 = np.zeros_like(t)
    for c in coefficients:
        b2, b1 = b1, b0
        b0 = t * b1 - b2 + c
    return 0.5 * (b0 - b2)


def _operand(name: str, x: Any) -> tuple[Any, np.dtype[Any]]:
    dtype = to_inexact_dtype(np.result_type(x))
    if dtype.kind == "c":
        raise TypeError(f"{name} is not defined for complex inputs, got {dtype.name}")
    return np.asarray(x, F64), dtype


def _i0e(x: Any) -> Any:
    x, dtype = _operand("bessel_i0e", x)
    ax = np.abs(x)
    with np.errstate(all="ignore"):
        small = _chebyshev(0.5 * ax - 2.0, I0E_CHEBYSHEV_SMALL)
        big = _chebyshev(32.0 / ax - 2.0, I0E_CHEBYSHEV_BIG) / np.sqrt(ax)
        out = np.where(ax <= 8.0, small, big)
    return np.asarray(out, dtype)[()]


def _i1e(x: Any) -> Any:
    x, dtype = _operand("bessel_i1e", x)
    ax = np.abs(x)
    with np.errstate(all="ignore"):
        s = np.minimum(ax, _SERIES_UP_TO)
        half = 0.5 * s
        term = half * np.exp(-s)  # k = 0 term, already scaled by exp(-|x|)
        total = term
        q = half * half
        for k in range(1, _SERIES_TERMS):
            term = term * q / (k * (k + 1))
            total = total + term
        big = np.maximum(ax, _SERIES_UP_TO)
        # I1(x) e^-x ~ 1/sqrt(2 pi x) sum_k (-1)^k prod_{j<=k} (4 - (2j-1)^2) / (j 8x)
        coefficient = np.ones_like(big)
        series = np.ones_like(big)
        for j in range(1, _ASYMPTOTIC_TERMS):
            coefficient = coefficient * -(4.0 - (2 * j - 1) ** 2) / (j * 8.0 * big)
            series = series + coefficient
        asymptotic = series / np.sqrt(2 * math.pi * big)
        out = np.where(ax <= _SERIES_UP_TO, total, asymptotic) * np.sign(x)
    return np.asarray(out, dtype)[()]


bessel_i0e_p = _define("bessel_i0e", 1, REAL, to_inexact_dtype, _i0e)
bessel_i1e_p = _define("bessel_i1e", 1, REAL, to_inexact_dtype, _i1e)
