"""``mj.experimental.shard_map``: JAX's older home of ``shard_map`` (``mj.shard_map`` is the
same function)."""

from mj_xla import shard_map as shard_map

__all__ = ["shard_map"]
