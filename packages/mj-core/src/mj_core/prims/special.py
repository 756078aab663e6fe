"""Special-function primitives: ``lgamma``, ``digamma``, ``erfc`` and ``erf_inv``.

They are elementwise primitives like :data:`~mj_core.prims.elementwise.erf_p` (same spec
table, so abstract eval, vmap and the lowering helpers treat them like ``sin``). The NumPy
impls compute in float64 and round to the operand's float dtype:

* ``lgamma``: a Taylor series of ``lgamma(2 + z)`` (coefficients ``zeta(k) - 1``) near the
  zeros at 1 and 2, the recurrence ``lgamma(x) = lgamma(x - 1) + log(x - 1)`` up to 10, the
  Stirling series above, and the reflection formula for ``x <= 0``: a few ulps away from the
  negative zeros, where any float64 formula loses digits.
* ``digamma``: the recurrence ``psi(x) = psi(x + 1) - 1/x`` up to 10, the asymptotic series
  above, and the reflection formula for ``x <= 0`` (NaN at the poles, as XLA).
* ``erfc``: ``math.erfc`` elementwise (like ``erf``), so large ``x`` has no cancellation.
* ``erf_inv``: M. Giles' piecewise polynomials, the same ones XLA expands ``chlo.erf_inv``
  to (single precision below float64), so eager and jit results agree and
  ``mj.random.normal`` reproduces ``jax.random.normal``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from mj_core.prims.elementwise import REAL, _define, to_inexact_dtype

__all__ = ["digamma_p", "erf_inv_p", "erfc_p", "lgamma_p"]

F64 = np.dtype(np.float64)

# zeta(k) - 1 for k = 2..31: lgamma(2 + z) = (1 - euler_gamma) z + sum_k (-1)^k (zeta(k)-1)/k z^k
_ZETA_MINUS_ONE = (
    0.6449340668482264, 0.2020569031595943, 0.08232323371113819, 0.03692775514336993,
    0.01734306198444914, 0.008349277381922827, 0.00407735619794434, 0.0020083928260822143,
    0.0009945751278180853, 0.0004941886041194645, 0.0002460865533080483,
    0.00012271334757848915, 6.124813505870483e-05, 3.058823630702049e-05,
    1.528225940865187e-05, 7.637197637899763e-06, 3.81729326499984e-06, 1.908212716553939e-06,
    9.539620338727962e-07, 4.769329867878064e-07, 2.38450502727733e-07,
    1.1921992596531106e-07, 5.960818905125948e-08, 2.980350351465228e-08,
    1.4901554828365043e-08, 7.45071178983543e-09, 3.725334024788457e-09,
    1.862659723513049e-09, 9.313274324196682e-10, 4.656629065033784e-10,
)  # fmt: skip
_EULER_GAMMA = 0.5772156649015329
_HALF_LOG_2PI = 0.9189385332046728
# Stirling series of lgamma: B_2k / (2k (2k - 1)) for k = 1..7, in powers of 1/x^2
_STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156)
# Asymptotic series of digamma: B_2k / (2k) for k = 1..7, in powers of 1/x^2
_DIGAMMA_ASYMPTOTIC = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12)
_ASYMPTOTIC_FROM = 10.0


def _float64_operand(name: str, x: Any) -> tuple[Any, np.dtype[Any]]:
    """``x`` as float64 and the dtype to return (the operand's float dtype, as NumPy)."""
    dtype = to_inexact_dtype(np.result_type(x))
    if dtype.kind == "c":
        raise TypeError(f"{name} is not defined for complex inputs, got {dtype.name}")
    return np.asarray(x, F64), dtype


def _polynomial(coefficients: Sequence[float], t: Any) -> Any:
    """``sum(c[k] * t**k)`` by Horner's rule (lowest degree first)."""
    out = np.full_like(t, coefficients[-1])
    for c in coefficients[-2::-1]:
        out = out * t + c
    return out


def _lgamma_two_plus(z: Any) -> Any:
    """``lgamma(2 + z)`` for ``|z| <= 1/2``: the terms fall like ``4**-k``."""
    signed = [(-1) ** k * c / k for k, c in enumerate(_ZETA_MINUS_ONE, start=2)]
    return z * (1 - _EULER_GAMMA + z * _polynomial(signed, z))


def _abs_sin_pi(x: Any) -> Any:
    """``|sin(pi x)|`` without the rounding error of ``pi * x`` for large ``x``."""
    return np.abs(np.sin(np.pi * (x - np.round(x))))


def _lgamma_positive(x: Any) -> Any:
    """``lgamma(x)`` for ``x > 0`` (other entries give garbage that the caller discards)."""
    big = np.maximum(x, _ASYMPTOTIC_FROM)
    inv2 = 1 / (big * big)
    stirling = (big - 0.5) * np.log(big) - big + _HALF_LOG_2PI + _polynomial(_STIRLING, inv2) / big
    # 0 < x < 2.5: one series around 2, shifted by log1p/log terms near 1 and 0
    tiny = x < 0.5
    near_one = (x >= 0.5) & (x < 1.5)
    z = np.where(tiny, x, np.where(near_one, x - 1, x - 2))
    z = np.where(x < 2.5, z, 0.0)
    small = _lgamma_two_plus(z)
    small = np.where(near_one | tiny, small - np.log1p(z), small)
    small = np.where(tiny, small - np.log(x), small)
    # 2.5 <= x < 10: lgamma(x) = lgamma(x - k) + log((x - 1) ... (x - k)), x - k in [1.5, 2.5)
    k = np.where((x >= 2.5) & (x < _ASYMPTOTIC_FROM), np.floor(x - 1.5), 0.0)
    product = np.ones_like(x)
    for j in range(1, 9):
        product = product * np.where(j <= k, x - j, 1.0)
    middle = _lgamma_two_plus(np.where(k > 0, x - k - 2, 0.0)) + np.log(product)
    return np.where(x < 2.5, small, np.where(x < _ASYMPTOTIC_FROM, middle, stirling))


def _lgamma(x: Any) -> Any:
    x, dtype = _float64_operand("lgamma", x)
    with np.errstate(all="ignore"):
        positive = _lgamma_positive(np.where(x > 0, x, 1.0))
        reflected = np.log(np.pi / _abs_sin_pi(x)) - _lgamma_positive(np.where(x > 0, 1.0, 1 - x))
        out = np.where(x > 0, positive, reflected)
        out = np.where(np.isinf(x), np.inf, out)
    return np.asarray(out, dtype)[()]


def _digamma_positive(x: Any) -> Any:
    """``digamma(x)`` for ``x > 0``: step up to 10, then the asymptotic series."""
    shift = np.zeros_like(x)
    y = x
    for _ in range(int(_ASYMPTOTIC_FROM)):
        below = y < _ASYMPTOTIC_FROM
        shift = shift + np.where(below, 1 / y, 0.0)
        y = np.where(below, y + 1, y)
    inv2 = 1 / (y * y)
    return np.log(y) - 0.5 / y - inv2 * _polynomial(_DIGAMMA_ASYMPTOTIC, inv2) - shift


def _digamma(x: Any) -> Any:
    x, dtype = _float64_operand("digamma", x)
    with np.errstate(all="ignore"):
        positive = _digamma_positive(np.where(x > 0, x, 1.0))
        r = x - np.round(x)
        reflected = _digamma_positive(np.where(x > 0, 1.0, 1 - x)) - np.pi / np.tan(np.pi * r)
        pole = (x <= 0) & (x == np.floor(x))
        out = np.where(x > 0, positive, np.where(pole, np.nan, reflected))
    return np.asarray(out, dtype)[()]


_erfc_object = np.frompyfunc(math.erfc, 1, 1)


def _erfc(x: Any) -> Any:
    x, dtype = _float64_operand("erfc", x)
    return np.asarray(_erfc_object(x), dtype)[()]


# Giles' erfinv polynomials (Horner coefficients, highest degree first), as in XLA's ErfInv.
ERF_INV_F32_CENTRAL = (
    2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
    -0.00125372503, -0.00417768164, 0.246640727, 1.50140941,
)  # fmt: skip
ERF_INV_F32_TAIL = (
    -0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
    -0.0076224613, 0.00943887047, 1.00167406, 2.83297682,
)  # fmt: skip
ERF_INV_F64_CENTRAL = (
    -3.6444120640178196996e-21, -1.685059138182016589e-19, 1.2858480715256400167e-18,
    1.115787767802518096e-17, -1.333171662854620906e-16, 2.0972767875968561637e-17,
    6.6376381343583238325e-15, -4.0545662729752068639e-14, -8.1519341976054721522e-14,
    2.6335093153082322977e-12, -1.2975133253453532498e-11, -5.4154120542946279317e-11,
    1.051212273321532285e-09, -4.1126339803469836976e-09, -2.9070369957882005086e-08,
    4.2347877827932403518e-07, -1.3654692000834678645e-06, -1.3882523362786468719e-05,
    0.0001867342080340571352, -0.00074070253416626697512, -0.0060336708714301490533,
    0.24015818242558961693, 1.6536545626831027356,
)  # fmt: skip
ERF_INV_F64_MIDDLE = (
    2.2137376921775787049e-09, 9.0756561938885390979e-08, -2.7517406297064545428e-07,
    1.8239629214389227755e-08, 1.5027403968909827627e-06, -4.013867526981545969e-06,
    2.9234449089955446044e-06, 1.2475304481671778723e-05, -4.7318229009055733981e-05,
    6.8284851459573175448e-05, 2.4031110387097893999e-05, -0.0003550375203628474796,
    0.00095328937973738049703, -0.0016882755560235047313, 0.0024914420961078508066,
    -0.0037512085075692412107, 0.005370914553590063617, 1.0052589676941592334,
    3.0838856104922207635,
)  # fmt: skip
ERF_INV_F64_TAIL = (
    -2.7109920616438573243e-11, -2.5556418169965252055e-10, 1.5076572693500548083e-09,
    -3.7894654401267369937e-09, 7.6157012080783393804e-09, -1.4960026627149240478e-08,
    2.9147953450901080826e-08, -6.7711997758452339498e-08, 2.2900482228026654717e-07,
    -9.9298272942317002539e-07, 4.5260625972231537039e-06, -1.9681778105531670567e-05,
    7.5995277030017761139e-05, -0.00021503011930044477347, -0.00013871931833623122026,
    1.0103004648645343977, 4.8499064014085844221,
)  # fmt: skip


def _horner_high_first(coefficients: Sequence[float], t: Any, dtype: np.dtype[Any]) -> Any:
    p = np.asarray(coefficients[0], dtype)
    for c in coefficients[1:]:
        p = np.add(np.asarray(c, dtype), np.multiply(p, t))
    return p


def _erf_inv(x: Any) -> Any:
    dtype = to_inexact_dtype(np.result_type(x))
    if dtype.kind == "c":
        raise TypeError(f"erf_inv is not defined for complex inputs, got {dtype.name}")
    compute = F64 if dtype == F64 else np.dtype(np.float32)
    xc = np.asarray(x, compute)
    with np.errstate(all="ignore"):
        w = np.negative(np.log1p(np.negative(np.multiply(xc, xc))))
        if compute == F64:
            central = _horner_high_first(ERF_INV_F64_CENTRAL, w - compute.type(3.125), compute)
            middle_t = np.sqrt(np.maximum(w, compute.type(6.25))) - compute.type(3.25)
            middle = _horner_high_first(ERF_INV_F64_MIDDLE, middle_t, compute)
            tail_t = np.sqrt(np.maximum(w, compute.type(16.0))) - compute.type(5.0)
            tail = _horner_high_first(ERF_INV_F64_TAIL, tail_t, compute)
            p = np.where(w < 6.25, central, np.where(w < 16.0, middle, tail))
        else:
            central = _horner_high_first(ERF_INV_F32_CENTRAL, w - compute.type(2.5), compute)
            tail_t = np.sqrt(np.maximum(w, compute.type(5.0))) - compute.type(3.0)
            tail = _horner_high_first(ERF_INV_F32_TAIL, tail_t, compute)
            p = np.where(w < 5.0, central, tail)
        infinity = np.where(np.greater(xc, 0), compute.type(np.inf), compute.type(-np.inf))
        out = np.where(np.abs(xc) == 1, infinity, np.multiply(p, xc))
    return np.asarray(out, dtype)[()]


lgamma_p = _define("lgamma", 1, REAL, to_inexact_dtype, _lgamma)
digamma_p = _define("digamma", 1, REAL, to_inexact_dtype, _digamma)
erfc_p = _define("erfc", 1, REAL, to_inexact_dtype, _erfc)
erf_inv_p = _define("erf_inv", 1, REAL, to_inexact_dtype, _erf_inv)
