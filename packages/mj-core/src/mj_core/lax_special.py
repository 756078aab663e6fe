"""TRANSITIONAL: the special functions' lax wrappers are in their family files now
(:mod:`mj_core.prims.special`, ``nextafter`` in :mod:`mj_core.prims.elementwise`) and in the
lax namespace (:mod:`mj_core.lax`); this old path re-exports them until its importers move."""

from mj_core.lax import bessel_i0e as bessel_i0e
from mj_core.lax import bessel_i1e as bessel_i1e
from mj_core.lax import betainc as betainc
from mj_core.lax import digamma as digamma
from mj_core.lax import erf_inv as erf_inv
from mj_core.lax import erfc as erfc
from mj_core.lax import igamma as igamma
from mj_core.lax import igammac as igammac
from mj_core.lax import lgamma as lgamma
from mj_core.lax import nextafter as nextafter
