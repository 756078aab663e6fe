"""Argument handling shared by the distributions: promote to one inexact dtype, like JAX's
``promote_args_inexact``, so ``loc``/``scale`` broadcast against ``x`` elementwise."""

from __future__ import annotations

from mj_core import get_aval
from mj_core.errors import user_line_suffix
from mj_core.extend import Array, ArrayLike, promote_inexact


def promote_args_inexact(name: str, *args: ArrayLike) -> list[Array]:
    """``args`` in their common inexact dtype; complex is rejected with the API's name."""
    out = promote_inexact(*args)
    dtype = get_aval(out[0]).dtype
    if dtype.kind != "f":
        raise TypeError(f"{name} requires real arguments, got {dtype.name}{user_line_suffix()}")
    return out
