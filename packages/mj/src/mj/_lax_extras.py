"""More of ``jax.lax``'s public names, as compositions of mj's primitives: ``tile``, ``empty``,
``reduce_xor``, ``shape_as_value``, the enums ``RoundingMethod`` and ``AccuracyMode`` with
``Tolerance``, ``mul(..., out_dtype=)``, the ``accuracy=`` keyword of the transcendental
functions, and ``dynamic_slice`` / ``dynamic_update_slice`` with JAX's check of their start
indices' dtypes (mj-core's own callers mix index dtypes, which its primitives accept).

``accuracy=`` (JAX 0.10.2: ``cbrt``, ``cos``, ``exp``, ``exp2``, ``expm1``, ``log``,
``log1p``, ``logistic``, ``rsqrt``, ``sin``, ``sqrt``, ``tan``, ``tanh``) asks a TPU backend
for a more or less accurate kernel; XLA's CPU and GPU backends have one kernel each, and so
has mj: the keyword is accepted (an ``AccuracyMode`` or a ``Tolerance``, else ``TypeError``)
and the result is the function's usual value. The derivatives of ``expm1``, ``logistic`` and
``tanh`` follow JAX's ``AccuracyMode.HIGHEST`` forms (below), as JAX's rules do.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mj import _lax_checked as _checked
from mj_autodiff import custom_jvp
from mj_control import reduce as _reduce
from mj_core import lax
from mj_core.dtypes import canonical_dtype
from mj_core.errors import user_line_suffix
from mj_core.extend import Array, ArrayLike, DTypeLike, bind1, get_aval
from mj_core.prims.conversions import convert_element_type_p

__all__ = [
    "AccuracyMode",
    "RoundingMethod",
    "Tolerance",
    "cbrt",
    "cos",
    "dynamic_slice",
    "dynamic_update_slice",
    "empty",
    "exp",
    "exp2",
    "expm1",
    "log",
    "log1p",
    "logistic",
    "mul",
    "reduce_xor",
    "rsqrt",
    "shape_as_value",
    "sin",
    "sqrt",
    "tan",
    "tanh",
    "tile",
]


class RoundingMethod(enum.IntEnum):
    """``lax.round``'s ``rounding_method``: halves away from zero (0) or to even (1)."""

    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


class AccuracyMode(enum.Enum):
    """The ``accuracy=`` of the transcendental functions (a backend's kernel choice)."""

    HIGHEST = 1
    DEFAULT = 2


@dataclasses.dataclass(frozen=True)
class Tolerance:
    """An ``accuracy=`` given as tolerances (absolute, relative, units in the last place)."""

    atol: float = 0.0
    rtol: float = 0.0
    ulps: int = 0


def _with_accuracy(
    fn: Callable[[Any], Any], highest: Callable[[Any], Any] | None = None
) -> Callable[..., Any]:
    """``fn(x)`` taking JAX's ``accuracy=`` keyword (checked; see the module); ``highest`` is
    the function to use for ``AccuracyMode.HIGHEST`` where JAX's derivative differs then."""

    @functools.wraps(fn)
    def op(x: ArrayLike, *, accuracy: Tolerance | AccuracyMode | None = None) -> Array:
        if accuracy is not None and not isinstance(accuracy, Tolerance | AccuracyMode):
            raise TypeError(
                f"accuracy must be a Tolerance or AccuracyMode, got {type(accuracy).__name__}"
                f"{user_line_suffix()}"
            )
        if accuracy is AccuracyMode.HIGHEST and highest is not None:
            return highest(x)  # type: ignore[no-any-return]
        return fn(x)  # type: ignore[no-any-return]

    return op


# JAX's derivatives under AccuracyMode.HIGHEST: expm1' = exp (not expm1 + 1, which loses
# everything below float epsilon), logistic' = logistic(x) logistic(-x), tanh' =
# 4 logistic(2x) logistic(-2x) (both exactly even).


@custom_jvp
def _expm1_highest(x: Array) -> Array:
    return _checked.expm1(x)


@_expm1_highest.defjvp
def _expm1_highest_jvp(primals: tuple[Array], tangents: tuple[Array]) -> tuple[Array, Array]:
    (x,), (g,) = primals, tangents
    return _expm1_highest(x), lax.mul(g, lax.exp(x))


@custom_jvp
def _logistic_highest(x: Array) -> Array:
    return _checked.logistic(x)


@_logistic_highest.defjvp
def _logistic_highest_jvp(primals: tuple[Array], tangents: tuple[Array]) -> tuple[Array, Array]:
    (x,), (g,) = primals, tangents
    ans = _logistic_highest(x)
    return ans, lax.mul(g, lax.mul(ans, _logistic_highest(lax.neg(x))))


@custom_jvp
def _tanh_highest(x: Array) -> Array:
    return _checked.tanh(x)


@_tanh_highest.defjvp
def _tanh_highest_jvp(primals: tuple[Array], tangents: tuple[Array]) -> tuple[Array, Array]:
    (x,), (g,) = primals, tangents
    both = lax.mul(_logistic_highest(lax.mul(x, 2)), _logistic_highest(lax.mul(x, -2)))
    return _tanh_highest(x), lax.mul(g, lax.mul(both, 4))


