"""Lowering rules of the special functions.

``lgamma``, ``digamma``, ``erfc``, ``erf_inv`` and ``bessel_i1e`` are CHLO ops, as JAX emits
them; XLA expands them during compilation. JAX lowers ``bessel_i0e``, the incomplete gamma
functions and the incomplete beta function as decompositions (``mlir.lower_fun``); so does mj:
the rule traces an mj-level composition of core ops into a jaxpr and inlines its lowering.

* ``bessel_i0e`` is Cephes' Chebyshev expansion (the eager impl's).
* ``igamma`` runs the eager impl's series / continued fraction for a fixed number of steps
  (XLA has no data-dependent early exit inside an elementwise op): agreeing with eager to
  ~1e-13 while ``a`` and ``x`` stay below about 150, where both converge within
  :data:`IGAMMA_STEPS` terms.
* ``igamma_grad_a`` is JAX's decomposition: the differentiated series and continued fraction
  (the eager impl's) each in a ``stablehlo.while`` looping while some element has not
  converged, at most :data:`IGAMMA_GRAD_A_MAX_ITERATIONS` steps.
* ``regularized_incomplete_beta`` is XLA's decomposition: three traced compositions are
  inlined around one ``stablehlo.while``: the symmetry switch (``I_x(a, b) = 1 - I_{1-x}(b,
  a)`` unless ``x < (a + 1) / (a + b + 2)``), the modified Lentz steps of the continued
  fraction (DLMF 8.17.22), looping while some element has not converged and fewer than
  :data:`mj_core.prims.special.BETAINC_MAX_ITERATIONS` steps ran, and the prefactor
  with JAX's edge values. The eager impl runs the same steps, so eager and jit agree to
  rounding.

As JAX's (``_up_and_broadcast``), the incomplete gamma and beta functions, ``igamma_grad_a``
and ``bessel_i0e`` compute float16/bfloat16 operands in float32 (:func:`_in_float32`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import ml_dtypes
import numpy as np

from mj_core import Primitive, ShapedArray, lax
from mj_core.dtypes import float_info
from mj_core.extend import AnyArray, Array, ArrayLike
from mj_core.prims.special import (
    BETAINC_MAX_ITERATIONS,
    I0E_CHEBYSHEV_BIG,
    I0E_CHEBYSHEV_SMALL,
    bessel_i0e_p,
    bessel_i1e_p,
    digamma_p,
    erf_inv_p,
    erfc_p,
    igamma_grad_a_p,
    igamma_p,
    igammac_p,
    lgamma_p,
    regularized_incomplete_beta_p,
)
from mj_ir import ClosedJaxpr
from mj_ir.extend import trace_to_closed_jaxpr
from mj_xla._jaxlib import Value, chlo, hlo, ir
from mj_xla._lowering import (
    Avals,
    LoweringContext,
    Values,
    as_dtype,
    aval_to_ir_type,
    ir_constant,
    lowering_rules,
)
from mj_xla._promotion import lower_operands, register_elementwise

__all__ = ["IGAMMA_GRAD_A_MAX_ITERATIONS", "IGAMMA_STEPS"]

IGAMMA_STEPS = 64
IGAMMA_GRAD_A_MAX_ITERATIONS = 2000
I32 = np.dtype(np.int32)
BOOL = np.dtype(np.bool_)
F32 = np.dtype(np.float32)
_NARROW_FLOATS = (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16))

Rule = Callable[..., list[Value]]


def _in_float32(rule: Rule) -> Rule:
    """``rule`` computing float16/bfloat16 operands in float32, its results rounded back, as
    JAX's decompositions do (``_up_and_broadcast``): the series, continued fractions and
    Cephes coefficients need float32's precision (in float16 the fractions stop early or
    overflow, off by 20% and more; bfloat16 has no ``finfo``)."""

    def wrapped(
        ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values, **params: Any
    ) -> list[Value]:
        if avals_out[0].dtype not in _NARROW_FLOATS:
            return rule(ctx, avals_in, avals_out, in_vals, **params)
        wide_in = [ShapedArray(a.shape, F32) for a in avals_in]
        wide_out = [ShapedArray(a.shape, F32) for a in avals_out]
        vals = [as_dtype(v, a, F32) for v, a in zip(in_vals, avals_in, strict=True)]
        outs = rule(ctx, wide_in, wide_out, vals, **params)
        return [hlo.convert(aval_to_ir_type(a), o) for a, o in zip(avals_out, outs, strict=True)]

    wrapped.__name__ = getattr(rule, "__name__", "rule")
    return wrapped


for _prim, _op in [
    (lgamma_p, chlo.lgamma),
    (digamma_p, chlo.digamma),
    (erfc_p, chlo.erfc),
    (erf_inv_p, chlo.erf_inv),
    (bessel_i1e_p, chlo.bessel_i1e),
]:
    register_elementwise(_prim, _op)


def _register_composition(prim: Primitive, composition: Callable[..., ArrayLike]) -> None:
    """Lower ``prim`` as the jaxpr of ``composition`` on operands already converted and
    broadcast to the output type."""

    def rule(
        ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values, **params: Any
    ) -> list[Value]:
        operands, dtype = lower_operands(prim, avals_in, avals_out, in_vals)
        aval = ShapedArray(avals_out[0].shape, dtype)

        def flat(*args: AnyArray) -> Sequence[AnyArray]:
            return [composition(*args)]

        closed = trace_to_closed_jaxpr(flat, [aval] * len(operands))
        return ctx.lower_jaxpr(closed, operands)

    rule.__name__ = f"{prim.name}_lowering"
    lowering_rules[prim] = _in_float32(rule)


def _chebyshev(t: ArrayLike, coefficients: Sequence[float]) -> Array:
    b0 = lax.full_like(t, 0.0)
    b1 = b0
    b2 = b0
    for c in coefficients:
        b2, b1 = b1, b0
        b0 = lax.add(lax.sub(lax.mul(t, b1), b2), c)
    return lax.mul(0.5, lax.sub(b0, b2))


def _i0e(x: ArrayLike) -> Array:
    ax = lax.abs(x)
    small = _chebyshev(lax.sub(lax.mul(0.5, ax), 2.0), I0E_CHEBYSHEV_SMALL)
    big_t = lax.sub(lax.div(32.0, ax), 2.0)
    big = lax.div(_chebyshev(big_t, I0E_CHEBYSHEV_BIG), lax.sqrt(ax))
    return lax.select(lax.le(ax, 8.0), small, big)


_register_composition(bessel_i0e_p, _i0e)


def _incomplete_gamma(a: ArrayLike, x: ArrayLike, upper: bool) -> Array:
    tiny = float(float_info(lax.full_like(x, 0).dtype).tiny)
    a_zero = lax.eq(a, 0.0)
    at_origin = lax.eq(x, 0.0)
    bad = lax.bitwise_or(
        lax.bitwise_or(lax.ne(a, a), lax.ne(x, x)),
        lax.bitwise_or(
            lax.bitwise_or(lax.lt(x, 0.0), lax.lt(a, 0.0)), lax.bitwise_and(a_zero, at_origin)
        ),
    )
    regular = lax.bitwise_and(
        lax.bitwise_and(lax.bitwise_not(bad), lax.bitwise_not(a_zero)),
        lax.bitwise_and(lax.gt(x, 0.0), lax.is_finite(x)),
    )
    x_in = x
    one = lax.full_like(x, 1.0)
    a = lax.select(regular, a, one)
    x = lax.select(regular, x, one)
    prefactor = lax.exp(lax.sub(lax.sub(lax.mul(a, lax.log(x)), x), lax.lgamma(a)))
    # power series of P
    term = lax.div(1.0, a)
    total, n = term, a
    for _ in range(IGAMMA_STEPS):
        n = lax.add(n, 1.0)
        term = lax.div(lax.mul(term, x), n)
        total = lax.add(total, term)
    p_series = lax.mul(total, prefactor)
    # modified Lentz continued fraction of Q
    b = lax.sub(lax.add(x, 1.0), a)
    c = lax.full_like(x, 1.0 / tiny)
    d = lax.div(1.0, b)
    h = d
    for i in range(1, IGAMMA_STEPS):
        an = lax.mul(-float(i), lax.sub(float(i), a))
        b = lax.add(b, 2.0)
        d = lax.add(lax.mul(an, d), b)
        d = lax.div(1.0, lax.select(lax.lt(lax.abs(d), tiny), lax.full_like(d, tiny), d))
        c = lax.add(b, lax.div(an, c))
        c = lax.select(lax.lt(lax.abs(c), tiny), lax.full_like(c, tiny), c)
        h = lax.mul(h, lax.mul(d, c))
    q_fraction = lax.mul(h, prefactor)
    use_series = lax.lt(x, lax.add(a, 1.0))
    if upper:
        value = lax.select(use_series, lax.sub(1.0, p_series), q_fraction)
        at_zero, at_inf = 1.0, 0.0
    else:
        value = lax.select(use_series, p_series, lax.sub(1.0, q_fraction))
        at_zero, at_inf = 0.0, 1.0
    edge = lax.select(at_origin, lax.full_like(x, at_zero), lax.full_like(x, at_inf))
    value = lax.select(regular, value, edge)
    # a == 0 < x, as XLA's (JAX's) igamma: Q is 0, P is 1 from x = 1 on, NaN below
    if upper:
        at_a_zero = lax.full_like(x, 0.0)
    else:
        at_a_zero = lax.select(lax.ge(x_in, 1.0), one, lax.full_like(x, np.nan))
    value = lax.select(a_zero, at_a_zero, value)
    return lax.select(bad, lax.full_like(x, np.nan), value)


def _igamma(a: ArrayLike, x: ArrayLike) -> Array:
    return _incomplete_gamma(a, x, upper=False)


def _igammac(a: ArrayLike, x: ArrayLike) -> Array:
    return _incomplete_gamma(a, x, upper=True)


_register_composition(igamma_p, _igamma)
_register_composition(igammac_p, _igammac)


# --- regularized incomplete beta ---------------------------------------------------------------


def _trace(fun: Callable[..., Sequence[ArrayLike]], avals: Sequence[ShapedArray]) -> ClosedJaxpr:
    return trace_to_closed_jaxpr(lambda *args: list(fun(*args)), list(avals))


def _swap(a: ArrayLike, b: ArrayLike, x: ArrayLike) -> list[Array]:
    """The fraction's operands (swapped where it would converge slowly) and Lentz's start."""
    direct = lax.lt(x, lax.div(lax.add(a, 1.0), lax.add(lax.add(a, b), 2.0)))
    small = float(float_info(lax.full_like(x, 0).dtype).eps / 2)
    h = lax.full_like(x, small)
    return [
        lax.select(direct, a, b),
        lax.select(direct, b, a),
        lax.select(direct, x, lax.sub(1.0, x)),
        h,
        lax.full_like(x, 0.0),
        h,
    ]


def _numerator(i: ArrayLike, a: ArrayLike, b: ArrayLike, x: ArrayLike) -> Array:
    """The ``i``-th partial numerator (``i`` a traced int32 scalar, ``i >= 1``)."""
    m_int = lax.div(lax.sub(i, 1), 2)
    m = lax.convert_element_type(m_int, lax.full_like(x, 0).dtype)
    two_m = lax.mul(2.0, m)
    zero_numerator = lax.div(lax.mul(lax.neg(lax.add(a, b)), x), lax.add(a, 1.0))
    even = lax.div(
        lax.mul(lax.mul(lax.neg(lax.add(a, m)), lax.add(lax.add(a, b), m)), x),
        lax.mul(lax.add(a, two_m), lax.add(lax.add(a, two_m), 1.0)),
    )
    even = lax.select(lax.eq(m_int, 0), zero_numerator, even)
    odd = lax.div(
        lax.mul(lax.mul(m, lax.sub(b, m)), x),
        lax.mul(lax.sub(lax.add(a, two_m), 1.0), lax.add(a, two_m)),
    )
    is_even = lax.eq(lax.rem(i, 2), 0)
    return lax.select(lax.eq(i, 1), lax.full_like(x, 1.0), lax.select(is_even, even, odd))


def _lentz_step(
    a: AnyArray,
    b: AnyArray,
    x: AnyArray,
    i: AnyArray,
    _: AnyArray,
    c: AnyArray,
    d: AnyArray,
    h: AnyArray,
) -> list[AnyArray]:
    small = float(float_info(lax.full_like(x, 0).dtype).eps / 2)
    tiny = lax.full_like(x, small)
    numerator = _numerator(i, a, b, x)
    c = lax.add(1.0, lax.div(numerator, c))
    c = lax.select(lax.lt(lax.abs(c), small), tiny, c)
    d = lax.add(1.0, lax.mul(numerator, d))
    d = lax.div(1.0, lax.select(lax.lt(lax.abs(d), small), tiny, d))
    delta = lax.mul(c, d)
    unconverged = lax.ge(lax.abs(lax.sub(delta, 1.0)), small)
    axes = tuple(range(len(x.shape)))
    return [lax.add(i, 1), lax.reduce_or(unconverged, axes), c, d, lax.mul(h, delta)]


def _keep_going(limit: int) -> Callable[[Array, Array], list[Array]]:
    def cond(i: ArrayLike, unconverged: ArrayLike) -> list[Array]:
        return [lax.bitwise_and(lax.lt(i, limit), unconverged)]

    return cond


def _finish(
    a: ArrayLike,
    b: ArrayLike,
    x: ArrayLike,
    aa: ArrayLike,
    bb: ArrayLike,
    xx: ArrayLike,
    h: ArrayLike,
) -> list[Array]:
    """The prefactor times the fraction, un-swapped, with JAX's edge values."""
    dtype = lax.full_like(x, 0).dtype
    a_is_zero = lax.bitwise_or(lax.eq(a, 0.0), lax.eq(b, np.inf))
    b_is_zero = lax.bitwise_or(lax.eq(b, 0.0), lax.eq(a, np.inf))
    x_is_zero, x_is_one = lax.eq(x, 0.0), lax.eq(x, 1.0)
    zero = lax.bitwise_or(
        lax.bitwise_and(b_is_zero, lax.bitwise_not(x_is_one)), lax.bitwise_and(a_is_zero, x_is_zero)
    )
    one = lax.bitwise_or(
        lax.bitwise_and(a_is_zero, lax.bitwise_not(x_is_zero)), lax.bitwise_and(b_is_zero, x_is_one)
    )
    nan = lax.bitwise_or(
        lax.bitwise_or(lax.lt(a, 0.0), lax.lt(b, 0.0)),
        lax.bitwise_or(lax.lt(x, 0.0), lax.gt(x, 1.0)),
    )
    any_nan = lax.bitwise_or(lax.bitwise_or(lax.ne(a, a), lax.ne(b, b)), lax.ne(x, x))
    nan = lax.bitwise_or(nan, lax.bitwise_or(lax.bitwise_and(a_is_zero, b_is_zero), any_nan))
    log_beta_rest = lax.sub(lax.lgamma(bb), lax.lgamma(lax.add(aa, bb)))
    log_1mx = lax.log1p(lax.neg(xx))
    tiny_a = lax.lt(aa, float(float_info(dtype).tiny * 2))
    factor = lax.select(
        tiny_a,
        lax.exp(lax.sub(lax.mul(log_1mx, bb), log_beta_rest)),
        lax.div(
            lax.exp(
                lax.sub(
                    lax.add(lax.mul(lax.log(xx), aa), lax.mul(log_1mx, bb)),
                    lax.add(lax.lgamma(aa), log_beta_rest),
                )
            ),
            aa,
        ),
    )
    value = lax.mul(h, factor)
    direct = lax.lt(x, lax.div(lax.add(a, 1.0), lax.add(lax.add(a, b), 2.0)))
    value = lax.select(direct, value, lax.sub(1.0, value))
    value = lax.select(zero, lax.full_like(x, 0.0), value)
    value = lax.select(one, lax.full_like(x, 1.0), value)
    return [lax.select(nan, lax.full_like(x, np.nan), value)]


