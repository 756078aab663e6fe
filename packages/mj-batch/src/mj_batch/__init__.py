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

# TRANSITIONAL: the extension names other packages still import from here; the coordinator
# deletes these lines once every import goes through mj_batch.extend.
from mj_batch.extend import BatchDim as BatchDim
from mj_batch.extend import BatchTrace as BatchTrace
from mj_batch.extend import BatchTracer as BatchTracer
from mj_batch.extend import NotMapped as NotMapped
from mj_batch.extend import VmapRule as VmapRule
from mj_batch.extend import align_batched as align_batched
from mj_batch.extend import batch_flat as batch_flat
from mj_batch.extend import broadcast_batched as broadcast_batched
from mj_batch.extend import defbroadcasting as defbroadcasting
from mj_batch.extend import defvectorized as defvectorized
from mj_batch.extend import mapped_aval as mapped_aval
from mj_batch.extend import move_batch_axis as move_batch_axis
from mj_batch.extend import moveaxis as moveaxis
from mj_batch.extend import not_mapped as not_mapped
from mj_batch.extend import register_vmap_rule as register_vmap_rule
from mj_batch.extend import unmapped_aval as unmapped_aval
from mj_batch.extend import vmap_jaxpr as vmap_jaxpr
from mj_batch.extend import vmap_rules as vmap_rules

__version__ = "0.1.0"
