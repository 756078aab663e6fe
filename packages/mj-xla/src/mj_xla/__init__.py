"""Layer 5 of mini-JAX (mj): compilation through XLA.

Owns ``jit``, the ``xla_call`` primitive and its rules, lowering of jaxprs to StableHLO
(the ``lowering_rules`` table), compilation and execution through jaxlib's PJRT client,
device arrays and the compile cache. It may import the layers below it (``mj_batch``,
``mj_autodiff``, ``mj_ir``, ``mj_core``) and is the lowest layer allowed to import jaxlib
(only through ``mj_xla._jaxlib``). Higher layers writing lowering rules use the MLIR names
re-exported here (``ir``, ``hlo``, ``chlo``, ``func``, ``Value``), never jaxlib directly.
"""

from mj_xla import callback_lowering as _callback_lowering  # noqa: F401 (registers rules)
from mj_xla import complex_lowering as _complex_lowering  # noqa: F401 (registers rules)
from mj_xla import convolution_lowering as _convolution_lowering  # noqa: F401
from mj_xla import custom_lowering as _custom_lowering  # noqa: F401 (registers rules)
from mj_xla import elementwise_lowering as _elementwise_lowering  # noqa: F401
from mj_xla import fft_lowering as _fft_lowering  # noqa: F401
from mj_xla import incomplete_beta_lowering as _incomplete_beta_lowering  # noqa: F401
from mj_xla import indexing_lowering as _indexing_lowering  # noqa: F401
from mj_xla import linalg_lowering as _linalg_lowering  # noqa: F401
from mj_xla import reduction_lowering as _reduction_lowering  # noqa: F401
from mj_xla import special_breadth_lowering as _special_breadth_lowering  # noqa: F401
from mj_xla import special_lowering as _special_lowering  # noqa: F401
from mj_xla import structural_lowering as _structural_lowering  # noqa: F401
from mj_xla import windowed_lowering as _windowed_lowering  # noqa: F401
from mj_xla._jaxlib import Value as Value
from mj_xla._jaxlib import chlo as chlo
from mj_xla._jaxlib import func as func
from mj_xla._jaxlib import hlo as hlo
from mj_xla._jaxlib import ir as ir
from mj_xla.array import Array as Array
from mj_xla.array import device_put as device_put
from mj_xla.backend_info import default_backend as default_backend
from mj_xla.backend_info import device_count as device_count
from mj_xla.backend_info import local_device_count as local_device_count
from mj_xla.backend_info import local_devices as local_devices
from mj_xla.backend_info import process_index as process_index
from mj_xla.caches import clear_caches as clear_caches
from mj_xla.device_get import device_get as device_get
from mj_xla.jit import Compiled as Compiled
from mj_xla.jit import JitFunction as JitFunction
from mj_xla.jit import Lowered as Lowered
from mj_xla.jit import jit as jit
from mj_xla.lowering import LoweringContext as LoweringContext
from mj_xla.lowering import aval_to_ir_type as aval_to_ir_type
from mj_xla.lowering import broadcast_to_aval as broadcast_to_aval
from mj_xla.lowering import ir_constant as ir_constant
from mj_xla.lowering import lower_jaxpr as lower_jaxpr
from mj_xla.lowering import lowering_rules as lowering_rules
from mj_xla.reduction_lowering import reduce_op as reduce_op
from mj_xla.runtime import block_until_ready as block_until_ready
from mj_xla.runtime import devices as devices
from mj_xla.runtime import disable_jit as disable_jit
from mj_xla.structural_lowering import as_dtype as as_dtype
from mj_xla.xla_call import xla_call_p as xla_call_p

__version__ = "0.1.0"