def _betainc_lowering(
    ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values
) -> list[Value]:
    operands, dtype = lower_operands(regularized_incomplete_beta_p, avals_in, avals_out, in_vals)
    aval = ShapedArray(avals_out[0].shape, dtype)
    scalar_i, scalar_b = ShapedArray((), I32), ShapedArray((), BOOL)
    swapped = ctx.lower_jaxpr(_trace(_swap, [aval] * 3), operands)
    aa, bb, xx, c0, d0, h0 = swapped
    init = [
        ir_constant(np.array(1, I32)),
        ir_constant(np.array(True)),
        c0,
        d0,
        h0,
    ]
    carry_avals = [scalar_i, scalar_b, aval, aval, aval]
    carry_types = [aval_to_ir_type(a) for a in carry_avals]
    op = hlo.WhileOp(carry_types, init)
    limit = BETAINC_MAX_ITERATIONS.get(np.dtype(dtype), 200)
    cond_block = op.cond.blocks.append(*carry_types)
    with ir.InsertionPoint(cond_block):
        cond = _trace(_keep_going(limit), carry_avals[:2])
        hlo.return_(ctx.lower_jaxpr(cond, list(cond_block.arguments)[:2]))
    body_block = op.body.blocks.append(*carry_types)
    with ir.InsertionPoint(body_block):
        body = _trace(_lentz_step, [aval] * 3 + carry_avals)
        hlo.return_(ctx.lower_jaxpr(body, [aa, bb, xx, *body_block.arguments]))
    h = list(op.results)[4]
    finish = _trace(_finish, [aval] * 7)
    return ctx.lower_jaxpr(finish, [*operands, aa, bb, xx, h])


