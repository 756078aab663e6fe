"""Lowering of the host callbacks: compiled code calling back into Python at run time.

As JAX does, each callback becomes a ``stablehlo.custom_call`` to jaxlib's Python callback
target for the module's platform (``xla_ffi_python_cpu_callback``, or the GPU plugin's
``xla_ffi_python_gpu_callback``; typed FFI, api_version 4) whose ``backend_config`` holds
the callback's index in the module's ``host_callbacks``; the executable is compiled with that
list, and XLA calls the function with NumPy arrays every time the program runs (never at
trace time).
``debug_callback`` is marked ``has_side_effect`` so XLA neither removes nor hoists it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mj_core import ShapedArray
from mj_core.prims.callback import (
    HostCallback,
    check_callback_outputs,
    debug_callback_p,
    install_callback_error,
    pure_callback_p,
)
from mj_xla._jaxlib import JaxRuntimeError, Value, hlo, ir, python_callback_target
from mj_xla._lowering import Avals, LoweringContext, Values, aval_to_ir_type, lowering_rules

install_callback_error(JaxRuntimeError)  # eager callbacks fail as compiled ones do

__all__ = ["emit_callback"]


def _layouts(avals: Avals) -> ir.ArrayAttr:
    """Row-major (NumPy) layouts: minor-to-major dims ``ndim-1, ..., 0``."""
    return ir.ArrayAttr.get(
        [
            ir.DenseElementsAttr.get(  # type: ignore[call-overload]
                np.arange(a.ndim - 1, -1, -1, dtype=np.int64), type=ir.IndexType.get()
            )
            for a in avals
        ]
    )


def emit_callback(
    ctx: LoweringContext,
    fun: Any,
    avals_in: Avals,
    in_vals: Values,
    avals_out: Avals,
    has_side_effect: bool,
) -> list[Value]:
    """Emit the custom call that runs ``fun(*arrays) -> tuple of arrays`` on the host with
    ``in_vals`` (of types ``avals_in``), returning values of types ``avals_out``; with
    ``has_side_effect`` XLA neither removes nor hoists it."""
    index = len(ctx.host_callbacks)
    ctx.host_callbacks.append(fun)
    config = ir.DictAttr.get({"index": ir.IntegerAttr.get(ir.IntegerType.get_unsigned(64), index)})
    op = hlo.CustomCallOp(
        [aval_to_ir_type(a) for a in avals_out],
        list(in_vals),
        call_target_name=python_callback_target(ctx.platform),
        has_side_effect=ir.BoolAttr.get(has_side_effect),
        backend_config=config,
        api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 4),
        operand_layouts=_layouts(avals_in),
        result_layouts=_layouts(avals_out),
    )
    return list(op.results)


@lowering_rules.register(debug_callback_p)
def debug_callback_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    callback: HostCallback,
) -> list[Value]:
    def run(*args: Any) -> tuple[()]:
        callback(*args)
        return ()

    return emit_callback(ctx, run, avals_in, in_vals, [], has_side_effect=True)


@lowering_rules.register(pure_callback_p)
def pure_callback_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    callback: HostCallback,
    result_avals: tuple[ShapedArray, ...],
    vmap_method: str | None,
) -> list[Value]:
    def run(*args: Any) -> tuple[Any, ...]:
        outs = check_callback_outputs(callback.api, callback(*args), result_avals)
        return tuple(np.asarray(o, order="C") for o in outs)  # 0-d stays 0-d

    return emit_callback(ctx, run, avals_in, in_vals, avals_out, has_side_effect=False)
