"""``config.debug_nans`` and ``debug_infs`` in eager evaluation: every primitive's outputs
are checked.

JAX runs each eager operation as a small compiled function and, with ``jax_debug_nans`` (or
``jax_debug_infs``) on, checks its outputs; mj evaluates eagerly with NumPy, so
:func:`~mj_core._eager.evaluate.eval_primitive` checks the outputs of each impl rule instead
(the ufunc shortcuts are suspended meanwhile, see :class:`~mj_core._primitive.ImplRules`). As in
JAX, any NaN in an output raises, whether or not an operand held one already (an infinity
likewise); jit-compiled functions are checked by mj-xla.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mj_core._config import config
from mj_core._lattice import kind
from mj_core._primitive import Primitive
from mj_core.errors import user_line_suffix

__all__ = ["check_special", "special_value"]


def special_value(x: Any) -> str | None:
    """``"nan"`` or ``"inf"`` if ``x`` (a float/complex array or scalar) holds one that
    ``debug_nans``/``debug_infs`` looks for, else None."""
    host = np.asarray(x)
    if kind(host.dtype) not in "fc":  # (bfloat16 and the float8 types are floats too)
        return None
    if config.debug_nans and np.isnan(host).any():
        return "nan"
    if config.debug_infs and np.isinf(host).any():
        return "inf"
    return None


def check_special(primitive: Primitive, outs: Sequence[Any]) -> None:
    """Raise ``FloatingPointError`` naming ``primitive`` if one of ``outs`` holds a NaN
    (``debug_nans``) or an infinity (``debug_infs``)."""
    for out in outs:
        found = special_value(out)
        if found is not None:
            raise FloatingPointError(
                f"invalid value ({found}) encountered in {primitive.name}{user_line_suffix()} "
                f"(debug_{found}s is on)"
            )
