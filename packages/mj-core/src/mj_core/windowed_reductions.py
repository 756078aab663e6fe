"""TRANSITIONAL: ``reduce_window`` and its monoids are in the windowed family file now
(:mod:`mj_core.prims.windowed`), ``reduce`` in the reductions one
(:mod:`mj_core.prims.reductions`), all in the lax namespace (:mod:`mj_core.lax`); this old
path re-exports them until its importers move."""

from mj_core.prims.reductions import reduce as reduce
from mj_core.prims.windowed import reduce_window as reduce_window
from mj_core.prims.windowed import reduce_window_max as reduce_window_max
from mj_core.prims.windowed import reduce_window_min as reduce_window_min
from mj_core.prims.windowed import reduce_window_sum as reduce_window_sum
