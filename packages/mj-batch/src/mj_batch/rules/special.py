"""Batching rules of the special functions: elementwise like ``sin`` and ``add``, so a unary
one applies to the whole batch (``defvectorized``) and an n-ary one lines its broadcasting
operands up first (``defbroadcasting``)."""

from __future__ import annotations

from mj_batch._batching import defbroadcasting, defvectorized
from mj_core.prims import special as sp

__all__: list[str] = []

for _prim in (
    sp.digamma_p,
    sp.erf_inv_p,
    sp.erfc_p,
    sp.lgamma_p,
    sp.bessel_i0e_p,
    sp.bessel_i1e_p,
):
    defvectorized(_prim)

for _prim in (sp.igamma_p, sp.igammac_p, sp.regularized_incomplete_beta_p):
    defbroadcasting(_prim)
