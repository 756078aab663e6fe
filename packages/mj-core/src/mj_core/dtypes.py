"""Dtype rules: JAX's promotion lattice, 32-bit by default, weak Python scalars.

One function, :func:`result_type`, decides every result dtype so that eager evaluation,
abstract evaluation inside jaxprs and compiled code always agree; it is JAX's lattice
(:mod:`mj_core._lattice`). A *weak* value is a Python scalar (or a value computed only from
Python scalars): it adopts the dtype of the strong operand it meets, so ``float32_array * 2.0``
stays float32 and ``int8_array + 1`` stays int8.

Two rules decide weak types, as in JAX: promotion (:func:`result_type`) never gives a weak bool
(a weak bool promotes as a strong one), while a primitive's output is weak exactly when all its
operands are (:func:`all_weak`, JAX's standard weak-type rule), whatever its dtype: a
comparison of weak operands is a weak bool (``mnp.equal(1.0, 2.0)``, ``mnp.isnan(0.5)``).

Without ``enable_x64`` (the default, as in JAX) the 64-bit types narrow to 32 bits wherever a
value enters mj (:func:`canonicalize_dtype`, :func:`canonicalize_value`): float32, int32,
uint32 and complex64 are the defaults. The current mode is read from ``config.enable_x64``.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from typing import Any

import ml_dtypes
import numpy as np

from mj_core import _lattice
from mj_core._config import config, on_x64_change
from mj_core._lattice import TypePromotionError
from mj_core._typing import DTypeLike

__all__ = [
    "TypePromotionError",
    "all_weak",
    "bfloat16",
    "canonical_dtype",
    "canonicalize_dtype",
    "canonicalize_value",
    "check_array_data",
    "check_user_dtype",
    "default_dtype_for_pytype",
    "default_float_dtype",
    "default_int_dtype",
    "dtype_kind",
    "dtype_of",
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float_info",
    "is_complex",
    "is_float",
    "is_inexact",
    "is_integer",
    "promote_types",
    "result_type",
]

bfloat16: type[np.generic] = ml_dtypes.bfloat16
float8_e4m3fn: type[np.generic] = ml_dtypes.float8_e4m3fn
float8_e5m2: type[np.generic] = ml_dtypes.float8_e5m2
float8_e4m3fnuz: type[np.generic] = ml_dtypes.float8_e4m3fnuz
float8_e5m2fnuz: type[np.generic] = ml_dtypes.float8_e5m2fnuz
float8_e4m3b11fnuz: type[np.generic] = ml_dtypes.float8_e4m3b11fnuz

_KIND_OF_PYTYPE = {bool: "b", int: "i", float: "f", complex: "c"}
#: 64-bit dtype -> the dtype it narrows to; empty while enable_x64 is on (read on hot paths).
_NARROW: dict[np.dtype[Any], np.dtype[Any]] = {}
_PY_SCALAR_DTYPES: dict[type, np.dtype[Any]] = {}


def _set_mode(x64: bool) -> None:
    _NARROW.clear()
    if not x64:
        _NARROW.update(
            {np.dtype(a): np.dtype(b) for a, b in (("i8", "i4"), ("u8", "u4"), ("f8", "f4"))}
        )
        _NARROW[np.dtype(np.complex128)] = np.dtype(np.complex64)
    for pytype, kind in _KIND_OF_PYTYPE.items():
        _PY_SCALAR_DTYPES[pytype] = _lattice.default_dtype(kind, x64)


_set_mode(config.enable_x64)
on_x64_change(_set_mode)


def default_dtype_for_pytype(pytype: type) -> np.dtype[Any]:
    """The dtype a Python scalar type becomes (int32/float32/complex64, or 64-bit with x64)."""
    return _PY_SCALAR_DTYPES[pytype]


def default_float_dtype() -> np.dtype[Any]:
    """float32, or float64 with ``enable_x64``."""
    return _PY_SCALAR_DTYPES[float]


def default_int_dtype() -> np.dtype[Any]:
    """int32, or int64 with ``enable_x64``."""
    return _PY_SCALAR_DTYPES[int]


def dtype_of(x: Any) -> np.dtype[Any]:
    """The (canonical) dtype of an operand (array, tracer, Python scalar) without touching its
    data: a Python scalar's is the default dtype of its kind."""
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        pytype = _PY_SCALAR_DTYPES.get(type(x))
        if pytype is not None:
            return pytype
        dtype = np.result_type(x)
    dt = np.dtype(dtype)
    return _NARROW.get(dt, dt)


def canonical_dtype(dtype: DTypeLike | None) -> np.dtype[Any]:
    """Normalise anything NumPy accepts as a dtype (``'float32'``, ``np.float32``, ``float``)
    and narrow it to 32 bits unless ``enable_x64`` (Python types mean their default dtype)."""
    pytype = _PY_SCALAR_DTYPES.get(dtype) if isinstance(dtype, type) else None
    if pytype is not None:
        return pytype
    dt: np.dtype[Any] = np.dtype(dtype)
    return _NARROW.get(dt, dt)


canonicalize_dtype = canonical_dtype


