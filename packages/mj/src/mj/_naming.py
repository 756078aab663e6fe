"""``named_call`` and ``named_scope``: JAX's names for parts of a program in profiles and
compiled code. mj keeps no name stack, so both are accepted for compatibility and change
nothing: values and jaxprs are exactly those of the unnamed program."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from mj_core.errors import user_line_suffix

__all__ = ["named_call", "named_scope"]

F = TypeVar("F", bound=Callable[..., object])


def named_call(fun: F, *, name: str | None = None) -> F:
    """``fun`` itself (JAX would label its staged calls ``name``)."""
    if not callable(fun):
        raise TypeError(f"named_call: expected a callable, got {type(fun).__name__}")
    return fun


@contextmanager
def named_scope(name: str) -> Iterator[None]:
    """A context manager naming the operations inside it (a no-op in mj)."""
    if not isinstance(name, str):
        raise TypeError(
            f"named_scope name argument must be a string, got {type(name).__name__}"
            f"{user_line_suffix()}"
        )
    yield
