"""``mj_core.numpy``'s dtype names, their hierarchy and promotion, and its numeric constants,
as NumPy spells them (the objects are NumPy's own)."""

from __future__ import annotations

from typing import Any

import numpy as np

from mj_core._config import config
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
finfo = np.finfo
iinfo = np.iinfo
issubdtype = np.issubdtype
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


def result_type(*args: Any) -> np.dtype[Any]:
    """The NEP 50 result dtype of ``args`` (arrays, scalars or dtypes)."""
    operands = [np.zeros((), a) if isinstance(a, np.dtype | type) else a for a in args]
    return promoted_dtype(*operands)[0]


def promote_types(a: Any, b: Any) -> np.dtype[Any]:
    """``jnp.promote_types``: JAX's lattice, not NumPy's (``int32`` with ``float16`` is
    float16), the x64 mode's lattice as in JAX (without it uint32 with int32 is int32)."""
    return lattice_promote_types(a, b, x64=config.enable_x64)
