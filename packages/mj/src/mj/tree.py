"""``mj.tree``: JAX's ``jax.tree`` module, short names for :mod:`mj.tree_util` (the same
functions: ``mj.tree.map is mj.tree_util.tree_map``), and :func:`static`."""

import dataclasses
from typing import Any

from mj_core.tree_util import tree_all as all
from mj_core.tree_util import tree_broadcast as broadcast
from mj_core.tree_util import tree_flatten as flatten
from mj_core.tree_util import tree_flatten_with_path as flatten_with_path
from mj_core.tree_util import tree_leaves as leaves
from mj_core.tree_util import tree_leaves_with_path as leaves_with_path
from mj_core.tree_util import tree_map as map
from mj_core.tree_util import tree_map_with_path as map_with_path
from mj_core.tree_util import tree_reduce as reduce
from mj_core.tree_util import tree_reduce_associative as reduce_associative
from mj_core.tree_util import tree_structure as structure
from mj_core.tree_util import tree_transpose as transpose
from mj_core.tree_util import tree_unflatten as unflatten

__all__ = [
    "all",
    "broadcast",
    "flatten",
    "flatten_with_path",
    "leaves",
    "leaves_with_path",
    "map",
    "map_with_path",
    "reduce",
    "reduce_associative",
    "static",
    "structure",
    "transpose",
    "unflatten",
]


def static(**kwargs: Any) -> Any:
    """A ``dataclasses.field`` marked static (JAX's ``jax.tree.static``): the same keyword
    arguments as :func:`dataclasses.field`, with ``metadata={"static": True, ...}`` (a
    ``"static"`` entry of the caller's ``metadata`` wins), so that
    :func:`mj.tree_util.register_dataclass` makes the field aux data rather than a child."""
    metadata = {"static": True, **(kwargs.pop("metadata", None) or {})}
    return dataclasses.field(metadata=metadata, **kwargs)
