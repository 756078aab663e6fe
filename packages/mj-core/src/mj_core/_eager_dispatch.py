"""Eager operations on array types that compute primitives themselves.

A higher layer's array type can own the eager evaluation of every primitive applied to it:
mj-xla's arrays sharded over several devices run each operation as a compiled SPMD program
so the result stays sharded, as JAX's ``apply_primitive`` does. Such a type registers an
:data:`eager_handlers` entry, and makes NumPy refuse it inside mj's impl rules by raising
:class:`Redispatch` (from ``__array_ufunc__``, or :func:`check_operands` for the
non-elementwise rules, whose slow path already sees a non-NumPy operand). The eager path then
hands the whole operation to the handler: nothing is checked while every operand is a NumPy
array, and failure is the only way in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from mj_core._primitive import Primitive

__all__ = ["EagerHandler", "Redispatch", "eager_handlers", "like_placements"]

EagerHandler = Callable[[Primitive, Sequence[Any], dict[str, Any]], list[Any]]

#: Array type -> the function computing ``(primitive, args, params)`` to its outputs.
eager_handlers: dict[type, EagerHandler] = {}

#: Array type -> ``place(new, like)``: where ``full_like(like, ...)`` (``zeros_like`` & co.)
#: puts the new array it built, for array types that live on devices: JAX's ``full_like``
#: gives its result its argument's sharding (or committed device).
like_placements: dict[type, Callable[[Any, Any], Any]] = {}


class Redispatch(TypeError):  # noqa: N818  (a signal, not an error the user sees)
    """Raised by an impl rule's operand whose type computes the operation itself."""

    def __init__(self, handler: EagerHandler) -> None:
        super().__init__("this operand's array type evaluates primitives itself")
        self.handler = handler
