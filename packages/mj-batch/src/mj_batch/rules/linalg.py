"""Batching rules of the linear-algebra primitives: they already treat leading axes as batch
axes, so the batch axis moves to the front (broadcasting an unbatched operand of
``triangular_solve``, ``tridiagonal_solve`` or ``householder_product``) and every output is
batched at 0."""

from __future__ import annotations

from typing import Any

from mj_batch._batching import Dims, RuleResult, Vals, move_batch_axis, vmap_rules
from mj_core import bind
from mj_core.prims.linalg import (
    cholesky_p,
    eig_p,
    eigh_p,
    geqp3_p,
    geqrf_p,
    hessenberg_p,
    householder_product_p,
    lu_p,
    qr_p,
    schur_p,
    svd_p,
    triangular_solve_p,
    tridiagonal_p,
    tridiagonal_solve_p,
)

__all__: list[str] = []


def _linalg_vmap(prim: Any) -> Any:
    def rule(axis_size: int, vals_in: Vals, dims_in: Dims, **params: Any) -> RuleResult:
        args = [move_batch_axis(axis_size, d, 0, v) for v, d in zip(vals_in, dims_in, strict=True)]
        outs = bind(prim, *args, **params)
        return outs, [0] * len(outs)

    rule.__name__ = f"{prim.name}_vmap"
    return rule


for _prim in (
    cholesky_p,
    triangular_solve_p,
    lu_p,
    eig_p,
    eigh_p,
    svd_p,
    qr_p,
    schur_p,
    tridiagonal_solve_p,
    hessenberg_p,
    householder_product_p,
    tridiagonal_p,
    geqrf_p,
    geqp3_p,
):
    vmap_rules[_prim] = _linalg_vmap(_prim)
