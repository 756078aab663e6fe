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
* ``regularized_incomplete_beta`` is XLA's decomposition: three traced compositions are
  inlined around one ``stablehlo.while``: the symmetry switch (``I_x(a, b) = 1 - I_{1-x}(b,
  a)`` unless ``x < (a + 1) / (a + b + 2)``), the modified Lentz steps of the continued
  fraction (DLMF 8.17.22), looping while some element has not converged and fewer than
  :data:`mj_core.prims.special.BETAINC_MAX_ITERATIONS` steps ran, and the prefactor
  with JAX's edge values. The eager impl runs the same steps, so eager and jit agree to
  rounding.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mj_core import Primitive, ShapedArray, lax
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
    aval_to_ir_type,
    ir_constant,
    lowering_rules,
)
from mj_xla._promotion import lower_operands, register_elementwise

__all__ = ["IGAMMA_STEPS"]

IGAMMA_STEPS = 64
I32 = np.dtype(np.int32)
BOOL = np.dtype(np.bool_)

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
    lowering_rules[prim] = rule


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
    tiny = float(np.finfo(lax.full_like(x, 0).dtype).tiny)
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
    small = float(np.finfo(lax.full_like(x, 0).dtype).eps / 2)
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
    small = float(np.finfo(lax.full_like(x, 0).dtype).eps / 2)
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
    tiny_a = lax.lt(aa, float(np.finfo(dtype).tiny * 2))
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


lowering_rules[regularized_incomplete_beta_p] = _betainc_lowering
