"""Array creation: ``array``/``asarray``, ``zeros``/``ones``/``full`` (+ ``_like``), ``arange``,
``linspace``, ``eye``/``identity``.

Filled arrays are ``broadcast_in_dim`` of a scalar and ``arange``/``eye`` use ``iota``, as in
JAX, so inside ``make_jaxpr``/``jit`` they are staged as small primitives rather than baked in
as large constants. Defaults follow NumPy 2 (float64, int64).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import wraps
from typing import Any, ParamSpec, TypeVar

import numpy as np

from mj_core import lax
from mj_core._array_views import array_views, view_dtype
from mj_core._avals import ConcreteArray, is_array
from mj_core._eager_array import EagerArray, WeakEagerArray, eager_result, owned_data, weak_result
from mj_core._eager_dispatch import like_placements
from mj_core._shapes import canonicalize_axis, int_tuple
from mj_core._trace import Tracer
from mj_core._typing import Array, ArrayLike, DTypeLike
from mj_core.dtypes import (
    canonical_dtype,
    canonicalize_value,
    check_array_data,
    default_dtype_for_pytype,
    default_float_dtype,
    default_int_dtype,
    result_type,
)
from mj_core.errors import ConcretizationError, user_line_suffix
from mj_core.numpy._promotion import (
    _WEAK_PYTYPES,
    as_dtype,
    convert,
    dtype_weak,
    promoted_dtype,
    shape_of,
)
from mj_core.numpy._shape import broadcast_shapes, stack
from mj_core.prims.conversions import array_copy
from mj_core.prims.elementwise import to_inexact_dtype
from mj_core.prims.structural import fill_view

F = TypeVar("F", bound=Callable[..., Any])
_P = ParamSpec("_P")

__all__ = [
    "arange",
    "array",
    "asarray",
    "empty",
    "empty_like",
    "eye",
    "full",
    "full_like",
    "identity",
    "linspace",
    "ones",
    "ones_like",
    "zeros",
    "zeros_like",
]


_HOST = (np.ndarray, np.generic, int, float, complex, bool)


def eager_array_result(fun: Callable[_P, ArrayLike]) -> Callable[_P, Array]:
    """Creation functions return an :class:`EagerArray` eagerly, also where they build the
    data with NumPy directly (``np.array``, ``np.arange``) rather than through ``bind``: the
    decorated function returns any array-like, its wrapper an mj array."""
    return _eager_results(fun)


def eager_array_results(fun: F) -> F:
    """:func:`eager_array_result` for a function returning an array or a tuple of them."""
    return _eager_results(fun)  # type: ignore[return-value]


def _eager_results(fun: Callable[_P, Any]) -> Callable[_P, Any]:
    @wraps(fun)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> Any:
        out = fun(*args, **kwargs)
        # (a result that is or views a caller's array, an argument, is copied or left as it
        # is; any other is mj's own, made read-only)
        operands = (*args, *kwargs.values())
        if type(out) is tuple:
            return tuple(eager_result(o, operands) for o in out)
        if type(out) is WeakEagerArray:
            return out
        return eager_result(out, operands)

    return wrapper


def _contains_tracer(obj: object) -> bool:
    if isinstance(obj, Tracer) or type(obj) in array_views:  # (typed keys: stacked too)
        return True
    if isinstance(obj, list | tuple):
        return any(_contains_tracer(o) for o in obj)
    return False


@eager_array_result
def array(
    object: Any, dtype: DTypeLike | None = None, copy: bool | None = True, ndmin: int = 0
) -> ArrayLike:
    """An array from array-likes or (nested) sequences, which may hold traced values."""
    dt = as_dtype(dtype, "array")
    out: ArrayLike
    if isinstance(object, list | tuple) and _contains_tracer(object):
        # each element converted to the sequence's dtype, a strong type (as JAX's: a list of
        # weak traced values is not weak), and not copied
        elt_dt = dt if dt is not None else _sequence_dtype(object)
        out = stack([array(o, elt_dt, copy=False) for o in object])
    elif isinstance(object, Tracer):
        # a copy, as JAX's: the staged ``copy`` (a new value, of the tracer's type), before
        # any conversion
        out = array_copy(object) if copy else object
    elif is_array(object) and not isinstance(object, _HOST):
        out = object  # a higher layer's array (e.g. a device array)
    elif type(object) is WeakEagerArray and dt is None:
        out = object  # stays weak, as in JAX
    elif type(object) in array_views:  # typed keys: a key array (a copy for array)
        view = array_views[type(object)]
        out = view.wrap(object.dtype, array(view.data(object), copy=copy))
    else:
        host_dt = dt
        if dt is None and isinstance(object, list | tuple):
            host_dt = _sequence_dtype(object)
        out = _host_data(object, host_dt, "array")
        if dt is None and (
            type(object) in _WEAK_PYTYPES
            or (  # a subclass (an IntEnum member), not NumPy's float64 / complex128, nor bool
                isinstance(object, _WEAK_PYTYPES) and not isinstance(object, bool | np.generic)
            )
        ):
            out = weak_result(out)  # weakly typed, as JAX's (a weak value stays weak too)
    if dt is not None:
        out = convert(out, dt)
    nd = len(shape_of(out))
    if nd < ndmin:
        out = lax.reshape(out, (1,) * (ndmin - nd) + shape_of(out))
    return out


@eager_array_result
def asarray(a: object, dtype: DTypeLike | None = None, copy: bool | None = None) -> ArrayLike:
    """Like :func:`array` but without copying NumPy input."""
    dt = as_dtype(dtype, "asarray")
    if type(a) is EagerArray and (dt is None or dt == a.dtype):
        return a
    if type(a) is np.ndarray:
        return _host_data(a, dt, "asarray")
    return array(a, dt, copy=copy)


def _sequence_dtype(seq: list[Any] | tuple[Any, ...]) -> np.dtype[Any] | None:
    """The dtype of ``array(seq)``: its leaves' result on JAX's lattice, as JAX's ``array``
    (``[0, np.float16(1)]`` is float16, ``[1, np.int8(2)]`` int8; strict promotion refuses
    what it refuses), not NumPy's (which reads Python numbers as 64-bit). ``None`` where a
    leaf is no number or array (the caller refuses it) or there are none (the default)."""
    pairs: set[tuple[np.dtype[Any], bool]] = set()
    todo: list[Any] = [seq]
    while todo:
        item = todo.pop()
        t = type(item)
        if t is list or t is tuple:
            todo.extend(item)
        elif t is bool:
            pairs.add((np.dtype(np.bool_), False))
        elif t in _WEAK_PYTYPES:
            pairs.add((default_dtype_for_pytype(t), True))
        elif t is EagerArray or t is WeakEagerArray:
            pairs.add(dtype_weak(item))
        elif isinstance(item, np.ndarray | np.generic):
            if item.dtype.kind not in "biufcV" or item.dtype.names is not None:
                return None
            pairs.add((canonical_dtype(item.dtype), False))
        elif isinstance(item, list | tuple):
            todo.extend(item)
        elif is_array(item) and t not in array_views:
            pairs.add(dtype_weak(item))
        else:
            return None
    if not pairs:
        return None
    return result_type(*pairs)[0]


def _host_data(obj: object, dtype: np.dtype[Any] | None, api: str) -> np.ndarray[Any, Any]:
    """Host data as the array mj keeps: numeric, of a canonical dtype, and owned
    (:func:`~mj_core._eager_array.owned_data`)."""
    if isinstance(obj, np.ndarray):
        check_array_data(obj, api)  # a masked array before np.array drops its mask
    try:
        out = np.asarray(obj, dtype)
    except TypeError:
        # ml_dtypes' types (bfloat16, float8) take numbers from a sequence, not the objects
        # with ``__array__`` (device arrays) NumPy's own dtypes read: read them, then cast
        if dtype is None or dtype.kind != "V":
            raise
        out = np.asarray(obj).astype(dtype)
    if out.dtype == object:
        _refuse_objects(obj, api)
    check_array_data(out, api)
    if not isinstance(obj, np.ndarray | np.generic) and out.dtype.kind in "iu":
        _check_python_ints_fit(out, api)
    out = canonicalize_value(out)
    return owned_data(out) if out is obj else out


def _refuse_objects(obj: object, api: str) -> None:
    """Data NumPy could only hold as Python objects, refused with JAX's classes: an int beyond
    64 bits is an ``OverflowError``, ``None`` a ``ValueError``, anything else (a ``Fraction``)
    a ``TypeError``."""
    for item in np.asarray(obj, object).flat:
        if item is None:  # JAX's class for this one
            raise ValueError(f"None is not a valid value for jnp.array ({api} of {obj!r})")
        if type(item) is int and not -(2**63) <= item < 2**64:
            raise OverflowError(
                f"{api}: Python int {item} is too large to convert to "
                f"{default_int_dtype().name}{user_line_suffix()}"
            )
    raise TypeError(
        f"{api}: {obj!r} is not a valid mj array value: only numbers and bools (and arrays of "
        "them) are supported, as in JAX."
    )


def _check_python_ints_fit(out: np.ndarray[Any, Any], api: str) -> None:
    """Python ints become the default int type: one that does not fit is an
    ``OverflowError`` (as in JAX), not a value wrapped around silently."""
    target = canonical_dtype(out.dtype)
    if target == out.dtype or out.size == 0:
        return
    info = np.iinfo(target)
    for bound in (out.min(), out.max()):
        if not info.min <= bound <= info.max:
            raise OverflowError(
                f"{api}: Python int {bound} is too large to convert to {target.name}"
                f"{user_line_suffix()}"
            )


def _shape_tuple(shape: int | Sequence[int]) -> tuple[int, ...]:
    """``shape`` as a tuple of ints; JAX's ``TypeError`` for anything else (floats, traced
    values)."""
    try:
        return int_tuple("mj.numpy", "shape", shape)
    except TypeError:  # (a ConcretizationError too)
        given = tuple(shape) if isinstance(shape, tuple | list) else (shape,)
        raise TypeError(
            f"Shapes must be 1D sequences of concrete values of integer type, got {given}.\n"
            "If using `jit`, try using `static_argnums` or applying `jit` to smaller "
            f"subfunctions.{user_line_suffix()}"
        ) from None


concrete_shape = _shape_tuple


@eager_array_result
def full(
    shape: int | Sequence[int], fill_value: ArrayLike, dtype: DTypeLike | None = None
) -> ArrayLike:
    """An array of ``shape`` filled with ``fill_value`` (broadcast if it is an array); weakly
    typed if ``fill_value`` is and no ``dtype`` is given, as in JAX."""
    dt, weak = as_dtype(dtype, "full"), False
    if dt is None:
        dt, weak = dtype_weak(fill_value)
    return _full(shape, fill_value, dt, weak)


def _full(
    shape: int | Sequence[int], fill_value: ArrayLike, dt: np.dtype[Any], weak: bool
) -> ArrayLike:
    shape_t = _shape_tuple(shape)
    try:
        value = convert(fill_value, dt, weak)
    except TypeError:
        view = view_dtype(dt)
        if view is None:
            raise
        value = fill_view(view, dt, fill_value)  # typed keys: over data filled with it
    if type(value) in _WEAK_PYTYPES:  # a weak Python scalar: an array, still weak
        value = array(value)
    vshape = shape_of(value)
    return lax.broadcast_in_dim(
        value, shape_t, tuple(range(len(shape_t) - len(vshape), len(shape_t)))
    )


@eager_array_result
def zeros(shape: int | Sequence[int], dtype: DTypeLike | None = None) -> ArrayLike:
    return full(shape, 0, default_float_dtype() if dtype is None else as_dtype(dtype, "zeros"))


@eager_array_result
def ones(shape: int | Sequence[int], dtype: DTypeLike | None = None) -> ArrayLike:
    return full(shape, 1, default_float_dtype() if dtype is None else as_dtype(dtype, "ones"))


empty = zeros


@eager_array_result
def full_like(
    a: ArrayLike,
    fill_value: ArrayLike,
    dtype: DTypeLike | None = None,
    shape: int | Sequence[int] | None = None,
) -> ArrayLike:
    try:
        dt, weak = dtype_weak(a)  # weakly typed like ``a`` unless a dtype is given, as in JAX
        a_shape: Sequence[int] = shape_of(a)
    except TypeError:
        # duck-typed as in JAX: anything with ``shape`` and ``dtype`` (a ShapeDtypeStruct)
        if not (hasattr(a, "shape") and hasattr(a, "dtype")):
            raise
        dt, weak = np.dtype(a.dtype), getattr(a, "weak_type", False) is True
        a_shape = tuple(a.shape)
    given = as_dtype(dtype, "full_like")
    if given is not None:
        dt, weak = given, False
    out = _full(a_shape if shape is None else shape, fill_value, dt, weak)
    place = like_placements.get(type(a)) if shape is None else None
    if place is not None and not isinstance(out, Tracer):  # laid out as ``a`` (JAX's rule)
        placed: ArrayLike = place(out, a)
        return placed
    return out


@eager_array_result
def zeros_like(
    a: ArrayLike, dtype: DTypeLike | None = None, shape: int | Sequence[int] | None = None
) -> ArrayLike:
    return full_like(a, 0, dtype, shape)


@eager_array_result
def ones_like(
    a: ArrayLike, dtype: DTypeLike | None = None, shape: int | Sequence[int] | None = None
) -> ArrayLike:
    return full_like(a, 1, dtype, shape)


empty_like = zeros_like


_BOUNDS = ("start", "stop", "step")


def _concrete(fun_name: str, name: str, v: ArrayLike) -> Any:
    """``v``'s value if it is known now (a tracer's concrete value, under jvp), else a
    ConcretizationError: the result's length must be known while tracing."""
    if not isinstance(v, Tracer):
        return v
    aval = v.aval
    if isinstance(aval, ConcreteArray):
        return aval.val.item() if np.ndim(aval.val) == 0 else aval.val
    raise ConcretizationError(
        f"{fun_name}: {name} must be a concrete number, got a traced {aval.str_short()} "
        f"value{user_line_suffix()}; the length of the result must be known while tracing "
        "(pass it as a Python number, or mark the argument static with static_argnums)"
    )


