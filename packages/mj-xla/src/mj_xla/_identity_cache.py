"""``IdentityCache``: a small LRU cache of what was computed from a jaxpr, keyed by its identity.

pmap's dispatch looks up the body's replica count, its compiled programs and whether it uses
``axis_index_groups`` on every call; hashing a jaxpr would cost a walk of it, so these caches
key by ``id``. An entry holds its jaxpr, so the id cannot be reused by another object while
the entry lives, and a hit checks that the held object is the one asked about.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

__all__ = ["IdentityCache"]

V = TypeVar("V")


class IdentityCache(Generic[V]):
    """At most ``size`` values, each made from an object (and hashable extras) once."""

    __slots__ = ("_entries", "_size")

    def __init__(self, size: int) -> None:
        self._size = size
        self._entries: OrderedDict[Hashable, tuple[Any, V]] = OrderedDict()

    def get(self, obj: Any, make: Callable[[], V], *extra: Hashable) -> V:
        """The value cached for ``obj`` and ``extra``, made by ``make()`` on a miss."""
        key = (id(obj), *extra)
        hit = self._entries.get(key)
        if hit is not None and hit[0] is obj:
            self._entries.move_to_end(key)
            return hit[1]
        value = make()
        self._entries[key] = (obj, value)  # holding obj keeps its id unique
        if len(self._entries) > self._size:
            self._entries.popitem(last=False)
        return value
