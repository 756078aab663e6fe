"""``mj.typing``: the annotations JAX code uses for its inputs (``jax.typing``).

``ArrayLike`` is what mj functions take as an array (mj arrays, NumPy arrays and scalars,
Python scalars); ``DTypeLike`` what they take as a ``dtype=`` (a name, a type, a NumPy dtype
or anything with a ``dtype`` attribute). Annotate outputs with ``mj.Array``. Both are
mj-core's (``mj_core.extend``), defined once for every layer.
"""

from __future__ import annotations

from mj_core.extend import ArrayLike as ArrayLike
from mj_core.extend import DTypeLike as DTypeLike

__all__ = ["ArrayLike", "DTypeLike"]
