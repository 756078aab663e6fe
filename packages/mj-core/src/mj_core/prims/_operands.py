"""Helpers of the core families' typing and impl rules, around the one typing table.

The impl rules of the non-elementwise primitives call :func:`check_operands` first: it runs
the primitive's rule in :data:`~mj_core._primitive.abstract_eval_rules` on the concrete
operands, so eager evaluation rejects exactly what tracing rejects and returns exactly the
typed dtype. :func:`common_dtype` and :func:`check_axes` are the checks typing rules share.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from mj_core._avals import ShapedArray, get_aval
from mj_core._config import on_x64_change
from mj_core._eager_array import EagerArray
from mj_core._eager_array import unchanged as _unchanged
from mj_core._primitive import Primitive, abstract_eval_rules
from mj_core._shapes import aval_error
from mj_core._typing import Array, ArrayLike
from mj_core.dtypes import all_weak, result_type
from mj_core.errors import AxisError, ResourceExhaustedError, user_line_suffix

if TYPE_CHECKING:
    # ``bind``/``bind1`` as the typed lax and NumPy-level wrappers see them: what a primitive
    # returns outside its impl rule is an mj array (an eager result, a tracer, a device array).
    # At run time they are the interpreter's own functions, with no wrapper call.

    def bind(primitive: Primitive, *args: Any, **params: Any) -> list[Array]: ...
    def bind1(primitive: Primitive, *args: Any, **params: Any) -> Array: ...

else:
    from mj_core._trace import bind, bind1

__all__ = [
    "bind",
    "bind1",
    "check_axes",
    "check_fits_in_memory",
    "check_operands",
    "common_dtype",
    "shaped_aval",
    "unchanged",
]


#: ``_eager_array.unchanged`` as the typed lax and NumPy-level functions see it: what an
#: operation that leaves its operand's value as it is returns, an mj array (as in JAX).
unchanged: Callable[[ArrayLike], Array] = _unchanged


def shaped_aval(x: Any) -> ShapedArray:
    """The ``ShapedArray`` of a concrete operand, cheaply for NumPy arrays."""
    if type(x) is np.ndarray or type(x) is EagerArray:
        return ShapedArray(x.shape, x.dtype)
    aval = get_aval(x)
    return ShapedArray(aval.shape, aval.dtype, aval.weak_type)


#: Typing results of NumPy-array operands, by signature. Impl rules type-check every eager
#: call, and eager loops (a gradient step, a per-example batch) repeat a few signatures, so a
#: lookup replaces rebuilding the avals and rerunning the rule. Errors are never cached.
_CHECKED: dict[tuple[Any, ...], tuple[Any, ...]] = {}
_CHECKED_LIMIT = 4096
on_x64_change(lambda _: _CHECKED.clear())  # a 64-bit operand types differently without x64


def check_operands(prim: Primitive, args: Sequence[Any], params: dict[str, Any]) -> list[Any]:
    """Run ``prim``'s typing rule on concrete ``args`` (impl rules call this first)."""
    key: tuple[Any, ...] | None = (prim, *params.items())
    for a in args:
        t = type(a)
        if t is not np.ndarray and t is not EagerArray:  # scalars, other types: no cache
            key = None
            break
        key += (a.shape, a.dtype)  # type: ignore[operator]
    if key is not None:
        try:
            cached = _CHECKED.get(key)
        except TypeError:  # an unhashable param (a list): type-check every call
            key = None
        else:
            if cached is not None:
                return list(cached)
    out = abstract_eval_rules[prim](*[shaped_aval(a) for a in args], **params)
    if key is not None:
        if len(_CHECKED) >= _CHECKED_LIMIT:
            _CHECKED.clear()
        _CHECKED[key] = tuple(out)
    return out  # type: ignore[no-any-return]


def common_dtype(prim_name: str, avals: Sequence[ShapedArray]) -> tuple[np.dtype[Any], bool]:
    """The one dtype non-elementwise operands must share.

    Strong operands must agree exactly; a weak operand (a Python scalar) adopts the strong
    dtype when NEP 50 promotion would keep it (an ``int32`` array padded with ``0`` is fine,
    padded with ``0.5`` is an error rather than a silent truncation).
    """
    strong = {a.dtype for a in avals if not a.weak_type}
    if len(strong) > 1:
        names = ", ".join(dict.fromkeys(a.dtype.name for a in avals if not a.weak_type))
        raise aval_error(
            prim_name,
            f"lax.{prim_name} requires arguments to have the same dtypes, got {names} (lax "
            "does not promote; the mj.numpy functions do)",
            avals,
        )
    dtype, _ = result_type(*((a.dtype, a.weak_type) for a in avals))
    if strong and dtype not in strong:
        raise aval_error(
            prim_name, "a Python scalar operand cannot be converted to the array dtype", avals
        )
    return dtype, all_weak(a.weak_type for a in avals)


def check_axes(
    prim_name: str, axes: Sequence[int], ndim: int, avals: Sequence[ShapedArray]
) -> tuple[int, ...]:
    """Canonical (non-negative, in-range, unrepeated) primitive axis params, else ValueError."""
    out = tuple(int(a) for a in axes)
    if any(not 0 <= a < ndim for a in out) or len(set(out)) != len(out):
        shown = ", ".join(a.str_short() for a in avals)
        raise AxisError(
            f"{prim_name}: axes {out} are invalid (out of range or repeated) for operands "
            f"({shown}); primitive params take non-negative axes in [0, {ndim})."
        )
    return out


@functools.cache
def _physical_memory() -> int:
    """The machine's memory in bytes (0 where the OS does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 0


def check_fits_in_memory(prim: Primitive, out: ShapedArray) -> None:
    """Refuse to create ``out`` if it is larger than the machine's memory, as XLA refuses the
    allocation: an eager broadcast view would not fail until its data is read."""
    nbytes = math.prod(out.shape) * out.dtype.itemsize
    limit = _physical_memory()
    if limit and nbytes > limit:
        raise ResourceExhaustedError(
            f"RESOURCE_EXHAUSTED: {prim.name}: out of memory allocating {nbytes} bytes "
            f"({nbytes / 2**30:.1f} GiB) for a {out.str_short()} array; this machine has "
            f"{limit / 2**30:.1f} GiB{user_line_suffix()}"
        )
