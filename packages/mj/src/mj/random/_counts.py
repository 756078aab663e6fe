"""Count-valued samplers of ``mj.random``: ``poisson``, ``binomial`` and ``multinomial``.

They are JAX 0.10.2's algorithms with its key use: Knuth's product-of-uniforms method for small
means and the transformed-rejection samplers PTRS (Hörmann 1993, Poisson) and BTRS (Hörmann
1993, binomial) otherwise, each a ``while_loop`` over the whole array that redraws until every
element is accepted; ``multinomial`` is a ``scan`` of conditional binomials. (JAX also stops
its loops after ``dtype.max`` rounds, a bound no loop reaches, so mj leaves it out.)
"""

from __future__ import annotations

from typing import Any

import numpy as np

import mj.numpy as mnp
from mj.random import _threefry
from mj.random._args import (
    Shape,
    _aval,
    _check_key,
    _default_float,
    _default_int,
    _error,
    _params_shape,
    _shape,
)
from mj.random._bits import _uniform
from mj_control import scan, while_loop
from mj_core import get_aval, lax
from mj_core.dtypes import canonical_dtype, is_integer
from mj_core.extend import AnyArray, Array, ArrayLike, DTypeLike
from mj_core.lax import lgamma
from mj_core.prims.elementwise import to_inexact_dtype

__all__ = ["binomial", "multinomial", "poisson"]

_F32 = np.dtype(np.float32)
_BOOL = np.dtype(np.bool_)


# The algorithms evaluate every branch and discard the unused one (log(0), 0/0 on dummy
# parameters), as JAX does; eager NumPy evaluation would warn about those discarded values.
_quiet = np.errstate(divide="ignore", invalid="ignore", over="ignore")


def _c(value: float, dtype: np.dtype[Any]) -> AnyArray:
    return np.asarray(value, dtype)


def _split_n(key: ArrayLike, n: int) -> list[Array]:
    return _threefry.unstack_keys(_threefry.split(key, (n,)))


def _any(x: ArrayLike) -> Array:
    return mnp.any(x)


# --- poisson ----------------------------------------------------------------------------------


def _poisson_knuth(key: ArrayLike, lam: ArrayLike, shape: tuple[int, ...]) -> Array:
    """Multiply uniforms until the product drops below ``exp(-lam)``; count the factors."""
    neg_lam = lax.neg(lam)

    def body(state: tuple[ArrayLike, ArrayLike, ArrayLike]) -> tuple[Array, Array, Array]:
        k, rng, log_prod = state
        rng, subkey = _split_n(rng, 2)
        k = lax.select(lax.gt(log_prod, neg_lam), lax.add(k, _c(1, _default_int())), k)
        u = _uniform(subkey, shape, _F32, 0.0, 1.0)
        return k, rng, lax.add(log_prod, lax.log(u))

    init = (mnp.zeros(shape, _default_int()), key, mnp.zeros(shape, _F32))
    k = while_loop(lambda s: _any(lax.gt(s[2], neg_lam)), body, init)[0]
    return lax.sub(k, _c(1, _default_int()))


def _poisson_rejection(key: ArrayLike, lam: ArrayLike, shape: tuple[int, ...]) -> Array:
    """PTRS: transformed rejection with squeeze (Hörmann 1993), for ``lam >= 10``."""
    f32 = _F32
    log_lam = lax.log(lam)
    b = lax.add(_c(0.931, f32), lax.mul(_c(2.53, f32), lax.sqrt(lam)))
    a = lax.add(_c(-0.059, f32), lax.mul(_c(0.02483, f32), b))
    inv_alpha = lax.add(_c(1.1239, f32), lax.div(_c(1.1328, f32), lax.sub(b, _c(3.4, f32))))
    v_r = lax.sub(_c(0.9277, f32), lax.div(_c(3.6224, f32), lax.sub(b, _c(2.0, f32))))

    def body(state: tuple[ArrayLike, ArrayLike, ArrayLike]) -> tuple[Array, Array, Array]:
        k_out, accepted, rng = state
        rng, key_u, key_v = _split_n(rng, 3)
        u = lax.sub(_uniform(key_u, shape, f32, 0.0, 1.0), _c(0.5, f32))
        v = _uniform(key_v, shape, f32, 0.0, 1.0)
        u_shifted = lax.sub(_c(0.5, f32), lax.abs(u))
        slope = lax.add(lax.div(lax.mul(_c(2.0, f32), a), u_shifted), b)
        k = lax.floor(lax.add(lax.add(lax.mul(slope, u), lam), _c(0.43, f32)))
        s = lax.log(
            lax.div(lax.mul(v, inv_alpha), lax.add(lax.div(a, lax.mul(u_shifted, u_shifted)), b))
        )
        t = lax.sub(lax.add(lax.neg(lam), lax.mul(k, log_lam)), lgamma(lax.add(k, _c(1.0, f32))))
        accept1 = lax.bitwise_and(lax.ge(u_shifted, _c(0.07, f32)), lax.le(v, v_r))
        tiny_u = lax.bitwise_and(lax.lt(u_shifted, _c(0.013, f32)), lax.gt(v, u_shifted))
        reject = lax.bitwise_or(lax.lt(k, _c(0.0, f32)), tiny_u)
        accept = lax.bitwise_or(accept1, lax.bitwise_and(lax.bitwise_not(reject), lax.le(s, t)))
        return lax.select(accept, k, k_out), lax.bitwise_or(accepted, accept), rng

    init = (mnp.full(shape, -1.0, f32), mnp.zeros(shape, _BOOL), key)
    k = while_loop(lambda s: _any(lax.bitwise_not(s[1])), body, init)[0]
    return lax.convert_element_type(k, _default_int())


