"""TRANSITIONAL: ``igamma``/``igammac`` are in the special family now
(:mod:`mj_core.prims.special`); this old path re-exports what its importers use."""

from mj_core.prims.special import igamma_p as igamma_p
from mj_core.prims.special import igammac_p as igammac_p
