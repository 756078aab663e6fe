"""The primitive catalogue: every core ``Primitive`` object and its NumPy impl rule.

Grouped by family; each module defines its primitives and registers their impl rules right
under their definitions.
"""

from mj_core.prims.elementwise import *  # noqa: F403
from mj_core.prims.elementwise import elementwise_out_aval as elementwise_out_aval
from mj_core.prims.elementwise import elementwise_specs as elementwise_specs
