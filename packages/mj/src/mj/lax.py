"""``mj.lax``: the primitive-level operations (``jax.lax``'s names and signatures).

The lax-style wrappers of the core catalogue (``add``, ``dot_general``, ``broadcast_in_dim``,
``reduce_sum``, ``gather``, ``scatter_add``, ...), structured control flow (``cond``,
``switch``, ``while_loop``, ``fori_loop``, ``scan``, ``map``), complex numbers and ``fft``,
the special functions (``lgamma``, ``digamma``, ``erfc``, ``erf_inv``) and the
linear-algebra primitives as ``mj.lax.linalg`` (``mj_core.lax_linalg``). Every name is the
lower layer's own object, re-exported, except the compositions ``batch_matmul`` and
``collapse``.
"""

from mj._custom_solvers import custom_linear_solve as custom_linear_solve
from mj._custom_solvers import custom_root as custom_root
from mj._lax_composites import batch_matmul as batch_matmul
from mj._lax_composites import collapse as collapse
from mj._lax_map import map as map
from mj._special import erf_inv as erf_inv
from mj_autodiff import stop_gradient as stop_gradient
from mj_control import cond as cond
from mj_control import fori_loop as fori_loop
from mj_control import scan as scan
from mj_control import switch as switch
from mj_control import while_loop as while_loop
from mj_core import lax_linalg as linalg  # noqa: F401 (re-exported: jax.lax.linalg)
from mj_core import numpy as _mnp
from mj_core.lax import ConvDimensionNumbers as ConvDimensionNumbers
from mj_core.lax import GatherDimensionNumbers as GatherDimensionNumbers
from mj_core.lax import Precision as Precision
from mj_core.lax import ScatterDimensionNumbers as ScatterDimensionNumbers
from mj_core.lax import abs as abs
from mj_core.lax import acos as acos
from mj_core.lax import add as add
from mj_core.lax import argmax as argmax
from mj_core.lax import argmin as argmin
from mj_core.lax import asin as asin
from mj_core.lax import atan as atan
from mj_core.lax import atan2 as atan2
from mj_core.lax import bitcast_convert_type as bitcast_convert_type
from mj_core.lax import bitwise_and as bitwise_and
from mj_core.lax import bitwise_not as bitwise_not
from mj_core.lax import bitwise_or as bitwise_or
from mj_core.lax import bitwise_xor as bitwise_xor
from mj_core.lax import broadcast as broadcast
from mj_core.lax import broadcast_in_dim as broadcast_in_dim
from mj_core.lax import broadcast_to_rank as broadcast_to_rank
from mj_core.lax import broadcasted_iota as broadcasted_iota
from mj_core.lax import ceil as ceil
from mj_core.lax import clamp as clamp
from mj_core.lax import complex as complex
from mj_core.lax import concatenate as concatenate
from mj_core.lax import conj as conj
from mj_core.lax import conv as conv
from mj_core.lax import conv_dimension_numbers as conv_dimension_numbers
from mj_core.lax import conv_general_dilated as conv_general_dilated
from mj_core.lax import conv_general_shape_tuple as conv_general_shape_tuple
from mj_core.lax import conv_shape_tuple as conv_shape_tuple
from mj_core.lax import conv_transpose as conv_transpose
from mj_core.lax import conv_transpose_shape_tuple as conv_transpose_shape_tuple
from mj_core.lax import conv_with_general_padding as conv_with_general_padding
from mj_core.lax import convert_element_type as convert_element_type
from mj_core.lax import cos as cos
from mj_core.lax import cosh as cosh
from mj_core.lax import cummax as cummax
from mj_core.lax import cummin as cummin
from mj_core.lax import cumprod as cumprod
from mj_core.lax import cumsum as cumsum
from mj_core.lax import div as div
from mj_core.lax import dot as dot
from mj_core.lax import dot_general as dot_general
from mj_core.lax import dynamic_index_in_dim as dynamic_index_in_dim
from mj_core.lax import dynamic_slice as dynamic_slice
from mj_core.lax import dynamic_slice_in_dim as dynamic_slice_in_dim
from mj_core.lax import dynamic_update_index_in_dim as dynamic_update_index_in_dim
from mj_core.lax import dynamic_update_slice as dynamic_update_slice
from mj_core.lax import dynamic_update_slice_in_dim as dynamic_update_slice_in_dim
from mj_core.lax import eq as eq
from mj_core.lax import erf as erf
from mj_core.lax import exp as exp
from mj_core.lax import expand_dims as expand_dims
from mj_core.lax import expm1 as expm1
from mj_core.lax import fft as fft
from mj_core.lax import floor as floor
from mj_core.lax import full as full
from mj_core.lax import full_like as full_like
from mj_core.lax import gather as gather
from mj_core.lax import ge as ge
from mj_core.lax import greater as greater
from mj_core.lax import greater_equal as greater_equal
from mj_core.lax import gt as gt
from mj_core.lax import imag as imag
from mj_core.lax import index_in_dim as index_in_dim
from mj_core.lax import integer_pow as integer_pow
from mj_core.lax import iota as iota
from mj_core.lax import is_finite as is_finite
from mj_core.lax import le as le
from mj_core.lax import less as less
from mj_core.lax import less_equal as less_equal
from mj_core.lax import log as log
from mj_core.lax import log1p as log1p
from mj_core.lax import logistic as logistic
from mj_core.lax import lt as lt
from mj_core.lax import max as max
from mj_core.lax import min as min
from mj_core.lax import mul as mul
from mj_core.lax import ne as ne
from mj_core.lax import neg as neg
from mj_core.lax import pad as pad
from mj_core.lax import padtype_to_pads as padtype_to_pads
from mj_core.lax import pow as pow
from mj_core.lax import real as real
from mj_core.lax import reduce_and as reduce_and
from mj_core.lax import reduce_max as reduce_max
from mj_core.lax import reduce_min as reduce_min
from mj_core.lax import reduce_or as reduce_or
from mj_core.lax import reduce_prod as reduce_prod
from mj_core.lax import reduce_sum as reduce_sum
from mj_core.lax import reduce_window_shape_tuple as reduce_window_shape_tuple
from mj_core.lax import rem as rem
from mj_core.lax import reshape as reshape
from mj_core.lax import rev as rev
from mj_core.lax import round as round
from mj_core.lax import rsqrt as rsqrt
from mj_core.lax import scatter as scatter
from mj_core.lax import scatter_add as scatter_add
from mj_core.lax import scatter_max as scatter_max
from mj_core.lax import scatter_min as scatter_min
from mj_core.lax import scatter_mul as scatter_mul
from mj_core.lax import select as select
from mj_core.lax import select_n as select_n
from mj_core.lax import shift_left as shift_left
from mj_core.lax import shift_right_arithmetic as shift_right_arithmetic
from mj_core.lax import shift_right_logical as shift_right_logical
from mj_core.lax import sign as sign
from mj_core.lax import sin as sin
from mj_core.lax import sinh as sinh
from mj_core.lax import slice as slice
from mj_core.lax import slice_in_dim as slice_in_dim
from mj_core.lax import sort as sort
from mj_core.lax import sort_key_val as sort_key_val
from mj_core.lax import sqrt as sqrt
from mj_core.lax import squeeze as squeeze
from mj_core.lax import sub as sub
from mj_core.lax import tan as tan
from mj_core.lax import tanh as tanh
from mj_core.lax import transpose as transpose
from mj_core.lax import zeros_like_array as zeros_like_array
from mj_core.lax_special import bessel_i0e as bessel_i0e
from mj_core.lax_special import bessel_i1e as bessel_i1e
from mj_core.lax_special import betainc as betainc
from mj_core.lax_special import digamma as digamma
from mj_core.lax_special import erfc as erfc
from mj_core.lax_special import igamma as igamma
from mj_core.lax_special import igammac as igammac
from mj_core.lax_special import lgamma as lgamma
from mj_core.lax_special import nextafter as nextafter
from mj_core.numpy import cbrt as cbrt
from mj_core.numpy import exp2 as exp2
from mj_core.numpy import reciprocal as reciprocal
from mj_core.numpy import square as square
from mj_core.windowed_reductions import reduce as reduce
from mj_core.windowed_reductions import reduce_window as reduce_window

acosh = _mnp.arccosh
asinh = _mnp.arcsinh
atanh = _mnp.arctanh
