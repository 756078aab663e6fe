"""TRANSITIONAL: ``bessel_i0e``/``bessel_i1e`` are in the special family now
(:mod:`mj_core.prims.special`); this old path re-exports what its importers use."""

from mj_core.prims.special import I0E_CHEBYSHEV_BIG as I0E_CHEBYSHEV_BIG
from mj_core.prims.special import I0E_CHEBYSHEV_SMALL as I0E_CHEBYSHEV_SMALL
from mj_core.prims.special import bessel_i0e_p as bessel_i0e_p
from mj_core.prims.special import bessel_i1e_p as bessel_i1e_p
