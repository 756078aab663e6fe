"""``nextafter(x1, x2)``: the next float after ``x1`` towards ``x2`` (``np.nextafter``), a
binary elementwise primitive in the operands' promoted float dtype. Like JAX it has no
derivative (its jvp rule raises)."""

from __future__ import annotations

from typing import Any

import numpy as np

from mj_core.prims.elementwise import REAL, _define, to_inexact_dtype

__all__ = ["nextafter_p"]


def _nextafter(x1: Any, x2: Any) -> Any:
    dtype = to_inexact_dtype(np.result_type(x1, x2))
    if dtype.kind == "c":
        raise TypeError(f"nextafter is not defined for complex inputs, got {dtype.name}")
    return np.nextafter(np.asarray(x1, dtype), np.asarray(x2, dtype))[()]


nextafter_p = _define("nextafter", 2, REAL, to_inexact_dtype, _nextafter)
