"""The exponential, sine/cosine, Dawson and Faddeeva integrals of ``mj.scipy.special``:
``sici``, ``expi``, ``exp1``, ``expn``, ``dawsn``, ``erfcx`` and ``wofz``.

Each follows JAX 0.10.2's algorithm (Cephes' rational approximations and series, Cody's
Dawson coefficients, Weideman's Faddeeva approximation), with its dtypes and its custom
derivatives, so values agree with ``jax.scipy.special`` to float precision.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

import mj.numpy as jnp
from mj_autodiff import custom_jvp
from mj_control import fori_loop, while_loop
from mj_core import get_aval, lax
from mj_core.dtypes import float_info, is_float
from mj_core.errors import user_line_suffix
from mj_core.extend import AnyArray, Array, ArrayLike, promote_inexact

__all__ = [
    "bernoulli",
    "dawsn",
    "erfcx",
    "exp1",
    "expi",
    "expn",
    "fresnel",
    "owens_t",
    "sici",
    "wofz",
]

_EULER_GAMMA = float(np.euler_gamma)


def _real(name: str, what: str, *args: ArrayLike) -> list[AnyArray]:
    out = promote_inexact(*args)
    if not is_float(get_aval(out[0]).dtype):
        raise ValueError(f"{name} {what}{user_line_suffix()}")
    return out


def _gamma(x: AnyArray) -> AnyArray:
    """JAX's real ``gamma`` of an inexact array, ``gammasgn(x) * exp(lgamma(x))`` (the sign
    by JAX's ``select``; here so that this module does not import ``special``)."""
    floor_x = lax.floor(x)
    x_negative = x < 0
    sign = jnp.select(
        [
            (x_negative & (x == floor_x)) | jnp.isnan(x),
            (x_negative & (floor_x % 2 != 0)) | ((x == 0) & jnp.signbit(x)),
        ],
        [jnp.full_like(x, np.nan), jnp.full_like(x, -1.0)],
        jnp.full_like(x, 1.0),
    )
    return sign * lax.exp(lax.lgamma(x))


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
       -4.74007206873407909465e-4, 2.89159652607555242092e-2,
       -1.00000000000000000080e0]  # fmt: skip
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
        3.20092790091004902806e-8, 9.41779576128512936592e-11,
        9.70507110881952024631e-14]  # fmt: skip
_FD8 = [1.0, 9.17463611873684053703e-1, 1.78685545332074536321e-1, 1.22253594771971293032e-2,
        3.58696481881851580297e-4, 4.92435064317881464393e-6, 3.21956939101046018377e-8,
        9.43720590350276732376e-11, 9.70507110881952025725e-14]  # fmt: skip
_GN8 = [6.97359953443276214934e-1, 3.30410979305632063225e-1, 3.84878767649974295920e-2,
        1.71718239052347903558e-3, 3.48941165502279436777e-5, 3.47131167084116673800e-7,
        1.70404452782044526189e-9, 3.85945925430276600453e-12,
        3.14040098946363334640e-15]  # fmt: skip
_GD8 = [1.0, 1.68548898811011640017e0, 4.87852258695304967486e-1, 4.67913194259625806320e-2,
        1.90284426674399523638e-3, 3.68475504442561108162e-5, 3.57043223443740838771e-7,
        1.72693748966316146736e-9, 3.87830166023954706752e-12,
        3.14040098946363335242e-15]  # fmt: skip


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


# --- wofz and erfcx (Weideman's N = 32 rational approximation of the Faddeeva function) ---------
_WOFZ_L = 4.7568284600108841
_WOFZ_C = np.array([
    -1.3034426067909105e-12, 3.7411838373738471e-12, 8.030427700497756e-12,
    -2.1543593557490879e-11, -5.5442449963237932e-11, 1.165824698850374e-10,
    4.1537441121999766e-10, -5.2310202114920615e-10, -3.2080151339721323e-09,
    8.1248864216535907e-10, 2.3797556530014025e-08, 2.2930438438915445e-08,
    -1.4813078929137642e-07, -4.1840763750512053e-07, 4.2558331397138446e-07,
    4.4015317312832251e-06, 6.8210319443575151e-06, -2.1409619201999998e-05,
    -0.00013075449254579421, -0.00024532980270038237, 0.00039259136070109705,
    0.0045195411053493093, 0.019006155784845501, 0.057304403529837282, 0.14060716226893755,
    0.29544451071508743, 0.54601397206393376, 0.9019254893648001, 1.3455441692345449,
    1.8256696296324815, 2.2635372999002676, 2.5722534081245696,
])  # fmt: skip


def _wofz_upper(z: AnyArray) -> AnyArray:
    """``w(z)`` for ``Im(z) >= 0``: ``2 p(Z) / (L - iz)**2 + 1 / (sqrt(pi) (L - iz))`` with
    ``Z = (L + iz) / (L - iz)``."""
    re = lax.real(z)
    big_l = lax.complex(_c(re, _WOFZ_L), _c(re, 0.0))
    iz = lax.complex(lax.neg(lax.imag(z)), re)
    denom = big_l - iz
    zz = (big_l + iz) / denom
    p = jnp.polyval(jnp.asarray(_WOFZ_C, dtype=get_aval(zz).dtype), zz)
    one_over_sqrtpi = lax.complex(_c(re, 1.0 / np.sqrt(np.pi)), _c(re, 0.0))
    return 2 * p / (denom * denom) + one_over_sqrtpi / denom


@custom_jvp
def _wofz(z: AnyArray) -> AnyArray:
    sign = lax.ge(lax.imag(z), _c(lax.real(z), 0.0))
    z_upper = lax.select(sign, z, lax.neg(z))
    w_upper = _wofz_upper(z_upper)
    correction = 2 * lax.exp(lax.neg(z * z)) - w_upper
    return lax.select(sign, w_upper, correction)


_wofz.defjvps(
    lambda g, ans, z: g * (
        lax.neg(2 * z * ans)
        + lax.complex(_c(lax.real(z), 0.0), _c(lax.real(z), 2.0 / np.sqrt(np.pi)))
    )
)  # fmt: skip


def wofz(z: ArrayLike) -> Array:
    """The Faddeeva function ``exp(-z**2) erfc(-iz)`` (complex; real and integer ``z``
    promote to complex), by Weideman's rational approximation in the upper half plane and
    the reflection ``2 exp(-z**2) - w(-z)`` below, as JAX's."""
    (x,) = promote_inexact(z)
    if is_float(get_aval(x).dtype):
        x = lax.complex(x, jnp.zeros_like(x))
    return _wofz(x)  # type: ignore[no-any-return]


_ERFCX_COEFFS = [7918.06640625, -1055.7421875, 162.421875, -29.53125, 6.5625, -1.875, 0.75,
                 -0.5, 1.0]  # fmt: skip