@_quiet
def poisson(
    key: ArrayLike,
    lam: float | ArrayLike,
    shape: Shape | None = None,
    dtype: DTypeLike | None = None,
) -> Array:
    """Poisson(``lam``) counts (default dtype int64; shape defaults to ``lam``'s shape).

    As in JAX, ``lam`` is taken in float32 and the uniforms are float32 draws.
    """
    key = _check_key("poisson", key)
    dt = _default_int() if dtype is None else canonical_dtype(dtype)
    if not is_integer(dt):
        raise ValueError(_error("poisson", f"dtype must be an integer dtype, got {dt.name}"))
    shp = _aval("poisson", "lam", lam).shape if shape is None else _shape("poisson", shape)
    try:
        np.broadcast_to(np.empty(get_aval(lam).shape, _BOOL), shp)
    except ValueError:
        msg = f"lam of shape {get_aval(lam).shape} does not broadcast to the shape {shp}"
        raise ValueError(_error("poisson", msg)) from None
    lam = mnp.broadcast_to(mnp.asarray(lam, _F32), shp)
    use_knuth = lax.bitwise_or(lax.ne(lam, lam), lax.lt(lam, _c(10.0, _F32)))
    lam_knuth = lax.select(use_knuth, lam, mnp.zeros(shp, _F32))
    lam_rejection = lax.select(use_knuth, mnp.full(shp, 1e5, _F32), lam)
    result = lax.select(
        use_knuth,
        _poisson_knuth(key, lam_knuth, shp),
        _poisson_rejection(key, lam_rejection, shp),
    )
    result = lax.select(lax.eq(lam, _c(0.0, _F32)), mnp.zeros(shp, _default_int()), result)
    return lax.convert_element_type(result, dt)


# --- binomial ---------------------------------------------------------------------------------

_STIRLING_TAIL = (
    0.0810614667953272,
    0.0413406959554092,
    0.0276779256849983,
    0.02079067210376509,
    0.0166446911898211,
    0.0138761288230707,
    0.0118967099458917,
    0.0104112652619720,
    0.00925546218271273,
    0.00833056343336287,
)


def _stirling_tail(k: ArrayLike) -> Array:
    """``lgamma(k + 1) - (Stirling's approximation)``: tabulated for ``k <= 9``, else the
    asymptotic series."""
    dt = get_aval(k).dtype
    kc = lax.clamp(_c(0.0, dt), k, _c(9.0, dt))
    kp1sq = lax.mul(lax.add(kc, _c(1.0, dt)), lax.add(kc, _c(1.0, dt)))
    inner = lax.sub(_c(1.0 / 360, dt), lax.div(_c(1.0 / 1260, dt), kp1sq))
    approx = lax.div(lax.sub(_c(1.0 / 12, dt), lax.div(inner, kp1sq)), lax.add(kc, _c(1.0, dt)))
    index = lax.convert_element_type(lax.floor(kc), np.dtype(np.int32))
    table = mnp.take(np.asarray(_STIRLING_TAIL, dt), index)
    return lax.select(lax.le(k, _c(9.0, dt)), table, approx)


