"""JVP rules of ``igamma``/``igammac``: with respect to ``x`` the closed form
``dP/dx = x^(a-1) e^-x / Gamma(a) = -dQ/dx``; with respect to ``a`` JAX uses a dedicated
``igamma_grad_a`` primitive that mj does not have, so a nonzero ``a`` tangent raises."""

from __future__ import annotations

from typing import Any

from mj_autodiff._jvp import defjvp
from mj_core import lax, lax_special
from mj_core.errors import user_line_suffix
from mj_core.prims import incomplete_gamma as ig

Array = Any


def _density(a: Array, x: Array) -> Array:
    """``x^(a-1) e^-x / Gamma(a)``: the gamma(a) density."""
    log_density = lax.sub(lax.sub(lax.mul(lax.sub(a, 1.0), lax.log(x)), x), lax_special.lgamma(a))
    return lax.exp(log_density)


def _grad_a(name: str) -> Any:
    def rule(g: Array, a: Array, x: Array) -> Array:
        raise NotImplementedError(
            f"{name}: differentiation with respect to a (JAX's igamma_grad_a) is not "
            f"implemented in mj; only x may carry a tangent{user_line_suffix()}"
        )

    rule.__name__ = f"_{name}_grad_a"
    return rule


def _igamma_grad_x(g: Array, a: Array, x: Array) -> Array:
    return lax.mul(g, _density(a, x))


def _igammac_grad_x(g: Array, a: Array, x: Array) -> Array:
    return lax.neg(lax.mul(g, _density(a, x)))


defjvp(ig.igamma_p, _grad_a("igamma"), _igamma_grad_x)
defjvp(ig.igammac_p, _grad_a("igammac"), _igammac_grad_x)
