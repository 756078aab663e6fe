"""JAX's ``lu.WrappedFun`` / ``lu.wrap_init``: a function with its keyword parameters and
debug info, called by ``call_wrapped`` (re-exported as ``mj.extend.linear_util``; here so that
the layers' primitives can hand one out, as ``custom_jvp_call_p.get_bind_params`` does)."""

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