def _binomial_inversion(
    key: ArrayLike, count: ArrayLike, prob: ArrayLike, shape: tuple[int, ...]
) -> Array:
    """Count geometric waiting times until they pass ``count`` (for ``count * p <= 10``)."""
    dt = get_aval(prob).dtype
    log1m_prob = lax.log1p(lax.neg(prob))

    def body(state: tuple[ArrayLike, ArrayLike, ArrayLike]) -> tuple[Array, Array, Array]:
        num_geom, geom_sum, rng = state
        subkey, rng = _split_n(rng, 2)
        more = lax.le(geom_sum, count)
        num_geom = lax.select(more, lax.add(num_geom, _c(1.0, dt)), num_geom)
        u = _uniform(subkey, shape, dt, 0.0, 1.0)
        geom = lax.ceil(lax.div(lax.log(u), log1m_prob))
        return num_geom, lax.add(geom_sum, geom), rng

    init = (mnp.zeros(shape, dt), mnp.zeros(shape, dt), key)
    k = while_loop(lambda s: _any(lax.le(s[1], count)), body, init)[0]
    return lax.sub(k, _c(1.0, dt))


def _btrs(key: AnyArray, count: AnyArray, prob: AnyArray, shape: tuple[int, ...]) -> AnyArray:
    """BTRS: transformed rejection with squeeze (Hörmann 1993), for ``count * p > 10``."""
    dt = get_aval(prob).dtype
    one = _c(1.0, dt)
    q = lax.sub(one, prob)
    stddev = lax.sqrt(lax.mul(lax.mul(count, prob), q))
    b = lax.add(_c(1.15, dt), lax.mul(_c(2.53, dt), stddev))
    a = lax.add(
        lax.add(_c(-0.0873, dt), lax.mul(_c(0.0248, dt), b)),
        lax.mul(_c(0.01, dt), prob),
    )
    c = lax.add(lax.mul(count, prob), _c(0.5, dt))
    v_r = lax.sub(_c(0.92, dt), lax.div(_c(4.2, dt), b))
    r = lax.div(prob, q)
    alpha = lax.mul(lax.add(_c(2.83, dt), lax.div(_c(5.1, dt), b)), stddev)
    m = lax.floor(lax.mul(lax.add(count, one), prob))
    half = _c(0.5, dt)

    def body(state: tuple[ArrayLike, ArrayLike, ArrayLike]) -> tuple[Array, Array, Array]:
        k_out, accepted, rng = state
        rng, key_u, key_v = _split_n(rng, 3)
        u = lax.sub(_uniform(key_u, shape, dt, 0.0, 1.0), half)
        v = _uniform(key_v, shape, dt, 0.0, 1.0)
        us = lax.sub(half, lax.abs(u))
        accept1 = lax.bitwise_and(lax.ge(us, _c(0.07, dt)), lax.le(v, v_r))
        slope = lax.add(lax.div(lax.mul(_c(2.0, dt), a), us), b)
        k = lax.floor(lax.add(lax.mul(slope, u), c))
        reject = lax.bitwise_or(lax.lt(k, _c(0.0, dt)), lax.gt(k, count))
        log_v = lax.log(lax.div(lax.mul(v, alpha), lax.add(lax.div(a, lax.mul(us, us)), b)))
        cm1 = lax.add(lax.sub(count, m), one)
        ck1 = lax.add(lax.sub(count, k), one)
        ub = lax.mul(lax.add(m, half), lax.log(lax.div(lax.add(m, one), lax.mul(r, cm1))))
        ub = lax.add(ub, lax.mul(lax.add(count, one), lax.log(lax.div(cm1, ck1))))
        ub = lax.add(
            ub, lax.mul(lax.add(k, half), lax.log(lax.div(lax.mul(r, ck1), lax.add(k, one))))
        )
        ub = lax.add(ub, _stirling_tail(m))
        ub = lax.add(ub, _stirling_tail(lax.sub(count, m)))
        ub = lax.sub(ub, _stirling_tail(k))
        ub = lax.sub(ub, _stirling_tail(lax.sub(count, k)))
        accept = lax.bitwise_or(
            accept1, lax.bitwise_and(lax.bitwise_not(reject), lax.le(log_v, ub))
        )
        return lax.select(accept, k, k_out), lax.bitwise_or(accepted, accept), rng

    init = (mnp.full(shape, -1.0, dt), mnp.zeros(shape, _BOOL), key)
    return while_loop(lambda s: _any(lax.bitwise_not(s[1])), body, init)[0]


@_quiet
def binomial(
    key: ArrayLike,
    n: float | ArrayLike,
    p: float | ArrayLike,
    shape: Shape | None = None,
    dtype: DTypeLike | None = None,
) -> Array:
    """Binomial(``n``, ``p``) counts as floats (default dtype float64, as JAX): NaN for
    invalid parameters, ``inf`` for infinite ``n``."""
    key = _check_key("binomial", key)
    dt = _default_float() if dtype is None else canonical_dtype(dtype)
    if dt.kind != "f":
        raise ValueError(_error("binomial", f"dtype must be a floating-point dtype, got {dt}"))
    shp = _params_shape("binomial", shape, n, p)
    return _binomial(key, n, p, shp, dt)


