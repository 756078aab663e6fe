"""The array operator set (``+``, ``@``, ``[]``, ``.T``, ``.sum()``, ...) shared by tracers and
device arrays: one implementation, installed on each class with :func:`install_array_methods`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mj_core import lax

__all__ = ["array_methods", "install_array_methods"]


def _swap(f: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    def reflected(self: Any, other: Any) -> Any:
        return f(other, self)

    return reflected


def _binary_methods() -> dict[str, Callable[..., Any]]:
    ops: dict[str, Callable[[Any, Any], Any]] = {
        "add": lax.add,
        "sub": lax.sub,
        "mul": lax.mul,
        "pow": lax.pow,
        "and": lax.bitwise_and,
        "or": lax.bitwise_or,
        "xor": lax.bitwise_xor,
    }
    out: dict[str, Callable[..., Any]] = {}
    for name, f in ops.items():
        out[f"__{name}__"] = f
        out[f"__r{name}__"] = _swap(f)
    out.update(
        __eq__=lax.eq,
        __ne__=lax.ne,
        __lt__=lax.less,
        __le__=lax.less_equal,
        __gt__=lax.greater,
        __ge__=lax.greater_equal,
        __neg__=lax.neg,
        __pos__=_identity,
        __abs__=lax.abs,
        __invert__=lax.bitwise_not,
    )
    return out


def _identity(x: Any) -> Any:
    return x


#: name -> implementation; mj_core.numpy adds the ones that need it (``__getitem__``, ...).
array_methods: dict[str, Callable[..., Any]] = _binary_methods()


def install_array_methods(cls: type) -> None:
    """Give ``cls`` the full array operator set (called for Tracer, and by mj-xla for Array)."""
    for name, impl in array_methods.items():
        setattr(cls, name, impl)
    cls.__hash__ = None  # type: ignore[assignment]
