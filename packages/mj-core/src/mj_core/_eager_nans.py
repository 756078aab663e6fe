"""``config.debug_nans`` in eager evaluation: every primitive's outputs are checked.

JAX runs each eager operation as a small compiled function and, with ``jax_debug_nans`` on,
checks its outputs; mj evaluates eagerly with NumPy, so :func:`~mj_core._trace.eval_primitive`
checks the outputs of each impl rule instead (the ufunc shortcuts are suspended meanwhile, see
:class:`~mj_core._primitive.ImplRules`). As in JAX, any NaN in an output raises, whether or not
an operand held one already; jit-compiled functions are checked by mj-xla.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mj_core._primitive import Primitive
from mj_core.errors import user_line_suffix

__all__ = ["check_nans"]


def check_nans(primitive: Primitive, outs: Sequence[Any]) -> None:
    """Raise ``FloatingPointError`` naming ``primitive`` if one of ``outs`` holds a NaN."""
    for out in outs:
        host = np.asarray(out)
        if host.dtype.kind in ("f", "c") and np.isnan(host).any():
            raise FloatingPointError(
                f"invalid value (nan) encountered in {primitive.name}{user_line_suffix()} "
                "(debug_nans is on)"
            )
