"""Differentiation of host callbacks, as in JAX.

``debug_callback`` sees the primal values only (printing a value under ``grad`` prints the
value, once) and contributes no tangents. ``pure_callback`` is opaque Python: like JAX, it has
no derivative, and differentiating it is an error that points to ``custom_jvp``.
"""

from __future__ import annotations

from typing import Any

from mj_autodiff._jvp import jvp_rules
from mj_core import bind
from mj_core.errors import user_line_suffix
from mj_core.prims.callback import HostCallback, debug_callback_p, pure_callback_p


@jvp_rules.register(debug_callback_p)
def debug_callback_jvp(
    primals: list[Any], tangents: list[Any], *, callback: HostCallback
) -> tuple[list[Any], list[Any]]:
    bind(debug_callback_p, *primals, callback=callback)
    return [], []


@jvp_rules.register(pure_callback_p)
def pure_callback_jvp(
    primals: list[Any], tangents: list[Any], **params: object
) -> tuple[list[Any], list[Any]]:
    raise ValueError(
        "pure_callback: pure callbacks do not support JVP (and so grad); wrap the callback in "
        f"mj.custom_jvp or mj.custom_vjp to differentiate it{user_line_suffix()}"
    )
