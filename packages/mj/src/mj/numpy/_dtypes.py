"""Dtype names and questions about types as ``jax.numpy`` spells them: NumPy's aliases with
mj's 64-bit defaults (``int_`` is int64, ``float_`` float64, like JAX with x64), NumPy's
abstract scalar classes, the Array API's ``isdtype``, ``isrealobj`` and ``iterable``. mj's
dtypes are NumPy's own, so the names are NumPy's scalar types (``jax.numpy`` wraps them in
classes of its own). ``bfloat16`` and the float8/int4 types are left out: NumPy does not
have them."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

import mj_core.numpy as cnp
from mj_core.errors import user_line_suffix
from mj_core.extend import dtype_weak

__all__ = [
    "bool",
    "cdouble",
    "character",
    "complex_",
    "csingle",
    "double",
    "flexible",
    "float_",
    "generic",
    "int_",
    "isdtype",
    "isrealobj",
    "iterable",
    "object_",
    "signedinteger",
    "single",
    "uint",
    "unsignedinteger",
]


bool = np.bool_  # jax.numpy's name for the bool dtype (shadows the builtin here: see builtins.bool)
int_ = np.int64
uint = np.uint64
float_ = np.float64
complex_ = np.complex128
single = np.float32
double = np.float64
csingle = np.complex64
cdouble = np.complex128
generic = np.generic
signedinteger = np.signedinteger
unsignedinteger = np.unsignedinteger
flexible = np.flexible
character = np.character
object_ = np.object_

_SIGNED = (np.int8, np.int16, np.int32, np.int64)
_UNSIGNED = (np.uint8, np.uint16, np.uint32, np.uint64)
_REAL = (np.float16, np.float32, np.float64)
_COMPLEX = (np.complex64, np.complex128)

#: The Array API's dtype kinds, over the dtypes mj computes in.
_KINDS: dict[str, frozenset[np.dtype[Any]]] = {
    name: frozenset(np.dtype(t) for t in types)
    for name, types in {
        "bool": (np.bool_,),
        "signed integer": _SIGNED,
        "unsigned integer": _UNSIGNED,
        "integral": _SIGNED + _UNSIGNED,
        "real floating": _REAL,
        "complex floating": _COMPLEX,
        "numeric": _SIGNED + _UNSIGNED + _REAL + _COMPLEX,
    }.items()
}


def isdtype(dtype: Any, kind: Any) -> builtins.bool:
    """Whether ``dtype`` is of ``kind``: a kind name (``'integral'``, ``'real floating'``,
    ...), a dtype, or a tuple of these."""
    the_dtype = np.dtype(dtype)
    options: set[np.dtype[Any]] = set()
    for k in kind if isinstance(kind, tuple) else (kind,):
        if isinstance(k, str) and k in _KINDS:
            options |= _KINDS[k]
            continue
        try:
            options.add(np.dtype(k))
        except TypeError:
            if isinstance(k, str):
                raise ValueError(
                    f"isdtype: unrecognized kind {k!r}; expected one of {list(_KINDS)} or a "
                    f"dtype{user_line_suffix()}"
                ) from None
            raise TypeError(
                f"isdtype: kind must be a dtype, a kind name or a tuple of these, got {k!r}"
                f"{user_line_suffix()}"
            ) from None
    return the_dtype in options


def isrealobj(x: Any) -> builtins.bool:
    """True unless ``x`` has a complex dtype (a question about the type, not the values)."""
    if isinstance(x, list | tuple):
        x = cnp.asarray(x)
    return dtype_weak(x)[0].kind != "c"


def iterable(y: Any) -> builtins.bool:
    """Whether ``iter(y)`` works: NumPy's ``iterable``, except that a 0-d array (mj's or
    NumPy's, concrete or traced) is not iterable."""
    if getattr(y, "ndim", None) == 0:
        return False
    return np.iterable(y)
