"""Reading a value that must be known at trace time (an output shape or a Python branch
depends on it), as JAX's ``core.concrete_or_error`` does: a plain array, or a tracer whose
abstract value still carries its data (``grad`` keeps primals concrete), gives its NumPy
value; a traced one (``jit``, ``vmap``) raises :class:`ConcretizationError` naming the
function and the argument."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from mj_core._avals import ConcreteArray
from mj_core._trace import Tracer
from mj_core.errors import ConcretizationError, user_line_suffix

__all__ = ["concrete_or_error", "static_int"]


def concrete_or_error(name: str, value: object, what: str, hint: str = "") -> np.ndarray[Any, Any]:
    """``value`` as a NumPy array, or a ``ConcretizationError`` saying that ``name``'s
    ``what`` must be concrete (``hint`` says what to do instead)."""
    if isinstance(value, Tracer):
        aval = value.aval
        if isinstance(aval, ConcreteArray):
            return np.asarray(aval.val)
        shape = f"{aval.dtype.name}[{','.join(str(d) for d in aval.shape)}]"  # as JAX's
        raise ConcretizationError(  # JAX's wording (core.concrete_or_error), then mj's
            "Abstract tracer value encountered where concrete value is expected: traced array "
            f"with shape {shape}\n{name}: {what} must be concrete, but a traced "
            f"{aval.str_short()} value was found{user_line_suffix()}.{' ' + hint if hint else ''}"
        )
    return np.asarray(value)


def static_int(name: str, value: Any, what: str) -> int:
    """``value`` as a Python int: it sets a shape, so it must be a concrete integer."""
    if isinstance(value, Tracer):
        value = concrete_or_error(name, value, what, "It sets the result's shape.")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(
            f"{name}: {what} must be an integer, got {type(value).__name__} {value!r}"
        ) from None
