"""Batching rules of the special functions: elementwise like ``sin`` and ``add``, so a unary
one applies to the whole batch (``defvectorized``) and an n-ary one lines its broadcasting
operands up first (``defbroadcasting``)."""

from __future__ import annotations

from mj_batch._batching import defbroadcasting, defvectorized
from mj_core.prims.special import (
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

__all__: list[str] = []

for _prim in (
    digamma_p,
    erf_inv_p,
    erfc_p,
    lgamma_p,
    bessel_i0e_p,
    bessel_i1e_p,
):
    defvectorized(_prim)

for _prim in (igamma_p, igammac_p, igamma_grad_a_p, regularized_incomplete_beta_p):
    defbroadcasting(_prim)
