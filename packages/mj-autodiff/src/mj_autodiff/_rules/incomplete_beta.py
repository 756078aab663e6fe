"""JVP rule of ``regularized_incomplete_beta`` (JAX's): with respect to ``x`` the beta
density ``x^(a-1) (1-x)^(b-1) / B(a, b)``; JAX has no derivative with respect to ``a`` or
``b`` and raises, and so does mj (an error that is both a ``ValueError``, as JAX's, and a
``NotImplementedError``)."""

from __future__ import annotations

from typing import Any

from mj_autodiff._jvp import defjvp
from mj_core import lax, lax_special
from mj_core.errors import MJError, user_line_suffix
from mj_core.prims import incomplete_beta as ib

Array = Any


class BetaincGradError(MJError, ValueError, NotImplementedError):
    """A tangent reached ``betainc``'s ``a`` or ``b``: JAX 0.10.2 has no such derivative."""


def _grad_shape(g: Array, a: Array, b: Array, x: Array) -> Array:
    raise BetaincGradError(
        "betainc: differentiation with respect to a and b is not supported (as in JAX); "
        f"only x may carry a tangent{user_line_suffix()}"
    )


def _grad_x(g: Array, a: Array, b: Array, x: Array) -> Array:
    log_beta = lax.sub(
        lax.add(lax_special.lgamma(a), lax_special.lgamma(b)), lax_special.lgamma(lax.add(a, b))
    )
    log_density = lax.sub(
        lax.add(
            lax.mul(lax.sub(b, 1.0), lax.log1p(lax.neg(x))), lax.mul(lax.sub(a, 1.0), lax.log(x))
        ),
        log_beta,
    )
    return lax.mul(lax.exp(log_density), g)


defjvp(ib.regularized_incomplete_beta_p, _grad_shape, _grad_shape, _grad_x)
