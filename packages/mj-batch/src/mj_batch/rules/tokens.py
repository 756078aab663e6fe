"""Batching rules of the tokens: a token has no data, so it is never batched; ``vmap`` passes
it through unbatched. ``create_token`` has no operands (never batched); ``after_all`` of
unbatched tokens is one unbatched token."""

from __future__ import annotations

from mj_batch._batching import Dims, RuleResult, Vals, not_mapped, vmap_rules
from mj_core import bind
from mj_core.prims.tokens import after_all_p, create_token_p

__all__: list[str] = []


@vmap_rules.register(create_token_p)
def _create_token_vmap(axis_size: int, vals_in: Vals, dims_in: Dims) -> RuleResult:
    return bind(create_token_p, *vals_in), [not_mapped]


@vmap_rules.register(after_all_p)
def _after_all_vmap(axis_size: int, vals_in: Vals, dims_in: Dims) -> RuleResult:
    if any(d is not not_mapped for d in dims_in):  # (only an array can have a batch axis)
        raise TypeError("Arguments to after_all must be tokens")
    return bind(after_all_p, *vals_in), [not_mapped]
