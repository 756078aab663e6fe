"""Array types that are views of a data array with trailing per-element dimensions.

A higher layer's array type whose elements are themselves small arrays (mj's typed PRNG keys:
a key array of shape ``S`` and dtype ``key<fry>`` over ``uint32[S + (2,)]`` data) registers
here with :func:`register_array_view`: its array type, its dtype type, and how to read its
data and rebuild one around new data. Such a view is no mj array (no aval, no tracer): the
primitives that only move elements (reshape, broadcast, transpose, squeeze, rev, concatenate,
slice, dynamic_slice, dynamic_update_slice, select_n, gather; :data:`view_rules`) apply to it
by applying to its data with the element dims appended, and return views; every other
primitive refuses its dtype in JAX's words (``add does not accept dtypes key<fry>, int32.``).

Ordinary arrays never pay for this: views enter through paths that are already slow ones. The
eager path offers an operand whose type is in
:data:`~mj_core._eager_dispatch.eager_handlers` the whole operation (:func:`register_array_view`
adds the view type there); under a transformation, ``bind`` looks a non-tracer operand up in
:data:`array_views` before boxing it as a constant; the NumPy-level dtype functions look a
value or dtype up only where NumPy would refuse it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mj_core._avals import get_aval
from mj_core._primitive import Primitive, RuleTable
from mj_core.dtypes import ViewPromotionError as ViewPromotionError
from mj_core.dtypes import view_dtypes as _dtype_views

__all__ = [
    "ArrayView",
    "ViewPromotionError",
    "ViewRule",
    "array_views",
    "refuse",
    "view_dtype",
    "view_dtypes",
    "view_predicates",
    "view_rules",
]


class ArrayView:
    """How mj_core handles one view type: ``data(x)`` is a view's data array,
    ``wrap(dtype, data)`` the view of ``dtype`` over ``data``, ``element_shape(dtype)`` and
    ``data_dtype(dtype)`` the trailing dims and the dtype of one element's data."""

    __slots__ = ("array_type", "data", "data_dtype", "dtype_type", "element_shape", "wrap")

    def __init__(
        self,
        array_type: type,
        dtype_type: type,
        *,
        data: Callable[[Any], Any],
        wrap: Callable[[Any, Any], Any],
        element_shape: Callable[[Any], tuple[int, ...]],
        data_dtype: Callable[[Any], np.dtype[Any]],
    ) -> None:
        self.array_type = array_type
        self.dtype_type = dtype_type
        self.data = data
        self.wrap = wrap
        self.element_shape = element_shape
        self.data_dtype = data_dtype


#: View array type -> its :class:`ArrayView` (exact type, as ``eager_handlers``).
array_views: dict[type, ArrayView] = {}
#: View dtype type (``key<fry>``'s class) -> its :class:`ArrayView` (mj_core.dtypes's table).
view_dtypes: dict[type, ArrayView] = _dtype_views

#: ``rule(args, is_view, params, element_shape) -> (data_args, data_params)``: the primitive
#: applied to the data of views (and to the other operands, adjusted) instead; it raises
#: where the primitive cannot take views there.
ViewRule = Callable[
    [Sequence[Any], Sequence[bool], dict[str, Any], tuple[int, ...]],
    tuple[Sequence[Any], dict[str, Any]],
]
#: Primitive -> its :data:`ViewRule`: an optional hook.
view_rules: RuleTable[ViewRule] = RuleTable(
    "view_rules",
    "array views",
    "mj_core.prims._view_rules",
    default="the primitive refuses view operands (typed PRNG keys) in JAX's words",
)


#: Predicate primitive (``eq``, ``ne``) -> how it answers for two views of one dtype:
#: ``answer(data_result, element_ndim)`` reduces its elementwise answer over the data's
#: element dims (JAX compares keys: ``key == key`` is a bool array of the key array's shape).
view_predicates: dict[Primitive, Callable[[Any, int], Any]] = {}


def view_dtype(dtype: Any) -> ArrayView | None:
    """The :class:`ArrayView` of a view dtype (``key<fry>``), None for any other dtype."""
    return view_dtypes.get(type(dtype))


def _dtype_name(x: Any) -> str:
    if type(x) in array_views:
        return str(x.dtype)
    try:
        return str(get_aval(x).dtype)
    except TypeError:
        return type(x).__name__


def refuse(primitive: Primitive, args: Sequence[Any]) -> TypeError:
    """JAX's refusal of a view's dtype by ``primitive`` (``add does not accept dtypes
    key<fry>, int32.``; one dtype: ``neg does not accept dtype key<fry>.``)."""
    names = list(dict.fromkeys(_dtype_name(a) for a in args))
    if len(names) == 1:
        return TypeError(f"{primitive.name} does not accept dtype {names[0]}.")
    return TypeError(f"{primitive.name} does not accept dtypes {', '.join(names)}.")
