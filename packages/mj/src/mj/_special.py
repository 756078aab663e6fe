"""Special functions composed from core primitives, so every transformation handles them.

``erf_inv`` is what ``mj.random.normal`` needs to turn uniform bits into Gaussian samples. It
evaluates the same piecewise polynomials as XLA's ``ErfInv`` (M. Giles, "Approximating the
erfinv function", GPU Computing Gems, 2011): single precision for 16/32-bit floats, the
three-piece double-precision version for float64. Matching XLA's approximation is what makes
``mj.random.normal`` reproduce ``jax.random.normal`` sample for sample.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mj_core import lax
from mj_core.avals import get_aval
from mj_core.prims.elementwise import to_inexact_dtype

__all__ = ["erf_inv"]

Array = Any

# Horner coefficients, highest degree first.
_F32_CENTRAL = (
    2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
    -0.00125372503, -0.00417768164, 0.246640727, 1.50140941,
)  # fmt: skip
_F32_TAIL = (
    -0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
    -0.0076224613, 0.00943887047, 1.00167406, 2.83297682,
)  # fmt: skip
_F64_CENTRAL = (
    -3.6444120640178196996e-21, -1.685059138182016589e-19, 1.2858480715256400167e-18,
    1.115787767802518096e-17, -1.333171662854620906e-16, 2.0972767875968561637e-17,
    6.6376381343583238325e-15, -4.0545662729752068639e-14, -8.1519341976054721522e-14,
    2.6335093153082322977e-12, -1.2975133253453532498e-11, -5.4154120542946279317e-11,
    1.051212273321532285e-09, -4.1126339803469836976e-09, -2.9070369957882005086e-08,
    4.2347877827932403518e-07, -1.3654692000834678645e-06, -1.3882523362786468719e-05,
    0.0001867342080340571352, -0.00074070253416626697512, -0.0060336708714301490533,
    0.24015818242558961693, 1.6536545626831027356,
)  # fmt: skip
_F64_MIDDLE = (
    2.2137376921775787049e-09, 9.0756561938885390979e-08, -2.7517406297064545428e-07,
    1.8239629214389227755e-08, 1.5027403968909827627e-06, -4.013867526981545969e-06,
    2.9234449089955446044e-06, 1.2475304481671778723e-05, -4.7318229009055733981e-05,
    6.8284851459573175448e-05, 2.4031110387097893999e-05, -0.0003550375203628474796,
    0.00095328937973738049703, -0.0016882755560235047313, 0.0024914420961078508066,
    -0.0037512085075692412107, 0.005370914553590063617, 1.0052589676941592334,
    3.0838856104922207635,
)  # fmt: skip
_F64_TAIL = (
    -2.7109920616438573243e-11, -2.5556418169965252055e-10, 1.5076572693500548083e-09,
    -3.7894654401267369937e-09, 7.6157012080783393804e-09, -1.4960026627149240478e-08,
    2.9147953450901080826e-08, -6.7711997758452339498e-08, 2.2900482228026654717e-07,
    -9.9298272942317002539e-07, 4.5260625972231537039e-06, -1.9681778105531670567e-05,
    7.5995277030017761139e-05, -0.00021503011930044477347, -0.00013871931833623122026,
    1.0103004648645343977, 4.8499064014085844221,
)  # fmt: skip


def _horner(coefficients: Sequence[float], t: Array, dtype: np.dtype[Any]) -> Array:
    p = np.asarray(coefficients[0], dtype)
    for c in coefficients[1:]:
        p = lax.add(np.asarray(c, dtype), lax.mul(p, t))
    return p


def _safe_sqrt(w: Array, floor: float) -> Array:
    """``sqrt(max(w, floor))``: the tail branches never see the small ``w`` of the central
    branch, so their (unselected) derivative stays finite and cannot poison a gradient."""
    return lax.sqrt(lax.max(w, np.asarray(floor, get_aval(w).dtype)))


def erf_inv(x: Array) -> Array:
    """The inverse error function, elementwise: ``erf(erf_inv(x)) == x`` on ``(-1, 1)``,
    ``+-inf`` at ``+-1`` and NaN outside ``[-1, 1]``."""
    dtype = to_inexact_dtype(get_aval(x).dtype)
    if dtype.kind != "f":
        raise TypeError(f"erf_inv requires a real floating-point operand, got {dtype.name}")
    compute = np.dtype(np.float64) if dtype == np.float64 else np.dtype(np.float32)
    xc = _convert(x, compute)
    w = lax.neg(lax.log1p(lax.neg(lax.mul(xc, xc))))
    if compute == np.float64:
        central = _horner(_F64_CENTRAL, lax.sub(w, 3.125), compute)
        middle = _horner(_F64_MIDDLE, lax.sub(_safe_sqrt(w, 6.25), 3.25), compute)
        tail = _horner(_F64_TAIL, lax.sub(_safe_sqrt(w, 16.0), 5.0), compute)
        p = lax.select(lax.lt(w, 6.25), central, lax.select(lax.lt(w, 16.0), middle, tail))
    else:
        central = _horner(_F32_CENTRAL, lax.sub(w, 2.5), compute)
        tail = _horner(_F32_TAIL, lax.sub(_safe_sqrt(w, 5.0), 3.0), compute)
        p = lax.select(lax.lt(w, 5.0), central, tail)
    # +-inf at +-1, chosen by a select on constants so that no 0 * inf reaches a gradient
    infinity = lax.select(
        lax.gt(xc, 0.0), np.asarray(np.inf, compute), np.asarray(-np.inf, compute)
    )
    out = lax.select(lax.eq(lax.abs(xc), 1.0), infinity, lax.mul(p, xc))
    return _convert(out, dtype)


def _convert(x: Array, dtype: np.dtype[Any]) -> Array:
    if get_aval(x).dtype == dtype:
        return x
    return lax.convert_element_type(x, dtype)
