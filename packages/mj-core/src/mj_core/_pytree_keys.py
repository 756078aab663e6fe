"""Key-path entries: how :func:`mj_core.tree_util.tree_flatten_with_path` names each step
from a pytree's root down to a leaf, with JAX 0.10.2's classes, reprs and ``keystr`` format.

Tuples and lists give :class:`SequenceKey`, dicts :class:`DictKey`, namedtuples
:class:`GetAttrKey`, and nodes registered without keys :class:`FlattenedIndexKey`. The keys
are immutable, compare equal when their class and payload are equal, hash like their payload
(``FlattenedIndexKey`` apart from a plain index)
and support ``match`` by keyword or position (``case DictKey(key=k)``).
"""

from __future__ import annotations

import operator
from typing import Any, TypeAlias

__all__ = [
    "DictKey",
    "FlattenedIndexKey",
    "GetAttrKey",
    "KeyEntry",
    "KeyPath",
    "SequenceKey",
    "keystr",
]


def _as_int(cls_name: str, field: str, value: object) -> int:
    if isinstance(value, bool | float) or not hasattr(value, "__index__"):
        raise TypeError(f"{cls_name}: {field} must be an int, got {type(value).__name__}.")
    return operator.index(value)


class _KeyEntry:
    """Shared behaviour: one read-only payload, equality and hash by (class, payload)."""

    __slots__ = ("_payload",)
    _payload: Any

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return bool(self._payload == other._payload)

    def __hash__(self) -> int:
        return hash(self._payload)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.__match_args__[0]}={self._payload!r})"  # type: ignore[attr-defined]

    def __reduce__(self) -> tuple[type, tuple[Any]]:
        return type(self), (self._payload,)


class DictKey(_KeyEntry):
    """The entry for a dict value: ``str`` is ``[key!r]``, e.g. ``['w']``."""

    __slots__ = ()
    __match_args__ = ("key",)

    def __init__(self, key: object) -> None:
        self._payload = key

    @property
    def key(self) -> Any:
        return self._payload

    def __str__(self) -> str:
        return f"[{self._payload!r}]"


class SequenceKey(_KeyEntry):
    """The entry for a tuple or list element: ``str`` is ``[idx]``."""

    __slots__ = ()
    __match_args__ = ("idx",)

    def __init__(self, idx: int) -> None:
        self._payload = _as_int("SequenceKey", "idx", idx)

    @property
    def idx(self) -> int:
        return int(self._payload)

    def __str__(self) -> str:
        return f"[{self._payload}]"


class GetAttrKey(_KeyEntry):
    """The entry for an attribute (namedtuple fields): ``str`` is ``.name``."""

    __slots__ = ()
    __match_args__ = ("name",)

    def __init__(self, name: str) -> None:
        if not isinstance(name, str):
            raise TypeError(f"GetAttrKey: name must be a str, got {type(name).__name__}.")
        self._payload = name

    @property
    def name(self) -> str:
        return str(self._payload)

    def __str__(self) -> str:
        return f".{self._payload}"


class FlattenedIndexKey(_KeyEntry):
    """The entry for the ``key``-th child of a node registered without key paths."""

    __slots__ = ()
    __match_args__ = ("key",)

    def __init__(self, key: int) -> None:
        self._payload = _as_int("FlattenedIndexKey", "key", key)

    @property
    def key(self) -> int:
        return int(self._payload)

    def __str__(self) -> str:
        return f"[<flat index {self._payload}>]"

    def __hash__(self) -> int:
        # not the index's own hash: ``FlattenedIndexKey(1)`` and ``SequenceKey(1)`` are
        # different keys and hash apart (as JAX's)
        return hash(("FlattenedIndexKey", self._payload))


#: One step of a key path: one of the classes above, or any object a user's
#: ``register_pytree_with_keys`` flattener returns.
KeyEntry: TypeAlias = Any
KeyPath: TypeAlias = tuple[KeyEntry, ...]


def _simple_str(entry: KeyEntry) -> str:
    if isinstance(entry, _KeyEntry):
        return str(entry._payload)
    return str(entry)


def keystr(keys: KeyPath, *, simple: bool = False, separator: str = "") -> str:
    """Join a key path's entries into one string, e.g. ``['params'][0].w``.

    ``simple=True`` writes each entry's bare payload (``params/0/w`` with ``separator='/'``):
    shorter but ambiguous, since ``0`` may be a list index or a dict key.
    """
    to_str = _simple_str if simple else str
    return separator.join(to_str(k) for k in keys)