lowering_rules[regularized_incomplete_beta_p] = _in_float32(_betainc_lowering)


# --- d igamma / d a ------------------------------------------------------------------------------


def _while(
    ctx: LoweringContext,
    consts: Sequence[Value],
    const_avals: Sequence[ShapedArray],
    state: Sequence[Value],
    state_avals: Sequence[ShapedArray],
    step: Callable[..., list[Array]],
) -> list[Value]:
    """``state`` after ``step(*consts, *state) -> (some_active, *state)`` ran while some
    element is active, at most :data:`IGAMMA_GRAD_A_MAX_ITERATIONS` times."""
    scalar_i, scalar_b = ShapedArray((), I32), ShapedArray((), BOOL)
    carry_avals = [scalar_i, scalar_b, *state_avals]
    carry_types = [aval_to_ir_type(a) for a in carry_avals]
    init = [ir_constant(np.array(0, I32)), ir_constant(np.array(True)), *state]
    op = hlo.WhileOp(carry_types, init)
    cond_block = op.cond.blocks.append(*carry_types)
    with ir.InsertionPoint(cond_block):
        cond = _trace(_keep_going(IGAMMA_GRAD_A_MAX_ITERATIONS), carry_avals[:2])
        hlo.return_(ctx.lower_jaxpr(cond, list(cond_block.arguments)[:2]))
    body_block = op.body.blocks.append(*carry_types)
    with ir.InsertionPoint(body_block):

        def counted(*args: AnyArray) -> list[Array]:
            i, _, *rest = args[len(consts) :]
            return [lax.add(i, 1), *step(*args[: len(consts)], *rest)]

        body = _trace(counted, [*const_avals, *carry_avals])
        hlo.return_(ctx.lower_jaxpr(body, [*consts, *body_block.arguments]))
    results: list[Value] = list(op.results)
    return results[2:]