def _erfcx_impl(x: AnyArray, nterms: int) -> AnyArray:
    """``exp(x**2) erfc(x)``, by the asymptotic series (``nterms`` terms) where
    ``exp(x**2)`` would overflow."""
    dtype = get_aval(x).dtype
    threshold = np.sqrt(np.log(float_info(dtype).max))
    large = x > _c(x, threshold)
    safe_x = lax.select(large, jnp.full_like(x, 1.0), x)
    direct = lax.exp(safe_x * safe_x) * lax.erfc(safe_x)
    t = _c(x, 1.0) / (x * x)
    p = jnp.polyval(np.array(_ERFCX_COEFFS[-nterms:], dtype=dtype), t)
    asymp = p / (x * _c(x, np.sqrt(np.pi)))
    return lax.select(large, asymp, direct)


@custom_jvp
def _erfcx(x: AnyArray) -> AnyArray:
    dtype = get_aval(x).dtype
    if dtype == np.float64:
        return _erfcx_impl(x, nterms=9)
    if dtype == np.float32:
        return _erfcx_impl(x, nterms=5)
    wide = lax.convert_element_type(x, np.float32)  # float16, bfloat16
    return lax.convert_element_type(_erfcx_impl(wide, nterms=5), dtype)


_erfcx.defjvps(lambda g, ans, x: g * (2 * x * ans - _c(x, 2.0 / np.sqrt(np.pi))))


def erfcx(x: ArrayLike) -> Array:
    """The scaled complementary error function ``exp(x**2) erfc(x)``, without the overflow
    of the naive formula (an asymptotic series for large ``x``); complex ``x`` goes through
    :func:`wofz` of ``i x``, as JAX's."""
    (x_arr,) = promote_inexact(x)
    if not is_float(get_aval(x_arr).dtype):
        iz = lax.complex(lax.neg(lax.imag(x_arr)), lax.real(x_arr))
        return _wofz(iz)  # type: ignore[no-any-return]
    return _erfcx(x_arr)  # type: ignore[no-any-return]


# --- dawsn (Cody, Paciorek and Thacher 1970) --------------------------------------------------
_DAWSN_AN = [
    1.13681498971755972054e-11, 8.49262267667473811108e-10, 1.94434204175553054283e-8,
    9.53151741254484363489e-7, 3.07828309874913200438e-6, 3.52513368520288738649e-4,
    -8.50149846724410912031e-4, 4.22618223005546594270e-2, -9.17480371773452345351e-2,
    9.99999999999999994612e-1,
]  # fmt: skip
_DAWSN_AD = [
    2.40372073066762605484e-11, 1.48864681368493396752e-9, 5.21265281010541664570e-8,
    1.27258478273186970203e-6, 2.32490249820789513991e-5, 3.25524741826057911661e-4,
    3.48805814657162590916e-3, 2.79448531198828973716e-2, 1.58874241960120565368e-1,
    5.74918629489320327824e-1, 1.00000000000000000539e0,
]  # fmt: skip
_DAWSN_BN = [
    5.08955156417900903354e-1, -2.44754418142697847934e-1, 9.41512335303534411857e-2,
    -2.18711255142039025206e-2, 3.66207612329569181322e-3, -4.23209114460388756528e-4,
    3.59641304793896631888e-5, -2.14640351719968974225e-6, 9.10010780076391431042e-8,
    -2.40274520828250956942e-9, 3.59233385440928410398e-11,
]  # fmt: skip
_DAWSN_BD = [
    1.00000000000000000000e0, -6.31839869873368190192e-1, 2.36706788228248691528e-1,
    -5.31806367003223277662e-2, 8.48041718586295374409e-3, -9.47996768486665330168e-4,
    7.81025592944552338085e-5, -4.55875153252442634831e-6, 1.89100358111421846170e-7,
    -4.91324691331920606875e-9, 7.18466403235734541950e-11,
]  # fmt: skip
_DAWSN_CN = [
    -5.90592860534773254987e-1, 6.29235242724368800674e-1, -1.72858975380388136411e-1,
    1.64837047825189632310e-2, -4.86827613020462700845e-4,
]  # fmt: skip
_DAWSN_CD = [
    1.00000000000000000000e0, -2.69820057197544900361e0, 1.73270799045947845857e0,
    -3.93708582281939493482e-1, 3.44278924041233391079e-2, -9.73655226040941223894e-4,
]  # fmt: skip


def _dawsn_impl(x: AnyArray) -> AnyArray:
    """Three rational approximations on ``|x|`` (each fed a harmless point outside its
    region), the sign restored by odd symmetry."""
    sign = jnp.sign(x)
    ax = lax.abs(x)
    t = _c(x, 1.0) / (ax * ax)
    in_r1 = ax < _c(x, 3.25)
    safe_ax_r1 = lax.select(in_r1, ax, jnp.full_like(ax, 1.0))
    safe_ax2_r1 = safe_ax_r1 * safe_ax_r1
    val_r1 = safe_ax_r1 * _poly(_DAWSN_AN, safe_ax2_r1) / _poly(_DAWSN_AD, safe_ax2_r1)
    in_r2 = (ax >= _c(x, 3.25)) & (ax < _c(x, 6.25))
    safe_t_r2 = lax.select(in_r2, t, jnp.full_like(t, 1.0))
    safe_ax_r2 = lax.select(in_r2, ax, jnp.full_like(ax, 1.0))
    val_r2 = (_c(x, 0.5) / safe_ax_r2) * (
        _c(x, 1.0) + safe_t_r2 * _poly(_DAWSN_BN, safe_t_r2) / _poly(_DAWSN_BD, safe_t_r2)
    )
    in_r3 = ax >= _c(x, 6.25)
    safe_t_r3 = lax.select(in_r3, t, jnp.full_like(t, 1.0))
    safe_ax_r3 = lax.select(in_r3, ax, jnp.full_like(ax, 1.0))
    val_r3 = (_c(x, 0.5) / safe_ax_r3) * (
        _c(x, 1.0) + safe_t_r3 * _poly(_DAWSN_CN, safe_t_r3) / _poly(_DAWSN_CD, safe_t_r3)
    )
    result = lax.select(in_r1, val_r1, lax.select(ax < _c(x, 6.25), val_r2, val_r3))
    return sign * result


@custom_jvp
def _dawsn(x: AnyArray) -> AnyArray:
    dtype = get_aval(x).dtype
    if dtype in (np.float32, np.float64):
        return _dawsn_impl(x)
    wide = lax.convert_element_type(x, np.float32)  # float16, bfloat16
    return lax.convert_element_type(_dawsn_impl(wide), dtype)


_dawsn.defjvps(lambda g, ans, x: g * (_c(x, 1.0) - _c(x, 2.0) * x * ans))


def dawsn(x: ArrayLike) -> Array:
    """Dawson's integral ``exp(-x**2) int_0^x exp(t**2) dt`` (real ``x``), by Cody,
    Paciorek and Thacher's rational approximations, as JAX's."""
    (x_arr,) = _real("dawsn", "does not support complex-valued inputs.", x)
    return _dawsn(x_arr)  # type: ignore[no-any-return]


