"""``mj.experimental.compilation_cache``: the persistent compilation cache, as JAX's module of
that name (``compilation_cache.set_cache_dir``)."""

from mj.experimental.compilation_cache import compilation_cache as compilation_cache

__all__ = ["compilation_cache"]
