"""The extension API of mj-batch: what a new primitive's batching rule, or a higher layer
batching its own primitives, builds on.

``mj_batch``'s ``__init__`` is the user API (``vmap`` and the Jacobians); this module is the
whole extension surface: the ``vmap_rules`` table and its registration helpers, the batch-dim
sentinel and types a rule is written with, the helpers that arrange batch axes, the batching
interpreter itself, ``vmap_jaxpr`` for primitives that carry jaxprs, and
``register_vmappable`` for a custom type that vmap maps with specs of its own.

A rule is ``rule(axis_size, vals_in, dims_in, **params) -> (vals_out, dims_out)`` with
:data:`not_mapped` as the batch dim of an unbatched value.
"""

from mj_batch._batching import BatchDim as BatchDim
from mj_batch._batching import BatchTrace as BatchTrace
from mj_batch._batching import BatchTracer as BatchTracer
from mj_batch._batching import Dims as Dims
from mj_batch._batching import NotMapped as NotMapped
from mj_batch._batching import RuleResult as RuleResult
from mj_batch._batching import Vals as Vals
from mj_batch._batching import VmapRule as VmapRule
from mj_batch._batching import align_batched as align_batched
from mj_batch._batching import broadcast_batched as broadcast_batched
from mj_batch._batching import defbroadcasting as defbroadcasting
from mj_batch._batching import defvectorized as defvectorized
from mj_batch._batching import dtype_of as dtype_of
from mj_batch._batching import first_mapped as first_mapped
from mj_batch._batching import mapped_aval as mapped_aval
from mj_batch._batching import match_batch_dims as match_batch_dims
from mj_batch._batching import move_batch_axis as move_batch_axis
from mj_batch._batching import moveaxis as moveaxis
from mj_batch._batching import not_mapped as not_mapped
from mj_batch._batching import register_vmap_rule as register_vmap_rule
from mj_batch._batching import shift_axis as shift_axis
from mj_batch._batching import unmapped_aval as unmapped_aval
from mj_batch._batching import vmap_rules as vmap_rules
from mj_batch._jaxpr import clear_vmap_jaxpr_cache as clear_vmap_jaxpr_cache
from mj_batch._jaxpr import inherited_axis_name as inherited_axis_name
from mj_batch._jaxpr import vmap_jaxpr as vmap_jaxpr
from mj_batch._vmap import batch_flat as batch_flat
from mj_batch._vmappable import is_vmappable as is_vmappable
from mj_batch._vmappable import register_vmappable as register_vmappable
from mj_batch._vmappable import unregister_vmappable as unregister_vmappable