# --- the exponential integrals (Cephes ei.c and expn.c) -----------------------------------------
_EXPINT1_A = [-5.350447357812542947283e0, 2.185049168816613393830e2, -4.176572384826693777058e3,
              5.541176756393557601232e4, -3.313381331178144034309e5,
              1.592627163384945414220e6]  # fmt: skip
_EXPINT1_B = [1.0, -5.250547959112862969197e1, 1.259616186786790571525e3,
              -1.756549581973534652631e4, 1.493062117002725991967e5, -7.294949239640527645655e5,
              1.592627163384945429726e6]  # fmt: skip
# (A, B) for 2 < x <= 4, 4 < x <= 8, ..., 32 < x <= 64 and x > 64
_EXPINT_K = (
    ([1.981808503259689673238e-2, -1.271645625984917501326e0, -2.088160335681228318920e0,
      2.755544509187936721172e0, -4.409507048701600257171e-1, 4.665623805935891391017e-2,
      -1.545042679673485262580e-3, 7.059980605299617478514e-5],
     [1.0, 1.476498670914921440652e0, 5.629177174822436244827e-1, 1.699017897879307263248e-1,
      2.291647179034212017463e-2, 4.450150439728752875043e-3, 1.727439612206521482874e-4,
      3.953167195549672482304e-5]),
    ([-1.373215375871208729803e0, -7.084559133740838761406e-1, 1.580806855547941010501e0,
      -2.601500427425622944234e-1, 2.994674694113713763365e-2, -1.038086040188744005513e-3,
      4.371064420753005429514e-5, 2.141783679522602903795e-6],
     [1.0, 8.585231423622028380768e-1, 4.483285822873995129957e-1, 7.687932158124475434091e-2,
      2.449868241021887685904e-2, 8.832165941927796567926e-4, 4.590952299511353531215e-4,
      -4.729848351866523044863e-6, 2.665195537390710170105e-6]),
    ([-2.106934601691916512584e0, 1.732733869664688041885e0, -2.423619178935841904839e-1,
      2.322724180937565842585e-2, 2.372880440493179832059e-4, -8.343219561192552752335e-5,
      1.363408795605250394881e-5, -3.655412321999253963714e-7, 1.464941733975961318456e-8,
      6.176407863710360207074e-10],
     [1.0, -2.298062239901678075778e-1, 1.105077041474037862347e-1, -1.566542966630792353556e-2,
      2.761106850817352773874e-3, -2.089148012284048449115e-4, 1.708528938807675304186e-5,
      -4.459311796356686423199e-7, 1.394634930353847498145e-8, 6.150865933977338354138e-10]),
    ([-2.458119367674020323359e-1, -1.483382253322077687183e-1, 7.248291795735551591813e-2,
      -1.348315687380940523823e-2, 1.342775069788636972294e-3, -7.942465637159712264564e-5,
      2.644179518984235952241e-6, -4.239473659313765177195e-8],
     [1.0, -1.044225908443871106315e-1, -2.676453128101402655055e-1, 9.695000254621984627876e-2,
      -1.601745692712991078208e-2, 1.496414899205908021882e-3, -8.462452563778485013756e-5,
      2.728938403476726394024e-6, -4.239462431819542051337e-8]),
    ([1.212561118105456670844e-1, -5.823133179043894485122e-1, 2.348887314557016779211e-1,
      -3.040034318113248237280e-2, 1.510082146865190661777e-3, -2.523137095499571377122e-5],
     [1.0, -1.002252150365854016662e0, 2.928709694872224144953e-1, -3.337004338674007801307e-2,
      1.560544881127388842819e-3, -2.523137093603234562648e-5]),
    ([-7.657847078286127362028e-1, 6.886192415566705051750e-1, -2.132598113545206124553e-1,
      3.346107552384193813594e-2, -3.076541477344756050249e-3, 1.747119316454907477380e-4,
      -6.103711682274170530369e-6, 1.218032765428652199087e-7, -1.086076102793290233007e-9],
     [1.0, -1.888802868662308731041e0, 1.066691687211408896850e0, -2.751915982306380647738e-1,
      3.930852688233823569726e-2, -3.414684558602365085394e-3, 1.866844370703555398195e-4,
      -6.345146083130515357861e-6, 1.239754287483206878024e-7, -1.086076102793126632978e-9]),
)  # fmt: skip


def _expint1(x: AnyArray) -> AnyArray:
    """``0 < x <= 2``."""
    f = _poly(_EXPINT1_A, x) / _poly(_EXPINT1_B, x)
    return x * f + _EULER_GAMMA + jnp.log(x)


def _expint_k(k: int) -> Any:
    a, b = _EXPINT_K[k]

    def expint(x: AnyArray) -> AnyArray:
        one = _c(x, 1.0)
        w = one / x
        f = _poly(a, w) / _poly(b, w)
        f = w * f + one
        return jnp.exp(x) * w * f

    return expint


def _expi_pos(x: AnyArray) -> AnyArray:
    conds = [(_c(x, 0) < x) & (x <= _c(x, 2))] + [
        (_c(x, 2**i) < x) & (x <= _c(x, 2 ** (i + 1))) for i in range(1, 6)
    ]
    return jnp.piecewise(x, conds, [_expint1] + [_expint_k(k) for k in range(6)])


def _expi_neg(x: AnyArray) -> AnyArray:
    return -exp1(-x)


@custom_jvp
def _expi(x: AnyArray) -> AnyArray:
    return jnp.piecewise(x, [x < 0], [_expi_neg, _expi_pos])


@_expi.defjvp
def _expi_jvp(primals: tuple[AnyArray], tangents: tuple[AnyArray]) -> tuple[AnyArray, AnyArray]:
    (x,), (x_dot,) = primals, tangents
    return _expi(x), jnp.exp(x) / x * x_dot


def expi(x: ArrayLike) -> Array:
    """The exponential integral ``Ei(x) = int_-inf^x exp(t)/t dt``: Cephes' rational
    approximations on ``(0, 2], (2, 4], ..., (64, inf)``, ``-exp1(-x)`` for ``x < 0``, as JAX's."""
    (x_arr,) = _real("expi", "does not support complex-valued inputs.", x)
    return _expi(x_arr)  # type: ignore[no-any-return]


def _expn1(x: AnyArray, n: AnyArray) -> AnyArray:
    """The power series (``x <= 1``)."""
    machep = float_info(get_aval(x).dtype).eps
    zero, one = _c(x, 0.0), _c(x, 1.0)
    psi = -_EULER_GAMMA - jnp.log(x)
    psi = fori_loop(_c(n, 1), n, lambda i, psi: psi + one / i, psi)
    n1 = jnp.where(n == _c(n, 1), one + one, n)
    init = dict(
        x=x, z=-x, xk=zero, yk=one, pk=one - n,
        ans=jnp.where(n == _c(n, 1), zero, one / (one - n1)), t=jnp.asarray(np.inf),
    )  # fmt: skip

    def body(d: dict[str, AnyArray]) -> dict[str, AnyArray]:
        d = dict(d)
        d["xk"] += one
        d["yk"] *= d["z"] / d["xk"]
        d["pk"] += one
        d["ans"] += jnp.where(d["pk"] != zero, d["yk"] / d["pk"], zero)
        d["t"] = jnp.where(d["ans"] != zero, abs(d["yk"] / d["ans"]), one)
        return d

    def cond(d: dict[str, AnyArray]) -> AnyArray:
        return (d["x"] > _c(d["x"], 0.0)) & (d["t"] > machep)

    d = while_loop(cond, body, init)
    return d["z"] ** (n - _c(n, 1)) * psi / jnp.exp(lax.lgamma(n)) - d["ans"]


