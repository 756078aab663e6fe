"""Eager operations on array types that compute primitives themselves.

A higher layer's array type can own the eager evaluation of every primitive applied to it:
mj-xla's arrays sharded over several devices run each operation as a compiled SPMD program
so the result stays sharded, as JAX's ``apply_primitive`` does, and its arrays committed to
one device return arrays committed there. Such a type registers an
:data:`eager_handlers` entry, keyed by the type itself. The eager path decides by the
operands' types, never by who calls it: :func:`~mj_core._eager.evaluate.eval_primitive`
offers the whole operation to the handler of the first operand whose type has one, before any
impl rule runs, and the elementwise wrappers' NumPy shortcut
(:func:`~mj_core._eager.wrappers.binds`) leaves such operands to it. A handler returns the
outputs, or ``NotImplemented`` to leave the primitive to its impl rule (a higher layer's
``pmap`` or ``cond``, whose impl rules take device arrays and bind the primitives inside).
While no handler is registered this costs one test of an empty dict; after that, one
``type(a) in eager_handlers`` per operand.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import NotImplementedType
from typing import Any

from mj_core._primitive import Primitive

__all__ = ["EagerHandler", "eager_handlers", "like_placements"]

EagerHandler = Callable[[Primitive, Sequence[Any], dict[str, Any]], list[Any] | NotImplementedType]

#: Array type -> the function computing ``(primitive, args, params)`` to its outputs. The
#: lookup is by exact type (a subclass registers its own entry, as for ``register_array_type``).
eager_handlers: dict[type, EagerHandler] = {}

#: Array type -> ``place(new, like)``: where ``full_like(like, ...)`` (``zeros_like`` & co.)
#: puts the new array it built, for array types that live on devices: JAX's ``full_like``
#: gives its result its argument's sharding (or committed device).
like_placements: dict[type, Callable[[Any, Any], Any]] = {}
