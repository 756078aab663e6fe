"""``mj.lax``: the primitive-level operations (``jax.lax``'s names and signatures).

Everything :mod:`mj_core.lax` exports (the family files' ``__all__``: the
lax-style wrappers of the core catalogue, ``add``, ``dot_general``, ``gather``,
``scatter_add``, ..., complex numbers, ``fft`` and the special functions), the structured
control flow and implicit solvers of :mod:`mj_control` (``cond``, ``switch``, ``while_loop``,
``fori_loop``, ``scan``, ``map``, ``custom_root``, ``custom_linear_solve``), windowed
reductions, and the linear-algebra primitives as ``mj.lax.linalg`` (``mj_core.lax_linalg``).
Every name is the lower layer's own object, re-exported, except the compositions
``batch_matmul``, ``broadcast_shapes``, ``collapse``, ``index_take``, ``tie_in``, ``split`` and
the bit operations ``population_count``, ``clz`` and ``mulhi``, and the elementwise functions of
:mod:`mj._lax_checked`, which check their operands as ``jax.lax`` does (no promotion, JAX's
dtype categories and shape rule, weak results of weak operands) before the lower layer's
function; :mod:`mj._lax_extras` adds ``tile``, ``empty``, ``reduce_xor``, ``shape_as_value``,
``RoundingMethod``, ``AccuracyMode`` and ``Tolerance``, and wraps ``mul`` (``out_dtype=``) and
the transcendental functions (``accuracy=``). JAX's names of primitives mj names differently are
the same objects: ``broadcast_in_dim_p`` (mj's ``broadcast_p``), ``gt_p``, ``ge_p``, ``lt_p``,
``le_p`` (``greater_p``, ``greater_equal_p``, ``less_p``, ``less_equal_p``).
"""

from mj._associative_scan import associative_scan as associative_scan
from mj._associative_scan import cumlogsumexp as cumlogsumexp
from mj._lax_composites import batch_matmul as batch_matmul
from mj._lax_composites import broadcast_shapes as broadcast_shapes
from mj._lax_composites import clz as clz
from mj._lax_composites import collapse as collapse
from mj._lax_composites import index_take as index_take
from mj._lax_composites import mulhi as mulhi
from mj._lax_composites import population_count as population_count
from mj._lax_composites import split as split
from mj._lax_composites import tie_in as tie_in
from mj._lax_composites import top_k as top_k
from mj._lax_conv_patches import conv_general_dilated_local as conv_general_dilated_local
from mj._lax_conv_patches import conv_general_dilated_patches as conv_general_dilated_patches
from mj._lax_dtype import dtype as dtype
from mj_autodiff import stop_gradient as stop_gradient
from mj_autodiff.extend import stop_gradient_p as stop_gradient_p
from mj_control import cond as cond
from mj_control import cond_p as cond_p
from mj_control import custom_linear_solve as custom_linear_solve
from mj_control import custom_root as custom_root
from mj_control import fori_loop as fori_loop
from mj_control import linear_solve_p as linear_solve_p
from mj_control import map as map
from mj_control import platform_dependent as platform_dependent
from mj_control import reduce as _general_reduce
from mj_control import reduce_p as reduce_p
from mj_control import reduce_window as _general_reduce_window
from mj_control import reduce_window_p as reduce_window_p
from mj_control import scan as scan
from mj_control import scan_p as scan_p
from mj_control import switch as switch
from mj_control import while_loop as while_loop
from mj_control import while_p as while_p
from mj_core import lax_linalg as linalg  # noqa: F401 (re-exported: jax.lax.linalg)
from mj_core.lax import conv_general_shape_tuple as conv_general_shape_tuple
from mj_core.lax import conv_shape_tuple as conv_shape_tuple
from mj_core.lax import conv_transpose_shape_tuple as conv_transpose_shape_tuple
from mj_core.lax import reduce_window_shape_tuple as reduce_window_shape_tuple
from mj_core.prims.complex import *
from mj_core.prims.contractions import *
from mj_core.prims.conversions import *
from mj_core.prims.convolution import *
from mj_core.prims.elementwise import *
from mj_core.prims.elementwise import greater_equal_p as ge_p  # noqa: F401 (JAX's name)
from mj_core.prims.elementwise import greater_p as gt_p  # noqa: F401 (JAX's name)
from mj_core.prims.elementwise import less_equal_p as le_p  # noqa: F401 (JAX's name)
from mj_core.prims.elementwise import less_p as lt_p  # noqa: F401 (JAX's name)
from mj_core.prims.fft import *
from mj_core.prims.indexing import *
from mj_core.prims.parallel import *
from mj_core.prims.reductions import *
from mj_core.prims.sorting import *
from mj_core.prims.special import *
from mj_core.prims.structural import *
from mj_core.prims.structural import broadcast_p as broadcast_in_dim_p  # noqa: F401
from mj_core.prims.tokens import *
from mj_core.prims.windowed import *
from mj_xla import RaggedDotDimensionNumbers as RaggedDotDimensionNumbers
from mj_xla import RandomAlgorithm as RandomAlgorithm
from mj_xla import composite as composite
from mj_xla import composite_p as composite_p
from mj_xla import ragged_dot as ragged_dot
from mj_xla import ragged_dot_general as ragged_dot_general
from mj_xla import ragged_dot_general_p as ragged_dot_general_p
from mj_xla import rng_bit_generator as rng_bit_generator
from mj_xla import rng_bit_generator_p as rng_bit_generator_p
from mj_xla import with_sharding_constraint as with_sharding_constraint

# isort: off
# jax.lax's operand checks on the elementwise functions: these names replace those above
from mj._lax_checked import *

# tile, empty, reduce_xor, the enums; mul's out_dtype= and accuracy=
from mj._lax_extras import *
# isort: on

# the monoid reductions of mj-core, and a general traced body otherwise (mj_control)
reduce = _general_reduce
reduce_window = _general_reduce_window