cbrt = _with_accuracy(_checked.cbrt)
cos = _with_accuracy(_checked.cos)
exp = _with_accuracy(_checked.exp)
exp2 = _with_accuracy(_checked.exp2)
expm1 = _with_accuracy(_checked.expm1, _expm1_highest)
log = _with_accuracy(_checked.log)
log1p = _with_accuracy(_checked.log1p)
logistic = _with_accuracy(_checked.logistic, _logistic_highest)
rsqrt = _with_accuracy(_checked.rsqrt)
sin = _with_accuracy(_checked.sin)
sqrt = _with_accuracy(_checked.sqrt)
tan = _with_accuracy(_checked.tan)
tanh = _with_accuracy(_checked.tanh, _tanh_highest)


def _cast(x: ArrayLike, dtype: np.dtype[Any], weak: bool) -> Array:
    return bind1(convert_element_type_p, x, new_dtype=dtype, weak_type=weak)  # type: ignore[no-any-return]


@functools.wraps(_checked.mul)
def mul(x: ArrayLike, y: ArrayLike, *, out_dtype: DTypeLike | None = None) -> Array:
    """``x * y``; with ``out_dtype``, both operands converted to it first (as JAX's
    ``lax.mul``: any two numeric dtypes then, the result weak when both operands are)."""
    if out_dtype is None:
        return _checked.mul(x, y)
    dtype = canonical_dtype(out_dtype)  # (silently narrowed without x64, as JAX's)
    weak = bool(get_aval(x).weak_type and get_aval(y).weak_type)
    return _checked.mul(_cast(x, dtype, weak), _cast(y, dtype, weak))


def _check_start_indices(name: str, start_indices: Any, got: str) -> None:
    """JAX's check of ``dynamic_slice``'s and ``dynamic_update_slice``'s start indices: integers
    of one dtype (a Python int is of the default integer type, as in JAX)."""
    items = start_indices if isinstance(start_indices, Sequence) else [start_indices]
    dtypes = [np.dtype(get_aval(i).dtype) for i in items]
    if any(d != dtypes[0] or d.kind not in "iu" for d in dtypes):
        shown = ", ".join(d.name for d in dtypes)
        raise TypeError(
            f"index arguments to {name} must be integers of the same type, got{got} {shown}"
            f"{user_line_suffix()}"
        )


@functools.wraps(lax.dynamic_slice)
def dynamic_slice(
    operand: ArrayLike, start_indices: Sequence[ArrayLike], slice_sizes: Sequence[int]
) -> Array:
    _check_start_indices("dynamic_slice", start_indices, ":")
    return lax.dynamic_slice(operand, start_indices, slice_sizes)


@functools.wraps(lax.dynamic_update_slice)
def dynamic_update_slice(
    operand: ArrayLike, update: ArrayLike, start_indices: Sequence[ArrayLike]
) -> Array:
    _check_start_indices("dynamic_update_slice", start_indices, "")
    return lax.dynamic_update_slice(operand, update, start_indices)


def tile(operand: ArrayLike, reps: Sequence[int]) -> Array:
    """``operand`` repeated ``reps[i]`` times along each axis ``i`` (``np.tile`` with one
    repetition count per axis)."""
    reps = tuple(int(r) for r in reps)
    shape = get_aval(operand).shape
    if len(reps) != len(shape):
        raise TypeError(
            "reps length must be equal to the ndim of x, got "
            f"len(reps)={len(reps)} and x.ndim={len(shape)}.{user_line_suffix()}"
        )
    if any(r < 0 for r in reps):
        raise ValueError(f"tile: reps must be non-negative, got {reps}{user_line_suffix()}")
    interleaved = tuple(d for pair in zip(reps, shape, strict=True) for d in pair)
    spread = lax.broadcast_in_dim(operand, interleaved, tuple(range(1, 2 * len(shape), 2)))
    return lax.reshape(spread, tuple(r * d for r, d in zip(reps, shape, strict=True)))


def empty(shape: int | Sequence[int], dtype: DTypeLike, *, out_sharding: Any = None) -> Array:
    """An array of ``shape`` and ``dtype`` whose values are unspecified (zeros, as XLA's CPU and
    GPU backends give for JAX's ``lax.empty``). Without x64 a 64-bit ``dtype`` narrows to 32
    bits (JAX 0.10.2's ``empty`` keeps it: mj's arrays cannot hold one in that mode)."""
    dims = (shape,) if isinstance(shape, int) else tuple(shape)
    return lax.full(dims, 0, canonical_dtype(dtype))


def reduce_xor(operand: ArrayLike, axes: Sequence[int]) -> Array:
    """The bitwise exclusive or of ``operand``'s elements along ``axes`` (bool or integer)."""
    dtype = get_aval(operand).dtype
    if dtype.kind not in "biu":
        raise TypeError(
            f"logical reduction requires operand dtype bool or int, got {dtype.name}."
            f"{user_line_suffix()}"
        )
    return _reduce(operand, np.zeros((), dtype), _checked.bitwise_xor, tuple(axes))  # type: ignore[no-any-return]


def shape_as_value(shape: Sequence[int]) -> Array | np.ndarray[Any, Any]:
    """``shape`` as a 1-D integer array (int32, or int64 when a size needs it; mj's shapes
    are always constants, so this is a NumPy array, an empty shape an int32 ``Array``)."""
    dims = tuple(int(d) for d in shape)
    fits = all(d <= np.iinfo(np.int32).max for d in dims)
    dtype = np.dtype(np.int32 if fits else np.int64)  # (a NumPy array: int64 without x64 too)
    if not dims:
        return lax.full((0,), 0, dtype)
    return np.asarray(dims, dtype=dtype)