def _any(flags: AnyArray) -> Array:
    return lax.reduce_or(flags, tuple(range(len(flags.shape))))


def _grad_a_prelude(a: AnyArray, x: AnyArray) -> list[Array]:
    """Safe operands, the edge flags, ``x^a e^-x / Gamma(a)`` and both loops' start."""
    dtype = lax.full_like(x, 0).dtype
    is_nan = lax.bitwise_or(lax.ne(a, a), lax.ne(x, x))
    x_zero = lax.eq(x, 0.0)
    domain_error = lax.bitwise_or(lax.lt(x, 0.0), lax.le(a, 0.0))
    bad = lax.bitwise_or(domain_error, is_nan)
    one, zero = lax.full_like(x, 1.0), lax.full_like(x, 0.0)
    a = lax.select(bad, one, a)
    use_fraction = lax.bitwise_and(lax.gt(x, 1.0), lax.gt(x, a))
    log_ax = lax.sub(lax.sub(lax.mul(a, lax.log(x)), x), lax.lgamma(a))
    underflow = lax.lt(log_ax, -float(np.log(float_info(dtype).max)))
    enabled = lax.bitwise_not(lax.bitwise_or(lax.bitwise_or(x_zero, bad), underflow))
    series_on = lax.bitwise_and(enabled, lax.bitwise_not(use_fraction))
    fraction_on = lax.bitwise_and(enabled, use_fraction)
    y = lax.sub(1.0, a)
    z = lax.add(lax.add(x, y), 1.0)
    pkm1, qkm1 = lax.add(x, 1.0), lax.mul(z, x)
    ans = lax.div(pkm1, qkm1)
    dqkm1 = lax.neg(x)
    dans = lax.div(lax.neg(lax.mul(ans, dqkm1)), qkm1)
    series = [series_on, a, one, one, zero, zero]  # active, r, c, ans, dc_da, dans_da
    # active, ans, y, z, c, pkm1, qkm1, pkm2, qkm2, dpkm2, dqkm2, dpkm1, dqkm1, dans
    fraction = [fraction_on, ans, y, z, zero, pkm1, qkm1, one, x, zero, zero, zero, dqkm1, dans]
    return [a, lax.exp(log_ax), x_zero, bad, use_fraction, *series, *fraction]


