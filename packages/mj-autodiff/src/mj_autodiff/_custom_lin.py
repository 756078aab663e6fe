"""``custom_lin``: the linear primitive standing for a ``custom_vjp`` function's tangents.

Differentiating a ``custom_vjp`` function runs its ``fwd`` rule and binds ``custom_lin`` on the
residuals and the input tangents. It is linear in the tangents; its transpose (registered
in ``_custom_derivatives``) calls the user's ``bwd``. Evaluating it in forward mode is an
error, as in JAX: a ``custom_vjp`` function has no JVP.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from mj_autodiff._tangents import Zero, instantiate_zeros, is_float0, tangent_aval_of
from mj_core import Primitive, ShapedArray, bind, impl_rules
from mj_core.errors import ShapeDtypeError, user_line_suffix
from mj_ir import abstract_eval_rules

__all__ = ["bind_custom_lin", "custom_lin_p", "custom_vjp_jvp_error"]

custom_lin_p = Primitive("custom_lin", multiple_results=True)


def bind_custom_lin(
    res: Sequence[Any],
    tangents: Sequence[Any],
    primals: Sequence[Any],
    primals_out: Sequence[Any],
    bwd: Callable[..., list[Any]],
) -> list[Any]:
    """The output tangents of a ``custom_vjp`` function: ``custom_lin`` of the residuals and
    the inexact inputs' (instantiated) tangents; ``Zero`` for integer outputs."""
    in_avals = tuple(tangent_aval_of(p) for p in primals)
    in_nonzero = tuple(not is_float0(a.dtype) for a in in_avals)
    lin_tangents = [instantiate_zeros(t) for t, nz in zip(tangents, in_nonzero, strict=True) if nz]
    out_avals = tuple(tangent_aval_of(p) for p in primals_out)
    outs = bind(
        custom_lin_p,
        *res,
        *lin_tangents,
        num_res=len(res),
        bwd=bwd,
        out_avals=out_avals,
        in_avals=in_avals,
        in_nonzero=in_nonzero,
    )
    return [Zero(a) if is_float0(a.dtype) else o for a, o in zip(out_avals, outs, strict=True)]


def custom_vjp_jvp_error() -> ShapeDtypeError:
    """JAX's error for evaluating ``custom_lin`` (forward mode through a ``custom_vjp``
    function), raised by its impl and by its lowering under ``jit``; JAX's wording first,
    then mj's hint and the user's line. (A ``TypeError``, as JAX's, and an ``MJError`` that
    reaches the user unchanged.)"""
    return ShapeDtypeError(
        "can't apply forward-mode autodiff (jvp) to a custom_vjp function. If you want to "
        f"use both forward- and reverse-mode, use custom_jvp instead{user_line_suffix()}."
    )


def _custom_lin_impl(*args: Any, **params: Any) -> list[Any]:
    raise custom_vjp_jvp_error()


impl_rules[custom_lin_p] = _custom_lin_impl


def _custom_lin_abstract_eval(
    *avals: ShapedArray, out_avals: tuple[ShapedArray, ...], **params: Any
) -> list[ShapedArray]:
    return list(out_avals)


abstract_eval_rules[custom_lin_p] = _custom_lin_abstract_eval
