"""``precision`` of dot_general and convolutions as StableHLO's ``precision_config``."""

from __future__ import annotations

from mj_core import config
from mj_core.extend import MATMUL_PRECISIONS
from mj_core.lax import Precision
from mj_xla._jaxlib import hlo, ir

__all__ = ["precision_attr"]


def precision_attr(precision: tuple[Precision, Precision] | None) -> ir.ArrayAttr | None:
    """One ``#stablehlo<precision ...>`` per operand, or ``None`` (XLA's default) when the
    program asked for none and ``config.default_matmul_precision`` names none either."""
    if precision is None:
        default = config.default_matmul_precision
        if default is None:
            return None
        name = MATMUL_PRECISIONS[default]
        return ir.ArrayAttr.get([hlo.PrecisionAttr.get(name)] * 2)
    return ir.ArrayAttr.get([hlo.PrecisionAttr.get(str(p)) for p in precision])