@eager_array_result
def arange(
    start: Any, stop: Any = None, step: Any = None, dtype: DTypeLike | None = None
) -> ArrayLike:
    """Evenly spaced values in ``[start, stop)``; bounds must be concrete (static) numbers."""
    dt = as_dtype(dtype, "arange")
    if stop is None and step is None:
        start, stop, step = 0, start, 1
    elif step is None:
        step = 1
    start, stop, step = (
        _concrete("arange", n, v) for n, v in zip(_BOUNDS, (start, stop, step), strict=True)
    )
    if any(np.iscomplexobj(v) for v in (start, stop, step)):  # (a complex dtype= is fine)
        raise ValueError(
            "Passing complex start/stop/step to jnp.arange is no longer supported starting in "
            f"JAX v0.10.0.{user_line_suffix()}"
        )
    if dt is None:
        dt = np.result_type(*(np.asarray(v).dtype for v in (start, stop, step)))
        dt = default_int_dtype() if dt.kind in "iub" else canonical_dtype(dt)
    length = max(math.ceil((float(stop) - float(start)) / float(step)), 0)
    if (
        dt.kind in "iu"
        and isinstance(start, int | np.integer)
        and isinstance(step, int | np.integer)
    ):
        out = lax.iota(dt, length)
        if step != 1:
            out = lax.mul(out, convert(int(step), dt))
        return out if start == 0 else lax.add(out, convert(int(start), dt))
    return np.arange(start, stop, step, dtype=dt)


