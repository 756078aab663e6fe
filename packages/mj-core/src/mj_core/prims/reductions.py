"""Reductions over axes (``reduce_*``, ``argmax``/``argmin``) and cumulative scans
(``cumsum``/``cumprod``/``cummax``/``cummin``).

Results keep the operand dtype (NumPy would widen ``int32`` sums to ``int64``; XLA does not),
and ``reduce_max``/``reduce_min`` of an empty axis give the reduction's identity (``-inf`` /
``+inf`` or the integer limits) as XLA does, instead of NumPy's error.

The lax wrappers follow the rules: one per primitive (axes canonicalised) and
``jax.lax.reduce``, which recognises a monoid (``lax.add`` with init 0, ...) and binds its
primitive; the monoid helpers are shared with ``reduce_window`` (:mod:`.windowed`).
``__all__`` is the family's primitives and lax API.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np

from mj_core._avals import ShapedArray, get_aval, raise_to_shaped
from mj_core._lattice import kind
from mj_core._primitive import Primitive, abstract_eval_rules, impl_rules
from mj_core._shapes import aval_error, canonicalize_axes, canonicalize_axis, shape_of
from mj_core._trace import Tracer
from mj_core._typing import Array, ArrayLike
from mj_core.errors import user_line_suffix
from mj_core.prims._operands import bind1, check_axes, check_operands
from mj_core.prims.elementwise import (
    add,
    bitwise_and,
    bitwise_or,
    lexicographic_pick,
    mul,
)
from mj_core.prims.elementwise import max as lax_max
from mj_core.prims.elementwise import min as lax_min
from mj_core.tree_util import tree_flatten

__all__ = [
    "argmax",
    "argmax_p",
    "argmin",
    "argmin_p",
    "cummax",
    "cummax_p",
    "cummin",
    "cummin_p",
    "cumprod",
    "cumprod_p",
    "cumsum",
    "cumsum_p",
    "reduce",
    "reduce_and",
    "reduce_and_p",
    "reduce_max",
    "reduce_max_p",
    "reduce_min",
    "reduce_min_p",
    "reduce_or",
    "reduce_or_p",
    "reduce_prod",
    "reduce_prod_p",
    "reduce_sum",
    "reduce_sum_p",
]

_KIND_NAMES = {"b": "bool", "i": "int", "u": "uint", "f": "float", "c": "complex"}


def _check_kind(prim_name: str, x: ShapedArray, kinds: str) -> None:
    if kind(x.dtype) not in kinds:
        allowed = "/".join(_KIND_NAMES[k] for k in kinds)
        raise aval_error(prim_name, f"requires a {allowed} operand", [x])


def reduction_identity(name: str, dtype: np.dtype[Any]) -> Any:
    """The identity element of ``reduce_<name>`` (``max``/``min``/``sum``/...) for ``dtype``."""
    if name in ("max", "min"):
        big = name == "min"
        if dtype.kind == "b":
            return np.array(big, dtype)
        if dtype.kind in "iu":
            info = np.iinfo(dtype)
            return np.array(info.max if big else info.min, dtype)
        return np.array(np.inf if big else -np.inf, dtype)
    value = {"sum": 0, "prod": 1, "or": 0, "and": -1}[name]
    if dtype.kind == "b":
        return np.array(name == "and", dtype)
    if dtype.kind == "u" and value == -1:
        return np.array(np.iinfo(dtype).max, dtype)
    return np.array(value, dtype)


def _define_reduction(name: str, kinds: str, compute: Callable[..., Any]) -> Primitive:
    prim = Primitive(f"reduce_{name}")

    def out_avals(x: ShapedArray, *, axes: tuple[int, ...]) -> list[ShapedArray]:
        _check_kind(prim.name, x, kinds)
        dims = check_axes(prim.name, axes, x.ndim, [x])
        shape = tuple(s for i, s in enumerate(x.shape) if i not in dims)
        return [ShapedArray(shape, x.dtype, x.weak_type)]

    def impl(x: ArrayLike, *, axes: tuple[int, ...]) -> list[Any]:
        (out,) = check_operands(prim, (x,), {"axes": axes})
        return [compute(np.asarray(x), tuple(axes), out.dtype)]

    out_avals.__name__ = f"_reduce_{name}_avals"
    impl.__name__ = f"_reduce_{name}_impl"
    abstract_eval_rules[prim] = out_avals
    impl_rules[prim] = impl
    return prim


# The ufuncs' own ``reduce``: ``np.sum`` & co. only forward to it, through ~2 us of Python.


def _sum(x: np.ndarray[Any, Any], axes: tuple[int, ...], dtype: np.dtype[Any]) -> Any:
    return np.add.reduce(x, axes, dtype)


def _prod(x: np.ndarray[Any, Any], axes: tuple[int, ...], dtype: np.dtype[Any]) -> Any:
    return np.multiply.reduce(x, axes, dtype)


def _max(x: np.ndarray[Any, Any], axes: tuple[int, ...], dtype: np.dtype[Any]) -> Any:
    return np.maximum.reduce(x, axes, initial=reduction_identity("max", dtype))


def _min(x: np.ndarray[Any, Any], axes: tuple[int, ...], dtype: np.dtype[Any]) -> Any:
    return np.minimum.reduce(x, axes, initial=reduction_identity("min", dtype))


def _complex_fold(greater: bool) -> Callable[..., Any]:
    """max/min of complex numbers as XLA folds them (see ``lexicographic_pick``): one step
    per element of the reduced axes, in order, from the identity."""

    def fold(x: np.ndarray[Any, Any], axes: tuple[int, ...], dtype: np.dtype[Any]) -> Any:
        kept = [i for i in range(x.ndim) if i not in axes]
        rows = np.transpose(x, (*kept, *axes)).reshape(*(x.shape[i] for i in kept), -1)
        identity = reduction_identity("max" if greater else "min", dtype)
        acc = np.broadcast_to(identity, rows.shape[:-1])
        for k in range(rows.shape[-1]):
            acc = lexicographic_pick(acc, rows[..., k], greater)
        return np.asarray(acc, dtype)

    return fold


def _extremum(real: Callable[..., Any], greater: bool) -> Callable[..., Any]:
    fold = _complex_fold(greater)

    def compute(x: np.ndarray[Any, Any], axes: tuple[int, ...], dtype: np.dtype[Any]) -> Any:
        return (fold if dtype.kind == "c" else real)(x, axes, dtype)

    return compute


def _and(x: np.ndarray[Any, Any], axes: tuple[int, ...], dtype: np.dtype[Any]) -> Any:
    if dtype.kind == "b":
        return np.all(x, axis=axes)
    return np.bitwise_and.reduce(x, axis=axes, initial=reduction_identity("and", dtype))


def _or(x: np.ndarray[Any, Any], axes: tuple[int, ...], dtype: np.dtype[Any]) -> Any:
    if dtype.kind == "b":
        return np.any(x, axis=axes)
    return np.bitwise_or.reduce(x, axis=axes, initial=reduction_identity("or", dtype))


reduce_sum_p = _define_reduction("sum", "iufc", _sum)
reduce_prod_p = _define_reduction("prod", "iufc", _prod)
reduce_max_p = _define_reduction("max", "biufc", _extremum(_max, greater=True))
reduce_min_p = _define_reduction("min", "biufc", _extremum(_min, greater=False))
reduce_and_p = _define_reduction("and", "biu", _and)
reduce_or_p = _define_reduction("or", "biu", _or)


# --- argmax / argmin --------------------------------------------------------------------------
def _define_arg_reduction(name: str, compute: Callable[..., Any]) -> Primitive:
    prim = Primitive(name)

    def out_avals(
        x: ShapedArray, *, axes: tuple[int, ...], index_dtype: np.dtype[Any]
    ) -> list[ShapedArray]:
        _check_kind(name, x, "biuf")
        if len(axes) != 1:
            raise aval_error(name, f"axes must hold exactly one axis, got {tuple(axes)}", [x])
        (axis,) = check_axes(name, axes, x.ndim, [x])
        if x.shape[axis] == 0:
            raise aval_error(
                name,
                f"argmin and argmax require non-empty reduced dimension, got the empty axis {axis}",
                [x],
            )
        idx = np.dtype(index_dtype)
        if idx.kind not in "iu":
            raise aval_error(name, f"index_dtype must be an integer type, got {idx.name}", [x])
        shape = tuple(s for i, s in enumerate(x.shape) if i != axis)
        return [ShapedArray(shape, idx)]

    def impl(x: ArrayLike, *, axes: tuple[int, ...], index_dtype: np.dtype[Any]) -> list[Any]:
        (out,) = check_operands(prim, (x,), {"axes": axes, "index_dtype": index_dtype})
        return [np.asarray(compute(x, axis=axes[0]), out.dtype)]

    out_avals.__name__ = f"_{name}_avals"
    impl.__name__ = f"_{name}_impl"
    abstract_eval_rules[prim] = out_avals
    impl_rules[prim] = impl
    return prim


argmax_p = _define_arg_reduction("argmax", np.argmax)
argmin_p = _define_arg_reduction("argmin", np.argmin)


# --- cumulative reductions --------------------------------------------------------------------
def _define_cumulative(name: str, kinds: str, compute: Callable[..., Any]) -> Primitive:
    prim = Primitive(name)

    def out_avals(x: ShapedArray, *, axis: int, reverse: bool) -> list[ShapedArray]:
        _check_kind(name, x, kinds)
        check_axes(name, (axis,), x.ndim, [x])
        return [raise_to_shaped(x)]

    def impl(x: ArrayLike, *, axis: int, reverse: bool) -> list[Any]:
        (out,) = check_operands(prim, (x,), {"axis": axis, "reverse": reverse})
        arr = np.asarray(x)
        if reverse:
            return [np.flip(compute(np.flip(arr, axis), axis, out.dtype), axis)]
        return [compute(arr, axis, out.dtype)]

    out_avals.__name__ = f"_{name}_avals"
    impl.__name__ = f"_{name}_impl"
    abstract_eval_rules[prim] = out_avals
    impl_rules[prim] = impl
    return prim


def _cumsum(x: np.ndarray[Any, Any], axis: int, dtype: np.dtype[Any]) -> Any:
    """NumPy's cumsum; floats then get XLA's ``0 + ...``: a running sum of -0.0 only is +0.0
    (XLA's window starts from the identity 0)."""
    out = np.cumsum(x, axis=axis, dtype=dtype)
    return out + np.zeros((), dtype) if kind(dtype) in "fc" else out


def _cumprod(x: np.ndarray[Any, Any], axis: int, dtype: np.dtype[Any]) -> Any:
    """NumPy's cumprod; complex numbers start from XLA's identity ``(1+0j) * x[0]``, which
    gives the zero parts of the first factor XLA's signs."""
    if dtype.kind == "c" and x.shape[axis]:
        x = np.array(x, dtype)
        first = np.take(x, [0], axis=axis)
        np.put_along_axis(x, np.zeros_like(first, np.intp), np.ones((), dtype) * first, axis)
    return np.cumprod(x, axis=axis, dtype=dtype)


def _cumulative_extremum(ufunc: np.ufunc, greater: bool) -> Callable[..., Any]:
    """cummax/cummin: NumPy's accumulate, or for complex numbers XLA's running
    ``lexicographic_pick`` (the previous result, first the identity, against each element)."""

    def compute(x: np.ndarray[Any, Any], axis: int, dtype: np.dtype[Any]) -> Any:
        if dtype.kind != "c":
            return ufunc.accumulate(x, axis=axis, dtype=dtype)
        out = np.moveaxis(np.array(x, dtype), axis, -1)
        prev = reduction_identity("max" if greater else "min", dtype)
        for k in range(out.shape[-1]):
            out[..., k] = prev = lexicographic_pick(prev, out[..., k], greater)
        return np.moveaxis(out, -1, axis)

    return compute


cumsum_p = _define_cumulative("cumsum", "iufc", _cumsum)
cumprod_p = _define_cumulative("cumprod", "iufc", _cumprod)
cummax_p = _define_cumulative("cummax", "biufc", _cumulative_extremum(np.maximum, True))
cummin_p = _define_cumulative("cummin", "biufc", _cumulative_extremum(np.minimum, False))


# --- lax wrappers ----------------------------------------------------------------------------
def _reduce(prim: Any, operand: ArrayLike, axes: Sequence[int]) -> Array:
    dims = canonicalize_axes(prim.name, axes, len(shape_of(operand)))
    return bind1(prim, operand, axes=tuple(sorted(dims)))


def reduce_sum(operand: ArrayLike, axes: Sequence[int]) -> Array:
    """Sum over ``axes``."""
    return _reduce(reduce_sum_p, operand, axes)


def reduce_prod(operand: ArrayLike, axes: Sequence[int]) -> Array:
    """Product over ``axes``."""
    return _reduce(reduce_prod_p, operand, axes)


def reduce_max(operand: ArrayLike, axes: Sequence[int]) -> Array:
    """Maximum over ``axes``."""
    return _reduce(reduce_max_p, operand, axes)


def reduce_min(operand: ArrayLike, axes: Sequence[int]) -> Array:
    """Minimum over ``axes``."""
    return _reduce(reduce_min_p, operand, axes)


def reduce_and(operand: ArrayLike, axes: Sequence[int]) -> Array:
    """Logical/bitwise AND over ``axes``."""
    return _reduce(reduce_and_p, operand, axes)


def reduce_or(operand: ArrayLike, axes: Sequence[int]) -> Array:
    """Logical/bitwise OR over ``axes``."""
    return _reduce(reduce_or_p, operand, axes)


def _arg_axis(name: str, operand: ArrayLike, axis: int) -> int:
    """``axis`` of lax's argmax/argmin: in ``[0, rank)``, a negative one refused (JAX's
    ``ValueError``; ``jnp.argmax`` is the one that counts from the end)."""
    shape = shape_of(operand)
    try:
        index = operator.index(axis)
    except TypeError:
        index = canonicalize_axis(name, axis, len(shape))  # (its error for a non-integer)
    if not 0 <= index < len(shape):
        raise ValueError(f"Invalid axis {index} for operand shape {shape}{user_line_suffix()}")
    return index


def argmax(operand: ArrayLike, axis: int, index_dtype: Any) -> Array:
    """Index of the first maximum along ``axis`` (NaN counts as the maximum)."""
    axis = _arg_axis("argmax", operand, axis)
    return bind1(argmax_p, operand, axes=(axis,), index_dtype=np.dtype(index_dtype))


def argmin(operand: ArrayLike, axis: int, index_dtype: Any) -> Array:
    """Index of the first minimum along ``axis`` (NaN counts as the minimum)."""
    axis = _arg_axis("argmin", operand, axis)
    return bind1(argmin_p, operand, axes=(axis,), index_dtype=np.dtype(index_dtype))


def _cumulative(prim: Any, operand: ArrayLike, axis: int, reverse: bool) -> Array:
    axis = canonicalize_axis(prim.name, axis, len(shape_of(operand)))
    return bind1(prim, operand, axis=axis, reverse=bool(reverse))


def cumsum(operand: ArrayLike, axis: int = 0, reverse: bool = False) -> Array:
    """Cumulative sum along ``axis`` (from the end if ``reverse``)."""
    return _cumulative(cumsum_p, operand, axis, reverse)


def cumprod(operand: ArrayLike, axis: int = 0, reverse: bool = False) -> Array:
    """Cumulative product along ``axis`` (from the end if ``reverse``)."""
    return _cumulative(cumprod_p, operand, axis, reverse)


def cummax(operand: ArrayLike, axis: int = 0, reverse: bool = False) -> Array:
    """Cumulative maximum along ``axis`` (from the end if ``reverse``)."""
    return _cumulative(cummax_p, operand, axis, reverse)


def cummin(operand: ArrayLike, axis: int = 0, reverse: bool = False) -> Array:
    """Cumulative minimum along ``axis`` (from the end if ``reverse``)."""
    return _cumulative(cummin_p, operand, axis, reverse)


# --- jax.lax.reduce: a monoid given as a computation and an init value -----------------------
_MONOIDS: dict[Callable[..., Any], tuple[str, Callable[[ArrayLike, Sequence[int]], Array]]] = {
    add: ("sum", reduce_sum),
    mul: ("prod", reduce_prod),
    lax_max: ("max", reduce_max),
    lax_min: ("min", reduce_min),
    bitwise_and: ("and", reduce_and),
    bitwise_or: ("or", reduce_or),
}
_BITWISE = ("and", "or")


def int_sequence(name: str, what: str, values: Sequence[int]) -> tuple[int, ...]:
    """``values`` as a tuple of ints; a ``TypeError`` naming ``name`` and ``what`` otherwise."""
    try:
        return tuple(operator.index(v) for v in values)
    except TypeError as err:
        raise TypeError(
            f"{name}: {what} must be a sequence of integers, got {values!r}{user_line_suffix()}"
        ) from err


def is_identity(init: ArrayLike, name: str, operand: ArrayLike) -> bool:
    """Whether ``init`` is a concrete scalar equal to reduction ``name``'s identity in the
    operand's dtype (so a Python int works as an ``int32`` limit)."""
    if isinstance(init, Tracer):
        return False
    value = np.asarray(init)
    if value.shape != ():
        return False
    dtype = get_aval(operand).dtype
    if name in _BITWISE and (dtype.kind not in "biu" or value.dtype.kind not in "biu"):
        return False
    return bool(np.equal(value, reduction_identity(name, dtype)))


def single_operand(api: str, operands: ArrayLike, init_values: object) -> tuple[Array, Array]:
    """The one operand and init value of a reduction given as pytrees (mj's monoid reductions
    take one operand), or the error saying what differs."""
    flat_ops, op_tree = tree_flatten(operands)
    flat_inits, init_tree = tree_flatten(init_values)
    if op_tree != init_tree:
        raise ValueError(
            f"{api}: Operands must have the same tree structure as init_values, got "
            f"{op_tree} and {init_tree}{user_line_suffix()}"
        )
    if len(flat_ops) != 1:
        raise NotImplementedError(
            f"{api}: mj supports one operand (a monoid reduction), got {len(flat_ops)}"
            f"{user_line_suffix()}"
        )
    return flat_ops[0], flat_inits[0]


def unsupported_monoid(api: str, supported: str, computation: object, init: ArrayLike) -> Exception:
    """The error for a computation or init value that is not a supported monoid's."""
    return NotImplementedError(
        f"{api}: mj supports only the monoid reductions {supported} with the monoid's identity "
        f"as a concrete scalar init_value, got computation={computation!r} and "
        f"init_value={init!r}{user_line_suffix()}"
    )


def reduce(
    operands: Any,
    init_values: Any,
    computation: Callable[[ArrayLike, ArrayLike], ArrayLike],
    dimensions: Sequence[int],
) -> Array:
    """Reduce ``operands`` over ``dimensions`` with ``computation`` (``jax.lax.reduce``):
    ``lax.add``/``lax.mul``/``lax.max``/``lax.min`` and, on bool or integer operands,
    ``lax.bitwise_and``/``lax.bitwise_or``, each with its identity as init."""
    x, init = single_operand("reduce", operands, init_values)
    reducer = monoid_reducer(computation, init, x)
    if reducer is None:
        raise unsupported_monoid(
            "reduce",
            "lax.add, lax.mul, lax.max, lax.min, lax.bitwise_and and lax.bitwise_or",
            computation,
            init_values,
        )
    return reducer(x, int_sequence("reduce", "dimensions", dimensions))


_M = TypeVar("_M")


def lookup_monoid(table: Mapping[Any, _M], computation: object) -> _M | None:
    """``table``'s entry for ``computation`` or for any function it wraps (``__wrapped__``):
    ``mj.lax.mul`` wraps an ``out_dtype`` layer around the checked ``mul``, which wraps the eager
    wrapper, which wraps mj_core's ``mul``."""
    seen = 0
    while computation is not None and seen < 16:  # (a bounded walk: __wrapped__ may cycle)
        try:
            entry = table.get(computation)
        except TypeError:  # an unhashable callable
            return None
        if entry is not None:
            return entry
        computation = getattr(computation, "__wrapped__", None)
        seen += 1
    return None


def monoid_reducer(
    computation: Callable[..., Any], init: ArrayLike, operand: ArrayLike
) -> Callable[[ArrayLike, Sequence[int]], Array] | None:
    """The monoid reduction (``reduce_sum``, ...) that ``computation`` with ``init`` is on
    ``operand``, as JAX's ``_get_monoid_reducer``: ``computation`` one of ``lax.add``,
    ``lax.mul``, ``lax.max``, ``lax.min``, ``lax.bitwise_and``/``or`` and ``init`` its identity,
    concrete; else ``None`` (a general ``reduce`` with a traced body)."""
    monoid = lookup_monoid(_MONOIDS, computation)
    if monoid is None or not is_identity(init, monoid[0], operand):
        return None
    return monoid[1]
