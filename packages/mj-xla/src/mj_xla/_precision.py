"""``precision`` of dot_general and convolutions as StableHLO's ``precision_config``."""

from __future__ import annotations

from mj_core.lax import Precision
from mj_xla._jaxlib import hlo, ir

__all__ = ["precision_attr"]


def precision_attr(precision: tuple[Precision, Precision] | None) -> ir.ArrayAttr | None:
    """One ``#stablehlo<precision ...>`` per operand, or ``None`` (XLA's default) when the
    program did not ask for one."""
    if precision is None:
        return None
    return ir.ArrayAttr.get([hlo.PrecisionAttr.get(str(p)) for p in precision])
