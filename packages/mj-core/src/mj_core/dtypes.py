"""Dtype rules: NumPy 2 (NEP 50) promotion with weak Python scalars.

One function, :func:`result_type`, decides every result dtype so that eager NumPy evaluation,
abstract evaluation inside jaxprs, and compiled code always agree. A *weak* value is a Python
scalar (or a value computed only from Python scalars): it adopts the dtype of the strong
operand it meets, as NumPy 2 does for ``float32_array * 2.0``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "canonical_dtype",
    "default_dtype_for_pytype",
    "dtype_of",
    "is_complex",
    "is_float",
    "is_inexact",
    "is_integer",
    "result_type",
]

_PY_SCALAR_DTYPES: dict[type, np.dtype[Any]] = {
    bool: np.dtype(np.bool_),
    int: np.dtype(np.int64),
    float: np.dtype(np.float64),
    complex: np.dtype(np.complex128),
}

# A Python scalar of the same kind stands in for a weak dtype when asking NumPy to promote.
_WEAK_REPRESENTATIVES: dict[str, bool | int | float | complex] = {
    "b": False,
    "i": 0,
    "u": 0,
    "f": 0.0,
    "c": 0j,
}


def default_dtype_for_pytype(pytype: type) -> np.dtype[Any]:
    """The dtype a Python scalar type becomes (int64, float64, complex128, bool)."""
    return _PY_SCALAR_DTYPES[pytype]


def dtype_of(x: Any) -> np.dtype[Any]:
    """The dtype of an operand (array, tracer, Python scalar) without touching its data (a
    Python scalar's is NumPy's, as ``np.result_type`` says)."""
    dtype = getattr(x, "dtype", None)
    return np.result_type(x) if dtype is None else np.dtype(dtype)


def canonical_dtype(dtype: Any) -> np.dtype[Any]:
    """Normalise anything NumPy accepts as a dtype (``'float32'``, ``np.float32``, ...)."""
    return np.dtype(dtype)  # type: ignore[no-any-return]


def result_type(*dtypes_and_weak: tuple[np.dtype[Any], bool]) -> tuple[np.dtype[Any], bool]:
    """Promote ``(dtype, weak_type)`` pairs per NEP 50; returns ``(dtype, weak_type)``.

    The result is weak only if every operand is weak (then it has NumPy's default dtype for
    the highest kind present). Strong operands promote among themselves and weak ones only
    lift the *kind* (an int array times a Python float gives float64, as in NumPy 2).
    """
    strong = [dt for dt, weak in dtypes_and_weak if not weak]
    if len(strong) == len(dtypes_and_weak):
        if len(strong) == 1 or all(dt == strong[0] for dt in strong):
            return strong[0], False
        return np.result_type(*strong), False
    weak = [_WEAK_REPRESENTATIVES[dt.kind] for dt, is_weak in dtypes_and_weak if is_weak]
    if not strong:
        return np.result_type(*weak), True
    return np.result_type(*strong, *weak), False


def is_float(dtype: np.dtype[Any]) -> bool:
    """True for real floating dtypes."""
    return dtype.kind == "f"


def is_complex(dtype: np.dtype[Any]) -> bool:
    """True for complex dtypes."""
    return dtype.kind == "c"


def is_inexact(dtype: np.dtype[Any]) -> bool:
    """Float or complex: the dtypes that carry tangents."""
    return dtype.kind in "fc"


def is_integer(dtype: np.dtype[Any]) -> bool:
    """True for signed and unsigned integer dtypes (not bool)."""
    return dtype.kind in "iu"
