"""``clear_caches``: drop every compiled executable and cached traced jaxpr (JAX's
``jax.clear_caches``); the next call of a jitted function traces and compiles again."""

from __future__ import annotations

from collections.abc import Callable

from mj_autodiff.extend import transpose_jaxpr
from mj_batch.extend import clear_vmap_jaxpr_cache
from mj_core import config
from mj_core.extend import TRACE_SETTINGS, on_change
from mj_xla import _executable, _jit

__all__ = ["clear_caches", "on_clear_caches"]

#: Caches of the layers above (traced loop bodies, branches), emptied by ``clear_caches``.
_CLEARERS: list[Callable[[], None]] = []


def on_clear_caches(clear: Callable[[], None]) -> None:
    """Have ``clear_caches()`` call ``clear()`` too (a cache of a higher layer)."""
    _CLEARERS.append(clear)


def clear_caches() -> None:
    """Clear the jit caches of every function, and the caches of traced jaxprs below them."""
    for cache in list(_jit._function_caches.values()):
        cache.clear()
    for clear in _CLEARERS:
        clear()
    _executable._closed_cache.clear()
    transpose_jaxpr.cache_clear()
    clear_vmap_jaxpr_cache()


def _trace_setting_changed(_: object) -> None:
    """Compiled programs bake the default matmul precision in, traced ones the dtype mode, the
    promotion lattice's answers and the rank promotion checks made while tracing. JAX keys its
    traces on them (``TRACE_SETTINGS``), and so do jit's signatures: a function switching one
    inside its body (under ``numpy_dtype_promotion("standard")``) keeps its traces. The caches
    below jit, keyed on jaxprs alone, are cleared."""
    _jit.trace_settings_changed(config.trace_settings())
    _executable._closed_cache.clear()
    transpose_jaxpr.cache_clear()
    clear_vmap_jaxpr_cache()


for _name in TRACE_SETTINGS:
    on_change(_name, _trace_setting_changed)
_trace_setting_changed(None)
