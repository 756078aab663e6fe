"""The one typing alias for array values, shared by every layer.

Values flowing through mj's interpreters are NumPy arrays, eager arrays, device arrays,
Python scalars or tracers of any layer; ``Any`` is the honest static type for them (as
``jax.Array`` is JAX's annotation). Defined once here and imported everywhere else.
"""

from __future__ import annotations

from typing import Any, TypeAlias

__all__ = ["Array"]

Array: TypeAlias = Any