def check_user_dtype(dtype: DTypeLike | None, fun_name: str) -> np.dtype[Any] | None:
    """A ``dtype=`` argument of ``fun_name`` as the dtype mj computes in (``None`` stays
    ``None``); an explicit 64-bit request without x64 warns with JAX's text."""
    if dtype is None:
        return None
    pytype = _PY_SCALAR_DTYPES.get(dtype) if isinstance(dtype, type) else None
    if pytype is not None:
        return pytype
    dt: np.dtype[Any] = np.dtype(dtype)
    narrow = _NARROW.get(dt)
    if narrow is None:
        if not _supported(dt):
            raise TypeError(
                f"JAX only supports number, bool, and string dtypes, got dtype {dt.name} in "
                f"{fun_name} (mj: number and bool dtypes)."
            )
        return dt
    warnings.warn(
        f"Explicitly requested dtype {dt.name} requested in {fun_name} is not available, and "
        f"will be truncated to dtype {narrow.name}. To enable more dtypes, set the "
        "mj_enable_x64 configuration option or the MJ_ENABLE_X64 shell environment variable. "
        "See https://github.com/jax-ml/jax#current-gotchas for more.",
        UserWarning,
        stacklevel=3,
    )
    return narrow


def canonicalize_value(x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """``x`` with its dtype narrowed to 32 bits unless ``enable_x64`` (a copy only then)."""
    narrow = _NARROW.get(x.dtype)
    return x if narrow is None else x.astype(narrow)


#: The dtype types of array views (typed keys' ``key<fry>``): filled by
#: :func:`mj_core._array_views.register_array_view`; promotion knows them only to refuse them.
view_dtypes: dict[type, Any] = {}


class ViewPromotionError(ValueError):
    """A view dtype promoted with another dtype (JAX's ``ValueError``). NumPy-level functions
    catch it to leave the operands as they are: the primitive then refuses the dtypes in
    JAX's words (``add does not accept dtypes key<fry>, int32.``)."""


def result_type(*dtypes_and_weak: tuple[np.dtype[Any], bool]) -> tuple[np.dtype[Any], bool]:
    """Promote ``(dtype, weak_type)`` pairs on JAX's lattice; returns ``(dtype, weak_type)``.

    The result is weak only if it comes from weak operands alone (then it has the default
    dtype of its kind). Strong operands promote on the lattice (``int32 + float32`` is float32),
    weak ones only lift the *kind* (``int8_array * 2.0`` is the default float).
    """
    first = dtypes_and_weak[0]
    if len(dtypes_and_weak) == 1:
        if first[1]:
            return _lattice.result_type(dtypes_and_weak, config.enable_x64)
        return first
    if not first[1] and all(p == first for p in dtypes_and_weak):
        return first
    try:
        return _lattice.result_type(dtypes_and_weak, config.enable_x64)
    except TypeError:
        for d, _ in dtypes_and_weak:
            if type(d) in view_dtypes:  # typed keys: only with themselves, as in JAX
                raise ViewPromotionError(
                    f"dtype={d} is not a valid dtype for JAX type promotion."
                ) from None
        raise


def all_weak(weak_types: Iterable[bool]) -> bool:
    """JAX's standard weak-type rule: a primitive's output is weakly typed exactly when every
    operand is (a comparison or ``not`` of weak operands is a weak bool, as ``add`` of weak
    operands is a weak number), whatever the output's dtype; :func:`result_type` strips the
    flag from a bool, as JAX's ``lattice_result_type``, so promotion makes no weak bool."""
    return all(weak_types)


def promote_types(a: object, b: object) -> np.dtype[Any]:
    """``jnp.promote_types``: the strong result of two dtypes (Python types count as weak)."""
    return _lattice.promote_types(a, b, config.enable_x64)


def dtype_kind(dtype: np.dtype[Any]) -> str:
    """NumPy's kind letter, with ml_dtypes' floats (bfloat16, float8) as ``"f"``."""
    return _lattice.kind(dtype)


def is_float(dtype: np.dtype[Any]) -> bool:
    """True for real floating dtypes (bfloat16 and the float8 types too)."""
    return _lattice.kind(dtype) == "f"


def is_complex(dtype: np.dtype[Any]) -> bool:
    """True for complex dtypes."""
    return dtype.kind == "c"


def is_inexact(dtype: np.dtype[Any]) -> bool:
    """Float or complex: the dtypes that carry tangents (bfloat16 and the float8 types too)."""
    k = dtype.kind
    return k in "fc" or (k == "V" and _lattice.kind(dtype) == "f")  # (autodiff's hot path)


def float_info(dtype: Any) -> Any:
    """``np.finfo`` that also knows bfloat16 and the float8 types (``ml_dtypes.finfo``; NumPy's
    raises "not inexact" for them). Use it wherever the dtype comes from the user."""
    finfo: Any = ml_dtypes.finfo  # (untyped)
    return finfo(dtype)


def is_integer(dtype: np.dtype[Any]) -> bool:
    """True for signed and unsigned integer dtypes (not bool)."""
    return dtype.kind in "iu"


def _supported(dtype: np.dtype[Any]) -> bool:
    """JAX's dtypes, and autodiff's ``float0`` (the tangent type of integer values)."""
    return dtype in _lattice.SUPPORTED_DTYPES or dtype.names == ("float0",)


def check_array_data(x: np.ndarray[Any, Any], api: str) -> None:
    """Refuse, where data enters mj, what JAX refuses: a masked array (its mask would be lost
    silently) and data of a non-numeric dtype (strings, objects, datetimes, ``float128``),
    which would otherwise become an array that fails later, far from the cause."""
    if isinstance(x, np.ma.MaskedArray):
        raise ValueError(
            "numpy masked arrays are not supported as direct inputs to mj functions. Use "
            f"arr.filled() to convert the value to a standard numpy array (in {api})."
        )
    if not _supported(x.dtype):
        shown = repr(x)
        if len(shown) > 60:
            shown = shown[:57] + "..."
        raise TypeError(
            f"{api}: value {shown} with dtype {x.dtype} is not a valid mj array type. Only "
            "arrays of numeric types (bool, integers, floats up to 64 bits, complex) are "
            "supported, as in JAX."
        )
