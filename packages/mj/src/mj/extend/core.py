"""``mj.extend.core``: JAX's ``jax.extend.core`` names for mj's jaxpr and primitive objects.

mj's own objects (see :mod:`mj.core`): ``type(atom) is mj.extend.core.Literal`` tells a
literal from a variable in a jaxpr made by :func:`mj.make_jaxpr`, and
``Primitive(name).bind`` / ``def_impl`` / ``def_abstract_eval`` follow JAX's conventions.
"""

from typing import Any

from mj_core.extend import Primitive as Primitive
from mj_core.extend import ShapedArray, current_trace_stack
from mj_core.extend import find_top_trace as find_top_trace
from mj_ir import ClosedJaxpr as ClosedJaxpr
from mj_ir import Jaxpr as Jaxpr
from mj_ir import JaxprEqn as JaxprEqn
from mj_ir import JaxprTypeError as JaxprTypeError
from mj_ir import Literal as Literal
from mj_ir import Var as Var
from mj_ir import jaxpr_as_fun as jaxpr_as_fun

#: JAX's empty effect set: mj's jaxprs and equations have no effects.
no_effects: frozenset[object] = frozenset()


def mapped_aval(size: int, axis: int | None, aval: Any) -> Any:
    """The abstract value of one example of ``aval`` batched along ``axis`` (of length
    ``size``), as JAX's: the axis removed; ``axis=None`` (not mapped) leaves ``aval``."""
    if axis is None:
        return aval
    shape = tuple(aval.shape)
    axis = axis + len(shape) if axis < 0 else axis
    if not 0 <= axis < len(shape) or shape[axis] != size:
        raise ValueError(f"mapped_aval: axis {axis} of shape {shape} is not of size {size}")
    return ShapedArray(shape[:axis] + shape[axis + 1 :], aval.dtype, aval.weak_type)


def unmapped_aval(size: int, axis: int | None, aval: Any, explicit_mesh_axis: Any = None) -> Any:
    """The abstract value of ``size`` examples of ``aval`` stacked along ``axis``, as JAX's:
    ``axis=None`` (not mapped) leaves ``aval``."""
    del explicit_mesh_axis
    if axis is None:
        return aval
    shape = tuple(aval.shape)
    axis = axis + len(shape) + 1 if axis < 0 else axis
    if not 0 <= axis <= len(shape):
        raise ValueError(f"unmapped_aval: axis {axis} out of range for shape {shape}")
    return ShapedArray((*shape[:axis], size, *shape[axis:]), aval.dtype, aval.weak_type)


class OpaqueTraceState:
    """Which transformations are active, as an opaque value (JAX's): two states compare equal
    exactly when taken under the same stack of traces. Libraries (flax) use it to notice a
    value used across a transformation boundary."""

    __slots__ = ("_stack",)

    def __init__(self, stack: tuple[object, ...]) -> None:
        self._stack = stack

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, OpaqueTraceState):
            return NotImplemented
        return len(self._stack) == len(other._stack) and all(
            a is b for a, b in zip(self._stack, other._stack, strict=True)
        )

    def __hash__(self) -> int:
        return hash(tuple(id(t) for t in self._stack))

    def __repr__(self) -> str:
        return f"OpaqueTraceState(depth={len(self._stack)})"


def get_opaque_trace_state(convention: str | None = None) -> OpaqueTraceState:
    """The current trace state (JAX's ``get_opaque_trace_state``; ``convention`` names the
    library asking and changes nothing)."""
    del convention
    return OpaqueTraceState(tuple(current_trace_stack()))


__all__ = [
    "ClosedJaxpr",
    "Jaxpr",
    "JaxprEqn",
    "JaxprTypeError",
    "Literal",
    "OpaqueTraceState",
    "Primitive",
    "Var",
    "find_top_trace",
    "get_opaque_trace_state",
    "jaxpr_as_fun",
    "mapped_aval",
    "no_effects",
    "unmapped_aval",
]
