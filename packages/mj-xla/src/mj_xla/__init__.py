"""Layer 5 of mini-JAX (mj): compilation through XLA.

The user API is ``jit`` (with ``.lower``/``.compile``), device arrays (``Array``,
``device_put``, ``device_get``, ``block_until_ready``), the devices and backend queries,
``disable_jit`` and ``clear_caches``. The extension API (the ``lowering_rules`` table with a
StableHLO lowering rule for every core primitive, ``LoweringContext``, the helpers rules share,
the MLIR names ``ir``/``hlo``/``chlo``/``func``/``Value``, ``xla_call_p``) is
:mod:`mj_xla.extend`; the rules themselves live in ``mj_xla/rules/<family>.py``, one file per
primitive family. It may import the layers below it (``mj_batch``, ``mj_autodiff``,
``mj_ir``, ``mj_core``) and is the lowest layer allowed to import jaxlib (only through
``mj_xla._jaxlib``); higher layers writing lowering rules use the MLIR names of
:mod:`mj_xla.extend`, never jaxlib directly.
"""

from mj_xla import _autodiff_lowering as _autodiff_lowering
from mj_xla import rules as rules
from mj_xla._array import Array as Array
from mj_xla._array import device_put as device_put
from mj_xla._backend_info import default_backend as default_backend
from mj_xla._backend_info import device_count as device_count
from mj_xla._backend_info import local_device_count as local_device_count
from mj_xla._backend_info import local_devices as local_devices
from mj_xla._backend_info import process_index as process_index
from mj_xla._caches import clear_caches as clear_caches
from mj_xla._device_get import device_get as device_get
from mj_xla._jit import Compiled as Compiled
from mj_xla._jit import JitFunction as JitFunction
from mj_xla._jit import Lowered as Lowered
from mj_xla._jit import jit as jit
from mj_xla._runtime import block_until_ready as block_until_ready
from mj_xla._runtime import devices as devices
from mj_xla._runtime import disable_jit as disable_jit

# TRANSITIONAL: the extension names other packages still import from here; the coordinator
# deletes these lines once every import goes through mj_xla.extend.
from mj_xla.extend import LoweringContext as LoweringContext
from mj_xla.extend import Value as Value
from mj_xla.extend import as_dtype as as_dtype
from mj_xla.extend import aval_to_ir_type as aval_to_ir_type
from mj_xla.extend import broadcast_to_aval as broadcast_to_aval
from mj_xla.extend import chlo as chlo
from mj_xla.extend import func as func
from mj_xla.extend import hlo as hlo
from mj_xla.extend import ir as ir
from mj_xla.extend import ir_constant as ir_constant
from mj_xla.extend import lower_jaxpr as lower_jaxpr
from mj_xla.extend import lowering_rules as lowering_rules
from mj_xla.extend import reduce_op as reduce_op
from mj_xla.extend import xla_call_p as xla_call_p

__version__ = "0.1.0"
