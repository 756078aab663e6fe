"""NumPy-style API built only from :mod:`mj_core.lax` wrappers (``import mj.numpy as mnp``).

NumPy names, broadcasting and NumPy 2 (NEP 50) dtype rules, with JAX's departures where JAX
users expect them: arrays are immutable (``x.at[idx].set(v)``), list arguments are rejected
outside ``array``/``asarray``, and out-of-bounds gather indices clamp.
"""

from __future__ import annotations

from typing import Any

import numpy as _np

from mj_core.eager_array import EagerArray as EagerArray
from mj_core.numpy._convolve import convolve as convolve
from mj_core.numpy._convolve import correlate as correlate
from mj_core.numpy._creation import arange as arange
from mj_core.numpy._creation import array as array
from mj_core.numpy._creation import asarray as asarray
from mj_core.numpy._creation import empty as empty
from mj_core.numpy._creation import empty_like as empty_like
from mj_core.numpy._creation import eye as eye
from mj_core.numpy._creation import full as full
from mj_core.numpy._creation import full_like as full_like
from mj_core.numpy._creation import identity as identity
from mj_core.numpy._creation import linspace as linspace
from mj_core.numpy._creation import ones as ones
from mj_core.numpy._creation import ones_like as ones_like
from mj_core.numpy._creation import zeros as zeros
from mj_core.numpy._creation import zeros_like as zeros_like
from mj_core.numpy._indexing import take as take
from mj_core.numpy._math import *  # noqa: F403
from mj_core.numpy._products import dot as dot
from mj_core.numpy._products import inner as inner
from mj_core.numpy._products import matmul as matmul
from mj_core.numpy._products import outer as outer
from mj_core.numpy._products import tensordot as tensordot
from mj_core.numpy._products import vdot as vdot
from mj_core.numpy._promotion import promoted_dtype as _promoted_dtype
from mj_core.numpy._reductions import *  # noqa: F403
from mj_core.numpy._shape import *  # noqa: F403

# dtypes and constants, as NumPy spells them
bool_ = _np.bool_
int8 = _np.int8
int16 = _np.int16
int32 = _np.int32
int64 = _np.int64
uint8 = _np.uint8
uint16 = _np.uint16
uint32 = _np.uint32
uint64 = _np.uint64
float16 = _np.float16
float32 = _np.float32
float64 = _np.float64
complex64 = _np.complex64
complex128 = _np.complex128
dtype = _np.dtype
finfo = _np.finfo
iinfo = _np.iinfo
issubdtype = _np.issubdtype
integer = _np.integer
floating = _np.floating
inexact = _np.inexact
number = _np.number
complexfloating = _np.complexfloating
pi = _np.pi
e = _np.e
inf = _np.inf
nan = _np.nan
euler_gamma = _np.euler_gamma
newaxis = None


def result_type(*args: Any) -> _np.dtype[Any]:
    """The NEP 50 result dtype of ``args`` (arrays, scalars or dtypes)."""
    operands = [_np.zeros((), a) if isinstance(a, _np.dtype | type) else a for a in args]
    return _promoted_dtype(*operands)[0]


def promote_types(a: Any, b: Any) -> _np.dtype[Any]:
    return _np.promote_types(a, b)
