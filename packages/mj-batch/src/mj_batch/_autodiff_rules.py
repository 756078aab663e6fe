"""Batching rules of mj-autodiff's own primitives: ``stop_gradient``, ``custom_jvp_call``,
``custom_vjp_call`` and ``custom_lin``.

A custom-derivative function applied to batched values is staged by mj-autodiff into
``custom_jvp_call`` / ``custom_vjp_call``, whose batching rule batches the primal jaxpr and,
lazily, the derivative rule: the custom JVP jaxpr with every tangent batched like its primal,
or the ``fwd`` jaxpr and a ``bwd`` vmapped over residuals and cotangents. So the custom rule
still applies when the batched function is differentiated afterwards (``grad(vmap(f))``).
Every output is batched at dim 0, so primal and derivative outputs always agree.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from mj_autodiff.extend import (
    Thunk,
    Zero,
    custom_jvp_call_p,
    custom_lin_p,
    custom_vjp_call_p,
    instantiate_zeros,
    stop_gradient_p,
)
from mj_batch._batching import (
    BatchDim,
    Dims,
    NotMapped,
    RuleResult,
    Vals,
    defvectorized,
    move_batch_axis,
    not_mapped,
    unmapped_aval,
    vmap_rules,
)
from mj_batch._jaxpr import vmap_jaxpr
from mj_batch._vmap import batch_flat
from mj_core import ShapedArray, bind, lax
from mj_core.dtypes import is_inexact
from mj_ir import ClosedJaxpr

__all__: list[str] = []

defvectorized(stop_gradient_p)


def _is_inexact(aval: ShapedArray) -> bool:
    return is_inexact(aval.dtype)


def _batched_call(
    call_jaxpr: ClosedJaxpr, axis_size: int, vals_in: Vals, dims_in: Dims
) -> tuple[ClosedJaxpr, list[Any]]:
    """``call_jaxpr`` batched with every output at dim 0; constants the batching introduced
    become leading operands, since these primitives carry const-free jaxprs."""
    batched, _ = vmap_jaxpr(call_jaxpr, axis_size, dims_in, instantiate=True)
    return ClosedJaxpr(batched.jaxpr, []), [*batched.consts, *vals_in]


def _custom_jvp_call_vmap(
    axis_size: int,
    vals_in: Vals,
    dims_in: Dims,
    *,
    call_jaxpr: ClosedJaxpr,
    jvp_jaxpr_thunk: Callable[[], tuple[ClosedJaxpr, list[bool]]],
    num_consts: int,
) -> RuleResult:
    new_call, operands = _batched_call(call_jaxpr, axis_size, vals_in, dims_in)
    new_num_consts = num_consts + len(operands) - len(vals_in)
    arg_dims = list(dims_in[num_consts:])
    arg_avals = call_jaxpr.in_avals[num_consts:]

    def batched_jvp() -> tuple[ClosedJaxpr, list[bool]]:
        jvp_closed, out_nonzero = jvp_jaxpr_thunk()
        # Tangents are batched like their primals (the tangent of an unbatched primal is
        # unbatched at the level where this primitive is differentiated).
        tangent_dims = [d for d, a in zip(arg_dims, arg_avals, strict=True) if _is_inexact(a)]
        batched, _ = vmap_jaxpr(jvp_closed, axis_size, [*arg_dims, *tangent_dims], instantiate=True)
        return batched, out_nonzero

    outs = bind(
        custom_jvp_call_p,
        *operands,
        call_jaxpr=new_call,
        jvp_jaxpr_thunk=Thunk(f"vmap_{jvp_jaxpr_thunk!r}", batched_jvp),
        num_consts=new_num_consts,
    )
    return outs, [0] * len(outs)


vmap_rules[custom_jvp_call_p] = _custom_jvp_call_vmap


def _batched_bwd(
    bwd: Callable[..., list[Any]], axis_size: int, arg_dims: Sequence[BatchDim]
) -> Callable[..., list[Any]]:
    """``bwd`` for residuals and cotangents batched at dim 0, giving each argument's
    cotangent batched like the argument, or summed over the batch for an unbatched one."""

    def bwd_batched(res: Sequence[Any], cts: Sequence[Any]) -> list[Any]:
        n_res = len(res)
        # a symbolic-zero cotangent stays one (per example: without the batch axis), so a
        # ``symbolic_zeros`` bwd sees it as JAX's does
        zero_cts = [
            Zero(c.aval.update(shape=c.aval.shape[1:])) if type(c) is Zero else None for c in cts
        ]

        def per_example(*args: Any) -> list[Any]:
            it = iter(args[n_res:])
            cts_ex = [next(it) if z is None else z for z in zero_cts]
            cts_in = bwd(list(args[:n_res]), cts_ex)
            return [instantiate_zeros(c) for c in cts_in]

        operands = [*res, *(c for c in cts if type(c) is not Zero)]
        outs, dims = batch_flat(per_example, axis_size, [0] * len(operands), operands)
        cts_out: list[Any] = []
        for ct, d, want in zip(outs, dims, arg_dims, strict=True):
            if want is not_mapped:  # a shared argument: its cotangent sums over examples
                cts_out.append(ct if isinstance(d, NotMapped) else lax.reduce_sum(ct, (d,)))
            else:
                cts_out.append(move_batch_axis(axis_size, d, want, ct))
        return cts_out

    return bwd_batched


def _custom_vjp_call_vmap(
    axis_size: int,
    vals_in: Vals,
    dims_in: Dims,
    *,
    call_jaxpr: ClosedJaxpr,
    fwd_jaxpr_thunk: Callable[..., tuple[ClosedJaxpr, int]],
    bwd: Callable[..., list[Any]],
    num_consts: int,
) -> RuleResult:
    new_call, operands = _batched_call(call_jaxpr, axis_size, vals_in, dims_in)
    new_num_consts = num_consts + len(operands) - len(vals_in)
    arg_dims = list(dims_in[num_consts:])

    def batched_fwd(*perturbed: bool) -> tuple[ClosedJaxpr, int]:
        fwd_closed, n_res = fwd_jaxpr_thunk(*perturbed)
        batched, _ = vmap_jaxpr(fwd_closed, axis_size, arg_dims, instantiate=True)
        return batched, n_res

    outs = bind(
        custom_vjp_call_p,
        *operands,
        call_jaxpr=new_call,
        fwd_jaxpr_thunk=Thunk(f"vmap_{fwd_jaxpr_thunk!r}", batched_fwd),
        bwd=_batched_bwd(bwd, axis_size, arg_dims),
        num_consts=new_num_consts,
    )
    return outs, [0] * len(outs)


vmap_rules[custom_vjp_call_p] = _custom_vjp_call_vmap


def _custom_lin_vmap(
    axis_size: int,
    vals_in: Vals,
    dims_in: Dims,
    *,
    num_res: int,
    bwd: Callable[..., list[Any]],
    out_avals: tuple[ShapedArray, ...],
    in_avals: tuple[ShapedArray, ...],
    in_nonzero: tuple[bool, ...],
) -> RuleResult:
    """Everything batched at dim 0: ``bwd`` is vmapped over residuals and cotangents."""
    operands = [move_batch_axis(axis_size, d, 0, v) for v, d in zip(vals_in, dims_in, strict=True)]
    arg_dims: list[BatchDim] = [0] * len(in_avals)
    outs = bind(
        custom_lin_p,
        *operands,
        num_res=num_res,
        bwd=_batched_bwd(bwd, axis_size, arg_dims),
        out_avals=tuple(unmapped_aval(axis_size, 0, a) for a in out_avals),
        in_avals=tuple(unmapped_aval(axis_size, 0, a) for a in in_avals),
        in_nonzero=in_nonzero,
    )
    return outs, [0] * len(outs)


vmap_rules[custom_lin_p] = _custom_lin_vmap
