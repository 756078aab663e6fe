"""``clear_caches``: drop every compiled executable and cached traced jaxpr (JAX's
``jax.clear_caches``); the next call of a jitted function traces and compiles again."""

from __future__ import annotations

from mj_autodiff.extend import transpose_jaxpr
from mj_batch.extend import clear_vmap_jaxpr_cache
from mj_core import config
from mj_core.extend import on_change
from mj_xla import _executable, _jit

__all__ = ["clear_caches"]


def clear_caches() -> None:
    """Clear the jit caches of every function, and the caches of traced jaxprs below them."""
    for cache in list(_jit._function_caches.values()):
        cache.clear()
    _executable._closed_cache.clear()
    transpose_jaxpr.cache_clear()
    clear_vmap_jaxpr_cache()


_TRACE_SETTINGS = ("default_matmul_precision", "numpy_dtype_promotion", "numpy_rank_promotion")


def _trace_setting_changed(_: object) -> None:
    """Compiled programs bake the default matmul precision in, traced ones the promotion
    lattice's answers and the rank promotion checks made while tracing. JAX keys its traces on
    all three, and so do jit's signatures: a function switching one inside its body (under
    ``numpy_dtype_promotion("standard")``) keeps its traces. The caches below jit, keyed on
    jaxprs alone, are cleared."""
    _jit.trace_settings_changed(tuple(getattr(config, name) for name in _TRACE_SETTINGS))
    _executable._closed_cache.clear()
    transpose_jaxpr.cache_clear()
    clear_vmap_jaxpr_cache()


for _name in _TRACE_SETTINGS:
    on_change(_name, _trace_setting_changed)
_trace_setting_changed(None)
