"""Python scalar operands of the elementwise shortcuts: when NumPy types them as JAX does, and
the float32 arrays they become next to a float32 array."""

from __future__ import annotations

from typing import Any

import numpy as np

from mj_core._avals import get_aval

__all__ = [
    "INT32_BOUNDS",
    "LAX_SCALAR_FITS",
    "SCALAR_FITS",
    "fits",
    "float32_operand",
    "float32_scalars",
]

_float32 = np.dtype(np.float32)

# The array kinds a Python scalar operand fits into without changing kind: such a weak operand
# takes the array's dtype in NumPy's ufuncs (NEP 50) exactly as on JAX's lattice. bfloat16 and
# the float8 types (kind "V") are not listed: NumPy computes ``bfloat16 * 2.0`` in float32.
SCALAR_FITS: dict[type, str] = {bool: "biufc", int: "iufc", float: "fc", complex: "c"}
#: The same for lax's operations, which never promote: a Python bool is a strong bool to them.
LAX_SCALAR_FITS: dict[type, str] = {**SCALAR_FITS, bool: "b"}

#: The range of the default integer type JAX checks a Python int operand against first
#: (int32: with x64 a wider int is checked again by the full path).
INT32_BOUNDS = (-(2**31), 2**31 - 1)

# The integer dtypes' ranges, clipped to int32's: NumPy compares an integer array with a Python
# int outside its dtype's range exactly (``uint8 == 300`` is False), where JAX converts the int
# first (wrapping: 44 == 300 is True) or raises; such operands leave the ufunc shortcut.
_INT_RANGES: dict[np.dtype[Any], tuple[int, int]] = {
    np.dtype(t): (
        max(int(np.iinfo(t).min), INT32_BOUNDS[0]),
        min(int(np.iinfo(t).max), INT32_BOUNDS[1]),
    )
    for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)
}


def fits(dtype: np.dtype[Any], value: Any) -> bool:
    """Whether the Python scalar ``value`` (next to an array of ``dtype``) is not an int outside
    int32 (JAX checks the default integer type's range) or outside an integer ``dtype``'s."""
    if type(value) is not int:
        return True
    low, high = _INT_RANGES.get(dtype, INT32_BOUNDS)
    return low <= value <= high


#: Python scalars as the read-only 0-d float32 arrays a float32 array's ufunc would convert
#: them to (NEP 50's weak scalars, JAX's too): NumPy's own conversion of a Python scalar
#: operand costs a small op ~330 ns, a lookup here ~40. Zeros and NaN are never keys (``0.0 ==
#: -0.0`` and ``nan != nan``), so a hit stands for exactly the value looked up.
float32_scalars: dict[float, np.ndarray[Any, Any]] = {}
_FLOAT32_SCALARS_LIMIT = 256


def float32_operand(value: float) -> Any:
    """``value`` (a Python float or int) as the operand of a float32 array's ufunc: the cached
    read-only float32 array of :data:`float32_scalars`. An int outside int32 is JAX's
    ``OverflowError`` unless 64-bit types are on, and then NumPy converts it (returned as it
    is)."""
    out = float32_scalars.get(value)
    if out is not None:
        return out
    if type(value) is int and not INT32_BOUNDS[0] <= value <= INT32_BOUNDS[1]:
        get_aval(value)  # raises where the int does not fit the default int type
        return value
    out = np.array(value, _float32)
    out.setflags(write=False)
    if value and value == value:  # not a zero, not NaN
        if len(float32_scalars) >= _FLOAT32_SCALARS_LIMIT:
            float32_scalars.clear()
        float32_scalars[value] = out
    return out
