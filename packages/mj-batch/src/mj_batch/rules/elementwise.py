"""Batching rules of the elementwise primitives.

A unary one acts on each element independently, so it applies to the whole batch and the
batch dim stays where it is (``defvectorized``). An n-ary one broadcasts its operands like
NumPy, so :func:`~mj_batch._batching.align_batched` first lines their batch axes up
(``defbroadcasting``).
"""

from __future__ import annotations

from typing import Any

from mj_batch._batching import align_batched, defbroadcasting, defvectorized, vmap_rules
from mj_core import bind
from mj_core.prims.elementwise import (
    abs_p,
    acos_p,
    add_p,
    and_p,
    asin_p,
    atan2_p,
    atan_p,
    ceil_p,
    clamp_p,
    cos_p,
    cosh_p,
    div_p,
    eq_p,
    erf_p,
    exp_p,
    expm1_p,
    floor_p,
    greater_equal_p,
    greater_p,
    integer_pow_p,
    is_finite_p,
    less_equal_p,
    less_p,
    log1p_p,
    log_p,
    logistic_p,
    max_p,
    min_p,
    mul_p,
    ne_p,
    neg_p,
    nextafter_p,
    not_p,
    or_p,
    pow_p,
    rem_p,
    round_p,
    rsqrt_p,
    select_n_p,
    shift_left_p,
    shift_right_arithmetic_p,
    shift_right_logical_p,
    sign_p,
    sin_p,
    sinh_p,
    sqrt_p,
    sub_p,
    tan_p,
    tanh_p,
    threefry2x32_p,
    xor_p,
)

__all__: list[str] = []

for _prim in (
    abs_p, acos_p, asin_p, atan_p, ceil_p, cos_p, cosh_p, erf_p,
    exp_p, expm1_p, floor_p, integer_pow_p, is_finite_p, log1p_p, log_p,
    logistic_p, neg_p, not_p, round_p, rsqrt_p, sign_p, sin_p, sinh_p,
    sqrt_p, tan_p, tanh_p,
):  # fmt: skip
    defvectorized(_prim)

for _prim in (
    add_p, and_p, atan2_p, clamp_p, div_p, eq_p, greater_equal_p,
    greater_p, less_equal_p, less_p, max_p, min_p, mul_p, ne_p, or_p,
    pow_p, rem_p, select_n_p, shift_left_p, shift_right_arithmetic_p,
    shift_right_logical_p, sub_p, xor_p, nextafter_p,
):  # fmt: skip
    defbroadcasting(_prim)


def _threefry2x32_vmap(
    axis_size: int, vals_in: list[Any], dims_in: list[Any]
) -> tuple[list[Any], list[Any]]:
    """``threefry2x32`` broadcasts its four operands like an n-ary elementwise primitive; both
    of its outputs carry the one batch axis."""
    vals, out_dim = align_batched(vals_in, dims_in)
    return bind(threefry2x32_p, *vals), [out_dim, out_dim]


vmap_rules[threefry2x32_p] = _threefry2x32_vmap
