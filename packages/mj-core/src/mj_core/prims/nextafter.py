"""TRANSITIONAL: ``nextafter`` is in the elementwise family now
(:mod:`mj_core.prims.elementwise`); this old path re-exports what its importers use."""

from mj_core.prims.elementwise import nextafter_p as nextafter_p
