"""Layer 5 of mini-JAX (mj): compilation through XLA.

The user API is ``jit`` (with ``.lower``/``.compile``), ``pmap``, device arrays (``Array``,
``ShardedArray``, ``device_put``, ``device_get``, ``block_until_ready``), the devices and
backend queries, ``disable_jit`` and ``clear_caches``. The extension API (the
``lowering_rules`` table with a StableHLO lowering rule for every core primitive,
``LoweringContext``, the helpers rules share, the MLIR names
``ir``/``hlo``/``chlo``/``func``/``Value``, ``xla_call_p``, ``xla_pmap_p``) is
:mod:`mj_xla.extend`; the rules themselves live in ``mj_xla/rules/<family>.py``, one file per
primitive family. It may import the layers below it (``mj_batch``, ``mj_autodiff``,
``mj_ir``, ``mj_core``) and is the lowest layer allowed to import jaxlib (only through
``mj_xla._jaxlib``); higher layers writing lowering rules use the MLIR names of
:mod:`mj_xla.extend`, never jaxlib directly.
"""

from mj_core.errors import register_exclusion as _register_exclusion
from mj_xla import _autodiff_lowering as _autodiff_lowering
from mj_xla import _committed_eager as _committed_eager
from mj_xla import _kernel_defined_impls as _kernel_defined_impls
from mj_xla import _profiler
from mj_xla import _sharded_eager as _sharded_eager
from mj_xla import _transfer_guard as _transfer_guard
from mj_xla import rules as rules
from mj_xla._array import Array as Array
from mj_xla._backend_info import default_backend as default_backend
from mj_xla._backend_info import device_count as device_count
from mj_xla._backend_info import local_device_count as local_device_count
from mj_xla._backend_info import local_devices as local_devices
from mj_xla._backend_info import process_count as process_count
from mj_xla._backend_info import process_index as process_index
from mj_xla._caches import clear_caches as clear_caches
from mj_xla._composite import composite as composite
from mj_xla._composite import composite_p as composite_p
from mj_xla._device_get import device_get as device_get
from mj_xla._device_put import device_put as device_put
from mj_xla._distributed import distributed_initialize as distributed_initialize
from mj_xla._distributed import distributed_is_initialized as distributed_is_initialized
from mj_xla._distributed import distributed_shutdown as distributed_shutdown
from mj_xla._jit import Compiled as Compiled
from mj_xla._jit import JitFunction as JitFunction
from mj_xla._jit import Lowered as Lowered
from mj_xla._jit import Traced as Traced
from mj_xla._jit import jit as jit
from mj_xla._make_array import make_array_from_callback as make_array_from_callback
from mj_xla._make_array import (
    make_array_from_process_local_data as make_array_from_process_local_data,
)
from mj_xla._pmap import PmapFunction as PmapFunction
from mj_xla._pmap import pmap as pmap
from mj_xla._pmap_executable import effects_barrier as effects_barrier
from mj_xla._ragged_dot import RaggedDotDimensionNumbers as RaggedDotDimensionNumbers
from mj_xla._ragged_dot import ragged_dot as ragged_dot
from mj_xla._ragged_dot import ragged_dot_general as ragged_dot_general
from mj_xla._ragged_dot import ragged_dot_general_p as ragged_dot_general_p
from mj_xla._rng_bit_generator import RandomAlgorithm as RandomAlgorithm
from mj_xla._rng_bit_generator import rng_bit_generator as rng_bit_generator
from mj_xla._rng_bit_generator import rng_bit_generator_p as rng_bit_generator_p
from mj_xla._runtime import Device as Device
from mj_xla._runtime import block_until_ready as block_until_ready
from mj_xla._runtime import copy_to_host_async as copy_to_host_async
from mj_xla._runtime import devices as devices
from mj_xla._runtime import disable_jit as disable_jit
from mj_xla._runtime import live_arrays as live_arrays
from mj_xla._shard_map import shard_map as shard_map
from mj_xla._sharded_array import ShardedArray as ShardedArray
from mj_xla._sharding import AbstractMesh as AbstractMesh
from mj_xla._sharding import AxisType as AxisType
from mj_xla._sharding import Mesh as Mesh
from mj_xla._sharding import NamedSharding as NamedSharding
from mj_xla._sharding import PartitionSpec as PartitionSpec
from mj_xla._sharding import PmapSharding as PmapSharding
from mj_xla._sharding import Shard as Shard
from mj_xla._sharding import Sharding as Sharding
from mj_xla._sharding import SingleDeviceSharding as SingleDeviceSharding
from mj_xla._sharding import make_mesh as make_mesh
from mj_xla._sharding import set_mesh as set_mesh
from mj_xla._sharding_constraint import reshard as reshard
from mj_xla._sharding_constraint import with_sharding_constraint as with_sharding_constraint
from mj_xla._stages import ArgInfo as ArgInfo

# The layer's rule tables are also on its top level (DESIGN §4: ``mj_autodiff.jvp_rules``,
# ``mj_batch.not_mapped``, ``mj_xla.lowering_rules``); extend is their home.
from mj_xla.extend import lowering_rules as lowering_rules

profiler = _profiler  # ``mj_xla.profiler``: JAX's ``jax.profiler`` (traces, annotations)
_register_exclusion(__path__[0])  # its frames are never "the user's line" in errors

__version__ = "0.1.0"