def _binomial(
    key: ArrayLike, n: Any, p: Any, shape: tuple[int, ...], dtype: np.dtype[Any]
) -> Array:
    pdt = to_inexact_dtype(get_aval(p).dtype)
    prob = mnp.broadcast_to(mnp.asarray(p, pdt), shape)
    count = mnp.broadcast_to(mnp.asarray(n, pdt), shape)
    one = _c(1.0, pdt)
    p_lt_half = lax.lt(prob, _c(0.5, pdt))
    q = lax.select(p_lt_half, prob, lax.sub(one, prob))
    count_nan_or_neg = lax.bitwise_or(lax.ne(count, count), lax.lt(count, _c(0.0, pdt)))
    count_inf = lax.eq(lax.abs(count), _c(np.inf, pdt))
    q_is_nan = lax.ne(q, q)
    q_l_0 = lax.lt(q, _c(0.0, pdt))
    q = lax.select(lax.bitwise_or(q_is_nan, q_l_0), mnp.full(shape, 0.01, pdt), q)
    use_inversion = lax.bitwise_or(count_nan_or_neg, lax.le(lax.mul(count, q), _c(10.0, pdt)))
    count = lax.floor(count)
    count_inv = lax.select(use_inversion, count, mnp.zeros(shape, pdt))
    count_btrs = lax.select(use_inversion, mnp.full(shape, 1e4, pdt), count)
    q_btrs = lax.select(use_inversion, mnp.full(shape, 0.5, pdt), q)
    samples = lax.select(
        use_inversion,
        lax.convert_element_type(_binomial_inversion(key, count_inv, q, shape), dtype),
        lax.convert_element_type(_btrs(key, count_btrs, q_btrs, shape), dtype),
    )
    invalid = lax.bitwise_or(lax.bitwise_or(q_l_0, q_is_nan), count_nan_or_neg)
    samples = lax.select(invalid, mnp.full(shape, np.nan, dtype), samples)
    samples = lax.select(
        lax.bitwise_and(count_inf, lax.bitwise_not(invalid)),
        mnp.full(shape, np.inf, dtype),
        samples,
    )
    keep = lax.bitwise_or(
        lax.bitwise_or(p_lt_half, count_nan_or_neg), lax.bitwise_or(q_is_nan, count_inf)
    )
    flipped = lax.sub(lax.convert_element_type(count, dtype), samples)
    return lax.select(keep, samples, flipped)


# --- multinomial ------------------------------------------------------------------------------


@_quiet
def multinomial(
    key: ArrayLike,
    n: float | ArrayLike,
    p: ArrayLike,
    *,
    shape: Shape | None = None,
    dtype: DTypeLike | None = None,
    unroll: int | bool = 1,
) -> Array:
    """Multinomial counts of ``n`` trials over the categories of ``p``'s last axis: a scan of
    binomial draws, each conditioned on the trials left (default dtype float64, as JAX)."""
    key = _check_key("multinomial", key)
    n_aval = _aval("multinomial", "n", n)
    p_aval = _aval("multinomial", "p", p)
    if not p_aval.shape:
        raise ValueError(_error("multinomial", "p must have at least one dimension, got ()"))
    dt = _default_float() if dtype is None else canonical_dtype(dtype)
    common = to_inexact_dtype(np.promote_types(n_aval.dtype, p_aval.dtype))
    shp = p_aval.shape if shape is None else _shape("multinomial", shape)
    try:
        n_arr = mnp.broadcast_to(mnp.asarray(n, common), shp[:-1])
        p_arr = mnp.broadcast_to(mnp.asarray(p, common), shp)
    except ValueError:
        msg = f"n {n_aval.shape} and p {p_aval.shape} do not broadcast to the shape {shp}"
        raise ValueError(_error("multinomial", msg)) from None
    p_arr = mnp.moveaxis(p_arr, -1, 0)
    remaining = lax.cumsum(p_arr, 0, reverse=True)
    zero = lax.eq(remaining, _c(0.0, common))
    ratios = lax.div(p_arr, lax.select(zero, mnp.ones_like(remaining), remaining))
    keys = _threefry.split(key, (shp[-1],))
    batch = shp[:-1]

    def step(remainder: ArrayLike, ratio_key: tuple[ArrayLike, ArrayLike]) -> tuple[Array, Array]:
        ratio, k = ratio_key
        count = _binomial(k, remainder, mnp.clip(ratio, 0, 1), batch, common)
        return lax.sub(remainder, count), count

    _, counts = scan(step, n_arr, (ratios, keys), unroll=unroll)
    return lax.convert_element_type(mnp.moveaxis(counts, 0, -1), dt)
