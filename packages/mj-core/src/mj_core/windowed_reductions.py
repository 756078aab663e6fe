"""``jax.lax.reduce_window`` and ``jax.lax.reduce``: a reduction given as a binary
``computation`` and an ``init_value``, dispatched to the primitive of the monoid it names.

Like JAX, a computation that is ``lax.add``/``lax.max``/``lax.min`` (and ``lax.mul``,
``lax.bitwise_and``, ``lax.bitwise_or`` for ``reduce``) with a concrete scalar init equal to
the monoid's identity becomes ``reduce_window_sum``/``reduce_window_max``/... (resp.
``reduce_sum``/...). mj has no primitive for an arbitrary computation (JAX's generic
``reduce_window_p``/``reduce_p``); those raise ``NotImplementedError`` saying what is
supported.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mj_core import lax
from mj_core.avals import get_aval
from mj_core.convolution import padtype_to_pads
from mj_core.errors import user_line_suffix
from mj_core.primitive import Primitive
from mj_core.prims import reductions as rd
from mj_core.prims import windowed as wr
from mj_core.prims.convolution import dilate_dim
from mj_core.trace import Tracer, bind1
from mj_core.tree_util import tree_flatten

__all__ = [
    "reduce",
    "reduce_window",
    "reduce_window_max",
    "reduce_window_min",
    "reduce_window_sum",
]

Array = Any

_MONOIDS: dict[Callable[..., Any], tuple[str, Callable[[Array, Sequence[int]], Array]]] = {
    lax.add: ("sum", lax.reduce_sum),
    lax.mul: ("prod", lax.reduce_prod),
    lax.max: ("max", lax.reduce_max),
    lax.min: ("min", lax.reduce_min),
    lax.bitwise_and: ("and", lax.reduce_and),
    lax.bitwise_or: ("or", lax.reduce_or),
}
_BITWISE = ("and", "or")


def _ints(name: str, what: str, values: Sequence[int]) -> tuple[int, ...]:
    try:
        return tuple(operator.index(v) for v in values)
    except TypeError as err:
        raise TypeError(
            f"{name}: {what} must be a sequence of integers, got {values!r}{user_line_suffix()}"
        ) from err


def _window_params(
    shape: tuple[int, ...],
    window_dimensions: Sequence[int],
    window_strides: Sequence[int] | None,
    padding: str | Sequence[tuple[int, int]],
    base_dilation: Sequence[int] | None,
    window_dilation: Sequence[int] | None,
) -> dict[str, Any]:
    name = "reduce_window"
    dims = _ints(name, "window_dimensions", window_dimensions)
    ones = (1,) * len(dims)
    strides = ones if window_strides is None else _ints(name, "window_strides", window_strides)
    base = ones if base_dilation is None else _ints(name, "base_dilation", base_dilation)
    wdil = ones if window_dilation is None else _ints(name, "window_dilation", window_dilation)
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
        operand: Array,
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
    wr.reduce_window_sum_p, "The sum of every window (average pooling times the window size)."
)
reduce_window_max = _WindowReduction(
    wr.reduce_window_max_p, "The maximum of every window (max pooling); padding counts as ``-inf``."
)
reduce_window_min = _WindowReduction(
    wr.reduce_window_min_p, "The minimum of every window; padding counts as ``+inf``."
)
_WINDOW_MONOIDS: dict[Callable[..., Any], tuple[str, _WindowReduction]] = {
    lax.add: ("sum", reduce_window_sum),
    lax.max: ("max", reduce_window_max),
    lax.min: ("min", reduce_window_min),
}


def _is_identity(init: Array, name: str, operand: Array) -> bool:
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
    return bool(np.equal(value, rd.reduction_identity(name, dtype)))


def _single(api: str, operands: Any, init_values: Any) -> tuple[Array, Array]:
    flat_ops, op_tree = tree_flatten(operands)
    flat_inits, init_tree = tree_flatten(init_values)
    if op_tree != init_tree:
        raise ValueError(
            f"{api}: operands must have the same tree structure as init_values, got "
            f"{op_tree} and {init_tree}{user_line_suffix()}"
        )
    if len(flat_ops) != 1:
        raise NotImplementedError(
            f"{api}: mj supports one operand (a monoid reduction), got {len(flat_ops)}"
            f"{user_line_suffix()}"
        )
    return flat_ops[0], flat_inits[0]


def _unsupported(api: str, supported: str, computation: Any, init: Array) -> Exception:
    return NotImplementedError(
        f"{api}: mj supports only the monoid reductions {supported} with the monoid's identity "
        f"as a concrete scalar init_value, got computation={computation!r} and "
        f"init_value={init!r}{user_line_suffix()}"
    )


def reduce_window(
    operand: Array,
    init_value: Array,
    computation: Callable[[Array, Array], Array],
    window_dimensions: Sequence[int],
    window_strides: Sequence[int] | None = None,
    padding: str | Sequence[tuple[int, int]] = "VALID",
    base_dilation: Sequence[int] | None = None,
    window_dilation: Sequence[int] | None = None,
) -> Array:
    """Reduce every (strided, padded, dilated) window of ``operand`` with ``computation``
    (``jax.lax.reduce_window``): ``lax.add`` with init 0, ``lax.max`` with ``-inf`` (or the
    integer minimum), ``lax.min`` with ``+inf``."""
    x, init = _single("reduce_window", operand, init_value)
    monoid = _WINDOW_MONOIDS.get(computation)
    if monoid is None or not _is_identity(init, monoid[0], x):
        raise _unsupported("reduce_window", "lax.add, lax.max and lax.min", computation, init_value)
    return monoid[1](x, window_dimensions, window_strides, padding, base_dilation, window_dilation)


def reduce(
    operands: Any,
    init_values: Any,
    computation: Callable[[Array, Array], Array],
    dimensions: Sequence[int],
) -> Array:
    """Reduce ``operands`` over ``dimensions`` with ``computation`` (``jax.lax.reduce``):
    ``lax.add``/``lax.mul``/``lax.max``/``lax.min`` and, on bool or integer operands,
    ``lax.bitwise_and``/``lax.bitwise_or``, each with its identity as init."""
    x, init = _single("reduce", operands, init_values)
    monoid = _MONOIDS.get(computation)
    if monoid is None or not _is_identity(init, monoid[0], x):
        raise _unsupported(
            "reduce",
            "lax.add, lax.mul, lax.max, lax.min, lax.bitwise_and and lax.bitwise_or",
            computation,
            init_values,
        )
    return monoid[1](x, _ints("reduce", "dimensions", dimensions))
