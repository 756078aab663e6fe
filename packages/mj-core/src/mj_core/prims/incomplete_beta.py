"""TRANSITIONAL: ``regularized_incomplete_beta`` is in the special family now
(:mod:`mj_core.prims.special`); this old path re-exports what its importers use."""

from mj_core.prims.special import BETAINC_MAX_ITERATIONS as BETAINC_MAX_ITERATIONS
from mj_core.prims.special import partial_numerator as partial_numerator
from mj_core.prims.special import regularized_incomplete_beta_p as regularized_incomplete_beta_p