def _expn2(x: AnyArray, n: AnyArray) -> AnyArray:
    """The continued fraction (``x > 1``)."""
    big = _c(x, 1.44115188075855872e17)
    machep = float_info(get_aval(x).dtype).eps
    zero, one = _c(x, 0.0), _c(x, 1.0)
    init = dict(
        k=_c(n, 1), pkm2=one, qkm2=x, pkm1=one, qkm1=x + n, ans=one / (x + n),
        t=_c(x, np.inf), r=zero, x=x,
    )  # fmt: skip

    def body(d: dict[str, AnyArray]) -> dict[str, AnyArray]:
        d = dict(d)
        x = d["x"]
        d["k"] += _c(d["k"], 1)
        k = d["k"]
        odd = k % _c(k, 2) == _c(k, 1)
        yk = jnp.where(odd, one, x)
        xk = jnp.where(odd, n + (k - _c(k, 1)) / _c(k, 2), k / _c(k, 2))
        pk = d["pkm1"] * yk + d["pkm2"] * xk
        qk = d["qkm1"] * yk + d["qkm2"] * xk
        nz = qk != zero
        d["r"] = r = jnp.where(nz, pk / qk, d["r"])
        d["t"] = jnp.where(nz, abs((d["ans"] - r) / r), one)
        d["ans"] = jnp.where(nz, r, d["ans"])
        d["pkm2"] = d["pkm1"]
        d["pkm1"] = pk
        d["qkm2"] = d["qkm1"]
        d["qkm1"] = qk
        is_big = abs(pk) > big
        for key in ("pkm1", "pkm2", "qkm1", "qkm2"):
            d[key] = jnp.where(is_big, d[key] / big, d[key])
        return d

    def cond(d: dict[str, AnyArray]) -> AnyArray:
        return (d["x"] > _c(d["k"], 0)) & (d["t"] > machep)

    d = while_loop(cond, body, init)
    return d["ans"] * jnp.exp(-x)


def _expn3(x: AnyArray, n: AnyArray) -> AnyArray:
    """The asymptotic expansion (``n >= 5000``)."""
    one = _c(x, 1.0)
    xk = x + n
    yk = one / (xk * xk)
    t = n
    ans = yk * t * (_c(x, 6) * x * x - _c(x, 8) * t * x + t * t)
    ans = yk * (ans + t * (t - _c(x, 2) * x))
    ans = yk * (ans + t)
    return (ans + one) * jnp.exp(-x) / xk


def _expn_scalar(n: AnyArray, x: AnyArray) -> AnyArray:
    zero, one = _c(x, 0), _c(x, 1)
    conds = [
        (n < _c(n, 0)) | (x < zero),
        (x == zero) & (n < _c(n, 2)),
        (x == zero) & (n >= _c(n, 2)),
        (n == _c(n, 0)) & (x >= zero),
        (n >= _c(n, 5000)),
        (x > one),
    ]
    n1 = jnp.where(n == _c(n, 1), n + n, n)
    vals = [np.nan, np.inf, one / n1, jnp.exp(-x) / x, _expn3, _expn2, _expn1]
    return jnp.piecewise(x, conds, vals, n=n)


_expn_vectorized = jnp.vectorize(_expn_scalar)


def _expn_fun(n: AnyArray, x: AnyArray) -> AnyArray:
    return _expn_vectorized(n, x)


_expn = custom_jvp(_expn_fun, nondiff_argnums=(0,))


@_expn.defjvp
def _expn_jvp(
    n: AnyArray, primals: tuple[AnyArray], tangents: tuple[AnyArray]
) -> tuple[AnyArray, AnyArray]:
    (x,), (x_dot,) = primals, tangents
    # d/dx E_n = -E_{n-1}; E_0 = exp(-x)/x has d/dx E_0 = -E_0 (1 + 1/x) (the rule would need
    # E_{-1}, which is NaN, so grad(grad(exp1)) would be NaN; JAX fails to trace it). The
    # index stays >= 0 on both sides of the select, so neither side is NaN.
    zero = n == _c(n, 0)
    e_prev = _expn(jnp.where(zero, _c(n, 1), lax.sub(n, _c(n, 1))), x)
    e_0 = jnp.exp(-x) / x
    slope = jnp.where(zero, -e_0 * (_c(x, 1) + _c(x, 1) / x), -e_prev)
    return _expn(n, x), lax.mul(x_dot, slope)


def expn(n: ArrayLike, x: ArrayLike) -> Array:
    """The generalized exponential integral ``E_n(x) = x**(n-1) int_x^inf exp(-t)/t**n dt``
    (NaN for ``n < 0`` or ``x < 0``): Cephes' series, continued fraction and asymptotic
    expansion, elementwise, as JAX's; differentiable in ``x`` only."""
    n_arr, x_arr = _real("expn", "does not support complex-valued inputs.", n, x)
    return _expn(n_arr, x_arr)  # type: ignore[no-any-return]


def exp1(x: ArrayLike) -> Array:
    """The exponential integral ``E_1(x) = int_x^inf exp(-t)/t dt``: ``expn(1, x)``."""
    (x_arr,) = _real("exp1", "does not support complex-valued inputs.", x)
    return expn(1, x_arr)


def bernoulli(n: int) -> Array:
    """The Bernoulli numbers ``B_0 .. B_n`` (``B_1 = -1/2``), by Chowla and Hartung's
    zeta-series algorithm, as JAX's (a concrete non-negative ``n``)."""
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(
            f"Argument n of bernoulli must be a concrete integer{user_line_suffix()}"
        ) from None
    if n < 0:
        raise ValueError("n must be a non-negative integer.")
    b3 = jnp.array([1, -1 / 2, 1 / 6])
    if n < 3:
        return b3[: n + 1]
    bn = jnp.zeros(n + 1).at[:3].set(b3)
    m = jnp.arange(4, n + 1, 2, dtype=bn.dtype)
    q1 = (1.0 / np.pi**2) * jnp.cumprod(-(m - 1) * m / 4 / np.pi**2)
    k = jnp.arange(2, 50, dtype=bn.dtype)  # 2 ** -50 < 1e-15
    q2 = jnp.sum(k[:, None] ** -m[None, :], axis=0)
    return bn.at[4::2].set(q1 * (1 + q2))


