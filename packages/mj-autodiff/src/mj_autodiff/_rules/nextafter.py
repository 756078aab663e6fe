"""``nextafter`` has no derivative in JAX (differentiating it is an error); mj's rule
raises the same way, naming the primitive."""

from __future__ import annotations

from typing import Any

from mj_autodiff._jvp import jvp_rules
from mj_core.errors import user_line_suffix
from mj_core.prims import nextafter as na


def _nextafter_jvp(primals: list[Any], tangents: list[Any]) -> tuple[list[Any], list[Any]]:
    raise NotImplementedError(
        f"Differentiation rule for 'nextafter' not implemented (as in JAX){user_line_suffix()}"
    )


jvp_rules[na.nextafter_p] = _nextafter_jvp
