"""``mj.extend.linear_util``: JAX's ``jax.extend.linear_util.wrap_init`` / ``WrappedFun``, the
wrapped-function object JAX's internal tracing entry points take.

mj's transformations take plain functions, so a ``WrappedFun`` here only carries the function,
its keyword parameters and its debug info, and ``call_wrapped`` calls it. flax imports this
module (its lifted ``scan`` and ``lazy_init`` build on it); JAX's function-transformation
machinery (``transformation``, ``transformation_with_aux``, stores) is not provided.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["WrappedFun", "wrap_init"]


class WrappedFun:
    """A function with keyword parameters bound (JAX's ``lu.WrappedFun``, without its
    transformation stack)."""

    def __init__(
        self, f: Callable[..., Any], params: Mapping[str, Any], debug_info: object = None
    ) -> None:
        self.f = f
        self.params = dict(params)
        self.debug_info = debug_info

    @property
    def __name__(self) -> str:
        return str(getattr(self.f, "__name__", "<unnamed wrapped function>"))

    def call_wrapped(self, *args: object) -> Any:
        """Call the function with ``args`` and the bound parameters."""
        return self.f(*args, **self.params)

    def __repr__(self) -> str:
        return f"WrappedFun({self.f!r}, params={self.params!r})"


def wrap_init(
    f: Callable[..., Any], params: Mapping[str, Any] | None = None, *, debug_info: object = None
) -> WrappedFun:
    """Wrap ``f`` (with keyword ``params``) as JAX's ``lu.wrap_init`` does."""
    return WrappedFun(f, params or {}, debug_info)