# --- owens_t (Patefield and Tandy's method T5: 13-point Gauss-type quadrature) -----------------
_OWENS_T_QUAD_PTS = np.array([
    0.0035082039676451715, 0.031279042338030754, 0.085266826283219451, 0.16245071730812277,
    0.25851196049125435, 0.36807553840697534, 0.48501092905604697, 0.60277514152618577,
    0.71477884217753227, 0.81475510988760099, 0.89711029755948966, 0.95723808085944262,
    0.99178832974629704,
])  # fmt: skip
_OWENS_T_QUAD_WTS = np.array([
    0.018831438115323503, 0.018567086243977649, 0.018042093461223386, 0.017263829606398753,
    0.016243219975989857, 0.014994592034116705, 0.013535474469662088, 0.011886351605820165,
    0.010070377242777432, 0.0081130545742299587, 0.0060419009528470239, 0.0038862217010742058,
    0.0016793031084546090,
])  # fmt: skip


def _owens_t_quadrature(h: AnyArray, a: AnyArray) -> AnyArray:
    quad_pts = jnp.expand_dims(_OWENS_T_QUAD_PTS, tuple(range(jnp.ndim(a))))
    r = jnp.square(a)[..., None] * quad_pts
    integrand = jnp.exp(-0.5 * jnp.square(h)[..., None] * (1.0 + r)) / (1.0 + r)
    return a * (integrand @ jnp.asarray(_OWENS_T_QUAD_WTS))


@custom_jvp
def _owens_t_impl(h: AnyArray, a: AnyArray) -> AnyArray:
    h = jnp.abs(h)
    abs_a = jnp.abs(a)
    root_2 = _c(h, np.sqrt(2))
    h_normed = h / root_2
    modified_a = jnp.where(abs_a <= 1.0, abs_a, jnp.reciprocal(abs_a))
    modified_h = jnp.where(abs_a <= 1.0, h, abs_a * h)
    result = _owens_t_quadrature(modified_h, modified_a)
    # exact values for h = 0 and a = 1
    result = jnp.where(modified_h == 0.0, jnp.arctan(modified_a) / (2 * np.pi), result)
    result = jnp.where(
        modified_a == 1.0,
        0.125 * lax.erfc(-modified_h / root_2) * lax.erfc(modified_h / root_2),
        result,
    )
    # the reciprocal correction for |a| > 1
    normh = lax.erfc(h_normed)
    normah = lax.erfc(abs_a * h_normed)
    result = jnp.where(
        abs_a > 1.0,
        jnp.where(
            abs_a * h <= 0.67,
            0.25 - 0.25 * lax.erf(h_normed) * lax.erf(abs_a * h_normed) - result,
            0.25 * (normh + normah - normh * normah) - result,
        ),
        result,
    )
    result = lax.sign(a) * result
    return jnp.where(jnp.isnan(a) | jnp.isnan(h), jnp.full_like(result, np.nan), result)


@_owens_t_impl.defjvp
def _owens_t_jvp(
    primals: tuple[AnyArray, AnyArray], tangents: tuple[AnyArray, AnyArray]
) -> tuple[AnyArray, AnyArray]:
    (h, a), (dh, da) = primals, tangents
    result = _owens_t_impl(h, a)
    root_2 = _c(h, np.sqrt(2))
    # dT/dh = -exp(-h**2/2) erf(a h / sqrt(2)) / (2 sqrt(2 pi))
    dout_dh = (
        -lax.exp(-0.5 * jnp.square(h))
        * lax.erf(a * h / root_2)
        / (2.0 * _c(h, np.sqrt(2.0 * np.pi)))
    )
    # dT/da = exp(-(a**2 + 1) h**2 / 2) / (2 pi (a**2 + 1))
    dout_da = lax.exp(-0.5 * (jnp.square(a) + 1.0) * jnp.square(h)) / (
        2.0 * np.pi * (jnp.square(a) + 1.0)
    )
    return result, (dout_dh * dh + dout_da * da).astype(result.dtype)


def owens_t(h: ArrayLike, a: ArrayLike) -> Array:
    """Owen's T function ``T(h, a) = 1/(2 pi) int_0^a exp(-h**2 (1 + x**2)/2)/(1 + x**2) dx``,
    by JAX's 13-point quadrature (Patefield and Tandy's method T5) with the exact values at
    ``h = 0`` and ``a = 1`` and the reciprocal correction for ``|a| > 1``."""
    h_arr, a_arr = promote_inexact(h, a)
    return _owens_t_impl(h_arr, a_arr)  # type: ignore[no-any-return]


# --- fresnel (SciPy's C++ Cephes fresnl, fresnlf for single precision) --------------------------
def _sincospisquaredhalf(x: AnyArray) -> tuple[AnyArray, AnyArray]:
    """``sin(pi x**2 / 2)`` and ``cos(pi x**2 / 2)``, with ``x**2 / 2`` reduced mod 2 first
    (``r = (s (x - s/2)) % 2`` for ``s = x % 2``), as SciPy's ``sinpi``/``cospi``."""
    x = jnp.abs(x)
    s = jnp.fmod(x, 2.0)
    r = jnp.fmod(s * (x - s / 2), 2.0)
    sinpi = jnp.where(
        r < 0.5,
        jnp.sin(np.pi * r),
        jnp.where(r > 1.5, jnp.sin(np.pi * (r - 2.0)), -jnp.sin(np.pi * (r - 1.0))),
    )
    cospi = jnp.where(
        r == 0.5,
        0.0,
        jnp.where(r < 1.0, -jnp.sin(np.pi * (r - 0.5)), jnp.sin(np.pi * (r - 1.5))),
    )
    return sinpi, cospi


