"""Windowed reductions (pooling): ``reduce_window_sum``, ``reduce_window_max`` and
``reduce_window_min``, XLA's ``ReduceWindow`` with the monoid's identity as init value.

The operand is dilated (``base_dilation - 1`` identity elements between neighbours), padded
with the identity (``padding`` holds one ``(lo, hi)`` pair per dimension; negative values
crop), and every window of ``window_dimensions`` elements spaced ``window_dilation`` apart,
starting every ``window_strides`` elements, is reduced. The NumPy impl builds that padded
array once and reduces one strided window view of it, with no Python loop over outputs.

The lax wrappers follow the rules: ``reduce_window_sum``/``_max``/``_min`` (padding strings
resolved) and ``jax.lax.reduce_window``, which recognises the monoid of ``lax.add``/``lax.max``/
``lax.min`` with its identity as init. ``__all__`` is the family's primitives and lax API.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from mj_core._avals import ShapedArray, get_aval
from mj_core._lattice import kind
from mj_core._primitive import Primitive, abstract_eval_rules, impl_rules
from mj_core._shapes import aval_error
from mj_core._typing import Array, ArrayLike
from mj_core.errors import user_line_suffix
from mj_core.prims._operands import bind1, check_operands
from mj_core.prims.convolution import _stride_dim, dilate_dim, padtype_to_pads
from mj_core.prims.elementwise import add
from mj_core.prims.elementwise import max as lax_max
from mj_core.prims.elementwise import min as lax_min
from mj_core.prims.reductions import (
    int_sequence,
    is_identity,
    lookup_monoid,
    reduction_identity,
    single_operand,
    unsupported_monoid,
)

__all__ = [
    "reduce_window",
    "reduce_window_max",
    "reduce_window_max_p",
    "reduce_window_min",
    "reduce_window_min_p",
    "reduce_window_shape_tuple",
    "reduce_window_sum",
    "reduce_window_sum_p",
]

_KIND_NAMES = {"b": "bool", "i": "int", "u": "uint", "f": "float", "c": "complex"}


def reduce_window_shape(
    shape: Sequence[int],
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    padding: Sequence[tuple[int, int]],
    base_dilation: Sequence[int],
    window_dilation: Sequence[int],
) -> tuple[int, ...]:
    """The output shape of a windowed reduction (XLA's formula; 0 where no window fits)."""
    out = []
    for size, w, s, (lo, hi), bd, wd in zip(
        shape, window_dimensions, window_strides, padding, base_dilation, window_dilation,
        strict=True,
    ):  # fmt: skip
        padded = dilate_dim(size, bd) + lo + hi
        out.append(max(0, (padded - dilate_dim(w, wd)) // s + 1))
    return tuple(out)


def window_padding_config(
    padding: Sequence[tuple[int, int]], base_dilation: Sequence[int]
) -> tuple[tuple[int, int, int], ...]:
    """The ``pad`` config (``(lo, hi, interior)``) that dilates and pads the operand."""
    return tuple((lo, hi, d - 1) for (lo, hi), d in zip(padding, base_dilation, strict=True))


def _check_params(
    name: str,
    x: ShapedArray,
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    padding: Sequence[tuple[int, int]],
    base_dilation: Sequence[int],
    window_dilation: Sequence[int],
) -> None:
    for what, value in (
        ("window_dimensions", window_dimensions),
        ("window_strides", window_strides),
        ("padding", padding),
        ("base_dilation", base_dilation),
        ("window_dilation", window_dilation),
    ):
        if len(value) != x.ndim:
            raise aval_error(
                name,
                f"{what}={tuple(value)} must have one entry per operand dimension ({x.ndim})",
                [x],
            )
    for what, value in (
        ("window_dimensions", window_dimensions),
        ("window_strides", window_strides),
        ("base_dilation", base_dilation),
        ("window_dilation", window_dilation),
    ):
        if any(v < 1 for v in value):
            raise aval_error(
                name, f"{what} must have every element be greater than 0, got {tuple(value)}", [x]
            )
    for size, (lo, hi), d in zip(x.shape, padding, base_dilation, strict=True):
        if dilate_dim(size, d) + lo + hi < 0:
            raise aval_error(
                name,
                f"negative padding {(lo, hi)} is larger than the dilated size "
                f"{dilate_dim(size, d)}",
                [x],
            )


#: the window checks, for the windowed primitives of other layers (the general ``reduce_window``)
check_window_params = _check_params


def _windowed_input(
    x: Any, identity: Any, padding: Sequence[tuple[int, int]], base_dilation: Sequence[int]
) -> Any:
    """``x`` dilated and padded with ``identity`` (negative pads crop)."""
    dilated = tuple(dilate_dim(s, d) for s, d in zip(x.shape, base_dilation, strict=True))
    grown = tuple(n + max(lo, 0) + max(hi, 0) for n, (lo, hi) in zip(dilated, padding, strict=True))
    out = np.full(grown, identity, x.dtype)
    place = tuple(
        slice(max(lo, 0), max(lo, 0) + n, d)
        for n, (lo, _), d in zip(dilated, padding, base_dilation, strict=True)
    )
    out[place] = x
    crop = tuple(
        slice(max(-lo, 0), size - max(-hi, 0))
        for (lo, hi), size in zip(padding, grown, strict=True)
    )
    return out[crop]


def _define(name: str, kinds: str, reduce: Callable[..., Any]) -> Primitive:
    prim = Primitive(f"reduce_window_{name}")

    def out_avals(
        x: ShapedArray,
        *,
        window_dimensions: tuple[int, ...],
        window_strides: tuple[int, ...],
        padding: tuple[tuple[int, int], ...],
        base_dilation: tuple[int, ...],
        window_dilation: tuple[int, ...],
    ) -> list[ShapedArray]:
        if kind(x.dtype) not in kinds:
            allowed = "/".join(_KIND_NAMES[k] for k in kinds)
            raise aval_error(prim.name, f"requires a {allowed} operand", [x])
        _check_params(
            prim.name, x, window_dimensions, window_strides, padding, base_dilation,
            window_dilation,
        )  # fmt: skip
        shape = reduce_window_shape(
            x.shape, window_dimensions, window_strides, padding, base_dilation, window_dilation
        )
        return [ShapedArray(shape, x.dtype, x.weak_type)]

    out_avals.__name__ = f"{prim.name}_out_avals"
    abstract_eval_rules[prim] = out_avals

    def impl(x: Any, **params: Any) -> list[Any]:
        (out,) = check_operands(prim, (x,), params)
        identity = reduction_identity(name, out.dtype)
        if 0 in out.shape:
            return [np.full(out.shape, identity, out.dtype)]
        xp = _windowed_input(
            np.asarray(x, out.dtype), identity, params["padding"], params["base_dilation"]
        )
        dilation = params["window_dilation"]
        spans = tuple(
            dilate_dim(w, d) for w, d in zip(params["window_dimensions"], dilation, strict=True)
        )
        axes = tuple(range(xp.ndim))
        windows = sliding_window_view(xp, spans, axis=axes)
        step = (*(slice(None, None, s) for s in params["window_strides"]),)
        dil = (*(slice(None, None, d) for d in dilation),)
        windows = windows[(*step, *dil)]
        result = reduce(windows, axis=tuple(range(xp.ndim, 2 * xp.ndim)))
        return [np.asarray(result, out.dtype).reshape(out.shape)]

    impl.__name__ = f"{prim.name}_impl"
    impl_rules[prim] = impl
    return prim


def _sum(windows: Any, axis: tuple[int, ...]) -> Any:
    return np.sum(windows, axis=axis, dtype=windows.dtype)


reduce_window_sum_p = _define("sum", "iufc", _sum)
reduce_window_max_p = _define("max", "biuf", np.max)
reduce_window_min_p = _define("min", "biuf", np.min)


# --- lax wrappers ----------------------------------------------------------------------------
def _window_params(
    shape: tuple[int, ...],
    window_dimensions: Sequence[int],
    window_strides: Sequence[int] | None,
    padding: str | Sequence[tuple[int, int]],
    base_dilation: Sequence[int] | None,
    window_dilation: Sequence[int] | None,
) -> dict[str, Any]:
    name = "reduce_window"
    dims = int_sequence(name, "window_dimensions", window_dimensions)
    ones = (1,) * len(dims)
    strides = (
        ones if window_strides is None else int_sequence(name, "window_strides", window_strides)
    )
    base = ones if base_dilation is None else int_sequence(name, "base_dilation", base_dilation)
    wdil = (
        ones if window_dilation is None else int_sequence(name, "window_dilation", window_dilation)
    )
    if isinstance(padding, str):
        if len(dims) != len(shape) or len(strides) != len(shape) or len(wdil) != len(shape):
            raise TypeError(
                f"{name}: window_dimensions {dims}, window_strides {strides} and "
                f"window_dilation {wdil} must each have one entry per operand dimension "
                f"(operand shape {shape}){user_line_suffix()}"
            )
        spans = [dilate_dim(w, d) for w, d in zip(dims, wdil, strict=True)]
        pads = tuple(padtype_to_pads(shape, spans, strides, padding))
    else:
        try:
            pads = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
        except (TypeError, ValueError) as err:
            raise TypeError(
                f"{name}: padding must be 'VALID', 'SAME', 'SAME_LOWER' or a sequence of "
                f"(low, high) integer pairs, got {padding!r}{user_line_suffix()}"
            ) from err
    return {
        "window_dimensions": dims,
        "window_strides": strides,
        "padding": pads,
        "base_dilation": base,
        "window_dilation": wdil,
    }


#: the padding and default strides/dilations resolved, as the lax wrappers take them
window_params = _window_params


class _WindowReduction:
    """The lax wrapper of one windowed-reduction primitive (``reduce_window_sum``/``_max``/
    ``_min``): they differ only in the monoid, so one signature serves all three."""

    def __init__(self, prim: Primitive, doc: str) -> None:
        self._prim = prim
        self.__name__ = self.__qualname__ = prim.name
        self.__doc__ = doc

    def __repr__(self) -> str:
        return f"<function {self.__name__}>"

    def __call__(
        self,
        operand: ArrayLike,
        window_dimensions: Sequence[int],
        window_strides: Sequence[int] | None,
        padding: str | Sequence[tuple[int, int]],
        base_dilation: Sequence[int] | None = None,
        window_dilation: Sequence[int] | None = None,
    ) -> Array:
        shape = get_aval(operand).shape
        params = _window_params(
            shape, window_dimensions, window_strides, padding, base_dilation, window_dilation
        )
        return bind1(self._prim, operand, **params)


reduce_window_sum = _WindowReduction(
    reduce_window_sum_p, "The sum of every window (average pooling times the window size)."
)
reduce_window_max = _WindowReduction(
    reduce_window_max_p, "The maximum of every window (max pooling); padding counts as ``-inf``."
)
reduce_window_min = _WindowReduction(
    reduce_window_min_p, "The minimum of every window; padding counts as ``+inf``."
)
_WINDOW_MONOIDS: dict[Callable[..., Any], tuple[str, _WindowReduction]] = {
    add: ("sum", reduce_window_sum),
    lax_max: ("max", reduce_window_max),
    lax_min: ("min", reduce_window_min),
}


def reduce_window(
    operand: ArrayLike,
    init_value: ArrayLike,
    computation: Callable[[ArrayLike, ArrayLike], ArrayLike],
    window_dimensions: Sequence[int],
    window_strides: Sequence[int] | None = None,
    padding: str | Sequence[tuple[int, int]] = "VALID",
    base_dilation: Sequence[int] | None = None,
    window_dilation: Sequence[int] | None = None,
) -> Array:
    """Reduce every (strided, padded, dilated) window of ``operand`` with ``computation``
    (``jax.lax.reduce_window``): ``lax.add`` with init 0, ``lax.max`` with ``-inf`` (or the
    integer minimum), ``lax.min`` with ``+inf``."""
    x, init = single_operand("reduce_window", operand, init_value)
    reducer = window_monoid_reducer(computation, init, x)
    if reducer is None:
        raise unsupported_monoid(
            "reduce_window", "lax.add, lax.max and lax.min", computation, init_value
        )
    return reducer(x, window_dimensions, window_strides, padding, base_dilation, window_dilation)


def window_monoid_reducer(
    computation: Callable[..., Any], init: ArrayLike, operand: ArrayLike
) -> _WindowReduction | None:
    """``reduce_window_sum``/``_max``/``_min`` if ``computation`` is ``lax.add``/``max``/``min``
    and ``init`` its identity, concrete (JAX's ``_get_monoid_window_reducer``), else ``None``."""
    monoid = lookup_monoid(_WINDOW_MONOIDS, computation)
    if monoid is None or not is_identity(init, monoid[0], operand):
        return None
    return monoid[1]


# --- the output shape, as JAX's public helper --------------------------------------------------


def _dilate_shape(shape: Sequence[int], dilation: Sequence[int]) -> tuple[int, ...]:
    return tuple(0 if d == 0 else 1 + r * (d - 1) for d, r in zip(shape, dilation, strict=True))


def reduce_window_shape_tuple(
    operand_shape: Sequence[int],
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    padding: Sequence[tuple[int, int]],
    base_dilation: Sequence[int] | None = None,
    window_dilation: Sequence[int] | None = None,
) -> tuple[int, ...]:
    """Output shape of ``reduce_window`` (explicit ``(lo, hi)`` padding per dimension)."""
    if base_dilation is not None:
        operand_shape = _dilate_shape(operand_shape, base_dilation)
    if window_dilation is not None:
        window_dimensions = _dilate_shape(window_dimensions, window_dilation)
    padded = [d + lo + hi for d, (lo, hi) in zip(operand_shape, padding, strict=True)]
    return tuple(
        _stride_dim(d, w, s)
        for d, w, s in zip(padded, window_dimensions, window_strides, strict=True)
    )
