"""Host callbacks: calling back into Python from a program (``debug.print``, ``debug.callback``,
``pure_callback``).

Two primitives, as in JAX. ``debug_callback`` has no outputs and exists for its side effect
(it runs on every evaluation, also from compiled code); ``pure_callback`` computes outputs of
declared types that a transformation may treat as a pure function of its operands. Both carry
the user's function as a :class:`HostCallback` param taking and returning flat NumPy arrays.

They have no lax wrappers (``mj.debug`` and ``mj.pure_callback`` build the params), so
``__all__`` is the two primitives.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mj_core._avals import ShapedArray
from mj_core._primitive import Primitive, abstract_eval_rules, effectful_primitives, impl_rules

__all__ = [
    "debug_callback_p",
    "pure_callback_p",
]

#: ``pure_callback``'s ``vmap_method`` values (JAX 0.10.2's, less the deprecated ones).
VMAP_METHODS = ("sequential", "sequential_unrolled", "expand_dims", "broadcast_all")


class HostCallback:
    """A Python function as a primitive param: ``fun(*flat NumPy arrays) -> sequence of
    outputs``. Hashed by identity, so equal programs with different callbacks stay apart."""

    __slots__ = ("api", "fun")

    def __init__(self, fun: Callable[..., Any], api: str) -> None:
        self.fun = fun
        self.api = api

    def __call__(self, *args: object) -> Any:
        return self.fun(*(np.asarray(a) for a in args))

    def __repr__(self) -> str:
        return f"{getattr(self.fun, '__name__', type(self.fun).__name__)}"


debug_callback_p = Primitive("debug_callback", multiple_results=True)
pure_callback_p = Primitive("pure_callback", multiple_results=True)
effectful_primitives.add(debug_callback_p)  # (DCE keeps it, as JAX's debug effect does)


def check_callback_outputs(
    api: str, outs: object, result_avals: Sequence[ShapedArray]
) -> list[np.ndarray[Any, Any]]:
    """The callback's outputs as NumPy arrays, checked against the declared types (one check
    for eager, jaxpr and compiled evaluation, so all three reject the same callbacks)."""
    if not isinstance(outs, list | tuple) or len(outs) != len(result_avals):
        found = len(outs) if isinstance(outs, list | tuple) else type(outs).__name__
        raise TypeError(
            f"{api}: the callback returned {found} outputs, expected {len(result_avals)} "
            "(the leaves of result_shape_dtypes)"
        )
    checked = []
    for i, (out, aval) in enumerate(zip(outs, result_avals, strict=True)):
        arr = np.asarray(out)
        if arr.shape != aval.shape or arr.dtype != aval.dtype:
            raise TypeError(
                f"{api}: output {i} of the callback is {arr.dtype}{list(arr.shape)}, but "
                f"result_shape_dtypes declares {aval.str_short()}"
            )
        checked.append(arr)
    return checked


@impl_rules.register(debug_callback_p)
def debug_callback_impl(*args: object, callback: HostCallback) -> list[Any]:
    callback(*args)
    return []


@abstract_eval_rules.register(debug_callback_p)
def debug_callback_out_avals(*avals: ShapedArray, callback: HostCallback) -> list[ShapedArray]:
    return []


#: The class of the error a pure callback that fails when evaluated eagerly raises: jaxlib's
#: ``JaxRuntimeError`` once mj-xla is imported (see :func:`install_callback_error`), as compiled
#: code raises and JAX raises in both; ``RuntimeError`` without it.
_CALLBACK_ERROR: list[type[Exception]] = [RuntimeError]


def install_callback_error(cls: type[Exception]) -> None:
    """Make an eagerly evaluated pure callback's failure raise ``cls`` (mj-xla installs
    jaxlib's ``JaxRuntimeError``)."""
    _CALLBACK_ERROR[0] = cls


@impl_rules.register(pure_callback_p)
def pure_callback_impl(
    *args: object,
    callback: HostCallback,
    result_avals: tuple[ShapedArray, ...],
    vmap_method: str | None,
) -> list[Any]:
    # JAX runs the callback and checks its outputs on the host even eagerly: whatever they
    # raise reaches the caller as a JaxRuntimeError (a RuntimeError) with JAX's wording and
    # the callback's traceback after it
    try:
        return check_callback_outputs(callback.api, callback(*args), result_avals)
    except Exception as err:
        text = "".join(traceback.format_exception(err))
        msg = f"INTERNAL: CpuCallback error calling callback: {text}"
        raise _CALLBACK_ERROR[0](msg) from err


@abstract_eval_rules.register(pure_callback_p)
def pure_callback_out_avals(
    *avals: ShapedArray,
    callback: HostCallback,
    result_avals: tuple[ShapedArray, ...],
    vmap_method: str | None,
) -> list[ShapedArray]:
    return list(result_avals)
