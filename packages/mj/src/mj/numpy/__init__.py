"""``mj.numpy`` (``import mj.numpy as mnp``): NumPy's API, traceable by every transformation.

Re-exports :mod:`mj_core.numpy` (the same objects: every name in its ``__all__``, the part of
the API the lower layers need themselves) and adds the breadth JAX programs use:
sorting and order statistics, ``einsum``, tiling/repeating/rolling/padding, triangles and
diagonals, ``meshgrid``, NaN-ignoring reductions, ``nonzero`` (concrete input or a static
``size``) and :mod:`mj.numpy.linalg`. Every function is built from ``mj.lax`` operations, so it
works eagerly and under ``jit``, ``grad`` and ``vmap`` alike.
"""

from mj_core.numpy import *  # first: the same-named functions imported below replace core's

# isort: split
import typing as _typing
import warnings as _warnings

from numpy import array_repr as array_repr  # NumPy's own, as jax.numpy re-exports it
from numpy import array_str as array_str
from numpy import can_cast as can_cast
from numpy import get_printoptions as get_printoptions
from numpy import index_exp as index_exp
from numpy import printoptions as printoptions
from numpy import s_ as s_
from numpy import set_printoptions as set_printoptions

from mj.numpy import fft as fft
from mj.numpy import linalg as linalg
from mj.numpy._arithmetic import divmod as divmod
from mj.numpy._arithmetic import gcd as gcd
from mj.numpy._arithmetic import lcm as lcm
from mj.numpy._array_api import acos as acos
from mj.numpy._array_api import acosh as acosh
from mj.numpy._array_api import asin as asin
from mj.numpy._array_api import asinh as asinh
from mj.numpy._array_api import atan as atan
from mj.numpy._array_api import atan2 as atan2
from mj.numpy._array_api import atanh as atanh
from mj.numpy._array_api import bitwise_count as bitwise_count
from mj.numpy._array_api import bitwise_left_shift as bitwise_left_shift
from mj.numpy._array_api import bitwise_right_shift as bitwise_right_shift
from mj.numpy._array_api import concat as concat
from mj.numpy._array_api import copy as copy
from mj.numpy._array_api import cumulative_prod as cumulative_prod
from mj.numpy._array_api import cumulative_sum as cumulative_sum
from mj.numpy._array_api import matrix_transpose as matrix_transpose
from mj.numpy._array_api import matvec as matvec
from mj.numpy._array_api import permute_dims as permute_dims
from mj.numpy._array_api import pow as pow
from mj.numpy._array_api import unstack as unstack
from mj.numpy._array_api import vecdot as vecdot
from mj.numpy._array_api import vecmat as vecmat
from mj.numpy._bits import packbits as packbits
from mj.numpy._bits import unpackbits as unpackbits
from mj.numpy._block import block as block
from mj.numpy._construction import diagflat as diagflat
from mj.numpy._construction import from_dlpack as from_dlpack
from mj.numpy._construction import frombuffer as frombuffer
from mj.numpy._construction import fromfile as fromfile
from mj.numpy._construction import fromfunction as fromfunction
from mj.numpy._construction import fromiter as fromiter
from mj.numpy._construction import fromstring as fromstring
from mj.numpy._cross import cross as cross
from mj.numpy._cumulative import nancumprod as nancumprod
from mj.numpy._cumulative import nancumsum as nancumsum
from mj.numpy._differences import diff as diff
from mj.numpy._differences import ediff1d as ediff1d
from mj.numpy._differences import gradient as gradient
from mj.numpy._differences import trapezoid as trapezoid
from mj.numpy._differences import unwrap as unwrap
from mj.numpy._dtypes import bfloat16 as bfloat16

