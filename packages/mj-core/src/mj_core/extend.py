"""The extension API of mj-core: what a new primitive or a higher layer builds on.

``mj_core``'s ``__init__`` is the user API; this module is the whole extension surface:
``Primitive`` and ``bind``, the rule tables mj-core owns (``impl_rules``,
``abstract_eval_rules``, ``elementwise_specs``, ``scatter_apply_rules``), the interpreter stack,
abstract values and array types, the eager engine's hooks (``eval_primitive``,
``eager_handlers``, the result views), the named-axis environment (``axis_name`` of vmap and
pmap), configuration hooks, the family catalogue (``FAMILIES``, ``family_of``,
``family_primitives``), the typing vocabulary (``Array``, ``ArrayLike``, ``DTypeLike``,
``DType``, ``Shape``, ``Axis``, and ``AnyArray``, the ``Any`` of interpreter values), and the
helpers higher layers' rules share that have no public home of their own (operand checks of the
NumPy API, shape helpers, the collectives' binder).

A name with a public home is imported from it and not repeated here: dtype rules from
``mj_core.dtypes`` (``dtype_of``, ``result_type``), errors and ``register_exclusion`` from
``mj_core.errors``, ``config`` from ``mj_core``, and a family's primitives, parameter types
(``GatherDimensionNumbers``, ``FftType``, ...) and helpers from its module,
``from mj_core.prims.<family> import <name>``. Other layers import mj-core only through
``mj_core``, this module and those public namespaces (``mj_core.numpy``, ``mj_core.lax``,
``mj_core.lax_linalg``, ``mj_core.tree_util``, ``mj_core.dtypes``, ``mj_core.errors``, and the
family modules ``mj_core.prims.<family>``).
"""

