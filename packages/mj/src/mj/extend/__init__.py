"""``mj.extend``: JAX's ``jax.extend`` spellings for code that builds on mj's internals
(``mj.extend.core``: the jaxpr and primitive object model)."""

from mj.extend import core as core
from mj.extend import linear_util as linear_util
from mj.extend import source_info_util as source_info_util

__all__ = ["core", "linear_util", "source_info_util"]
