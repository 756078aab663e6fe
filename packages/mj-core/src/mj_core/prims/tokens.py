"""Tokens: values with no data that order effects (JAX's ``create_token`` and ``after_all``).

``create_token()`` makes a token with no preconditions; ``after_all(*tokens)`` merges tokens
into one that comes after all of them. Both are typed by :data:`~mj_core._avals.abstract_token`
(jaxprs print it ``Tok``) and evaluate eagerly to a :class:`~mj_core._avals.Token`; here its
data is an empty ``bool[0]`` NumPy array (mj-xla evaluates both as compiled programs, so a
token made eagerly there wraps a device buffer of token shape, as in JAX).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mj_core._avals import AbstractToken, Token, abstract_token
from mj_core._primitive import Primitive, abstract_eval_rules, impl_rules
from mj_core.prims._operands import bind1

__all__ = [
    "after_all",
    "after_all_p",
    "create_token",
    "create_token_p",
]

create_token_p = Primitive("create_token")
"""JAX's ``create_token_p``: no operands, a token out."""

after_all_p = Primitive("after_all")
"""JAX's ``after_all_p``: any number of tokens in, one token out (XLA's ``AfterAll``)."""


def _new_token() -> Token:
    return Token(np.zeros((0,), np.bool_))


@abstract_eval_rules.register(create_token_p)
def _create_token_avals(*operands: Any) -> list[AbstractToken]:
    return [abstract_token]


@impl_rules.register(create_token_p)
def _create_token_impl(*operands: Any) -> list[Token]:
    return [_new_token()]


@abstract_eval_rules.register(after_all_p)
def _after_all_avals(*operands: Any) -> list[AbstractToken]:
    if any(x is not abstract_token for x in operands):
        raise TypeError("Arguments to after_all must be tokens")
    return [abstract_token]


@impl_rules.register(after_all_p)
def _after_all_impl(*operands: Any) -> list[Token]:
    if any(type(x) is not Token for x in operands):
        raise TypeError("Arguments to after_all must be tokens")
    return [_new_token()]


def create_token(_: object = None) -> Any:
    """Create a token with no preconditions for sequencing effects (``jax.lax.create_token``;
    experimental in JAX). The argument is ignored; it exists for backward compatibility."""
    return bind1(create_token_p)


def after_all(*operands: Any) -> Any:
    """Merge one or more tokens into one (``jax.lax.after_all``, XLA's ``AfterAll``;
    experimental in JAX): a ``TypeError`` unless every operand is a token."""
    return bind1(after_all_p, *operands)
