"""The extension API of mj-xla: what a new primitive's lowering rule, or a higher layer
lowering and batching its own primitives, builds on.

``mj_xla``'s ``__init__`` is the user API (``jit``, device arrays, devices); this module is the
whole extension surface: the ``lowering_rules`` table and its registration helpers, the
:class:`LoweringContext` a rule receives, the value helpers rules share, the MLIR names rules
emit ops with (``ir``, ``hlo``, ``chlo``, ``func``, ``Value``: higher layers never import
jaxlib themselves), ``xla_call_p``, the primitive ``jit`` stages, and ``xla_pmap_p``, the
one ``pmap`` stages; ``vma_rules`` (with ``closed_vma``), where a primitive with a body says
which mesh axes its outputs vary over inside a ``shard_map``.

A rule is ``rule(ctx, avals_in, avals_out, in_vals, **params) -> list[Value]``, run with the
module's MLIR context, location and insertion point active.
"""

from mj_xla._caches import on_clear_caches as on_clear_caches
from mj_xla._debug_nans import nan_check_rules as nan_check_rules
from mj_xla._executable import Executable as Executable
from mj_xla._executable import compiled_impl as compiled_impl
from mj_xla._jaxlib import JaxRuntimeError as JaxRuntimeError
from mj_xla._jaxlib import Value as Value
from mj_xla._jaxlib import chlo as chlo
from mj_xla._jaxlib import func as func
from mj_xla._jaxlib import hlo as hlo
from mj_xla._jaxlib import ir as ir
from mj_xla._jaxlib import lowering_platform as lowering_platform
from mj_xla._jaxlib import started_backends as started_backends
from mj_xla._lowering import Avals as Avals
from mj_xla._lowering import LoweringContext as LoweringContext
from mj_xla._lowering import LoweringRule as LoweringRule
from mj_xla._lowering import Values as Values
from mj_xla._lowering import as_dtype as as_dtype
from mj_xla._lowering import aval_to_ir_type as aval_to_ir_type
from mj_xla._lowering import broadcast_to_aval as broadcast_to_aval
from mj_xla._lowering import compare as compare
from mj_xla._lowering import ir_constant as ir_constant
from mj_xla._lowering import lower_jaxpr as lower_jaxpr
from mj_xla._lowering import lowering_rules as lowering_rules
from mj_xla._lowering import platform_lowering_rules as platform_lowering_rules
from mj_xla._lowering import register_lowering as register_lowering
from mj_xla._monoids import reduce_op as reduce_op
from mj_xla._monoids import set_combiner as set_combiner
from mj_xla._promotion import compute_dtype as compute_dtype
from mj_xla._promotion import lower_operands as lower_operands
from mj_xla._promotion import register_elementwise as register_elementwise
from mj_xla._shard_map import shard_map_p as shard_map_p
from mj_xla._shard_map_vma import Vma as Vma
from mj_xla._shard_map_vma import closed_vma as closed_vma
from mj_xla._shard_map_vma import vma_rules as vma_rules
from mj_xla._sharding_constraint import sharding_constraint_p as sharding_constraint_p
from mj_xla._stages import arg_names as arg_names
from mj_xla._xla_call import xla_call_p as xla_call_p
from mj_xla._xla_pmap import xla_pmap_p as xla_pmap_p
from mj_xla.rules.callback import emit_callback as emit_callback
