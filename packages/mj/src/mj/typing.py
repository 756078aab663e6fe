"""``mj.typing``: the annotations JAX code uses for its inputs (``jax.typing``).

``ArrayLike`` is what mj functions take as an array (mj arrays, NumPy arrays and scalars,
Python scalars); ``DTypeLike`` what they take as a ``dtype=`` (a name, a type, a NumPy dtype
or anything with a ``dtype`` attribute). Annotate outputs with ``mj.Array``.
"""

from __future__ import annotations

from typing import Any, Protocol, TypeAlias

import numpy as np

from mj_xla import Array

__all__ = ["ArrayLike", "DTypeLike"]


class SupportsDType(Protocol):
    """Anything with a ``dtype`` (e.g. ``ml_dtypes.bfloat16``'s scalars, NumPy arrays)."""

    @property
    def dtype(self) -> np.dtype[Any]: ...


ArrayLike: TypeAlias = Array | np.ndarray[Any, Any] | np.bool_ | np.number[Any] | complex
DTypeLike: TypeAlias = str | type[Any] | np.dtype[Any] | SupportsDType
