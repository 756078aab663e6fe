"""Windowed reductions (pooling): ``reduce_window_sum``, ``reduce_window_max`` and
``reduce_window_min``, XLA's ``ReduceWindow`` with the monoid's identity as init value.

The operand is dilated (``base_dilation - 1`` identity elements between neighbours), padded
with the identity (``padding`` holds one ``(lo, hi)`` pair per dimension; negative values
crop), and every window of ``window_dimensions`` elements spaced ``window_dilation`` apart,
starting every ``window_strides`` elements, is reduced. The NumPy impl builds that padded
array once and reduces one strided window view of it, with no Python loop over outputs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from mj_core.avals import ShapedArray
from mj_core.primitive import Primitive, impl_rules
from mj_core.prims.convolution import dilate_dim
from mj_core.prims.out_avals import check_operands, out_aval_rules
from mj_core.prims.reductions import reduction_identity
from mj_core.shapes import aval_error

__all__ = [
    "reduce_window_max_p",
    "reduce_window_min_p",
    "reduce_window_shape",
    "reduce_window_sum_p",
    "window_padding_config",
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
            raise aval_error(name, f"{what}={tuple(value)} must be positive integers", [x])
    for size, (lo, hi), d in zip(x.shape, padding, base_dilation, strict=True):
        if dilate_dim(size, d) + lo + hi < 0:
            raise aval_error(
                name,
                f"negative padding {(lo, hi)} is larger than the dilated size "
                f"{dilate_dim(size, d)}",
                [x],
            )


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
        if x.dtype.kind not in kinds:
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
    out_aval_rules[prim] = out_avals

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
