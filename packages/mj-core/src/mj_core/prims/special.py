"""The special family: ``lgamma``, ``digamma``, ``erfc``, ``erf_inv``, the exponentially scaled
Bessel functions ``bessel_i0e``/``bessel_i1e``, the regularized incomplete gamma functions
``igamma``/``igammac`` and the regularized incomplete beta function
(``regularized_incomplete_beta``, ``lax.betainc``).

They are elementwise primitives like :data:`~mj_core.prims.elementwise.erf_p` (same spec
table, so typing, vmap and the lowering helpers treat them like ``sin``); their NumPy
numerics are in :mod:`mj_core.prims._special_math`, whose polynomial coefficients and
iteration limits the XLA lowerings share (re-exported here). ``__all__`` is the family's
primitives and lax API.
"""

from __future__ import annotations

from mj_core._typing import Array, ArrayLike
from mj_core.prims import _special_math as _math  # noqa: ICN003 (helpers, not primitives)
from mj_core.prims._operands import bind1
from mj_core.prims._special_math import BETAINC_MAX_ITERATIONS as BETAINC_MAX_ITERATIONS
from mj_core.prims._special_math import ERF_INV_F32_CENTRAL as ERF_INV_F32_CENTRAL
from mj_core.prims._special_math import ERF_INV_F32_TAIL as ERF_INV_F32_TAIL
from mj_core.prims._special_math import ERF_INV_F64_CENTRAL as ERF_INV_F64_CENTRAL
from mj_core.prims._special_math import ERF_INV_F64_MIDDLE as ERF_INV_F64_MIDDLE
from mj_core.prims._special_math import ERF_INV_F64_TAIL as ERF_INV_F64_TAIL
from mj_core.prims._special_math import I0E_CHEBYSHEV_BIG as I0E_CHEBYSHEV_BIG
from mj_core.prims._special_math import I0E_CHEBYSHEV_SMALL as I0E_CHEBYSHEV_SMALL
from mj_core.prims._special_math import partial_numerator as partial_numerator
from mj_core.prims.elementwise import define_elementwise, to_inexact_dtype

__all__ = [
    "bessel_i0e",
    "bessel_i0e_p",
    "bessel_i1e",
    "bessel_i1e_p",
    "betainc",
    "digamma",
    "digamma_p",
    "erf_inv",
    "erf_inv_p",
    "erfc",
    "erfc_p",
    "igamma",
    "igamma_grad_a",
    "igamma_grad_a_p",
    "igamma_p",
    "igammac",
    "igammac_p",
    "lgamma",
    "lgamma_p",
    "regularized_incomplete_beta_p",
]

#: Floats only, as JAX's primitives (``mj.scipy.special`` converts integers first).
lgamma_p = define_elementwise("lgamma", 1, "f", to_inexact_dtype, _math.lgamma)
digamma_p = define_elementwise("digamma", 1, "f", to_inexact_dtype, _math.digamma)
erfc_p = define_elementwise("erfc", 1, "f", to_inexact_dtype, _math.erfc)
erf_inv_p = define_elementwise("erf_inv", 1, "f", to_inexact_dtype, _math.erf_inv)
bessel_i0e_p = define_elementwise("bessel_i0e", 1, "f", to_inexact_dtype, _math.bessel_i0e)
bessel_i1e_p = define_elementwise("bessel_i1e", 1, "f", to_inexact_dtype, _math.bessel_i1e)
igamma_p = define_elementwise("igamma", 2, "f", to_inexact_dtype, _math.igamma)
igammac_p = define_elementwise("igammac", 2, "f", to_inexact_dtype, _math.igammac)
igamma_grad_a_p = define_elementwise("igamma_grad_a", 2, "f", to_inexact_dtype, _math.igamma_grad_a)
regularized_incomplete_beta_p = define_elementwise(
    "regularized_incomplete_beta", 3, "f", to_inexact_dtype, _math.betainc
)


# --- lax wrappers (one thin bind each; mj.scipy.special builds gammaln, erfinv, ndtr on them) --
def lgamma(x: ArrayLike) -> Array:
    """Elementwise ``log(|Gamma(x)|)``; ``+inf`` at the poles ``0, -1, -2, ...``."""
    return bind1(lgamma_p, x)


def digamma(x: ArrayLike) -> Array:
    """Elementwise ``d/dx log(Gamma(x))``; NaN at the poles ``0, -1, -2, ...``."""
    return bind1(digamma_p, x)


def erfc(x: ArrayLike) -> Array:
    """Elementwise complementary error function ``1 - erf(x)``, accurate for large ``x``."""
    return bind1(erfc_p, x)


def erf_inv(x: ArrayLike) -> Array:
    """Elementwise inverse error function: ``erf(erf_inv(x)) == x`` on ``(-1, 1)``,
    ``+-inf`` at ``+-1`` and NaN outside ``[-1, 1]``."""
    return bind1(erf_inv_p, x)


def igamma(a: ArrayLike, x: ArrayLike) -> Array:
    """Elementwise regularized lower incomplete gamma function ``P(a, x)``."""
    return bind1(igamma_p, a, x)


def igamma_grad_a(a: ArrayLike, x: ArrayLike) -> Array:
    """Elementwise ``d P(a, x) / d a``, the derivative of :func:`igamma` in ``a``."""
    return bind1(igamma_grad_a_p, a, x)


def igammac(a: ArrayLike, x: ArrayLike) -> Array:
    """Elementwise regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``."""
    return bind1(igammac_p, a, x)


def bessel_i0e(x: ArrayLike) -> Array:
    """Elementwise exponentially scaled modified Bessel function ``exp(-|x|) I0(x)``."""
    return bind1(bessel_i0e_p, x)


def bessel_i1e(x: ArrayLike) -> Array:
    """Elementwise exponentially scaled modified Bessel function ``exp(-|x|) I1(x)``."""
    return bind1(bessel_i1e_p, x)


def betainc(a: ArrayLike, b: ArrayLike, x: ArrayLike) -> Array:
    """Elementwise regularized incomplete beta function ``I_x(a, b)``."""
    return bind1(regularized_incomplete_beta_p, a, b, x)