from mj_core._array_views import ArrayView as ArrayView
from mj_core._array_views import array_views as array_views
from mj_core._array_views import view_dtype as view_dtype
from mj_core._array_views import view_rules as view_rules
from mj_core._avals import AbstractToken as AbstractToken
from mj_core._avals import AbstractValue as AbstractValue
from mj_core._avals import ConcreteArray as ConcreteArray
from mj_core._avals import ShapedArray as ShapedArray
from mj_core._avals import Token as Token
from mj_core._avals import abstract_token as abstract_token
from mj_core._avals import array_types as array_types
from mj_core._avals import check_conversion as check_conversion
from mj_core._avals import dtype_name as dtype_name
from mj_core._avals import get_aval as get_aval
from mj_core._avals import get_token_aval as get_token_aval
from mj_core._avals import is_array as is_array
from mj_core._avals import is_token_aval as is_token_aval
from mj_core._avals import pytype_aval_mappings as pytype_aval_mappings
from mj_core._avals import raise_to_shaped as raise_to_shaped
from mj_core._avals import register_array_type as register_array_type
from mj_core._avals import register_aval_sharding as register_aval_sharding
from mj_core._axis_env import AxisFrame as AxisFrame
from mj_core._axis_env import axis_env_signature as axis_env_signature
from mj_core._axis_env import axis_frame as axis_frame
from mj_core._axis_env import batching_frame as batching_frame
from mj_core._axis_env import extend_axis_env as extend_axis_env
from mj_core._axis_env import names_of as names_of
from mj_core._axis_env import swap_batching_frame as swap_batching_frame
from mj_core._compile_time_eval import ensure_compile_time_eval as ensure_compile_time_eval
from mj_core._config import MATMUL_PRECISIONS as MATMUL_PRECISIONS
from mj_core._config import TRACE_SETTINGS as TRACE_SETTINGS
from mj_core._config import on_change as on_change
from mj_core._config import on_x64_change as on_x64_change
from mj_core._eager import eval_primitive as eval_primitive
from mj_core._eager_array import EagerArray as EagerArray
from mj_core._eager_array import borrowed_data as borrowed_data
from mj_core._eager_array import dlpack_export as dlpack_export
from mj_core._eager_array import eager_result as eager_result
from mj_core._eager_array import owned_data as owned_data
from mj_core._eager_array import placement_attributes as placement_attributes
from mj_core._eager_array import unchanged as unchanged
from mj_core._eager_array import unshared as unshared
from mj_core._eager_array import weak_result as weak_result
from mj_core._eager_dispatch import EagerHandler as EagerHandler
from mj_core._eager_dispatch import eager_handlers as eager_handlers
from mj_core._eager_dispatch import like_placements as like_placements
from mj_core._eager_nans import special_value as special_value
from mj_core._families import FAMILIES as FAMILIES
from mj_core._linear_util import WrappedFun as WrappedFun
from mj_core._linear_util import wrap_init as wrap_init
from mj_core._primitive import Primitive as Primitive
from mj_core._primitive import RuleTable as RuleTable
from mj_core._primitive import abstract_eval_rules as abstract_eval_rules
from mj_core._primitive import effectful_primitives as effectful_primitives
from mj_core._primitive import impl_rules as impl_rules
from mj_core._shapes import canonicalize_axes as canonicalize_axes
from mj_core._shapes import canonicalize_axis as canonicalize_axis
from mj_core._shapes import int_tuple as int_tuple
from mj_core._shapes import shape_of as shape_of
from mj_core._trace import EvalTrace as EvalTrace
from mj_core._trace import MainTrace as MainTrace
from mj_core._trace import Trace as Trace
from mj_core._trace import Tracer as Tracer
from mj_core._trace import bind as bind
from mj_core._trace import bind1 as bind1
from mj_core._trace import current_trace_stack as current_trace_stack
from mj_core._trace import find_top_trace as find_top_trace
from mj_core._trace import full_lower as full_lower
from mj_core._trace import full_raise as full_raise
from mj_core._trace import is_eager as is_eager
from mj_core._trace import new_dynamic as new_dynamic
from mj_core._trace import new_main as new_main
from mj_core._typing import AnyArray as AnyArray
from mj_core._typing import Array as Array
from mj_core._typing import ArrayLike as ArrayLike
from mj_core._typing import Axis as Axis
from mj_core._typing import DType as DType
from mj_core._typing import DTypeLike as DTypeLike
from mj_core._typing import Shape as Shape
from mj_core.numpy._concrete import concrete_or_error as concrete_or_error
from mj_core.numpy._concrete import static_int as static_int
from mj_core.numpy._indexing import IndexUpdateRef as IndexUpdateRef
from mj_core.numpy._math import logaddexp_parts as logaddexp_parts
from mj_core.numpy._math import wrap_between as wrap_between
from mj_core.numpy._promotion import as_dtype as as_dtype
from mj_core.numpy._promotion import check_arraylike as check_arraylike
from mj_core.numpy._promotion import check_ranks as check_ranks
from mj_core.numpy._promotion import const_like as const_like
from mj_core.numpy._promotion import convert as convert
from mj_core.numpy._promotion import dtype_weak as dtype_weak
from mj_core.numpy._promotion import promote as promote
from mj_core.numpy._promotion import promote_inexact as promote_inexact
from mj_core.numpy._promotion import promoted_dtype as promoted_dtype
from mj_core.prims import family_of as family_of  # noqa: ICN003 (not a family)
from mj_core.prims import family_primitives as family_primitives  # noqa: ICN003
from mj_core.prims._view_rules import register_array_view as register_array_view
from mj_core.prims.callback import HostCallback as HostCallback
from mj_core.prims.callback import check_callback_outputs as check_callback_outputs
from mj_core.prims.elementwise import ElementwiseSpec as ElementwiseSpec
from mj_core.prims.elementwise import elementwise_out_aval as elementwise_out_aval
from mj_core.prims.elementwise import elementwise_specs as elementwise_specs
from mj_core.prims.elementwise import to_inexact_dtype as to_inexact_dtype
from mj_core.prims.indexing import gather_scatter_mode as gather_scatter_mode
from mj_core.prims.indexing import scatter_apply_rules as scatter_apply_rules
from mj_core.prims.parallel import bind_collective as bind_collective
from mj_core.prims.parallel import collective_prims as collective_prims