_FRESNL_F32 = dict(
    sn=[1.647629463788700e-9, -1.522754752581096e-7, 8.424748808502400e-6,
        -3.120693124703272e-4, 7.244727626597022e-3, -9.228055941124598e-2,
        5.235987735681432e-1],
    cn=[1.416802502367354e-8, -1.157231412229871e-6, 5.387223446683264e-5,
        -1.604381798862293e-3, 2.818489036795073e-2, -2.467398198317899e-1,
        9.999999760004487e-1],
    fn=[-1.903009855649792e12, 1.355942388050252e11, -4.158143148511033e9,
        7.343848463587323e7, -8.732356681548485e5, 8.560515466275470e3,
        -1.032877601091159e2, 2.999401847870011e0],
    gn=[-1.860843997624650e11, 1.278350673393208e10, -3.779387713202229e8,
        6.492611570598858e6, -7.787789623358162e4, 8.602931494734327e2,
        -1.493439396592284e1, 9.999841934744914e-1],
)  # fmt: skip
_FRESNL_F64 = dict(
    sn=[-2.99181919401019853726e3, 7.08840045257738576863e5, -6.29741486205862506537e7,
        2.54890880573376359104e9, -4.42979518059697779103e10, 3.18016297876567817986e11],
    sd=[1.0, 2.81376268889994315696e2, 4.55847810806532581675e4, 5.17343888770096400730e6,
        4.19320245898111231129e8, 2.24411795645340920940e10, 6.07366389490084639049e11],
    cn=[-4.98843114573573548651e-8, 9.50428062829859605134e-6, -6.45191435683965050962e-4,
        1.88843319396703850064e-2, -2.05525900955013891793e-1, 9.99999999999999998822e-1],
    cd=[3.99982968972495980367e-12, 9.15439215774657478799e-10, 1.25001862479598821474e-7,
        1.22262789024179030997e-5, 8.68029542941784300606e-4, 4.12142090722199792936e-2,
        1.00000000000000000118e0],
    fn=[4.21543555043677546506e-1, 1.43407919780758885261e-1, 1.15220955073585758835e-2,
        3.45017939782574027900e-4, 4.63613749287867322088e-6, 3.05568983790257605827e-8,
        1.02304514164907233465e-10, 1.72010743268161828879e-13, 1.34283276233062758925e-16,
        3.76329711269987889006e-20],
    fd=[1.0, 7.51586398353378947175e-1, 1.16888925859191382142e-1, 6.44051526508858611005e-3,
        1.55934409164153020873e-4, 1.84627567348930545870e-6, 1.12699224763999035261e-8,
        3.60140029589371370404e-11, 5.88754533621578410010e-14, 4.52001434074129701496e-17,
        1.25443237090011264384e-20],
    gn=[5.04442073643383265887e-1, 1.97102833525523411709e-1, 1.87648584092575249293e-2,
        6.84079380915393090172e-4, 1.15138826111884280931e-5, 9.82852443688422223854e-8,
        4.45344415861750144738e-10, 1.08268041139020870318e-12, 1.37555460633261799868e-15,
        8.36354435630677421531e-19, 1.86958710162783235106e-22],
    gd=[1.0, 1.47495759925128324529e0, 3.37748989120019970451e-1, 2.53603741420338795122e-2,
        8.14679107184306179049e-4, 1.27545075667729118702e-5, 1.04314589657571990585e-7,
        4.60680728146520428211e-10, 1.10273215066240270757e-12, 1.38796531259578871258e-15,
        8.39158816283118707363e-19, 1.86958710162783236342e-22],
)  # fmt: skip


@custom_jvp
def fresnel(x: ArrayLike) -> tuple[Array, Array]:
    """The Fresnel integrals ``(S(x), C(x))``, ``int_0^x sin(pi t**2/2) dt`` and
    ``int_0^x cos(pi t**2/2) dt``, real ``x`` only: Cephes' ``fresnl`` in float64 and
    ``fresnlf`` in float32 (half precisions computed in float32), as JAX's."""
    (xxa,) = promote_inexact(x)
    original_dtype = get_aval(xxa).dtype
    if not is_float(original_dtype):
        raise NotImplementedError("Support for complex-valued inputs is not implemented yet.")
    if original_dtype in (np.float32, np.float16, jnp.bfloat16):
        xxa = lax.convert_element_type(xxa, np.float32)
        k = {name: jnp.array(c, dtype=np.float32) for name, c in _FRESNL_F32.items()}
    elif original_dtype == np.float64:
        k = {name: jnp.array(c, dtype=np.float64) for name, c in _FRESNL_F64.items()}
    else:
        raise NotImplementedError(f"Support for {original_dtype} dtype is not implemented yet.")
    single = get_aval(xxa).dtype == np.float32
    x_abs = jnp.abs(xxa)
    x2 = x_abs * x_abs
    s_inf = c_inf = 0.5
    t = x2 * x2
    if single:
        s_small = x_abs * x2 * jnp.polyval(k["sn"], t)
        c_small = x_abs * jnp.polyval(k["cn"], t)
    else:
        s_small = x_abs * x2 * jnp.polyval(k["sn"], t) / jnp.polyval(k["sd"], t)
        c_small = x_abs * jnp.polyval(k["cn"], t) / jnp.polyval(k["cd"], t)
    sinpi, cospi = _sincospisquaredhalf(x_abs)
    if single:
        c_large: Any = c_inf
        s_large: Any = s_inf
    else:
        c_large = 0.5 + 1 / (np.pi * x_abs) * sinpi
        s_large = 0.5 - 1 / (np.pi * x_abs) * cospi
    t = np.pi * x2
    u = 1.0 / (t * t)
    t = 1.0 / t
    if single:
        f = 1.0 - u * jnp.polyval(k["fn"], u)
        g = t * jnp.polyval(k["gn"], u)
    else:
        f = 1.0 - u * jnp.polyval(k["fn"], u) / jnp.polyval(k["fd"], u)
        g = t * jnp.polyval(k["gn"], u) / jnp.polyval(k["gd"], u)
    t = np.pi * x_abs
    c_other = 0.5 + (f * sinpi - g * cospi) / t
    s_other = 0.5 - (f * cospi + g * sinpi) / t
    isinf = jnp.isinf(xxa)
    small = x2 < 2.5625
    large = x_abs > 36974.0
    s = jnp.where(isinf, s_inf, jnp.where(small, s_small, jnp.where(large, s_large, s_other)))
    c = jnp.where(isinf, c_inf, jnp.where(small, c_small, jnp.where(large, c_large, c_other)))
    neg = xxa < 0.0
    s = jnp.where(neg, -s, s)
    c = jnp.where(neg, -c, c)
    if original_dtype != get_aval(xxa).dtype:
        s = s.astype(original_dtype)
        c = c.astype(original_dtype)
    return s, c


@fresnel.defjvp
def _fresnel_jvp(
    primals: tuple[AnyArray], tangents: tuple[AnyArray]
) -> tuple[tuple[Array, Array], tuple[AnyArray, AnyArray]]:
    (x,), (x_dot,) = primals, tangents
    result = fresnel(x)
    sinpi, cospi = _sincospisquaredhalf(x)
    return result, (sinpi * x_dot, cospi * x_dot)


# --- hyp1f1 (Pearson, Olver and Porter 2014: Taylor series, asymptotic expansion) --------------
def _series_loop(step: Any, cond_term: Any, init: tuple[Any, Any, Any]) -> AnyArray:
    """``while_loop`` over ``(serie, k, term)`` with JAX's stopping rule: 250 terms, or a
    term below ``eps`` relative to the sum."""
    precision = float_info(get_aval(init[2]).dtype).eps

    def cond(state: tuple[AnyArray, AnyArray, AnyArray]) -> AnyArray:
        serie, k, term = state
        return (k < 250) & (lax.abs(cond_term(term)) / lax.abs(serie) > precision)

    return while_loop(cond, step, init)[0]


def _hyp1f1_serie(a: AnyArray, b: AnyArray, x: AnyArray) -> AnyArray:
    def body(state: tuple[AnyArray, AnyArray, AnyArray]) -> tuple[AnyArray, AnyArray, AnyArray]:
        serie, k, term = state
        return serie + term, k + 1, term * ((a + k) / (b + k) * x / (k + 1))

    return _series_loop(body, lambda t: t, (jnp.ones_like(x), 1, a / b * x))


