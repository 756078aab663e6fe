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
from mj_core.prims import elementwise as ew

__all__: list[str] = []

for _prim in (
    ew.abs_p, ew.acos_p, ew.asin_p, ew.atan_p, ew.ceil_p, ew.cos_p, ew.cosh_p, ew.erf_p,
    ew.exp_p, ew.expm1_p, ew.floor_p, ew.integer_pow_p, ew.is_finite_p, ew.log1p_p, ew.log_p,
    ew.logistic_p, ew.neg_p, ew.not_p, ew.round_p, ew.rsqrt_p, ew.sign_p, ew.sin_p, ew.sinh_p,
    ew.sqrt_p, ew.tan_p, ew.tanh_p,
):  # fmt: skip
    defvectorized(_prim)

for _prim in (
    ew.add_p, ew.and_p, ew.atan2_p, ew.clamp_p, ew.div_p, ew.eq_p, ew.greater_equal_p,
    ew.greater_p, ew.less_equal_p, ew.less_p, ew.max_p, ew.min_p, ew.mul_p, ew.ne_p, ew.or_p,
    ew.pow_p, ew.rem_p, ew.select_n_p, ew.shift_left_p, ew.shift_right_arithmetic_p,
    ew.shift_right_logical_p, ew.sub_p, ew.xor_p, ew.nextafter_p,
):  # fmt: skip
    defbroadcasting(_prim)


def _threefry2x32_vmap(
    axis_size: int, vals_in: list[Any], dims_in: list[Any]
) -> tuple[list[Any], list[Any]]:
    """``threefry2x32`` broadcasts its four operands like an n-ary elementwise primitive; both
    of its outputs carry the one batch axis."""
    vals, out_dim = align_batched(vals_in, dims_in)
    return bind(ew.threefry2x32_p, *vals), [out_dim, out_dim]


vmap_rules[ew.threefry2x32_p] = _threefry2x32_vmap