def _series_step(x: AnyArray, *v: AnyArray) -> list[Array]:
    on, r, c, ans, dc_da, dans_da = v
    eps = float(float_info(lax.full_like(x, 0).dtype).eps)
    r2 = lax.add(r, 1.0)
    dc_da2 = lax.sub(lax.mul(dc_da, lax.div(x, r2)), lax.div(lax.mul(c, x), lax.mul(r2, r2)))
    dans_da2 = lax.add(dans_da, dc_da2)
    c2 = lax.mul(c, lax.div(x, r2))
    ans2 = lax.add(ans, c2)
    more = lax.bitwise_and(on, lax.gt(lax.abs(lax.div(dc_da2, dans_da2)), eps))
    new = [r2, c2, ans2, dc_da2, dans_da2]
    kept = [lax.select(on, n, o) for n, o in zip(new, v[1:], strict=True)]
    return [_any(more), more, *kept]


def _fraction_step(x: AnyArray, *v: AnyArray) -> list[Array]:
    on, ans, y, z, c, pkm1, qkm1, pkm2, qkm2, dpkm2, dqkm2, dpkm1, dqkm1, dans = v
    eps = float(float_info(lax.full_like(x, 0).dtype).eps)
    c = lax.add(c, 1.0)
    y = lax.add(y, 1.0)
    z = lax.add(z, 2.0)
    yc = lax.mul(y, c)
    pk = lax.sub(lax.mul(pkm1, z), lax.mul(pkm2, yc))
    qk = lax.sub(lax.mul(qkm1, z), lax.mul(qkm2, yc))
    nonzero = lax.ne(qk, 0.0)
    safe_qk = lax.select(nonzero, qk, lax.full_like(qk, 1.0))
    ans2 = lax.select(nonzero, lax.div(pk, safe_qk), ans)
    dpk = lax.add(lax.sub(lax.sub(lax.mul(dpkm1, z), pkm1), lax.mul(dpkm2, yc)), lax.mul(pkm2, c))
    dqk = lax.add(lax.sub(lax.sub(lax.mul(dqkm1, z), qkm1), lax.mul(dqkm2, yc)), lax.mul(qkm2, c))
    dans2 = lax.select(nonzero, lax.div(lax.sub(dpk, lax.mul(ans2, dqk)), safe_qk), dans)
    change = lax.select(nonzero, lax.abs(lax.sub(dans2, dans)), lax.full_like(dans, 1.0))
    scale = lax.select(
        lax.gt(lax.abs(pk), 1.0 / eps), lax.full_like(pk, eps), lax.full_like(pk, 1.0)
    )
    shifted = [lax.mul(w, scale) for w in (pk, qk, pkm1, qkm1, dpkm1, dqkm1, dpk, dqk)]
    more = lax.bitwise_and(on, lax.gt(change, eps))
    new = [ans2, y, z, c, *shifted[:4], shifted[4], shifted[5], shifted[6], shifted[7], dans2]
    kept = [lax.select(on, n, o) for n, o in zip(new, v[1:], strict=True)]
    return [_any(more), more, *kept]


