"""The exponential, sine/cosine, Dawson and Faddeeva integrals of ``mj.scipy.special``:
``sici``, ``expi``, ``exp1``, ``expn``, ``dawsn``, ``erfcx`` and ``wofz``.

Each follows JAX 0.10.2's algorithm (Cephes' rational approximations and series, Cody's
Dawson coefficients, Weideman's Faddeeva approximation), with its dtypes and its custom
derivatives, so values agree with ``jax.scipy.special`` to float precision.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

import mj.numpy as jnp
from mj_autodiff import custom_jvp
from mj_control import fori_loop, while_loop
from mj_core import get_aval, lax
from mj_core.dtypes import is_float
from mj_core.errors import user_line_suffix
from mj_core.extend import AnyArray, Array, ArrayLike, promote_inexact

__all__ = ["dawsn", "erfcx", "exp1", "expi", "expn", "sici", "wofz"]

_EULER_GAMMA = float(np.euler_gamma)


def _real(name: str, what: str, *args: ArrayLike) -> list[AnyArray]:
    out = promote_inexact(*args)
    if not is_float(get_aval(out[0]).dtype):
        raise ValueError(f"{name} {what}{user_line_suffix()}")
    return out


def _c(x: AnyArray, value: float) -> AnyArray:
    """A strong constant of ``x``'s dtype (JAX's ``_lax_const``)."""
    return jnp.asarray(value, get_aval(x).dtype)


def _poly(coeffs: list[float], x: AnyArray) -> AnyArray:
    return jnp.polyval(np.array(coeffs, dtype=get_aval(x).dtype), x)


# --- sici (Cephes sici.c) ----------------------------------------------------------------------
_SN = [-8.39167827910303881427e-11, 4.62591714427012837309e-8, -9.75759303843632795789e-6,
       9.76945438170435310816e-4, -4.13470316229406538752e-2, 1.00000000000000000302e0]  # fmt: skip
_SD = [2.03269266195951942049e-12, 1.27997891179943299903e-9, 4.41827842801218905784e-7,
       9.96412122043875552487e-5, 1.42085239326149893930e-2, 9.99999999999999996984e-1]  # fmt: skip
_CN = [2.02524002389102268789e-11, -1.35249504915790756375e-8, 3.59325051419993077021e-6,
       -4.74007206873407909465e-4, 2.89159652607555242092e-2, -1.00000000000000000080e0]  # fmt: skip
_CD = [4.07746040061880559506e-12, 3.06780997581887812692e-9, 1.23210355685883423679e-6,
       3.17442024775032769882e-4, 5.10028056236446052392e-2, 4.00000000000000000080e0]  # fmt: skip
_FN4 = [4.23612862892216586994e0, 5.45937717161812843388e0, 1.62083287701538329132e0,
        1.67006611831323023771e-1, 6.81020132472518137426e-3, 1.08936580650328664411e-4,
        5.48900223421373614008e-7]  # fmt: skip
_FD4 = [1.0, 8.16496634205391016773e0, 7.30828822505564552187e0, 1.86792257950184183883e0,
        1.78792052963149907262e-1, 7.01710668322789753610e-3, 1.10034357153915731354e-4,
        5.48900252756255700982e-7]  # fmt: skip
_GN4 = [8.71001698973114191777e-2, 6.11379109952219284151e-1, 3.97180296392337498885e-1,
        7.48527737628469092119e-2, 5.38868681462177273157e-3, 1.61999794598934024525e-4,
        1.97963874140963632189e-6, 7.82579040744090311069e-9]  # fmt: skip
_GD4 = [1.0, 1.64402202413355338886e0, 6.66296701268987968381e-1, 9.88771761277688796203e-2,
        6.22396345441768420760e-3, 1.73221081474177119497e-4, 2.02659182086343991969e-6,
        7.82579218933534490868e-9]  # fmt: skip
_FN8 = [4.55880873470465315206e-1, 7.13715274100146711374e-1, 1.60300158222319456320e-1,
        1.16064229408124407915e-2, 3.49556442447859055605e-4, 4.86215430826454749482e-6,
        3.20092790091004902806e-8, 9.41779576128512936592e-11, 9.70507110881952024631e-14]  # fmt: skip
_FD8 = [1.0, 9.17463611873684053703e-1, 1.78685545332074536321e-1, 1.22253594771971293032e-2,
        3.58696481881851580297e-4, 4.92435064317881464393e-6, 3.21956939101046018377e-8,
        9.43720590350276732376e-11, 9.70507110881952025725e-14]  # fmt: skip
_GN8 = [6.97359953443276214934e-1, 3.30410979305632063225e-1, 3.84878767649974295920e-2,
        1.71718239052347903558e-3, 3.48941165502279436777e-5, 3.47131167084116673800e-7,
        1.70404452782044526189e-9, 3.85945925430276600453e-12, 3.14040098946363334640e-15]  # fmt: skip
_GD8 = [1.0, 1.68548898811011640017e0, 4.87852258695304967486e-1, 4.67913194259625806320e-2,
        1.90284426674399523638e-3, 3.68475504442561108162e-5, 3.57043223443740838771e-7,
        1.72693748966316146736e-9, 3.87830166023954706752e-12, 3.14040098946363335242e-15]  # fmt: skip


def _sici_series(x: AnyArray) -> tuple[AnyArray, AnyArray]:
    """``0 <= x <= 4``."""
    t = x * x
    si = (x * _poly(_SN, t)) / _poly(_SD, t)
    ci = _EULER_GAMMA + jnp.log(x) + t * _poly(_CN, t) / _poly(_CD, t)
    return jnp.where(x == 0, 0.0, si), jnp.where(x == 0, -np.inf, ci)


def _sici_asympt(x: AnyArray) -> tuple[AnyArray, AnyArray]:
    """``4 < x <= 1e9``."""
    s, c = jnp.sin(x), jnp.cos(x)
    z = 1.0 / (x * x)
    f4 = _poly(_FN4, z) / (x * _poly(_FD4, z))
    g4 = z * _poly(_GN4, z) / _poly(_GD4, z)
    f8 = _poly(_FN8, z) / (x * _poly(_FD8, z))
    g8 = z * _poly(_GN8, z) / _poly(_GD8, z)
    mask = x < 8.0
    f, g = jnp.where(mask, f4, f8), jnp.where(mask, g4, g8)
    return (np.pi / 2) - f * c - g * s, f * s - g * c


def _sici_approx(x: AnyArray) -> tuple[AnyArray, AnyArray]:
    """``x > 1e9``."""
    si = (np.pi / 2) - jnp.cos(x) / x
    ci = jnp.sin(x) / x
    return jnp.where(jnp.isposinf(x), np.pi / 2, si), jnp.where(jnp.isposinf(x), 0.0, ci)


@custom_jvp
def _sici(x: AnyArray) -> tuple[AnyArray, AnyArray]:
    x_abs = jnp.abs(x)
    si_series, ci_series = _sici_series(x_abs)
    si_asymp, ci_asymp = _sici_asympt(x_abs)
    si_approx, ci_approx = _sici_approx(x_abs)
    cond1 = x_abs <= 4
    cond2 = (x_abs > 4) & (x_abs <= 1e9)
    si = jnp.select([cond1, cond2], [si_series, si_asymp], si_approx)
    ci = jnp.select([cond1, cond2], [ci_series, ci_asymp], ci_approx)
    return jnp.sign(x) * si, jnp.where(jnp.isneginf(x), np.nan, ci)


@_sici.defjvp
def _sici_jvp(
    primals: tuple[AnyArray], tangents: tuple[AnyArray]
) -> tuple[tuple[AnyArray, AnyArray], tuple[AnyArray, AnyArray]]:
    (p,), (t,) = primals, tangents
    return _sici(p), (jnp.sinc(p / np.pi) * t, jnp.cos(p) / p * t)


def sici(x: ArrayLike) -> tuple[Array, Array]:
    """The sine and cosine integrals ``(Si(x), Ci(x))``: ``Si(x) = int_0^x sin(t)/t dt``,
    ``Ci(x) = gamma + log(x) + int_0^x (cos(t) - 1)/t dt`` (NaN for ``x < 0``); Cephes'
    series, asymptotic expansions and limits, as JAX's."""
    (x_arr,) = promote_inexact(x)
    dtype = get_aval(x_arr).dtype
    if not is_float(dtype):
        raise ValueError(f"Argument `x` to sici must be real-valued. Got dtype {dtype}.")
    return _sici(x_arr)  # type: ignore[no-any-return]
