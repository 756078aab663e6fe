"""Selecting elements: ``choose`` (per-element pick among arrays), ``compress`` and
``extract`` (the entries where a condition holds).

``compress``/``extract`` return as many entries as the condition has true values, so under
``jit`` they need a static ``size`` (the result is padded with ``fill_value``), as in JAX.
``choose(mode='raise')`` checks its indices, so under ``jit`` it needs ``'wrap'`` or ``'clip'``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mj_core._trace import Tracer
from mj_core._typing import Array, ArrayLike
from mj_core.numpy import _base as cnp
from mj_core.numpy._concrete import concrete_or_error
from mj_core.numpy._matrices import indices
from mj_core.numpy._promotion import check_arraylike
from mj_core.numpy._sorting import argsort

__all__ = ["choose", "compress", "extract"]


def choose(
    a: ArrayLike, choices: Sequence[ArrayLike], out: None = None, mode: str = "raise"
) -> Array:
    """``out[i...] = choices[a[i...]][i...]`` (``a`` and the choices broadcast together).

    ``mode='raise'`` rejects indices outside ``[0, len(choices))`` and needs a concrete
    ``a``; ``'wrap'`` takes them modulo ``len(choices)``, ``'clip'`` clamps them."""
    if out is not None:
        raise NotImplementedError(
            "choose: the 'out' argument is not supported (arrays are immutable)"
        )
    options = list(choices)
    check_arraylike("choose", [a, *options])
    index = cnp.asarray(a)
    if cnp.result_type(index).kind not in "iu":
        raise ValueError(f"choose: a must be an integer array, got {cnp.result_type(index)}")
    n = len(options)
    if mode == "raise":
        hint = "Use mode='wrap' or mode='clip' instead."
        values = concrete_or_error("choose", a, "a (with mode='raise')", hint)
        if np.any((values < 0) | (values >= n)):
            raise ValueError(f"invalid entry in choice array (choose: a must be in [0, {n}))")
    elif mode == "wrap":
        index = cnp.remainder(index, n)
    elif mode == "clip":
        index = cnp.clip(index, 0, n - 1)
    else:
        raise ValueError(f"choose: mode={mode!r} not understood; use 'raise', 'wrap' or 'clip'")
    dtype = cnp.result_type(*options)  # Python scalars among the choices are weakly typed
    index, *arrays = cnp.broadcast_arrays(index, *(cnp.asarray(o, dtype) for o in options))
    stacked = cnp.stack(arrays)
    return stacked[(index, *indices(cnp.shape(index), sparse=True))]


def compress(
    condition: ArrayLike,
    a: ArrayLike,
    axis: int | None = None,
    *,
    size: int | None = None,
    fill_value: ArrayLike = 0,
    out: None = None,
) -> Array:
    """The slices of ``a`` along ``axis`` (``None``: the flattened array) where the 1-D
    ``condition`` is true. With a static ``size`` the first ``size`` of them are returned,
    padded with ``fill_value``, and the condition may be traced."""
    check_arraylike("compress", [condition, a, fill_value])
    cond = cnp.asarray(cnp.asarray(condition), bool)
    if out is not None:
        raise NotImplementedError(
            "compress: the 'out' argument is not supported (arrays are immutable)"
        )
    if cnp.ndim(cond) != 1:
        raise ValueError(f"compress: condition must be a 1-D array, got shape {cnp.shape(cond)}")
    if axis is None:
        arr, axis = cnp.ravel(cnp.asarray(a)), 0
    else:
        arr = cnp.moveaxis(cnp.asarray(a), axis, 0)
    n = cnp.shape(arr)[0]
    cond = cond[:n]
    arr = arr[: cnp.shape(cond)[0]]
    if size is None:
        hint = "Pass a static size=... (the result is padded with fill_value)."
        values = concrete_or_error("compress", condition, "condition (without size=)", hint)
        values = values.astype(bool)
        if values[n:].any():
            raise ValueError(
                f"compress: condition has true entries beyond the {n} entries of the axis"
            )
        result = arr[values[:n]]
    elif not 0 <= size <= cnp.shape(arr)[0]:
        raise ValueError(
            "compress: size must be non-negative and at most the length of the (condition-"
            f"truncated) axis; got size={size} for length {cnp.shape(arr)[0]}"
        )
    else:
        mask = cnp.expand_dims(cond, tuple(range(1, cnp.ndim(arr))))
        arr = cnp.where(mask, arr, cnp.asarray(fill_value, arr.dtype))
        result = arr[argsort(cond, stable=True, descending=True)][:size]
    return cnp.moveaxis(result, 0, axis)


def extract(
    condition: ArrayLike, arr: ArrayLike, *, size: int | None = None, fill_value: ArrayLike = 0
) -> Array:
    """The entries of the flattened ``arr`` where the flattened ``condition`` is true (see
    :func:`compress` for ``size``/``fill_value``)."""
    check_arraylike("extract", [condition, arr, fill_value])
    # a concrete condition stays concrete (NumPy's ravel), so size=None works under jit
    flat = (
        cnp.ravel(condition) if isinstance(condition, Tracer) else np.ravel(np.asarray(condition))
    )
    return compress(flat, cnp.ravel(cnp.asarray(arr)), size=size, fill_value=fill_value)
