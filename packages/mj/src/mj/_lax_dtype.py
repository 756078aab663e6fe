"""``jax.lax.dtype``: the dtype of a value or type, as JAX computes in it (flax's attention
cache reads it).

Python scalars and their types give the default dtype of their kind; NumPy dtypes, scalar
types, names and non-mj arrays are narrowed to 32 bits unless ``enable_x64`` (an explicit
64-bit request warns, as JAX); mj arrays and tracers give their own dtype. Not
``mj.numpy.dtype``, which is ``numpy.dtype``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mj_core import dtypes as _core_dtypes
from mj_core import numpy as cnp

__all__ = ["dtype"]

_SCALAR_TYPES = (bool, int, float, complex)


def _valid(dt: np.dtype[Any], x: object) -> np.dtype[Any]:
    if not (dt == np.bool_ or cnp.issubdtype(dt, cnp.number)):
        raise TypeError(
            f"Value '{x}' with dtype {dt} is not a valid JAX array type. Only arrays of numeric "
            "types are supported by JAX."
        )
    return dt


def dtype(x: Any) -> np.dtype[Any]:
    """The dtype object for a value or type (JAX's ``jax.lax.dtype``)."""
    if x is None:
        raise ValueError(f"Invalid argument to dtype: {x}.")
    if isinstance(x, type):
        if x in _SCALAR_TYPES:
            return _core_dtypes.canonical_dtype(x)
        if issubclass(x, np.generic):
            return _check(_valid(np.dtype(x), x))
    elif type(x) in _SCALAR_TYPES:
        return _core_dtypes.canonical_dtype(type(x))
    if isinstance(x, (str, np.dtype)):
        return _check(_valid(np.dtype(x), x))
    attr = getattr(x, "dtype", None)
    if isinstance(attr, np.dtype) and not isinstance(x, (np.ndarray, np.generic)):
        return attr  # an mj array or tracer: already what mj computes in
    try:
        dt = attr if isinstance(attr, np.dtype) else np.result_type(x)
    except TypeError as err:
        raise TypeError(f"Cannot determine dtype of {x}") from err
    return _core_dtypes.canonical_dtype(_valid(dt, x))


def _check(dt: np.dtype[Any]) -> np.dtype[Any]:
    checked = _core_dtypes.check_user_dtype(dt, "dtype")
    assert checked is not None
    return checked
