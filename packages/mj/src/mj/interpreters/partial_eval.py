"""``mj.interpreters.partial_eval``: JAX's ``PartialVal``, the known-or-unknown value of
partial evaluation (``jax.interpreters.partial_eval``).

flax imports this module (its ``lazy_init`` and lifted ``scan`` declare inputs as known or
unknown). mj's partial evaluation is internal to its autodiff (``mj.linearize``); JAX's
tracing entry points over ``PartialVal`` (``trace_to_jaxpr_nounits``) are not provided.
"""

from __future__ import annotations

from typing import Any

__all__ = ["PartialVal"]


class PartialVal(tuple[Any, Any]):
    """``(aval, const)``: a known value has ``aval`` ``None`` and the value as ``const``; an
    unknown one has its abstract value and ``const`` ``None`` (JAX's convention)."""

    __slots__ = ()

    def __new__(cls, xs: tuple[Any, Any]) -> PartialVal:
        aval, const = xs
        if (aval is None) == (const is None) and const is not None:
            raise ValueError("PartialVal: exactly one of aval and const is given")
        return super().__new__(cls, (aval, const))

    @classmethod
    def known(cls, const: Any) -> PartialVal:
        return cls((None, const))

    @classmethod
    def unknown(cls, aval: Any) -> PartialVal:
        return cls((aval, None))

    def is_known(self) -> bool:
        return self[0] is None

    def get_known(self) -> Any:
        """The value if known, else ``None``."""
        return self[1] if self[0] is None else None

    def get_aval(self) -> Any:
        """The abstract value: the unknown's, or the known value's."""
        if self[0] is not None:
            return self[0]
        from mj_core.extend import get_aval

        return get_aval(self[1])
