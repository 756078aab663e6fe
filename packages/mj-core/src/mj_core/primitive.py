"""Primitives and rule tables.

A :class:`Primitive` is only a name (plus whether it returns several outputs). What a primitive
*means* lives in rule tables, one per interpretation, each owned by the layer that owns that
interpretation: ``impl_rules`` here, ``abstract_eval_rules`` in mj-ir, ``jvp_rules`` in
mj-autodiff, and so on. A table is a :class:`RuleTable`: a plain dict whose failed lookup
raises :class:`~mj_core.errors.MissingRuleError` naming the primitive, the transformation and
where to register the rule.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mj_core.errors import MissingRuleError

__all__ = ["Primitive", "RuleTable", "impl_rules"]


class Primitive:
    """A named operation; its meaning is given by the rule tables it is registered in."""

    __slots__ = ("eager1", "multiple_results", "name")

    def __init__(self, name: str, *, multiple_results: bool = False) -> None:
        self.name = name
        self.multiple_results = multiple_results
        #: The impl rule's computation as a function returning the single output itself (no
        #: list): ``bind``'s eager shortcut for the elementwise primitives, whose impl rules
        #: only wrap a NumPy ufunc. Registering another impl rule clears it.
        self.eager1: Callable[..., Any] | None = None

    def __repr__(self) -> str:
        return self.name


class RuleTable(dict[Primitive, Callable[..., Any]]):
    """A ``dict[Primitive, rule]`` whose missing entries raise a helpful error."""

    def __init__(self, name: str, transformation: str, module: str) -> None:
        super().__init__()
        self.name = name
        self.transformation = transformation
        self.module = module

    def __missing__(self, prim: Primitive) -> Callable[..., Any]:
        raise MissingRuleError(
            f"Primitive '{prim}' has no {self.transformation} rule: register one in "
            f"{self.module}.{self.name}[{prim.name}_p]."
        )

    def __repr__(self) -> str:
        return f"RuleTable({self.module}.{self.name}, {len(self)} rules)"

    def register(self, prim: Primitive) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator form: ``@impl_rules.register(sin_p)`` above the rule's definition."""

        def decorate(rule: Callable[..., Any]) -> Callable[..., Any]:
            self[prim] = rule
            return rule

        return decorate


class _ImplRules(RuleTable):
    """The impl table: a new rule for a primitive also retires its ``eager1`` shortcut."""

    def __setitem__(self, prim: Primitive, rule: Callable[..., Any]) -> None:
        prim.eager1 = None
        super().__setitem__(prim, rule)


impl_rules: RuleTable = _ImplRules("impl_rules", "eager evaluation (impl)", "mj_core")
