"""mini-JAX (mj): composable transformations of NumPy programs.

``import mj; import mj.numpy as mnp`` gives what ``import jax; import jax.numpy as jnp``
gives: ``mj.grad``, ``mj.jit``, ``mj.vmap`` and friends, a NumPy API that works under them,
``mj.lax``, ``mj.random``, ``mj.nn``, ``mj.scipy.special`` and ``mj.tree_util``.

This is layer 7, the umbrella: every transformation and type here is the lower layer's own
object re-exported (``mj.grad is mj_autodiff.grad``), so code may mix both spellings. It may
import every other layer; no layer may import it.
"""

from types import SimpleNamespace as _SimpleNamespace

from mj import ad_checkpoint as ad_checkpoint
from mj import core as core
from mj import custom_derivatives as custom_derivatives
from mj import debug as debug
from mj import distributed as distributed
from mj import dlpack as dlpack
from mj import dtypes as dtypes
from mj import errors as errors
from mj import experimental as experimental
from mj import flatten_util as flatten_util
from mj import image as image
from mj import lax as lax
from mj import nn as nn
from mj import numpy as numpy
from mj import ops as ops
from mj import profiler as profiler
from mj import random as random
from mj import scipy as scipy
from mj import sharding as sharding
from mj import stages as stages
from mj import test_util as test_util
from mj import tree as tree
from mj import tree_util as tree_util
from mj import typing as typing
from mj._environment import check_tracer_leaks as check_tracer_leaks
from mj._environment import checking_leaks as checking_leaks
from mj._environment import debug_infs as debug_infs
from mj._environment import debug_key_reuse as debug_key_reuse
from mj._environment import debug_nans as debug_nans
from mj._environment import default_device as default_device
from mj._environment import default_matmul_precision as default_matmul_precision
from mj._environment import default_prng_impl as default_prng_impl
from mj._environment import enable_checks as enable_checks
from mj._environment import enable_custom_prng as enable_custom_prng
from mj._environment import enable_x64 as enable_x64
from mj._environment import legacy_prng_key as legacy_prng_key
from mj._environment import log_compiles as log_compiles
from mj._environment import no_execution as no_execution
from mj._environment import no_tracing as no_tracing
from mj._environment import numpy_dtype_promotion as numpy_dtype_promotion
from mj._environment import numpy_rank_promotion as numpy_rank_promotion
from mj._environment import print_environment_info as print_environment_info
from mj._environment import softmax_custom_jvp as softmax_custom_jvp
from mj._environment import transfer_guard as transfer_guard
from mj._environment import transfer_guard_device_to_device as transfer_guard_device_to_device
from mj._environment import transfer_guard_device_to_host as transfer_guard_device_to_host
from mj._environment import transfer_guard_host_to_device as transfer_guard_host_to_device
from mj._naming import named_call as named_call
from mj._naming import named_scope as named_scope
from mj._pure_callback import pure_callback as pure_callback
from mj._typeof import typeof as typeof
from mj.sharding import NamedSharding as NamedSharding
from mj.sharding import P as P
from mj_autodiff import DidntWant as _DidntWant
from mj_autodiff import DontWant as _DontWant
from mj_autodiff import GradValue as _GradValue
from mj_autodiff import closure_convert as closure_convert
from mj_autodiff import custom_gradient as custom_gradient
from mj_autodiff import custom_jvp as custom_jvp
from mj_autodiff import custom_vjp as custom_vjp
from mj_autodiff import float0 as float0
from mj_autodiff import grad as grad
from mj_autodiff import jvp as jvp
from mj_autodiff import linear_transpose as linear_transpose
from mj_autodiff import linearize as linearize
from mj_autodiff import stop_gradient as stop_gradient
from mj_autodiff import value_and_grad as value_and_grad
from mj_autodiff import vjp as vjp
from mj_batch import hessian as hessian
from mj_batch import jacfwd as jacfwd
from mj_batch import jacrev as jacrev
from mj_batch import vmap as vmap
from mj_control import checkpoint as checkpoint
from mj_control import checkpoint_policies as checkpoint_policies
from mj_control import remat as remat
from mj_core import Array as Array
from mj_core import config as config
from mj_core.errors import register_exclusion as _register_exclusion
from mj_core.extend import ensure_compile_time_eval as ensure_compile_time_eval
from mj_ir import ShapeDtypeStruct as ShapeDtypeStruct
from mj_ir import eval_jaxpr as eval_jaxpr
from mj_ir import eval_shape as eval_shape
from mj_ir import make_jaxpr as make_jaxpr
from mj_xla import Device as Device
from mj_xla import block_until_ready as block_until_ready
from mj_xla import clear_caches as clear_caches
from mj_xla import copy_to_host_async as copy_to_host_async
from mj_xla import default_backend as default_backend
from mj_xla import device_count as device_count
from mj_xla import device_get as device_get
from mj_xla import device_put as device_put
from mj_xla import devices as devices
from mj_xla import disable_jit as disable_jit
from mj_xla import effects_barrier as effects_barrier
from mj_xla import jit as jit
from mj_xla import live_arrays as live_arrays
from mj_xla import local_device_count as local_device_count
from mj_xla import local_devices as local_devices
from mj_xla import make_array_from_callback as make_array_from_callback
from mj_xla import make_array_from_process_local_data as make_array_from_process_local_data
from mj_xla import make_mesh as make_mesh
from mj_xla import pmap as pmap
from mj_xla import process_count as process_count
from mj_xla import process_index as process_index
from mj_xla import set_mesh as set_mesh
from mj_xla import shard_map as shard_map

jacobian = jacrev  # JAX: "jacobian: alias of jacrev"

# JAX's ``jax.ad`` namespace: the markers of ``f_vjp.with_refs`` (mj has no GradRef: no refs)
ad = _SimpleNamespace(DontWant=_DontWant, DidntWant=_DidntWant, GradValue=_GradValue)

_register_exclusion(__path__[0])  # its frames are never "the user's line" in errors

__version__ = "0.1.0"
