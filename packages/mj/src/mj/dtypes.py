"""``mj.dtypes``: the part of ``jax.dtypes`` that applies to mj.

mj's dtypes are JAX's: NumPy's, plus ``bfloat16`` and the float8 types of ``ml_dtypes``, with
32-bit defaults (float32, int32) unless ``enable_x64``, and JAX's promotion lattice with weak
Python scalars. ``TypePromotionError`` is what the lattice raises where no implicit promotion
exists (float8 types, or any mix of dtypes under ``numpy_dtype_promotion="strict"``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mj_autodiff import float0 as float0
from mj_core import dtypes as _core_dtypes
from mj_core import get_aval
from mj_core import numpy as mnp
from mj_core.dtypes import TypePromotionError as TypePromotionError
from mj_core.dtypes import bfloat16 as bfloat16
from mj_core.errors import user_line_suffix
from mj_core.extend import DTypeLike

__all__ = [
    "TypePromotionError",
    "bfloat16",
    "canonicalize_dtype",
    "extended",
    "finfo",
    "float0",
    "iinfo",
    "issubdtype",
    "prng_key",
    "result_type",
]


class extended(np.generic):  # noqa: N801 (JAX's name)
    """JAX's abstract scalar class of extended dtypes (typed PRNG keys, library-defined
    dtypes): a class to test with ``issubdtype(dtype, extended)``. mj defines no extended
    dtype, so no mj array's dtype is a subtype of it; libraries subclass it."""


class prng_key(extended):  # noqa: N801 (JAX's name)
    """JAX's scalar class of typed PRNG key dtypes (``issubdtype(x.dtype, prng_key)`` tells a
    typed key). mj's keys are raw ``uint32`` arrays (``mj.random.PRNGKey``), never of it."""


finfo = mnp.finfo
iinfo = mnp.iinfo
issubdtype = mnp.issubdtype

_WEAK_SCALARS = (int, float, complex)


def canonicalize_dtype(
    dtype: DTypeLike | None, allow_extended_dtype: bool = False
) -> np.dtype[Any]:
    """``dtype`` as the ``np.dtype`` mj computes in (Python types map to the defaults:
    ``float`` -> float32, ``int`` -> int32, 64-bit with ``enable_x64``)."""
    if isinstance(dtype, type) and dtype in (*_WEAK_SCALARS, bool):
        return _core_dtypes.default_dtype_for_pytype(dtype)
    try:
        return _core_dtypes.canonical_dtype(dtype)
    except TypeError:
        raise TypeError(
            f"canonicalize_dtype: {dtype!r} is not a dtype{user_line_suffix()}"
        ) from None


def _dtype_and_weak(x: object) -> tuple[np.dtype[Any], bool]:
    if isinstance(x, np.dtype) or (isinstance(x, type) and issubclass(x, np.generic)):
        return np.dtype(x), False
    if isinstance(x, str) or (isinstance(x, type) and x in (*_WEAK_SCALARS, bool)):
        return canonicalize_dtype(x), False
    aval = get_aval(x)
    return aval.dtype, aval.weak_type


def result_type(*args: object, return_weak_type_flag: bool = False) -> Any:
    """The result dtype of ``args`` (arrays, scalars, dtypes) on JAX's lattice; with
    ``return_weak_type_flag`` also whether the result is weakly typed."""
    if not args:
        raise ValueError("result_type: at least one argument is required")
    dtype, weak = _core_dtypes.result_type(*(_dtype_and_weak(a) for a in args))
    return (dtype, weak) if return_weak_type_flag else dtype