def _hyp1f1_asymptotic(a: AnyArray, b: AnyArray, x: AnyArray) -> AnyArray:
    def body(state: tuple[AnyArray, AnyArray, AnyArray]) -> tuple[AnyArray, AnyArray, AnyArray]:
        serie, k, term = state
        return serie + term, k + 1, term * ((b - a + k) * (1 - a + k) / (k + 1) / x)

    serie = _series_loop(body, lambda t: t, (jnp.ones_like(x), 1, (b - a) * (1 - a) / x))
    return _gamma(b) / _gamma(a) * lax.exp(x) * x ** (a - b) * serie


def _hyp1f1_a_derivative_scalar(a: AnyArray, b: AnyArray, x: AnyArray) -> AnyArray:
    def body(state: tuple[AnyArray, AnyArray, AnyArray]) -> tuple[AnyArray, AnyArray, AnyArray]:
        serie, k, term = state
        serie = serie + term * (lax.digamma(a + k) - lax.digamma(a))
        return serie, k + 1, term * ((a + k) / (b + k) * x / (k + 1))

    return _series_loop(body, lambda t: t, (jnp.zeros_like(x), 1, a / b * x))


def _hyp1f1_b_derivative_scalar(a: AnyArray, b: AnyArray, x: AnyArray) -> AnyArray:
    def body(state: tuple[AnyArray, AnyArray, AnyArray]) -> tuple[AnyArray, AnyArray, AnyArray]:
        serie, k, term = state
        serie = serie + term * (lax.digamma(b) - lax.digamma(b + k))
        return serie, k + 1, term * ((a + k) / (b + k) * x / (k + 1))

    return _series_loop(body, lambda t: t, (jnp.zeros_like(x), 1, a / b * x))


_hyp1f1_a_derivative = jnp.vectorize(_hyp1f1_a_derivative_scalar)
_hyp1f1_b_derivative = jnp.vectorize(_hyp1f1_b_derivative_scalar)


def _hyp1f1_scalar(a: ArrayLike, b: ArrayLike, x: ArrayLike) -> AnyArray:
    a, b, x = _real("hyp1f1", "does not support complex-valued inputs.", a, b, x)
    from mj_control import cond

    result = cond(lax.abs(x) < 100, _hyp1f1_serie, _hyp1f1_asymptotic, a, b, x)
    index = (a == 0) * 1 + ((a == b) & (a != 0)) * 2 + ((b == 0) & (a != 0)) * 3
    dtype = get_aval(x).dtype
    return lax.select_n(
        index, result, jnp.array(1, dtype=dtype), jnp.exp(x), jnp.array(np.inf, dtype=dtype)
    )


@custom_jvp
def hyp1f1(a: ArrayLike, b: ArrayLike, x: ArrayLike) -> Array:
    """The confluent hypergeometric function ``1F1(a; b; x) = sum_k (a)_k / (b)_k x**k / k!``
    (real inputs), elementwise: the Taylor series for ``|x| < 100``, the asymptotic expansion
    beyond (Pearson, Olver and Porter 2014); 1 for ``a == 0`` (also ``a = b = 0``),
    ``exp(x)`` for ``a == b``, ``inf`` for ``b == 0``, as JAX's."""
    return _hyp1f1_vectorized(a, b, x)  # type: ignore[no-any-return]


_hyp1f1_vectorized = jnp.vectorize(_hyp1f1_scalar)

hyp1f1.defjvps(
    lambda a_dot, primal_out, a, b, x: _hyp1f1_a_derivative(a, b, x) * a_dot,
    lambda b_dot, primal_out, a, b, x: _hyp1f1_b_derivative(a, b, x) * b_dot,
    lambda x_dot, primal_out, a, b, x: a / b * hyp1f1(a + 1, b + 1, x) * x_dot,
)


# --- hyp2f1 (Pearson, Olver and Porter 2014; AMS55 15.3.10-12) ---------------------------------
def _hyp2f1_terminal(a: AnyArray, b: AnyArray, c: AnyArray, x: AnyArray) -> AnyArray:
    """The terminating Taylor series (``a`` or ``b`` a non-positive integer): the one of
    larger magnitude (still below ``|c|`` for a non-positive integer ``c``) bounds the loop."""
    dtype = get_aval(x).dtype
    eps = float_info(dtype).eps * 50
    ib = jnp.round(b)
    c_blocks = (c % 1 == 0) & (c <= 0) & (c > b)
    mask = (b < a) & (jnp.abs(b - ib) < eps) & jnp.logical_not(c_blocks)
    a, b = jnp.where(mask, b, a), jnp.where(mask, a, b)
    a = jnp.abs(a)

    def body(i: AnyArray, state: tuple[AnyArray, AnyArray]) -> tuple[AnyArray, AnyArray]:
        serie, term = state
        term = term * (-(a - i + 1) / (c + i - 1) * (b + i - 1) / i * x)
        return serie + term, term

    init = (jnp.array(1, dtype=dtype), jnp.array(1, dtype=dtype))
    return fori_loop(jnp.array(1, dtype=a.dtype), a + 1, body, init)[0]


def _hyp2f1_serie(a: AnyArray, b: AnyArray, c: AnyArray, x: AnyArray) -> AnyArray:
    dtype = get_aval(x).dtype
    rtol = float_info(dtype).eps

    def body(state: tuple[AnyArray, AnyArray, AnyArray]) -> tuple[AnyArray, AnyArray, AnyArray]:
        serie, k, term = state
        serie = serie + term
        term = term * ((a + k - 1) * (b + k - 1) / (c + k - 1) / k * x)
        return serie, k + 1, term

    def cond(state: tuple[AnyArray, AnyArray, AnyArray]) -> AnyArray:
        serie, k, term = state
        return (k < 250) & (lax.abs(term) > rtol * lax.abs(serie))

    one = jnp.array(1, dtype=dtype)
    return while_loop(cond, body, (jnp.array(0, dtype=dtype), one, one))[0]


def _hyp2f1_terminal_or_serie(a: AnyArray, b: AnyArray, c: AnyArray, x: AnyArray) -> AnyArray:
    """The series, its terminating form, or the digamma transformation near ``x = 1``."""
    eps = float_info(get_aval(x).dtype).eps * 50
    d = c - a - b
    ia, ib, id_ = jnp.round(a), jnp.round(b), jnp.round(d)
    neg_int_a = (a <= 0) & (jnp.abs(a - ia) < eps)
    neg_int_b = (b <= 0) & (jnp.abs(b - ib) < eps)
    neg_int_a_or_b = neg_int_a | neg_int_b
    index = jnp.where(
        (x > 0.9) & jnp.logical_not(neg_int_a_or_b),
        jnp.where(jnp.abs(d - id_) >= eps, 0, 1),
        jnp.where(neg_int_a_or_b, 2, 0),
    )
    return lax.select_n(
        index,
        _hyp2f1_serie(a, b, c, x),
        _hyp2f1_digamma_transform(a, b, c, x),
        _hyp2f1_terminal(a, b, c, x),
    )


