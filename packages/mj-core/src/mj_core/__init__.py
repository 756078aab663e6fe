"""mj-core: layer 1 of mini-JAX.

The user API of mj-core alone: the NumPy-style API (:mod:`mj_core.numpy`), the lax-style
operations (:mod:`mj_core.lax`, with ``lax.linalg``), pytrees (:mod:`mj_core.tree_util`), dtype
rules (:mod:`mj_core.dtypes`, ``result_type``), errors (:mod:`mj_core.errors` and the error
classes), ``config``, ``EagerArray``, the type of every eager result, and ``Array``, the type
of every mj array (``jax.Array``: eager results, tracers, higher layers' device arrays). The
layer's tables (``impl_rules``, ``abstract_eval_rules``), ``Primitive``/``bind`` and the
interpreter stack are importable here too (DESIGN.md section 4: a layer's names are importable
from its top level);
:mod:`mj_core.extend` is the whole extension API, and the catalogue of primitive families is
:mod:`mj_core.prims`. It imports only NumPy; every other layer builds on it.
"""

from mj_core import dtypes as dtypes
from mj_core import errors as errors
from mj_core import lax as lax
from mj_core import numpy as numpy
from mj_core import prims as prims
from mj_core import tree_util as tree_util
from mj_core._array_methods import array_methods as array_methods
from mj_core._array_methods import install_array_methods as install_array_methods
from mj_core._avals import ConcreteArray as ConcreteArray
from mj_core._avals import ShapedArray as ShapedArray
from mj_core._avals import array_types as array_types
from mj_core._avals import get_aval as get_aval
from mj_core._avals import is_array as is_array
from mj_core._avals import pytype_aval_mappings as pytype_aval_mappings
from mj_core._avals import raise_to_shaped as raise_to_shaped
from mj_core._avals import register_array_type as register_array_type
from mj_core._config import config as config
from mj_core._eager import eval_primitive as eval_primitive
from mj_core._eager_array import EagerArray as EagerArray
from mj_core._primitive import Primitive as Primitive
from mj_core._primitive import RuleTable as RuleTable
from mj_core._primitive import abstract_eval_rules as abstract_eval_rules
from mj_core._primitive import impl_rules as impl_rules
from mj_core._primitive import install_binders as _install_binders
from mj_core._trace import EvalTrace as EvalTrace
from mj_core._trace import MainTrace as MainTrace
from mj_core._trace import Trace as Trace
from mj_core._trace import Tracer as Tracer
from mj_core._trace import apply_primitive as _apply_primitive
from mj_core._trace import bind as bind
from mj_core._trace import bind1 as bind1
from mj_core._trace import current_trace_stack as current_trace_stack
from mj_core._trace import find_top_trace as find_top_trace
from mj_core._trace import full_lower as full_lower
from mj_core._trace import full_raise as full_raise
from mj_core._trace import is_eager as is_eager
from mj_core._trace import new_dynamic as new_dynamic
from mj_core._trace import new_main as new_main
from mj_core._typing import Array as Array
from mj_core.dtypes import result_type as result_type
from mj_core.errors import ConcretizationError as ConcretizationError
from mj_core.errors import MissingRuleError as MissingRuleError
from mj_core.errors import MJError as MJError
from mj_core.errors import TracerLeakError as TracerLeakError

install_array_methods(Tracer, EagerArray)
# Primitive.bind (JAX's spelling) calls the interpreter stack, Primitive.impl the eager engine
_install_binders(bind, bind1, _apply_primitive)
# Array types registered with register_array_type (EagerArray, device arrays) are Arrays
# already; tracers are not data, so they are registered here.
Array.register(Tracer)

__version__ = "0.1.0"
