"""Layer 4 of mini-JAX (mj): automatic batching.

Owns ``vmap``, ``vmap_jaxpr``, the ``vmap_rules`` table with a batching rule for every core
primitive, and the Jacobian family ``jacfwd``, ``jacrev``, ``hessian``. It may import only
``mj_autodiff``, ``mj_ir`` and ``mj_core`` (and numpy); never a higher layer and never jaxlib.

A higher layer that defines a primitive registers its batching rule with
``register_vmap_rule(prim, rule)`` (or ``defvectorized`` / ``defbroadcasting`` for the common
shapes), using ``moveaxis``/``move_batch_axis``/``broadcast_batched`` to arrange batch axes.
"""

from mj_batch import _autodiff_rules as _autodiff_rules
from mj_batch import _callback as _callback
from mj_batch import _complex as _complex
from mj_batch import _contractions as _contractions
from mj_batch import _convolution as _convolution
from mj_batch import _elementwise as _elementwise
from mj_batch import _fft as _fft
from mj_batch import _indexing as _indexing
from mj_batch import _linalg as _linalg
from mj_batch import _reductions as _reductions
from mj_batch import _structural as _structural
from mj_batch import _windowed as _windowed
from mj_batch._batching import BatchDim as BatchDim
from mj_batch._batching import BatchTrace as BatchTrace
from mj_batch._batching import BatchTracer as BatchTracer
from mj_batch._batching import NotMapped as NotMapped
from mj_batch._batching import VmapRule as VmapRule
from mj_batch._batching import broadcast_batched as broadcast_batched
from mj_batch._batching import defvectorized as defvectorized
from mj_batch._batching import mapped_aval as mapped_aval
from mj_batch._batching import move_batch_axis as move_batch_axis
from mj_batch._batching import moveaxis as moveaxis
from mj_batch._batching import not_mapped as not_mapped
from mj_batch._batching import register_vmap_rule as register_vmap_rule
from mj_batch._batching import unmapped_aval as unmapped_aval
from mj_batch._batching import vmap_rules as vmap_rules
from mj_batch._elementwise import align_batched as align_batched
from mj_batch._elementwise import defbroadcasting as defbroadcasting
from mj_batch._jacobian import hessian as hessian
from mj_batch._jacobian import jacfwd as jacfwd
from mj_batch._jacobian import jacrev as jacrev
from mj_batch._jaxpr import vmap_jaxpr as vmap_jaxpr
from mj_batch._vmap import batch_flat as batch_flat
from mj_batch._vmap import vmap as vmap

__version__ = "0.1.0"