@eager_array_results
def linspace(
    start: ArrayLike,
    stop: ArrayLike,
    num: int = 50,
    endpoint: bool = True,
    retstep: bool = False,
    dtype: DTypeLike | None = None,
    axis: int = 0,
) -> Any:
    """``num`` evenly spaced samples from ``start`` to ``stop`` (``stop`` excluded unless
    ``endpoint``); ``start``/``stop`` may be traced."""
    num = int(num)
    if num < 0:
        raise ValueError(f"linspace: number of samples must be non-negative, got {num}")
    dt = as_dtype(dtype, "linspace")
    if dt is None:
        dt = canonical_dtype(to_inexact_dtype(promoted_dtype(start, stop)[0]))
    # JAX's formula, start * (1 - t) + stop * t with t = i / div in the computation dtype
    # (the inexact dtype of the result's): its values to the last bit, both ends exact
    comp = canonical_dtype(to_inexact_dtype(dt))
    start_c, stop_c = convert(start, comp), convert(stop, comp)
    bounds = broadcast_shapes(shape_of(start_c), shape_of(stop_c))
    start_c, stop_c = (
        lax.broadcast_in_dim(x, bounds, tuple(range(len(bounds) - len(shape_of(x)), len(bounds))))
        for x in (start_c, stop_c)
    )
    ndim = len(bounds) + 1
    axis = canonicalize_axis("linspace", axis, ndim)
    bound_dims = tuple(d for d in range(ndim) if d != axis)
    div = (num - 1) if endpoint else num
    out: ArrayLike
    delta: ArrayLike
    if num > 1:
        delta = lax.div(lax.sub(stop_c, start_c), convert(div, comp))
        samples = (*bounds[:axis], div, *bounds[axis:])
        real = np.dtype(np.finfo(comp).dtype) if comp.kind == "c" else comp
        t = lax.div(lax.broadcasted_iota(real, samples, axis), convert(div, real))
        t = convert(t, comp)
        lo, hi = (lax.broadcast_in_dim(x, samples, bound_dims) for x in (start_c, stop_c))
        out = lax.add(lax.mul(lo, lax.sub(convert(1, comp), t)), lax.mul(hi, t))
        if endpoint:
            last = lax.broadcast_in_dim(stop_c, (*bounds[:axis], 1, *bounds[axis:]), bound_dims)
            out = lax.concatenate([out, last], axis)
    elif num == 1:
        delta = convert(np.nan, comp) if endpoint else lax.sub(stop_c, start_c)
        out = lax.broadcast_in_dim(start_c, (*bounds[:axis], 1, *bounds[axis:]), bound_dims)
    else:
        delta = convert(np.nan, comp)
        out = lax.full((*bounds[:axis], 0, *bounds[axis:]), 0, comp)
    if dt.kind in "iu":
        out = lax.floor(out)
    out = convert(out, dt)
    return (out, delta) if retstep else out


@eager_array_result
def eye(
    N: int,  # noqa: N803
    M: int | None = None,  # noqa: N803
    k: int | ArrayLike = 0,
    dtype: DTypeLike | None = None,
) -> ArrayLike:
    """A 2-d array with ones on the ``k``-th diagonal (``k`` may be traced)."""
    shape = _shape_tuple((N, N if M is None else M))
    rows = lax.broadcasted_iota(np.int32, shape, 0)
    cols = lax.broadcasted_iota(np.int32, shape, 1)
    dt = as_dtype(dtype, "eye") or default_float_dtype()
    if isinstance(k, Tracer):  # a traced diagonal offset, as JAX allows
        traced = lax.broadcast_in_dim(convert(k, np.dtype(np.int32)), shape, ())
        return convert(lax.eq(lax.add(rows, traced), cols), dt)
    offset = max(-shape[0], min(shape[1], int(k)))  # type: ignore[arg-type]  # (past: no ones)
    return convert(lax.eq(lax.add(rows, offset), cols), dt)


@eager_array_result
def identity(n: int, dtype: DTypeLike | None = None) -> ArrayLike:
    return eye(n, dtype=dtype)
