"""``precision`` of dot_general and convolutions as StableHLO's ``precision_config``."""

from __future__ import annotations

from typing import Any

import numpy as np

from mj_core.prims.contractions import (
    CanonicalPrecision,
    DotAlgorithm,
    DotAlgorithmPreset,
)
from mj_xla._jaxlib import hlo, ir, ir_element_type

__all__ = ["algorithm_attr", "precision_attr"]

_PRESET_OPS = {"X3": 3, "X6": 6, "X9": 9}


def algorithm_attr(
    algorithm: DotAlgorithm | DotAlgorithmPreset, lhs: np.dtype[Any], rhs: np.dtype[Any]
) -> ir.Attribute | None:
    """``#stablehlo.dot_algorithm<...>`` of ``algorithm`` (``None`` for ``DEFAULT``; the
    float8 presets take the operand types ``lhs``, ``rhs``), as JAX's
    ``_convert_to_hlo_attr``."""
    if isinstance(algorithm, DotAlgorithm):
        return hlo.DotAlgorithm.get(
            ir_element_type(np.dtype(algorithm.lhs_precision_type)),
            ir_element_type(np.dtype(algorithm.rhs_precision_type)),
            ir_element_type(np.dtype(algorithm.accumulation_type)),
            algorithm.lhs_component_count,
            algorithm.rhs_component_count,
            algorithm.num_primitive_operations,
            algorithm.allow_imprecise_accumulation,
        )
    name = algorithm.name
    if name == "DEFAULT":
        return None
    if name.startswith("ANY_F8"):
        f8 = {np.dtype(d) for d in algorithm.supported_output_types(lhs, rhs) or ()}
        if lhs not in f8 or rhs not in f8 or lhs.itemsize != 1 or rhs.itemsize != 1:
            raise ValueError(
                f"The dot algorithm '{algorithm}' requires both inputs to have float8 dtypes. "
                f"Got {lhs} and {rhs} instead."
            )
        return hlo.DotAlgorithm.get(
            ir_element_type(lhs), ir_element_type(rhs), ir.F32Type.get(), 1, 1, 1,
            name.endswith("FAST_ACCUM"),
        )  # fmt: skip
    parts = name.split("_")
    types = {"F16": ir.F16Type.get, "BF16": ir.BF16Type.get, "F32": ir.F32Type.get,
             "F64": ir.F64Type.get, "TF32": ir.FloatTF32Type.get}  # fmt: skip
    ops = _PRESET_OPS.get(parts[-1], 1)
    return hlo.DotAlgorithm.get(
        types[parts[0]](), types[parts[1]](), types[parts[2]](), 1, 1, ops, False
    )


def precision_attr(precision: CanonicalPrecision) -> ir.ArrayAttr | None:
    """One ``#stablehlo<precision ...>`` per operand, or ``None`` (XLA's default) when the
    program asked for none, or for a dot algorithm (which says how to compute instead).
    ``config.default_matmul_precision`` was read when the operation was staged
    (``canonicalize_precision``)."""
    if precision is None or isinstance(precision, DotAlgorithm | DotAlgorithmPreset):
        return None
    return ir.ArrayAttr.get([hlo.PrecisionAttr.get(str(p)) for p in precision])
