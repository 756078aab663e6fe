"""JAX's rule registries as live views over mj's rule tables.

JAX code registers rules by assigning into module-level dicts (``ad.primitive_jvps[p] = rule``,
``batching.primitive_batchers[p] = rule``) whose rules have JAX's signatures. mj has one table
per transformation (``mj_autodiff.jvp_rules``, ...) with mj's signatures. A :class:`RuleView`
is a ``MutableMapping`` over such a table that converts on the way in and on the way out:

* ``view[p] = jax_rule`` stores an adapter (mj's signature, calling ``jax_rule``) in the mj
  table: the one table is the only place the rule lives;
* ``view[p]`` returns the rule in JAX's signature: the JAX rule itself when it was registered
  through the view, else a wrapper around the mj rule;
* ``del view[p]``, ``p in view``, iteration and ``len`` are the table's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, MutableMapping
from typing import Any

from mj_core import Primitive

__all__ = ["RuleView", "multiple_results"]

Rule = Callable[..., Any]
Converter = Callable[[Primitive, Rule], Rule]

# The attribute of an adapter holding (the view's name, the JAX rule it wraps).
_JAX_RULE = "_mj_jax_rule"


def multiple_results(prim: Primitive) -> bool:
    """Whether ``prim`` returns a list of outputs (JAX's ``Primitive.multiple_results``)."""
    return bool(getattr(prim, "multiple_results", False))


class RuleView(MutableMapping[Primitive, Rule]):
    """A view of ``table`` (a ``dict[Primitive, rule]`` with mj's signature) in JAX's
    signature: ``to_mj(prim, jax_rule)`` adapts a JAX rule for the table, ``to_jax(prim,
    mj_rule)`` presents an mj rule in JAX's signature."""

    def __init__(
        self, name: str, table: dict[Primitive, Rule], to_mj: Converter, to_jax: Converter
    ) -> None:
        self.name = name
        self.table = table
        self._to_mj = to_mj
        self._to_jax = to_jax

    def __getitem__(self, prim: Primitive) -> Rule:
        if prim not in self.table:
            raise KeyError(prim)
        rule = self.table[prim]
        view, original = getattr(rule, _JAX_RULE, (None, None))
        # the JAX rule itself when it was registered through this view (views sharing a
        # table, such as the batching ones, have different signatures)
        if view == self.name and original is not None:
            return original  # type: ignore[no-any-return]
        return self._to_jax(prim, rule)

    def __setitem__(self, prim: Primitive, rule: Rule) -> None:
        if not callable(rule):
            raise TypeError(f"{self.name}[{prim}]: expected a callable rule, got {rule!r:.60}")
        adapter = self._to_mj(prim, rule)
        setattr(adapter, _JAX_RULE, (self.name, rule))
        adapter.__name__ = getattr(rule, "__name__", adapter.__name__)
        self.table[prim] = adapter

    def __delitem__(self, prim: Primitive) -> None:
        del self.table[prim]

    def __contains__(self, prim: object) -> bool:
        return prim in self.table

    def __iter__(self) -> Iterator[Primitive]:
        return iter(list(self.table))

    def __len__(self) -> int:
        return len(self.table)

    def __repr__(self) -> str:
        return f"<JAX view {self.name} of {self.table!r}>"
