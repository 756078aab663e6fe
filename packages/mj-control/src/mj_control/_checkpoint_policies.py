"""Checkpoint policies: which intermediate values ``checkpoint`` may save for the backward
pass instead of recomputing them (JAX's ``jax.checkpoint_policies``).

A policy is called as ``policy(primitive, *input_avals, **params)`` for each equation of the
checkpointed function whose output the backward pass needs, and returns True when that
output may be saved as a residual. The function's own inputs are always saved.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mj_control._checkpoint_name import name_p
from mj_core import Primitive
from mj_core.prims.contractions import dot_general_p

__all__ = ["Policy", "checkpoint_policies", "nothing_saveable"]

Policy = Callable[..., bool]


def everything_saveable(*_: object, **__: object) -> bool:
    """Save every needed intermediate: as if ``checkpoint`` were not used."""
    return True


def nothing_saveable(*_: object, **__: object) -> bool:
    """Save only the inputs and recompute everything else (``policy=None`` does this)."""
    return False


@dataclass(frozen=True)
class DotsSaveable:
    """Save the results of matrix products (``dot_general``), only those without batch
    dimensions if ``only_if_no_batch_dims``; recompute the cheap elementwise work."""

    only_if_no_batch_dims: bool

    def __call__(self, prim: Primitive, *_: object, **params: Any) -> bool:
        if prim is not dot_general_p:
            return False
        if not self.only_if_no_batch_dims:
            return True
        (_, _), (lhs_batch, rhs_batch) = params["dimension_numbers"]
        return not lhs_batch and not rhs_batch


dots_saveable = DotsSaveable(False)
dots_with_no_batch_dims_saveable = DotsSaveable(True)


@dataclass(frozen=True)
class SaveOnlyTheseNames:
    """Save only values tagged by ``checkpoint_name`` with one of ``names``."""

    names: frozenset[str]

    def __call__(self, prim: Primitive, *_: object, **params: object) -> bool:
        return prim is name_p and params["name"] in self.names


@dataclass(frozen=True)
class SaveAnyNamesButThese:
    """Save only values tagged by ``checkpoint_name``, except those tagged with ``names``."""

    names: frozenset[str]

    def __call__(self, prim: Primitive, *_: object, **params: object) -> bool:
        return prim is name_p and params["name"] not in self.names


def save_only_these_names(*names: str) -> Policy:
    """Save only the values tagged with one of ``names``."""
    return SaveOnlyTheseNames(frozenset(names))


def save_any_names_but_these(*names: str) -> Policy:
    """Save only tagged values, and none tagged with one of ``names``."""
    return SaveAnyNamesButThese(frozenset(names))


def save_anything_except_these_names(*names: str) -> Policy:
    """As JAX 0.10.2 implements it: saves every value (the names are ignored)."""
    return everything_saveable


@dataclass(frozen=True)
class SaveFromBothPolicies:
    """A value is saveable when either policy says so."""

    policy_1: Policy
    policy_2: Policy

    def __call__(self, prim: Primitive, *args: object, **params: object) -> bool:
        out1 = self.policy_1(prim, *args, **params)
        out2 = self.policy_2(prim, *args, **params)
        if not (isinstance(out1, bool) and isinstance(out2, bool)):
            raise ValueError(
                "save_from_both_policies: the policies must return booleans, got "
                f"{out1!r} and {out2!r}"
            )
        return out1 or out2


def save_from_both_policies(policy_1: Policy, policy_2: Policy) -> Policy:
    """The logical OR of two policies."""
    return SaveFromBothPolicies(policy_1, policy_2)


checkpoint_policies = types.SimpleNamespace(
    everything_saveable=everything_saveable,
    nothing_saveable=nothing_saveable,
    dots_saveable=dots_saveable,
    checkpoint_dots=dots_saveable,
    dots_with_no_batch_dims_saveable=dots_with_no_batch_dims_saveable,
    checkpoint_dots_with_no_batch_dims=dots_with_no_batch_dims_saveable,
    save_only_these_names=save_only_these_names,
    save_any_names_but_these=save_any_names_but_these,
    save_anything_except_these_names=save_anything_except_these_names,
    save_from_both_policies=save_from_both_policies,
)
