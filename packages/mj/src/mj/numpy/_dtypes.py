"""Dtype names and questions about types as ``jax.numpy`` spells them: the scalar types with
mj's 64-bit defaults (``int_`` is int64, ``float_`` float64, like JAX with x64), NumPy's
abstract scalar classes, the Array API's ``isdtype``, ``isrealobj`` and ``iterable``.

mj's dtypes are NumPy's own, but as in ``jax.numpy`` the concrete names (``mnp.float32``,
``mnp.int64``, ...) are classes of their own: a dtype wherever NumPy takes one
(``np.dtype(mnp.float32)``, ``x.astype(mnp.int8)``, ``mnp.float32 == np.float32``) and a cast
when called (``mnp.int64(x)`` is ``mnp.asarray(x, mnp.int64)``, so it works on traced values,
which NumPy's ``np.int64(x)`` would need concretely). ``bfloat16`` is ``ml_dtypes``' type, as
in ``jax.numpy``."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

import mj_core.numpy as cnp
from mj_core import dtypes as _core_dtypes
from mj_core.dtypes import bfloat16 as _ml_bfloat16
from mj_core.errors import user_line_suffix
from mj_core.extend import DTypeLike, dtype_weak

__all__ = [
    "bfloat16",
    "bool",
    "bool_",
    "cdouble",
    "character",
    "complex64",
    "complex128",
    "complex_",
    "csingle",
    "double",
    "flexible",
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float16",
    "float32",
    "float64",
    "float_",
    "generic",
    "int8",
    "int16",
    "int32",
    "int64",
    "int_",
    "isdtype",
    "isrealobj",
    "iterable",
    "object_",
    "signedinteger",
    "single",
    "uint",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "unsignedinteger",
]


class _ScalarMeta(type):
    """The metaclass of ``mnp.float32`` and friends (JAX's ``_ScalarMeta``): equal to and
    hashing like NumPy's scalar type, ``isinstance`` of it, and calling it casts."""

    dtype: np.dtype[Any]

    def __hash__(cls) -> int:
        return hash(cls.dtype.type)

    def __eq__(cls, other: object) -> builtins.bool:
        return cls is other or cls.dtype.type == other

    def __ne__(cls, other: object) -> builtins.bool:
        return not cls == other

    def __call__(cls, x: Any) -> Any:
        return cnp.asarray(x, dtype=cls.dtype)

    def __instancecheck__(cls, instance: object) -> builtins.bool:
        return isinstance(instance, cls.dtype.type)


def _scalar_type(name: str, scalar: type[np.generic]) -> _ScalarMeta:
    return _ScalarMeta(name, (), {"dtype": np.dtype(scalar), "__module__": "mj.numpy"})


bool_ = _scalar_type("bool", np.bool_)
bool = bool_  # jax.numpy's name for the bool dtype (shadows the builtin here: see builtins.bool)
int8 = _scalar_type("int8", np.int8)
int16 = _scalar_type("int16", np.int16)
int32 = _scalar_type("int32", np.int32)
int64 = _scalar_type("int64", np.int64)
uint8 = _scalar_type("uint8", np.uint8)
uint16 = _scalar_type("uint16", np.uint16)
uint32 = _scalar_type("uint32", np.uint32)
uint64 = _scalar_type("uint64", np.uint64)
float16 = _scalar_type("float16", np.float16)
bfloat16 = _scalar_type("bfloat16", _ml_bfloat16)
# the 8-bit floats (ml_dtypes' types, as in jax.numpy), for storage and casts (fp8 training)
float8_e4m3fn = _scalar_type("float8_e4m3fn", _core_dtypes.float8_e4m3fn)
float8_e5m2 = _scalar_type("float8_e5m2", _core_dtypes.float8_e5m2)
float8_e4m3fnuz = _scalar_type("float8_e4m3fnuz", _core_dtypes.float8_e4m3fnuz)
float8_e5m2fnuz = _scalar_type("float8_e5m2fnuz", _core_dtypes.float8_e5m2fnuz)
float8_e4m3b11fnuz = _scalar_type("float8_e4m3b11fnuz", _core_dtypes.float8_e4m3b11fnuz)
float32 = _scalar_type("float32", np.float32)
float64 = _scalar_type("float64", np.float64)
complex64 = _scalar_type("complex64", np.complex64)
complex128 = _scalar_type("complex128", np.complex128)
int_ = int64
uint = uint64
float_ = float64
complex_ = complex128
single = float32
double = float64
csingle = complex64
cdouble = complex128
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


def isdtype(dtype: DTypeLike | None, kind: object) -> builtins.bool:
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


def iterable(y: object) -> builtins.bool:
    """Whether ``iter(y)`` works: NumPy's ``iterable``, except that a 0-d array (mj's or
    NumPy's, concrete or traced) is not iterable."""
    if getattr(y, "ndim", None) == 0:
        return False
    return np.iterable(y)
