"""``mj_core.numpy``'s dtype names, their hierarchy and promotion, and its numeric constants,
as NumPy spells them (the objects are NumPy's own). ``finfo``/``iinfo`` and ``issubdtype`` also
know the ``ml_dtypes`` types (bfloat16 is a ``floating``, int4 a ``signedinteger``), as JAX's."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from mj_core._config import config
from mj_core._lattice import BF16, SIGNED_SUBBYTE, SMALL_FLOATS, UNSIGNED_SUBBYTE
from mj_core._lattice import promote_types as lattice_promote_types
from mj_core.numpy._promotion import promoted_dtype

__all__ = [
    "bool_",
    "complex64",
    "complex128",
    "complexfloating",
    "dtype",
    "e",
    "euler_gamma",
    "finfo",
    "float16",
    "float32",
    "float64",
    "floating",
    "iinfo",
    "inexact",
    "inf",
    "int8",
    "int16",
    "int32",
    "int64",
    "integer",
    "issubdtype",
    "nan",
    "newaxis",
    "number",
    "pi",
    "promote_types",
    "result_type",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
]

# dtypes and constants, as NumPy spells them
bool_ = np.bool_
int8 = np.int8
int16 = np.int16
int32 = np.int32
int64 = np.int64
uint8 = np.uint8
uint16 = np.uint16
uint32 = np.uint32
uint64 = np.uint64
float16 = np.float16
float32 = np.float32
float64 = np.float64
complex64 = np.complex64
complex128 = np.complex128
dtype = np.dtype
finfo = ml_dtypes.finfo
iinfo = ml_dtypes.iinfo
integer = np.integer
floating = np.floating
inexact = np.inexact
number = np.number
complexfloating = np.complexfloating
pi = np.pi
e = np.e
inf = np.inf
nan = np.nan
euler_gamma = np.euler_gamma
newaxis = None


#: Python's scalar types as ``result_type`` arguments: weakly typed, as their values are.
_WEAK_TYPE_OPERANDS: dict[type, Any] = {bool: False, int: 0, float: 0.0, complex: 0j}


def result_type(*args: object) -> np.dtype[Any]:
    """The NEP 50 result dtype of ``args``: arrays, scalars, or dtypes in any spelling NumPy
    accepts (``'int32'``, ``np.float32``); Python's types (``float``) count as weak, as in JAX."""
    operands = [
        _WEAK_TYPE_OPERANDS[a]
        if isinstance(a, type) and a in _WEAK_TYPE_OPERANDS
        else np.zeros((), a)
        if isinstance(a, np.dtype | type | str)
        else a
        for a in args
    ]
    try:
        return promoted_dtype(*operands)[0]
    except TypeError:
        if not any(_has_shape_and_dtype(a) for a in operands):
            raise
    # duck-typed as in JAX: an object with ``shape`` and ``dtype`` (a ShapeDtypeStruct)
    # counts as an array of its dtype (strongly typed: JAX reads no ``weak_type`` here)
    return promoted_dtype(*[_as_operand(a) for a in operands])[0]


def _has_shape_and_dtype(a: object) -> bool:
    return hasattr(a, "shape") and isinstance(getattr(a, "dtype", None), np.dtype)


def _as_operand(a: Any) -> Any:
    if not _has_shape_and_dtype(a) or isinstance(a, np.ndarray | np.generic):
        return a
    return np.zeros((), a.dtype)


def promote_types(a: object, b: object) -> np.dtype[Any]:
    """``jnp.promote_types``: JAX's lattice, not NumPy's (``int32`` with ``float16`` is
    float16), the x64 mode's lattice as in JAX (without it uint32 with int32 is int32)."""
    return lattice_promote_types(a, b, x64=config.enable_x64)


#: The NumPy abstract types each ``ml_dtypes`` scalar type belongs to (NumPy files them under
#: ``np.void``/``np.generic`` only).
_CUSTOM_KINDS: dict[type, tuple[type, ...]] = {
    **{dt.type: (np.floating, np.inexact) for dt in (BF16, *SMALL_FLOATS)},
    **{dt.type: (np.signedinteger, np.integer) for dt in SIGNED_SUBBYTE},
    **{dt.type: (np.unsignedinteger, np.integer) for dt in UNSIGNED_SUBBYTE},
}


_ABSTRACT = frozenset(
    (
        np.generic,
        np.number,
        np.integer,
        np.signedinteger,
        np.unsignedinteger,
        np.inexact,
        np.floating,
        np.complexfloating,
        np.flexible,
        np.character,
    )
)


def _is_extended(dtype: Any) -> bool:
    return not isinstance(dtype, np.dtype | type | str) and isinstance(
        getattr(dtype, "type", None), type
    )


def issubdtype(arg1: Any, arg2: Any) -> bool:
    """``np.issubdtype``, with bfloat16 and the float8 types under ``floating`` and the
    sub-byte integers under ``signedinteger``/``unsignedinteger``, as JAX's. An extended dtype
    (one that is no NumPy dtype and names its scalar class in ``.type``, as a typed key's
    ``key<fry>``) is a subtype of itself and of the classes its ``.type`` derives from."""
    if _is_extended(arg1) or _is_extended(arg2):
        if _is_extended(arg2):
            return bool(arg1 == arg2)
        return isinstance(arg2, type) and issubclass(arg1.type, arg2)
    if arg2 in _ABSTRACT and arg1 not in _ABSTRACT:
        kinds = _CUSTOM_KINDS.get(np.dtype(arg1).type)
        if kinds is not None:
            return arg2 in (*kinds, np.number, np.generic)
    return bool(np.issubdtype(arg1, arg2))
