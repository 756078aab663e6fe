"""The primitive catalogue: every core ``Primitive`` object and its NumPy impl rule.

Grouped by family; each module defines its primitives and registers their rules right under
their definitions. Elementwise primitives are typed by :func:`elementwise_out_aval`; all the
others by :data:`out_aval_rules` (mj-ir's abstract-eval rules are these functions).
"""

from mj_core.prims.bessel import *  # noqa: F403
from mj_core.prims.callback import *  # noqa: F403
from mj_core.prims.complex import *  # noqa: F403
from mj_core.prims.contractions import *  # noqa: F403
from mj_core.prims.conversions import *  # noqa: F403
from mj_core.prims.convolution import *  # noqa: F403
from mj_core.prims.elementwise import *  # noqa: F403
from mj_core.prims.elementwise import elementwise_out_aval as elementwise_out_aval
from mj_core.prims.elementwise import elementwise_specs as elementwise_specs
from mj_core.prims.fft import *  # noqa: F403
from mj_core.prims.incomplete_beta import *  # noqa: F403
from mj_core.prims.incomplete_gamma import *  # noqa: F403
from mj_core.prims.indexing import *  # noqa: F403
from mj_core.prims.linalg import *  # noqa: F403
from mj_core.prims.nextafter import *  # noqa: F403
from mj_core.prims.out_avals import out_aval_rules as out_aval_rules
from mj_core.prims.reductions import *  # noqa: F403
from mj_core.prims.sorting import *  # noqa: F403
from mj_core.prims.special import *  # noqa: F403
from mj_core.prims.structural import *  # noqa: F403
from mj_core.prims.windowed import *  # noqa: F403