_State = tuple[AnyArray, ...]


def _hyp2f1_digamma_transform(a: AnyArray, b: AnyArray, c: AnyArray, x: AnyArray) -> AnyArray:
    """AMS55 15.3.10-12 (``c - a - b`` an integer, ``x`` near 1)."""
    digamma = lax.digamma
    dtype = get_aval(x).dtype
    rtol = float_info(dtype).eps
    d = c - a - b
    s = 1 - x
    rd = jnp.round(d)
    e = jnp.where(rd >= 0, d, -d)
    d1 = jnp.where(rd >= 0, d, jnp.array(0, dtype=d.dtype))
    d2 = jnp.where(rd >= 0, jnp.array(0, dtype=d.dtype), d)
    ard = jnp.where(rd >= 0, rd, -rd).astype("int32")
    ax = jnp.log(s)
    y = digamma(_c(x, 1.0)) + digamma(1.0 + e) - digamma(a + d1) - digamma(b + d1) - ax
    y = y / _gamma(e + 1.0)
    p = (a + d1) * (b + d1) * s / _gamma(e + 2.0)

    def cond(state: _State) -> AnyArray:
        q, t, y = state[6], state[9], state[10]
        return (t < 250) & (jnp.abs(q) >= rtol * jnp.abs(y))

    def body(state: _State) -> _State:
        a, ax, b, d1, e, p, q, r, s, t, y = state
        r = digamma(1.0 + t) + digamma(1.0 + t + e) - digamma(a + t + d1)
        r = r - digamma(b + t + d1) - ax
        q = p * r
        y = y + q
        p = p * (s * (a + t + d1) / (t + 1.0))
        p = p * ((b + t + d1) / (t + 1.0 + e))
        return a, ax, b, d1, e, p, q, r, s, t + 1.0, y

    init = (a, ax, b, d1, e, p, y, jnp.array(0, dtype=dtype), s, jnp.array(1, dtype=dtype), y)
    y = while_loop(cond, body, init)[10]

    def compute_sum(y: AnyArray) -> AnyArray:
        y1 = jnp.array(1, dtype=dtype)
        t = jnp.array(0, dtype=dtype)
        p = jnp.array(1, dtype=dtype)

        def for_body(i: AnyArray, state: _State) -> _State:
            a, b, d2, e, p, s, t, y1 = state
            r = 1.0 - e + t
            p = p * (s * (a + t + d2) * (b + t + d2) / r)
            t = t + 1.0
            p = p / t
            return a, b, d2, e, p, s, t, y1 + p

        y1 = fori_loop(1, ard, for_body, (a, b, d2, e, p, s, t, y1))[-1]
        p = _gamma(c)
        y1 = y1 * (_gamma(e) * p / (_gamma(a + d1) * _gamma(b + d1)))
        y = y * (p / (_gamma(a + d2) * _gamma(b + d2)))
        y = jnp.where((ard & 1) != 0, -y, y)
        q = s**rd
        return jnp.where(rd > 0, y * q + y1, y + y1 * q)

    return jnp.where(rd == 0, y * _gamma(c) / (_gamma(a) * _gamma(b)), compute_sum(y))


def _hyp2f1_param_derivative(which: str) -> Any:
    """The derivative series in ``a``, ``b`` or ``c`` (Wolfram 07.23.20.01.01-03)."""

    def derivative(a: AnyArray, b: AnyArray, c: AnyArray, x: AnyArray) -> AnyArray:
        p = {"a": a, "b": b, "c": c}[which]
        sign = -1.0 if which == "c" else 1.0

        def body(
            state: tuple[AnyArray, AnyArray, AnyArray],
        ) -> tuple[AnyArray, AnyArray, AnyArray]:
            serie, k, term = state
            serie = serie + term * (sign * (lax.digamma(p + k) - lax.digamma(p)))
            return serie, k + 1, term * ((a + k) * (b + k) / (c + k) / (k + 1) * x)

        return _series_loop(body, lambda t: t, (jnp.zeros_like(x), 1, a * b / c * x))

    return jnp.vectorize(derivative)


_hyp2f1_a_derivative = _hyp2f1_param_derivative("a")
_hyp2f1_b_derivative = _hyp2f1_param_derivative("b")
_hyp2f1_c_derivative = _hyp2f1_param_derivative("c")


def _hyp2f1_scalar(a: AnyArray, b: AnyArray, c: AnyArray, x: AnyArray) -> AnyArray:
    a, b, c, x = promote_inexact(a, b, c, x)
    dtype = get_aval(x).dtype
    eps = float_info(dtype).eps * 50
    d = c - a - b
    s = 1 - x
    ca = c - a
    cb = c - b
    id_ = jnp.round(d)
    index = jnp.where((x == 0) | (((a == 0) | (b == 0)) & (c != 0)), 0,
        jnp.where((c == 0) | ((c < 0) & (c % 1 == 0)), 1,
        jnp.where((d <= -1) & jnp.logical_not((jnp.abs(d - id_) >= eps) & (s < 0)), 2,
        jnp.where((d <= 0) & (x == 1), 1,
        jnp.where((x < 1) & (b == c), 3,
        jnp.where((x < 1) & (a == c), 4,
        jnp.where(x > 1, 1,
        jnp.where(x == 1, 5, 6))))))))  # fmt: skip
    return lax.select_n(
        index,
        jnp.array(1, dtype=dtype),
        jnp.array(np.inf, dtype=dtype),
        s**d * _hyp2f1_terminal_or_serie(ca, cb, c, x),
        s ** (-a),
        s ** (-b),
        _gamma(c) * _gamma(d) / (_gamma(ca) * _gamma(cb)),
        _hyp2f1_terminal_or_serie(a, b, c, x),
    )


_hyp2f1_vectorized = jnp.vectorize(_hyp2f1_scalar)


@custom_jvp
def hyp2f1(a: ArrayLike, b: ArrayLike, c: ArrayLike, x: ArrayLike) -> Array:
    """The Gauss hypergeometric function ``2F1(a, b; c; x) = sum_k (a)_k (b)_k / (c)_k
    x**k / k!`` (real inputs), elementwise: the Taylor series, its terminating form, the
    ``(1 - x)**(c - a - b)`` transformation and the digamma transformation near ``x = 1``,
    with JAX's special cases (1 at ``x = 0``, ``inf`` at ``c`` a non-positive integer ...)."""
    return _hyp2f1_vectorized(a, b, c, x)  # type: ignore[no-any-return]


hyp2f1.defjvps(
    lambda a_dot, primal_out, a, b, c, x: _hyp2f1_a_derivative(a, b, c, x) * a_dot,
    lambda b_dot, primal_out, a, b, c, x: _hyp2f1_b_derivative(a, b, c, x) * b_dot,
    lambda c_dot, primal_out, a, b, c, x: _hyp2f1_c_derivative(a, b, c, x) * c_dot,
    lambda x_dot, primal_out, a, b, c, x: a * b / c * hyp2f1(a + 1, b + 1, c + 1, x) * x_dot,
)
