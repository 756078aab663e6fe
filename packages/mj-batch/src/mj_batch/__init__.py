"""Layer 4 of mini-JAX (mj): automatic batching.

The user API is ``vmap`` and the Jacobian family ``jacfwd``, ``jacrev``, ``hessian``. The
extension API (the ``vmap_rules`` table with a batching rule for every core primitive,
``register_vmap_rule``, ``defvectorized``/``defbroadcasting``, ``not_mapped``, the batch-axis
helpers, ``vmap_jaxpr``) is :mod:`mj_batch.extend`; the rules themselves live in
``mj_batch/rules/<family>.py``, one file per primitive family. It may import only
``mj_autodiff``, ``mj_ir`` and ``mj_core`` (and numpy); never a higher layer and never jaxlib.
"""

from mj_batch import _autodiff_rules as _autodiff_rules
from mj_batch import rules as rules
from mj_batch._jacobian import hessian as hessian
from mj_batch._jacobian import jacfwd as jacfwd
from mj_batch._jacobian import jacrev as jacrev
from mj_batch._vmap import vmap as vmap
from mj_batch.extend import not_mapped as not_mapped

# The layer's rule tables are also on its top level (DESIGN §4: ``mj_autodiff.jvp_rules``,
# ``mj_batch.not_mapped``, ``mj_xla.lowering_rules``); extend is their home.
from mj_batch.extend import vmap_rules as vmap_rules
from mj_core.errors import register_exclusion as _register_exclusion

_register_exclusion(__path__[0])  # its frames are never "the user's line" in errors

__version__ = "0.1.0"
