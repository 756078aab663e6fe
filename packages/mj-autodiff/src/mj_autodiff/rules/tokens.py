"""Differentiation of the tokens: they are not differentiated. ``create_token`` and
``after_all`` compute their token from the primals; its tangent is a symbolic zero of the
token type (JAX's ``AbstractToken.to_tangent_aval`` is itself). JAX registers no JVP rule for
either: one with no operands is never differentiated, and ``after_all`` of tokens carrying
tangents cannot happen where tokens carry only zero tangents."""

from __future__ import annotations

from mj_autodiff._derivatives import defjvp_zero
from mj_core.prims.tokens import after_all_p, create_token_p

defjvp_zero(create_token_p)
defjvp_zero(after_all_p)
