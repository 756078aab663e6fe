"""``mj.extend``: JAX's ``jax.extend`` spellings for code that builds on mj's internals
(``mj.extend.core``: the jaxpr and primitive object model)."""

from mj.extend import core as core

__all__ = ["core"]
