"""Lowering of ``nextafter``, ``bessel_i0e``/``bessel_i1e`` and ``igamma``/``igammac``.

``nextafter`` and ``bessel_i1e`` are CHLO ops, as JAX emits them. JAX lowers ``bessel_i0e``
and the incomplete gamma functions as decompositions (``mlir.lower_fun``); so does mj: the
rule traces an mj-level composition of core ops into a jaxpr and inlines its lowering.
``bessel_i0e`` is Cephes' Chebyshev expansion (the eager impl's). ``igamma`` runs the eager
impl's series / continued fraction for a fixed number of steps (XLA has no data-dependent
early exit inside an elementwise op): agreeing with eager to ~1e-13 while ``a`` and ``x`` stay below
about 150, where both converge within :data:`IGAMMA_STEPS` terms.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mj_core import lax, lax_special
from mj_core.avals import ShapedArray
from mj_core.primitive import Primitive
from mj_core.prims import bessel
from mj_core.prims import incomplete_gamma as ig
from mj_core.prims import nextafter as na
from mj_ir import trace_to_closed_jaxpr
from mj_xla._jaxlib import Value, chlo
from mj_xla.elementwise_lowering import lower_operands, register_elementwise
from mj_xla.lowering import Avals, LoweringContext, Values, lowering_rules

__all__ = ["IGAMMA_STEPS"]

IGAMMA_STEPS = 64
Array = Any


register_elementwise(na.nextafter_p, chlo.next_after)
register_elementwise(bessel.bessel_i1e_p, chlo.bessel_i1e)


def _register_composition(prim: Primitive, composition: Callable[..., Array]) -> None:
    """Lower ``prim`` as the jaxpr of ``composition`` on operands already converted and
    broadcast to the output type."""

    def rule(
        ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values, **params: Any
    ) -> list[Value]:
        operands, dtype = lower_operands(prim, avals_in, avals_out, in_vals)
        aval = ShapedArray(avals_out[0].shape, dtype)

        def flat(*args: Array) -> Sequence[Array]:
            return [composition(*args)]

        closed = trace_to_closed_jaxpr(flat, [aval] * len(operands))
        return ctx.lower_jaxpr(closed, operands)

    rule.__name__ = f"{prim.name}_lowering"
    lowering_rules[prim] = rule


def _chebyshev(t: Array, coefficients: Sequence[float]) -> Array:
    b0 = lax.full_like(t, 0.0)
    b1 = b0
    b2 = b0
    for c in coefficients:
        b2, b1 = b1, b0
        b0 = lax.add(lax.sub(lax.mul(t, b1), b2), c)
    return lax.mul(0.5, lax.sub(b0, b2))


def _i0e(x: Array) -> Array:
    ax = lax.abs(x)
    small = _chebyshev(lax.sub(lax.mul(0.5, ax), 2.0), bessel.I0E_CHEBYSHEV_SMALL)
    big_t = lax.sub(lax.div(32.0, ax), 2.0)
    big = lax.div(_chebyshev(big_t, bessel.I0E_CHEBYSHEV_BIG), lax.sqrt(ax))
    return lax.select(lax.le(ax, 8.0), small, big)


_register_composition(bessel.bessel_i0e_p, _i0e)


def _incomplete_gamma(a: Array, x: Array, upper: bool) -> Array:
    tiny = float(np.finfo(lax.full_like(x, 0).dtype).tiny)
    bad = lax.bitwise_or(
        lax.bitwise_or(lax.ne(a, a), lax.ne(x, x)), lax.bitwise_or(lax.lt(x, 0.0), lax.le(a, 0.0))
    )
    regular = lax.bitwise_and(
        lax.bitwise_not(bad), lax.bitwise_and(lax.gt(x, 0.0), lax.is_finite(x))
    )
    one = lax.full_like(x, 1.0)
    at_origin = lax.eq(x, 0.0)
    a = lax.select(regular, a, one)
    x = lax.select(regular, x, one)
    prefactor = lax.exp(lax.sub(lax.sub(lax.mul(a, lax.log(x)), x), lax_special.lgamma(a)))
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
    return lax.select(bad, lax.full_like(x, np.nan), value)


def _igamma(a: Array, x: Array) -> Array:
    return _incomplete_gamma(a, x, upper=False)


def _igammac(a: Array, x: Array) -> Array:
    return _incomplete_gamma(a, x, upper=True)


_register_composition(ig.igamma_p, _igamma)
_register_composition(ig.igammac_p, _igammac)