# mj.numpy's scalar types (JAX-style classes that cast when called) replace mj_core.numpy's
# NumPy scalar types of the same names: the ignores below are that deliberate replacement.
from mj.numpy._dtypes import bool as bool
from mj.numpy._dtypes import bool_ as bool_  # type: ignore[assignment]
from mj.numpy._dtypes import cdouble as cdouble
from mj.numpy._dtypes import character as character
from mj.numpy._dtypes import complex64 as complex64  # type: ignore[assignment]
from mj.numpy._dtypes import complex128 as complex128  # type: ignore[assignment]
from mj.numpy._dtypes import complex_ as complex_
from mj.numpy._dtypes import csingle as csingle
from mj.numpy._dtypes import double as double
from mj.numpy._dtypes import flexible as flexible
from mj.numpy._dtypes import float8_e4m3b11fnuz as float8_e4m3b11fnuz
from mj.numpy._dtypes import float8_e4m3fn as float8_e4m3fn
from mj.numpy._dtypes import float8_e4m3fnuz as float8_e4m3fnuz
from mj.numpy._dtypes import float8_e5m2 as float8_e5m2
from mj.numpy._dtypes import float8_e5m2fnuz as float8_e5m2fnuz
from mj.numpy._dtypes import float16 as float16  # type: ignore[assignment]
from mj.numpy._dtypes import float32 as float32  # type: ignore[assignment]
from mj.numpy._dtypes import float64 as float64  # type: ignore[assignment]
from mj.numpy._dtypes import float_ as float_
from mj.numpy._dtypes import generic as generic
from mj.numpy._dtypes import int8 as int8  # type: ignore[assignment]
from mj.numpy._dtypes import int16 as int16  # type: ignore[assignment]
from mj.numpy._dtypes import int32 as int32  # type: ignore[assignment]
from mj.numpy._dtypes import int64 as int64  # type: ignore[assignment]
from mj.numpy._dtypes import int_ as int_
from mj.numpy._dtypes import isdtype as isdtype
from mj.numpy._dtypes import isrealobj as isrealobj
from mj.numpy._dtypes import iterable as iterable
from mj.numpy._dtypes import object_ as object_
from mj.numpy._dtypes import signedinteger as signedinteger
from mj.numpy._dtypes import single as single
from mj.numpy._dtypes import uint as uint
from mj.numpy._dtypes import uint8 as uint8  # type: ignore[assignment]
from mj.numpy._dtypes import uint16 as uint16  # type: ignore[assignment]
from mj.numpy._dtypes import uint32 as uint32  # type: ignore[assignment]
from mj.numpy._dtypes import uint64 as uint64  # type: ignore[assignment]
from mj.numpy._dtypes import unsignedinteger as unsignedinteger
from mj.numpy._einsum import einsum as einsum
from mj.numpy._einsum_path import einsum_path as einsum_path
from mj.numpy._equivalence import array_equiv as array_equiv
from mj.numpy._extras import allclose as allclose
from mj.numpy._extras import array_equal as array_equal
from mj.numpy._extras import astype as astype
from mj.numpy._extras import fix as _fix
from mj.numpy._extras import float_power as float_power
from mj.numpy._extras import geomspace as geomspace
from mj.numpy._extras import isneginf as isneginf
from mj.numpy._extras import isposinf as isposinf
from mj.numpy._extras import isscalar as isscalar
from mj.numpy._extras import logaddexp as logaddexp
from mj.numpy._extras import logaddexp2 as logaddexp2
from mj.numpy._extras import logspace as logspace
from mj.numpy._extras import nanmax as nanmax
from mj.numpy._extras import nanmean as nanmean
from mj.numpy._extras import nanmin as nanmin
from mj.numpy._extras import nanprod as nanprod
from mj.numpy._extras import nansum as nansum
from mj.numpy._extras import polyval as polyval
from mj.numpy._extras import select as select
from mj.numpy._extras import sinc as sinc
from mj.numpy._extras import where as where
from mj.numpy._float_parts import frexp as frexp
from mj.numpy._float_parts import ldexp as ldexp
from mj.numpy._float_parts import modf as modf
from mj.numpy._float_parts import spacing as spacing
from mj.numpy._index_tricks import c_ as c_
from mj.numpy._index_tricks import diag_indices_from as diag_indices_from
from mj.numpy._index_tricks import mask_indices as mask_indices
from mj.numpy._index_tricks import mgrid as mgrid
from mj.numpy._index_tricks import ogrid as ogrid
from mj.numpy._index_tricks import r_ as r_
from mj.numpy._index_tricks import ravel_multi_index as ravel_multi_index
from mj.numpy._index_tricks import tril_indices_from as tril_indices_from
from mj.numpy._index_tricks import triu_indices_from as triu_indices_from
from mj.numpy._index_tricks import unravel_index as unravel_index
from mj.numpy._insert_delete import delete as delete
from mj.numpy._insert_delete import insert as insert
from mj.numpy._interp import interp as interp
from mj.numpy._manipulation import append as append
from mj.numpy._manipulation import atleast_3d as atleast_3d
from mj.numpy._manipulation import column_stack as column_stack
from mj.numpy._manipulation import dsplit as dsplit
from mj.numpy._manipulation import dstack as dstack
from mj.numpy._manipulation import fliplr as fliplr
from mj.numpy._manipulation import flipud as flipud
from mj.numpy._manipulation import hsplit as hsplit
from mj.numpy._manipulation import pad as pad
from mj.numpy._manipulation import roll as roll
from mj.numpy._manipulation import rot90 as rot90
from mj.numpy._manipulation import row_stack as _row_stack
from mj.numpy._manipulation import take_along_axis as take_along_axis
from mj.numpy._manipulation import vsplit as vsplit
from mj.numpy._nan_statistics import nanargmax as nanargmax
from mj.numpy._nan_statistics import nanargmin as nanargmin
from mj.numpy._nan_statistics import nanmedian as nanmedian
from mj.numpy._nan_statistics import nanpercentile as nanpercentile
from mj.numpy._nan_statistics import nanquantile as nanquantile
from mj.numpy._nan_statistics import nanstd as nanstd
from mj.numpy._nan_statistics import nanvar as nanvar
from mj.numpy._npy_files import load as load
from mj.numpy._npy_files import save as save
from mj.numpy._npy_files import savez as savez
from mj.numpy._placement import arange as arange
from mj.numpy._placement import array as array
from mj.numpy._placement import asarray as asarray
from mj.numpy._placement import empty as empty
from mj.numpy._placement import empty_like as empty_like  # type: ignore[assignment]
from mj.numpy._placement import eye as eye
from mj.numpy._placement import full as full
from mj.numpy._placement import full_like as full_like
from mj.numpy._placement import linspace as linspace
from mj.numpy._placement import ones as ones
from mj.numpy._placement import ones_like as ones_like
from mj.numpy._placement import zeros as zeros
from mj.numpy._placement import zeros_like as zeros_like
from mj.numpy._polynomials import poly as poly
from mj.numpy._polynomials import polyadd as polyadd
from mj.numpy._polynomials import polyder as polyder
from mj.numpy._polynomials import polydiv as polydiv
from mj.numpy._polynomials import polyfit as polyfit
from mj.numpy._polynomials import polyint as polyint
from mj.numpy._polynomials import polymul as polymul
from mj.numpy._polynomials import polysub as polysub
from mj.numpy._polynomials import roots as roots
from mj.numpy._predicates import iscomplex as iscomplex
from mj.numpy._predicates import isreal as isreal
from mj.numpy._removed_aliases import alltrue as alltrue
from mj.numpy._removed_aliases import cumproduct as cumproduct
from mj.numpy._removed_aliases import issubsctype as issubsctype
from mj.numpy._removed_aliases import msort as msort
from mj.numpy._removed_aliases import product as product
from mj.numpy._removed_aliases import sometrue as sometrue
from mj.numpy._reshaping import array_split as array_split
from mj.numpy._reshaping import resize as resize
from mj.numpy._reshaping import rollaxis as rollaxis
from mj.numpy._reshaping import trim_zeros as trim_zeros
from mj.numpy._sets import intersect1d as intersect1d
from mj.numpy._sets import isin as isin
from mj.numpy._sets import setdiff1d as setdiff1d
from mj.numpy._sets import setxor1d as setxor1d
from mj.numpy._sets import union1d as union1d
from mj.numpy._sets import unique as unique
from mj.numpy._sets import unique_all as unique_all
from mj.numpy._sets import unique_counts as unique_counts
from mj.numpy._sets import unique_inverse as unique_inverse
from mj.numpy._sets import unique_values as unique_values
from mj.numpy._special import i0 as i0
from mj.numpy._special import nextafter as nextafter
from mj.numpy._statistics import average as average
from mj.numpy._statistics import corrcoef as corrcoef
from mj.numpy._statistics import cov as cov
from mj.numpy._updates import fill_diagonal as fill_diagonal
from mj.numpy._updates import place as place
from mj.numpy._updates import put as put
from mj.numpy._updates import put_along_axis as put_along_axis
from mj.numpy._vectorize import apply_along_axis as apply_along_axis
from mj.numpy._vectorize import apply_over_axes as apply_over_axes
from mj.numpy._vectorize import piecewise as piecewise
from mj.numpy._vectorize import vectorize as vectorize
from mj.numpy._windows import bartlett as bartlett
from mj.numpy._windows import blackman as blackman
from mj.numpy._windows import hamming as hamming
from mj.numpy._windows import hanning as hanning
from mj.numpy._windows import kaiser as kaiser
from mj_core import Array as _Array

# jnp.ndarray is jax.Array: isinstance(x, mnp.ndarray) holds for every mj array
ndarray = _Array


# Names seed 004 documents but JAX 0.10 removed (``fix``: deprecated in 0.9, use ``trunc``;
# ``row_stack``: NumPy 2's removal, use ``vstack``): still there by attribute, with a
# DeprecationWarning, and left out of ``dir(mnp)`` as JAX leaves them out of ``dir(jnp)``.
_REMOVED_IN_JAX = {"fix": "trunc", "row_stack": "vstack"}


def __getattr__(name: str) -> _typing.Any:
    replacement = _REMOVED_IN_JAX.get(name)
    if replacement is None:
        raise AttributeError(f"module 'mj.numpy' has no attribute {name!r}")
    _warnings.warn(
        f"mj.numpy.{name} is deprecated (JAX 0.10 removed jax.numpy.{name}); use "
        f"mj.numpy.{replacement} instead.",
        DeprecationWarning,
        stacklevel=2,
    )
    return _fix if name == "fix" else _row_stack