def _grad_a_finish(
    a: AnyArray,
    x: AnyArray,
    ax: AnyArray,
    x_zero: AnyArray,
    bad: AnyArray,
    use_fraction: AnyArray,
    s_ans: AnyArray,
    s_dans: AnyArray,
    f_ans: AnyArray,
    f_dans: AnyArray,
) -> list[Array]:
    dlogax = lax.sub(lax.log(x), lax.digamma(lax.add(a, 1.0)))
    series = lax.div(lax.mul(ax, lax.add(lax.mul(s_ans, dlogax), s_dans)), a)
    dlogax = lax.sub(lax.log(x), lax.digamma(a))
    fraction = lax.neg(lax.mul(ax, lax.add(lax.mul(f_ans, dlogax), f_dans)))
    out = lax.select(use_fraction, fraction, series)
    out = lax.select(x_zero, lax.full_like(x, 0.0), out)
    return [lax.select(bad, lax.full_like(x, np.nan), out)]


def _igamma_grad_a_lowering(
    ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values
) -> list[Value]:
    (a, x), dtype = lower_operands(igamma_grad_a_p, avals_in, avals_out, in_vals)
    aval = ShapedArray(avals_out[0].shape, dtype)
    flag = ShapedArray(aval.shape, BOOL)
    prelude = ctx.lower_jaxpr(_trace(_grad_a_prelude, [aval, aval]), [a, x])
    safe_a, ax, x_zero, bad, use_fraction = prelude[:5]
    series_init, fraction_init = prelude[5:11], prelude[11:]
    series = _while(ctx, [x], [aval], series_init, [flag] + [aval] * 5, _series_step)
    fraction = _while(ctx, [x], [aval], fraction_init, [flag] + [aval] * 13, _fraction_step)
    finish = _trace(_grad_a_finish, [aval, aval, aval, flag, flag, flag] + [aval] * 4)
    operands = [safe_a, x, ax, x_zero, bad, use_fraction]
    return ctx.lower_jaxpr(finish, [*operands, series[3], series[5], fraction[1], fraction[13]])


lowering_rules[igamma_grad_a_p] = _in_float32(_igamma_grad_a_lowering)
