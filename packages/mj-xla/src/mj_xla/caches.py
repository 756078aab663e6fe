"""``clear_caches``: drop every compiled executable and cached traced jaxpr (JAX's
``jax.clear_caches``); the next call of a jitted function traces and compiles again."""

from __future__ import annotations

from mj_autodiff._transpose import transpose_jaxpr
from mj_batch._jaxpr import _vmap_jaxpr_cached
from mj_xla import executable, jit

__all__ = ["clear_caches"]


def clear_caches() -> None:
    """Clear the jit caches of every function, and the caches of traced jaxprs below them."""
    for cache in list(jit._function_caches.values()):
        cache.clear()
    executable._closed_cache.clear()
    transpose_jaxpr.cache_clear()
    _vmap_jaxpr_cached.cache_clear()
