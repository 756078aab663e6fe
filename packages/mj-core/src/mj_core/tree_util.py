"""Pytrees: nested containers of arrays that transformations flatten and rebuild.

Tuples, lists, dicts (sorted keys, like JAX), ``OrderedDict`` (insertion order),
``defaultdict``, ``None`` (a node with no children), namedtuples and user-registered classes
are nodes; everything else is a leaf. A
:class:`PyTreeDef` records the structure; it is hashable and comparable, so it can be part of
a cache key (jit uses it that way).

The ``*_with_path`` functions also name each leaf by its key path (a tuple of the entries in
:mod:`mj_core._pytree_keys`). They use a separate flattener, so ``tree_flatten`` (which every
transformation calls) does no key bookkeeping.

Mismatched structures raise JAX's errors: ``flatten_up_to`` says which node differs and how
(``List arity mismatch: 1 != 2; list: [7].``), and ``tree_map``/``tree_broadcast`` name the key
path of the first difference (``pytree structure error: different types at key path ...``).

The module is longer than 600 lines because the node table, :class:`PyTreeDef`, the
flatteners, the registration helpers and the structure errors all read the same table and
would only import each other if split.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import sys
import textwrap
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from typing import Any, NamedTuple, TypeAlias, TypeVar

from mj_core._pytree_keys import (
    DictKey,
    FlattenedIndexKey,
    GetAttrKey,
    KeyEntry,
    KeyPath,
    SequenceKey,
    keystr,
)

__all__ = [
    "DictKey",
    "FlattenedIndexKey",
    "GetAttrKey",
    "KeyEntry",
    "KeyPath",
    "NodeType",
    "Partial",
    "PyTreeDef",
    "SequenceKey",
    "Store",
    "all_leaves",
    "flatten_fun",
    "flatten_one_level",
    "flatten_one_level_with_keys",
    "flatten_up_to",
    "is_tree_node",
    "keystr",
    "prefix_errors",
    "register_dataclass",
    "register_pytree_node",
    "register_pytree_node_class",
    "register_pytree_with_keys",
    "register_pytree_with_keys_class",
    "register_static",
    "tree_all",
    "tree_broadcast",
    "tree_flatten",
    "tree_flatten_with_path",
    "tree_leaves",
    "tree_leaves_with_path",
    "tree_map",
    "tree_map_with_path",
    "tree_reduce",
    "tree_reduce_associative",
    "tree_structure",
    "tree_transpose",
    "tree_unflatten",
    "treedef_children",
    "treedef_is_leaf",
    "treedef_tuple",
]

T = TypeVar("T")


class NodeType(NamedTuple):
    """How to take a container apart (``to_iterable``) and put it back (``from_iterable``)."""

    name: str
    to_iterable: Callable[[Any], tuple[Hashable, Iterable[Any]]]
    from_iterable: Callable[[Hashable, Iterable[Any]], Any]


node_types: dict[type, NodeType] = {}

KeyLeafPairs: TypeAlias = Iterable[tuple[KeyEntry, Any]]
#: ``flatten_with_keys(x) -> ((key, child), ...), aux_data``: how a node names its children
#: in key paths. A node type with none here names them ``FlattenedIndexKey(i)``.
FlattenWithKeys: TypeAlias = Callable[[Any], tuple[KeyLeafPairs, Hashable]]
keyed_flatteners: dict[type, FlattenWithKeys] = {}


_BAD_FLATTEN = (
    "The to_iterable function for a custom PyTree node should return a (children, aux_data)"
)


def register_pytree_node(
    nodetype: type,
    flatten_func: Callable[[Any], tuple[Iterable[Any], Hashable]],
    unflatten_func: Callable[[Hashable, Iterable[Any]], Any],
    flatten_with_keys_func: FlattenWithKeys | None = None,
) -> None:
    """Register a container type, JAX-style: ``flatten(x) -> (children, aux_data)`` and
    ``unflatten(aux_data, children) -> x``. ``aux_data`` should be hashable and comparable
    (jit's cache compares it); an unhashable one still flattens, as in JAX. The optional
    ``flatten_with_keys_func`` names the children in key paths (see
    :func:`register_pytree_with_keys`)."""

    def to_iterable(x: object) -> tuple[Hashable, Iterable[Any]]:
        out = flatten_func(x)
        if type(out) is not tuple or len(out) != 2:
            raise ValueError(f"{_BAD_FLATTEN} tuple, got {out!r}")
        children, aux = out
        try:
            iter(children)
        except TypeError:
            raise ValueError(
                f"{_BAD_FLATTEN} tuple where 'children' is iterable, got {out!r}"
            ) from None
        return aux, children

    if nodetype in node_types and nodetype not in _implicit_nodes:
        # as JAX: a second registration would silently replace the first
        raise ValueError(f"Duplicate custom PyTreeDef type registration for {nodetype}.")
    _implicit_nodes.discard(nodetype)
    _leaf_types.discard(nodetype)
    node_types[nodetype] = NodeType(nodetype.__name__, to_iterable, unflatten_func)
    if flatten_with_keys_func is None:
        keyed_flatteners.pop(nodetype, None)  # (a namedtuple's implicit key names)
    else:
        keyed_flatteners[nodetype] = flatten_with_keys_func


def register_pytree_node_class(cls: type[T]) -> type[T]:
    """Class decorator: register ``cls`` using its ``tree_flatten`` method and
    ``tree_unflatten`` classmethod."""
    register_pytree_node(cls, cls.tree_flatten, cls.tree_unflatten)  # type: ignore[attr-defined]
    return cls


def register_pytree_with_keys(
    nodetype: type,
    flatten_with_keys: FlattenWithKeys,
    unflatten_func: Callable[[Hashable, Iterable[Any]], Any],
    flatten_func: Callable[[Any], tuple[Iterable[Any], Hashable]] | None = None,
) -> None:
    """Register a container whose children have names in key paths:
    ``flatten_with_keys(x) -> (((key, child), ...), aux_data)``. ``flatten_func`` (children
    in the same order, same aux data) is only a faster path for the key-free functions."""
    if flatten_func is None:

        def flatten_func(x: object) -> tuple[list[Any], Hashable]:
            pairs, aux = flatten_with_keys(x)
            return [child for _, child in pairs], aux

    register_pytree_node(nodetype, flatten_func, unflatten_func, flatten_with_keys)


def register_pytree_with_keys_class(cls: type[T]) -> type[T]:
    """Class decorator: register ``cls`` through its ``tree_flatten_with_keys`` method and
    ``tree_unflatten`` classmethod (and ``tree_flatten`` if it has one)."""
    register_pytree_with_keys(
        cls,
        cls.tree_flatten_with_keys,  # type: ignore[attr-defined]
        cls.tree_unflatten,  # type: ignore[attr-defined]
        getattr(cls, "tree_flatten", None),
    )
    return cls


def _dict_to_iterable(d: dict[Any, Any]) -> tuple[Hashable, Iterable[Any]]:
    keys = tuple(sorted(d))
    return keys, [d[k] for k in keys]


def _dict_from_iterable(keys: Hashable, vals: Iterable[Any]) -> dict[Any, Any]:
    return dict(zip(keys, vals, strict=True))  # type: ignore[call-overload]


_TUPLE = NodeType("tuple", lambda t: (None, t), lambda _, xs: tuple(xs))
_LIST = NodeType("list", lambda lst: (None, lst), lambda _, xs: list(xs))
_DICT = NodeType("dict", _dict_to_iterable, _dict_from_iterable)
_NONE = NodeType("None", lambda _: (None, ()), lambda _, __: None)
node_types[tuple] = _TUPLE
node_types[list] = _LIST
node_types[dict] = _DICT
node_types[type(None)] = _NONE


def _sequence_with_keys(seq: tuple[Any, ...] | list[Any]) -> tuple[KeyLeafPairs, Hashable]:
    return [(SequenceKey(i), child) for i, child in enumerate(seq)], None


def _dict_with_keys(d: dict[Any, Any]) -> tuple[KeyLeafPairs, Hashable]:
    keys, vals = _dict_to_iterable(d)
    return [(DictKey(k), v) for k, v in zip(keys, vals, strict=True)], keys  # type: ignore[call-overload]


def _none_with_keys(_: None) -> tuple[KeyLeafPairs, Hashable]:
    return [], None


keyed_flatteners[tuple] = _sequence_with_keys
keyed_flatteners[list] = _sequence_with_keys
keyed_flatteners[dict] = _dict_with_keys
keyed_flatteners[type(None)] = _none_with_keys


def _ordered_dict_to_iterable(d: OrderedDict[Any, Any]) -> tuple[Hashable, Iterable[Any]]:
    keys = tuple(d)
    return keys, [d[k] for k in keys]


def _ordered_dict_from_iterable(keys: Hashable, vals: Iterable[Any]) -> OrderedDict[Any, Any]:
    return OrderedDict(zip(keys, vals, strict=True))  # type: ignore[call-overload]


def _defaultdict_to_iterable(d: defaultdict[Any, Any]) -> tuple[Hashable, Iterable[Any]]:
    keys, vals = _dict_to_iterable(d)
    return (d.default_factory, keys), vals


def _defaultdict_from_iterable(data: Any, vals: Iterable[Any]) -> defaultdict[Any, Any]:
    factory, keys = data
    return defaultdict(factory, zip(keys, vals, strict=True))


node_types[OrderedDict] = NodeType(
    "OrderedDict", _ordered_dict_to_iterable, _ordered_dict_from_iterable
)
node_types[defaultdict] = NodeType(
    "defaultdict", _defaultdict_to_iterable, _defaultdict_from_iterable
)


def _ordered_dict_with_keys(d: OrderedDict[Any, Any]) -> tuple[KeyLeafPairs, Hashable]:
    return [(DictKey(k), v) for k, v in d.items()], tuple(d)


def _defaultdict_with_keys(d: defaultdict[Any, Any]) -> tuple[KeyLeafPairs, Hashable]:
    pairs, keys = _dict_with_keys(d)
    return pairs, (d.default_factory, keys)


keyed_flatteners[OrderedDict] = _ordered_dict_with_keys
keyed_flatteners[defaultdict] = _defaultdict_with_keys


def _namedtuple_with_keys(t: Any) -> tuple[KeyLeafPairs, Hashable]:
    return [(GetAttrKey(name), child) for name, child in zip(t._fields, t, strict=True)], None


def _namedtuple_node(cls: type) -> NodeType:
    node = NodeType(cls.__name__, lambda t: (None, t), lambda _, xs: cls(*xs))
    node_types[cls] = node
    keyed_flatteners[cls] = _namedtuple_with_keys
    _implicit_nodes.add(cls)
    return node


def _is_namedtuple_class(cls: type) -> bool:
    return issubclass(cls, tuple) and hasattr(cls, "_fields")


#: Namedtuple classes entered in ``node_types`` on first sight (a registration may replace them).
_implicit_nodes: set[type] = set()
#: Types seen to be leaves (no node, not a namedtuple): later leaves of the type skip the
#: namedtuple test, which matters for pytrees of 100,000 leaves. Registration removes a type.
_leaf_types: set[type] = set()


def _node_type_for(cls: type) -> NodeType | None:
    node = node_types.get(cls)
    if node is None and cls not in _leaf_types:
        if _is_namedtuple_class(cls):
            node = _namedtuple_node(cls)
        else:
            _leaf_types.add(cls)
    return node


def _node_type_of(x: object) -> NodeType | None:
    return _node_type_for(type(x))


def _data_hash(node_data: object) -> int:
    """The aux data's hash, or 0 if it has none: JAX flattens nodes with unhashable aux data
    (a list) too, and equal structures still compare equal through ``==``."""
    try:
        return hash(node_data)
    except TypeError:
        return 0


class PyTreeDef:
    """The structure of a pytree: a node type, its auxiliary data and child structures.

    ``node_type is None`` marks a leaf. Treedefs pickle (by their node's class, which must be
    registered again where they are unpickled) and compare by structure and aux data.
    """

    __slots__ = ("_hash", "child_treedefs", "node_data", "node_type", "num_leaves", "pytype")

    def __init__(
        self,
        node_type: NodeType | None,
        node_data: Hashable,
        child_treedefs: tuple[PyTreeDef, ...],
        pytype: type | None = None,
    ) -> None:
        self.node_type = node_type
        self.node_data = node_data
        self.child_treedefs = child_treedefs
        self.pytype = pytype
        self.num_leaves: int = 1 if node_type is None else sum(c.num_leaves for c in child_treedefs)
        self._hash = hash((pytype, _data_hash(node_data), child_treedefs))

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return _rebuild_treedef, (self.pytype, self.node_data, self.child_treedefs)

    @property
    def num_nodes(self) -> int:
        return 1 + sum(c.num_nodes for c in self.child_treedefs)

    def children(self) -> list[PyTreeDef]:
        """The structures of the root's children (JAX's ``PyTreeDef.children()``)."""
        return list(self.child_treedefs)

    def flatten_up_to(self, tree: object) -> list[Any]:
        """``tree``'s subtrees at this structure's leaves (``tree`` may be deeper)."""
        return _flatten_up_to(self, tree)

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        return (
            isinstance(other, PyTreeDef)
            and self._hash == other._hash
            and self.pytype is other.pytype
            and self._same_data(other)
            and self.child_treedefs == other.child_treedefs
        )

    def _same_data(self, other: PyTreeDef) -> bool:
        """``node_data == other.node_data``; aux data whose ``==`` fails (arrays, whose
        comparison has no single truth value) is an error naming the node type."""
        try:
            return bool(self.node_data == other.node_data)
        except Exception as e:
            raise ValueError(
                "Exception raised while checking equality of metadata fields of pytree "
                f"node type {self.pytype}: {e!r}. Metadata (aux data) fields must be hashable "
                "with a plain equality; arrays cannot be metadata."
            ) from e

    def compose(self, inner_treedef: PyTreeDef) -> PyTreeDef:
        """This structure with every leaf replaced by ``inner_treedef``."""
        if self.node_type is None:
            return inner_treedef
        children = tuple(c.compose(inner_treedef) for c in self.child_treedefs)
        return PyTreeDef(self.node_type, self.node_data, children, self.pytype)

    def __hash__(self) -> int:
        return self._hash

    def walk(
        self,
        f_node: Callable[[tuple[Any, ...], Any], Any],
        f_leaf: Callable[[Any], Any] | None,
        leaves: Iterable[Any],
    ) -> Any:
        """Fold the structure bottom-up over ``leaves`` (JAX's ``PyTreeDef.walk``): each leaf
        becomes ``f_leaf(leaf)`` (the leaf itself if ``f_leaf`` is None), each node
        ``f_node(tuple_of_child_results, node_data)``, and the root's result is returned.
        A dict's node data is its sorted keys as a list, a namedtuple's its class, as JAX's."""
        it = iter(leaves)

        def go(t: PyTreeDef) -> Any:
            if t.node_type is None:
                leaf = next(it, _NO_LEAF)
                if leaf is _NO_LEAF:
                    raise ValueError("Too few leaves for PyTreeDef")
                return leaf if f_leaf is None else f_leaf(leaf)
            kids = tuple([go(c) for c in t.child_treedefs])
            return f_node(kids, _visible_node_data(t))

        out = go(self)
        if next(it, _NO_LEAF) is not _NO_LEAF:
            raise ValueError("Too many leaves for PyTreeDef")
        return out

    def unflatten(self, leaves: Iterable[Any]) -> Any:
        return tree_unflatten(self, leaves)

    def _str(self) -> str:
        if self.node_type is None:
            return "*"
        kids = [c._str() for c in self.child_treedefs]
        if self.node_type is _TUPLE:
            return "(" + ", ".join(kids) + ("," if len(kids) == 1 else "") + ")"
        if self.node_type is _LIST:
            return "[" + ", ".join(kids) + "]"
        if self.node_type is _DICT:
            keys = self.node_data
            return "{" + ", ".join(f"{k!r}: {v}" for k, v in zip(keys, kids, strict=True)) + "}"  # type: ignore[call-overload]
        if self.node_type is _NONE:
            return "None"
        if self.pytype is not None and _is_namedtuple_class(self.pytype):
            head = f"namedtuple[{self.pytype.__name__}]"
        else:
            head = f"{self.node_type.name}[{self.node_data}]"  # str(), as JAX prints it
        return f"CustomNode({head}, [{', '.join(kids)}])"

    def __repr__(self) -> str:
        return f"PyTreeDef({self._str()})"


_LEAF = PyTreeDef(None, None, (), None)
_NO_LEAF: Any = object()


def _visible_node_data(t: PyTreeDef) -> Any:
    """A node's data as JAX's ``walk`` shows it: a dict's keys as a list, a namedtuple's
    class; other nodes' aux data as stored."""
    if t.node_type is _DICT:
        return list(t.node_data)  # type: ignore[call-overload]
    if t.pytype is not None and t.pytype in _implicit_nodes:
        return t.pytype
    return t.node_data


def _rebuild_treedef(
    pytype: type | None, node_data: object, child_treedefs: tuple[PyTreeDef, ...]
) -> PyTreeDef:
    """Unpickle a :class:`PyTreeDef`: the node type is looked up again by class."""
    if pytype is None:
        return _LEAF
    node = _node_type_for(pytype)
    if node is None:
        raise ValueError(f"Unpickling a PyTreeDef: {pytype} is not a registered pytree node.")
    return PyTreeDef(node, node_data, child_treedefs, pytype)


def _flatten(x: object, leaves: list[Any], is_leaf: Callable[[Any], bool] | None) -> PyTreeDef:
    if is_leaf is not None and is_leaf(x):
        leaves.append(x)
        return _LEAF
    node = _node_type_of(x)
    if node is None:
        leaves.append(x)
        return _LEAF
    data, children = node.to_iterable(x)
    child_defs = []
    leaf_types = _leaf_types
    for c in children:
        if is_leaf is None and type(c) in leaf_types:  # a known leaf type: no call per leaf
            leaves.append(c)
            child_defs.append(_LEAF)
        else:
            child_defs.append(_flatten(c, leaves, is_leaf))
    return PyTreeDef(node, data, tuple(child_defs), type(x))


def tree_flatten(
    tree: object, is_leaf: Callable[[Any], bool] | None = None
) -> tuple[list[Any], PyTreeDef]:
    """Leaves in order (dict keys sorted) and the structure to rebuild the tree from them."""
    leaves: list[Any] = []
    try:
        treedef = _flatten(tree, leaves, is_leaf)
    except RecursionError:
        raise _too_deep("tree_flatten") from None
    return leaves, treedef


def _too_deep(api: str) -> ValueError:
    """Pytrees are walked recursively: one nested past Python's recursion limit is refused
    with this error rather than a bare ``RecursionError`` (JAX fails there too)."""
    return ValueError(
        f"{api}: the pytree is nested too deeply to process (Python's recursion limit is "
        f"{sys.getrecursionlimit()} frames); flatten the nesting into fewer levels, e.g. a list "
        "of leaves instead of lists nested in lists."
    )


def _flatten_with_path(
    x: object,
    path: KeyPath,
    out: list[tuple[KeyPath, Any]],
    is_leaf: Callable[[KeyPath, Any], bool] | None,
) -> PyTreeDef:
    if is_leaf is not None and is_leaf(path, x):
        out.append((path, x))
        return _LEAF
    node = _node_type_of(x)
    if node is None:
        out.append((path, x))
        return _LEAF
    keyed = keyed_flatteners.get(type(x))
    if keyed is None:
        data, children = node.to_iterable(x)
        pairs: KeyLeafPairs = [(FlattenedIndexKey(i), c) for i, c in enumerate(children)]
    else:
        pairs, data = keyed(x)
    child_defs = tuple(_flatten_with_path(c, (*path, k), out, is_leaf) for k, c in pairs)
    return PyTreeDef(node, data, child_defs, type(x))


def tree_flatten_with_path(
    tree: object, is_leaf: Callable[..., bool] | None = None, is_leaf_takes_path: bool = False
) -> tuple[list[tuple[KeyPath, Any]], PyTreeDef]:
    """Like :func:`tree_flatten`, with each leaf paired with its key path from the root.

    ``is_leaf`` is called as ``is_leaf(x)``, or ``is_leaf(path, x)`` if ``is_leaf_takes_path``.
    """
    path_is_leaf: Callable[[KeyPath, Any], bool] | None = is_leaf
    if is_leaf is not None and not is_leaf_takes_path:
        leaf_test = is_leaf

        def path_is_leaf(_: KeyPath, x: object) -> bool:
            return leaf_test(x)

    out: list[tuple[KeyPath, Any]] = []
    try:
        treedef = _flatten_with_path(tree, (), out, path_is_leaf)
    except RecursionError:
        raise _too_deep("tree_flatten_with_path") from None
    return out, treedef


def tree_leaves_with_path(
    tree: object, is_leaf: Callable[..., bool] | None = None, is_leaf_takes_path: bool = False
) -> list[tuple[KeyPath, Any]]:
    """``(key_path, leaf)`` pairs in :func:`tree_leaves` order."""
    return tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)[0]


def tree_map_with_path(
    f: Callable[..., Any],
    tree: object,
    *rest: object,
    is_leaf: Callable[..., bool] | None = None,
    is_leaf_takes_path: bool = False,
) -> Any:
    """Like :func:`tree_map`, but ``f(path, leaf, *rest_leaves)`` also gets the key path."""
    pairs, treedef = tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)
    rest_leaves = _flatten_rest(treedef, tree, rest, None, "tree_map_with_path tree")
    outs = [
        f(path, leaf, *others) for (path, leaf), *others in zip(pairs, *rest_leaves, strict=True)
    ]
    return treedef.unflatten(outs)


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> Any:
    """Rebuild a tree of structure ``treedef`` from its leaves."""
    leaves = list(leaves)
    if len(leaves) < treedef.num_leaves:
        raise ValueError(
            f"Too few leaves for PyTreeDef; expected {treedef.num_leaves}, got {len(leaves)}"
        )
    if len(leaves) > treedef.num_leaves:
        raise ValueError(f"Too many leaves for PyTreeDef; expected {treedef.num_leaves}.")
    it = iter(leaves)
    try:
        return _unflatten(treedef, it)
    except RecursionError:
        raise _too_deep("tree_unflatten") from None


def _unflatten(treedef: PyTreeDef, leaves: Iterator[Any]) -> Any:
    if treedef.node_type is None:
        return next(leaves)
    children = [_unflatten(c, leaves) for c in treedef.child_treedefs]
    return treedef.node_type.from_iterable(treedef.node_data, children)


def tree_leaves(tree: object, is_leaf: Callable[[Any], bool] | None = None) -> list[Any]:
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree: object, is_leaf: Callable[[Any], bool] | None = None) -> PyTreeDef:
    return tree_flatten(tree, is_leaf)[1]


def treedef_children(treedef: PyTreeDef) -> list[PyTreeDef]:
    return treedef.children()


def treedef_tuple(treedefs: Iterable[PyTreeDef]) -> PyTreeDef:
    """The structure of a tuple whose elements have the structures ``treedefs`` (JAX's
    ``treedef_tuple``)."""
    children = tuple(treedefs)
    node = tree_structure(tuple(0 for _ in children))
    return PyTreeDef(node.node_type, node.node_data, children, node.pytype)


def treedef_is_leaf(treedef: PyTreeDef) -> bool:
    return treedef.node_type is None


def all_leaves(iterable: Iterable[Any], is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """True if every element of ``iterable`` is a leaf (JAX's ``tree_util.all_leaves``)."""
    return all(tree_structure(x, is_leaf).node_type is None for x in iterable)


_NO_INITIAL: Any = object()


def tree_reduce(
    function: Callable[[Any, Any], Any],
    tree: object,
    initializer: object = _NO_INITIAL,
    is_leaf: Callable[[Any], bool] | None = None,
) -> Any:
    """``functools.reduce`` over the leaves of ``tree``."""
    leaves = tree_leaves(tree, is_leaf)
    if initializer is _NO_INITIAL:
        return functools.reduce(function, leaves)
    return functools.reduce(function, leaves, initializer)


def tree_reduce_associative(
    operation: Callable[[Any, Any], Any],
    tree: object,
    *,
    identity: object = _NO_INITIAL,
    is_leaf: Callable[[Any], bool] | None = None,
) -> Any:
    """The leaves of ``tree`` combined pairwise, as a balanced tree of ``operation`` calls
    (equal to :func:`tree_reduce` for an associative ``operation``, in log depth);
    ``identity`` for a tree without leaves."""
    leaves = tree_leaves(tree, is_leaf)
    if not leaves:
        if identity is _NO_INITIAL:
            raise TypeError("Must specify identity for parallel reduction of empty sequence.")
        return identity
    while len(leaves) > 1:
        pairs = [operation(a, b) for a, b in zip(leaves[::2], leaves[1::2], strict=False)]
        leaves = pairs + leaves[len(pairs) * 2 :]
    return leaves[0]


def flatten_one_level(tree: object) -> tuple[Any, Any]:
    """The children of ``tree``'s root node and its aux data (a namedtuple's: its class);
    a leaf is a ``ValueError``."""
    node = _node_type_of(tree)
    if node is None:
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    data, children = node.to_iterable(tree)
    if type(tree) in _implicit_nodes:  # a namedtuple: JAX's aux data is the class
        return list(children), type(tree)
    return children, data


def flatten_one_level_with_keys(tree: object) -> tuple[list[tuple[KeyEntry, Any]], Any]:
    """``(key, child)`` pairs of ``tree``'s root node and its aux data (JAX's
    ``flatten_one_level_with_keys``): keys as in :func:`tree_flatten_with_path`
    (``DictKey``, ``SequenceKey``, ``GetAttrKey``, or ``FlattenedIndexKey`` for a node
    registered without keys), aux data as :func:`flatten_one_level`'s. A leaf is a
    ``ValueError``."""
    if _node_type_of(tree) is None:
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    pairs, data = _one_level_with_keys(tree)
    if type(tree) in _implicit_nodes:  # a namedtuple: JAX's aux data is the class
        return pairs, type(tree)
    return pairs, data


def is_tree_node(typ: type) -> bool:
    """Whether instances of ``typ`` are pytree nodes rather than leaves: the built-in
    containers, ``None``'s type, namedtuple classes and registered classes (JAX's
    ``is_tree_node``)."""
    return _node_type_for(typ) is not None


def tree_all(tree: object, *, is_leaf: Callable[[Any], bool] | None = None) -> bool:
    return all(tree_leaves(tree, is_leaf))


def tree_transpose(
    outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None, pytree_to_transpose: object
) -> Any:
    """Turn an ``outer`` tree of ``inner`` trees into an ``inner`` tree of ``outer`` trees;
    ``inner_treedef=None`` takes the structure of the first inner tree."""
    flat, treedef = tree_flatten(pytree_to_transpose)
    if inner_treedef is None:
        inner_treedef = tree_structure(outer_treedef.flatten_up_to(pytree_to_transpose)[0])
    inner_size, outer_size = inner_treedef.num_leaves, outer_treedef.num_leaves
    if treedef.num_leaves != inner_size * outer_size:
        expected = outer_treedef.compose(inner_treedef)
        raise TypeError(f"Mismatch\n{treedef}\n != \n{expected}")
    rows = [flat[i * inner_size : (i + 1) * inner_size] for i in range(outer_size)]
    columns = [outer_treedef.unflatten(col) for col in zip(*rows, strict=True)]
    return inner_treedef.unflatten(columns)


# --- structure mismatches: JAX's messages ----------------------------------------------------

_SEQUENCE_NAMES = {_LIST: "list", _TUPLE: "tuple"}


def _flatten_up_to(treedef: PyTreeDef, tree: object) -> list[Any]:
    """Leaves of ``tree`` cut at the leaves of ``treedef`` (``tree`` may be deeper)."""
    if treedef.node_type is None:
        return [tree]
    node = _node_type_of(tree)
    if node is not treedef.node_type or type(tree) is not treedef.pytype:
        raise ValueError(_type_mismatch(treedef, tree))
    data, children = node.to_iterable(tree)
    children = list(children)
    if len(children) != len(treedef.child_treedefs) or data != treedef.node_data:
        raise ValueError(_content_mismatch(treedef, tree, data, len(children)))
    out: list[Any] = []
    for sub, child in zip(treedef.child_treedefs, children, strict=True):
        out.extend(_flatten_up_to(sub, child))
    return out


def _type_mismatch(treedef: PyTreeDef, tree: object) -> str:
    node, pytype = treedef.node_type, treedef.pytype
    if node in _SEQUENCE_NAMES:
        return f"Expected {_SEQUENCE_NAMES[node]}, got {tree!r}."
    if node is _DICT:
        return f"Expected dict, got {tree!r}."
    if node is _NONE:
        return (
            f"Expected None, got {tree!r}.\n\nNone is a pytree node with no children, not a "
            "prefix of other values; to treat it as one, write e.g. tree_map(lambda x, y: None "
            "if x is None else f(x, y), a, b, is_leaf=lambda x: x is None)."
        )
    if pytype is not None and _is_namedtuple_class(pytype):
        if not _is_namedtuple_class(type(tree)):
            return f"Expected named tuple, got {tree!r}."
        return f"Named tuple type mismatch: expected type: {pytype}, tuple: {tree!r}."
    return f"Custom node type mismatch: expected type: {pytype}, value: {tree!r}."


def _content_mismatch(treedef: PyTreeDef, tree: Any, data: Any, n_children: int) -> str:
    node, n_expected = treedef.node_type, len(treedef.child_treedefs)
    if node in _SEQUENCE_NAMES:
        name = _SEQUENCE_NAMES[node]
        return (
            f"{name.capitalize()} arity mismatch: {n_children} != {n_expected}; {name}: {tree!r}."
        )
    if node is _DICT:
        expected = list(treedef.node_data)  # type: ignore[call-overload]
        return f"Dict key mismatch; expected keys: {expected}; present keys: {list(data)}."
    if n_children != n_expected:
        return f"Custom node arity mismatch: {n_children} != {n_expected}; value: {tree!r}."
    return f"Mismatch custom node data: {treedef.node_data!r} != {data!r}; value: {tree!r}."


def flatten_up_to(treedef: PyTreeDef, tree: object) -> list[Any]:
    """Flatten ``tree`` only as deep as ``treedef`` (the prefix-tree rule of JAX's in_axes)."""
    return _flatten_up_to(treedef, tree)


def _one_level_with_keys(x: object) -> tuple[list[tuple[KeyEntry, Any]], Any]:
    """``x``'s children with their keys, and its aux data."""
    keyed = keyed_flatteners.get(type(x))
    if keyed is not None:
        pairs, data = keyed(x)
        return list(pairs), data
    data, children = _node_type_of(x).to_iterable(x)  # type: ignore[union-attr]
    return [(FlattenedIndexKey(i), c) for i, c in enumerate(children)], data


def _key_str(key: KeyEntry) -> str:
    return str(key.key) if isinstance(key, DictKey) else str(key)


def _prefix_errors(
    path: KeyPath, prefix: Any, full: Any, is_leaf: Callable[[Any], bool] | None
) -> Iterator[Callable[[str], ValueError]]:
    """Where ``prefix`` is not a tree prefix of ``full``: one error maker per differing
    subtree, each taking the name to call the tree by (JAX's ``prefix_errors``)."""
    if tree_structure(prefix, is_leaf).node_type is None:
        return  # a leaf is a prefix of anything
    where = keystr(path)
    if type(prefix) is not type(full):
        yield lambda name: ValueError(
            f"pytree structure error: different types at key path\n    {name}{where}\n"
            f"At that key path, the prefix pytree {name} has a subtree of type\n"
            f"    {type(prefix)}\nbut at the same key path the full pytree has a subtree of "
            f"different type\n    {type(full)}."
        )
        return
    prefix_pairs, prefix_data = _one_level_with_keys(prefix)
    full_pairs, full_data = _one_level_with_keys(full)
    if isinstance(prefix, list | tuple) and len(prefix) != len(full):
        kind = type(prefix).__name__
        yield lambda name: ValueError(
            f"pytree structure error: different lengths of {kind} at key path\n"
            f"    {name}{where}\nAt that key path, the prefix pytree {name} has a subtree of "
            f"type {kind} of length {len(prefix)}, but the full pytree has a subtree of the "
            f"same type but of length {len(full)}."
        )
        return
    prefix_keys = [k for k, _ in prefix_pairs]
    full_keys = [k for k, _ in full_pairs]
    if len(prefix_pairs) != len(full_pairs):
        diff = set(prefix_keys).symmetric_difference(full_keys)
        yield lambda name: ValueError(
            "pytree structure error: different numbers of pytree children at key path\n"
            f"    {name}{where}\nAt that key path, the prefix pytree {name} has a subtree of "
            f"type\n    {type(prefix)}\nwith {len(prefix_keys)} child keys\n"
            f"    {' '.join(map(_key_str, prefix_keys))}\nbut at the same key path the full "
            f"pytree has a subtree of the same type but with {len(full_keys)} child keys\n"
            f"    {' '.join(map(_key_str, full_keys))}\n"
            f"so the symmetric difference on key sets is\n    {' '.join(map(_key_str, diff))}"
        )
        return
    if prefix_data != full_data:
        ndiff = "\n".join(difflib.ndiff(str(prefix_data).splitlines(), str(full_data).splitlines()))
        yield lambda name: ValueError(
            "pytree structure error: different pytree metadata at key path\n"
            f"    {name}{where}\nAt that key path, the prefix pytree {name} has a subtree of "
            f"type\n    {type(prefix)}\nwith metadata\n    {prefix_data}\nbut at the same key "
            "path the full pytree has a subtree of the same type but with metadata\n"
            f"    {full_data}\nso the diff in the metadata at these pytree nodes is\n"
            f"{textwrap.indent(ndiff, '    ')}"
        )
        return
    for (key, p), (_, f) in zip(prefix_pairs, full_pairs, strict=True):
        yield from _prefix_errors((*path, key), p, f, None)


def prefix_errors(
    prefix_tree: object, full_tree: object, is_leaf: Callable[[Any], bool] | None = None
) -> list[Callable[[str], ValueError]]:
    """Why ``prefix_tree`` is not a tree prefix of ``full_tree``: ``raise errs[0]("in_axes")``
    names the tree ``in_axes`` in the message. Empty when it is a prefix."""
    return list(_prefix_errors((), prefix_tree, full_tree, is_leaf))


def _flatten_rest(
    treedef: PyTreeDef, tree: Any, rest: Sequence[Any], is_leaf: Any, name: str
) -> list[list[Any]]:
    """Each of ``rest`` flattened up to ``treedef``; a mismatch names its key path."""
    out = []
    for r in rest:
        try:
            out.append(flatten_up_to(treedef, r))
        except ValueError as e:
            err = next(_prefix_errors((), tree, r, is_leaf), None)
            if err is None:
                raise
            raise err(name) from e
    return out


def tree_map(
    f: Callable[..., Any],
    tree: object,
    *rest: object,
    is_leaf: Callable[[Any], bool] | None = None,
) -> Any:
    """Apply ``f`` leafwise; ``rest`` trees must have ``tree``'s structure (or be deeper)."""
    leaves, treedef = tree_flatten(tree, is_leaf)
    if not rest:
        return treedef.unflatten([f(x) for x in leaves])
    all_leaves = [leaves, *_flatten_rest(treedef, tree, rest, is_leaf, "tree_map tree")]
    return treedef.unflatten([f(*xs) for xs in zip(*all_leaves, strict=True)])


def tree_broadcast(
    prefix_tree: object, full_tree: object, is_leaf: Callable[[Any], bool] | None = None
) -> Any:
    """``full_tree``'s structure, each leaf the ``prefix_tree`` leaf above it (``(1, 2)``
    broadcast into ``(0, {'a': 0, 'b': 0})`` is ``(1, {'a': 2, 'b': 2})``)."""
    leaves, prefix_def = tree_flatten(prefix_tree, is_leaf)
    try:
        subtrees = flatten_up_to(prefix_def, full_tree)
    except ValueError as e:
        err = next(_prefix_errors((), prefix_tree, full_tree, is_leaf), None)
        if err is None:
            raise
        raise err("broadcast_prefix prefix_tree") from e
    out = [x for x, sub in zip(leaves, subtrees, strict=True) for _ in range(len(tree_leaves(sub)))]
    return tree_structure(full_tree).unflatten(out)


# --- registration helpers ---------------------------------------------------------------------


def register_static(cls: type[T]) -> type[T]:
    """Register ``cls`` as a pytree with no leaves: instances are static under jit (they are
    aux data, so they must be hashable) without ``static_argnums``."""
    register_pytree_node(cls, _static_flatten, _static_unflatten)
    return cls


def _static_flatten(x: object) -> tuple[tuple[()], Any]:
    return (), x


def _static_unflatten(x: object, _: Iterable[Any]) -> Any:
    return x


def register_dataclass(
    nodetype: type[T],
    data_fields: Sequence[str] | None = None,
    meta_fields: Sequence[str] | None = None,
    drop_fields: Sequence[str] = (),
) -> type[T]:
    """Register a dataclass-like type: ``data_fields`` are children (arrays, traced under
    jit), ``meta_fields`` aux data (static, hashable). For a dataclass both may be omitted:
    fields with ``field(metadata={"static": True})`` are meta, the others data. Every
    ``init=True`` field must be listed unless named in ``drop_fields``. Key paths name the
    data fields by attribute (``.x``). Returns ``nodetype`` (usable as a decorator)."""
    if data_fields is None or meta_fields is None:
        if (data_fields is None) != (meta_fields is None):
            raise TypeError(
                "register_dataclass: data_fields and meta_fields must both be specified when "
                f"either is specified. Got {data_fields=} {meta_fields=}."
            )
        if not dataclasses.is_dataclass(nodetype):
            raise TypeError(
                "register_dataclass: data_fields and meta_fields are required when nodetype is "
                f"not a dataclass. Got {nodetype=}."
            )
        fields = dataclasses.fields(nodetype)
        data_fields = [f.name for f in fields if not f.metadata.get("static", False)]
        meta_fields = [f.name for f in fields if f.metadata.get("static", False)]
    data, meta = tuple(data_fields), tuple(meta_fields)
    if dataclasses.is_dataclass(nodetype):
        init = {f.name for f in dataclasses.fields(nodetype) if f.init} - set(drop_fields)
        if {*data, *meta} != init:
            msg = (
                "data_fields and meta_fields must include all dataclass fields with "
                "``init=True`` and only them."
            )
            if missing := init - {*data, *meta}:
                msg += (
                    f" Missing fields: {missing}. Add them to drop_fields to suppress this error."
                )
            if unexpected := {*data, *meta} - init:
                msg += f" Unexpected fields: {unexpected}."
            raise ValueError(msg)
    if overlap := set(data) & set(meta):
        raise ValueError(
            f"data_fields and meta_fields must not overlap. Overlapping fields: {overlap}."
        )

    def flatten_with_keys(x: object) -> tuple[KeyLeafPairs, Hashable]:
        pairs = [(GetAttrKey(name), getattr(x, name)) for name in data]
        return pairs, tuple(getattr(x, name) for name in meta)

    def flatten(x: object) -> tuple[list[Any], Hashable]:
        return [getattr(x, name) for name in data], tuple(getattr(x, name) for name in meta)

    def unflatten(aux: Any, children: Iterable[Any]) -> Any:
        return nodetype(
            **dict(zip(meta, aux, strict=True)), **dict(zip(data, children, strict=True))
        )

    register_pytree_with_keys(nodetype, flatten_with_keys, unflatten, flatten)
    return nodetype


class Partial(functools.partial):  # type: ignore[type-arg]
    """A ``functools.partial`` that is a pytree: the bound arguments are its children, the
    function is static, so it can be passed through ``jit`` and other transformations."""

    def __new__(cls, func: Callable[..., Any], *args: object, **kwargs: object) -> Partial:
        if isinstance(func, functools.partial):
            # ``functools.partial`` would merge ``func``'s bound arguments into this one's,
            # making them leaves; JAX keeps them in the (static) function, so does mj
            return super().__new__(cls, _PartialFunc(func), *args, **kwargs)
        return super().__new__(cls, func, *args, **kwargs)


class _PartialFunc:
    """A ``functools.partial`` as a :class:`Partial`'s function: calls, compares and hashes
    as the partial it holds, which ``functools.partial`` does not take apart."""

    __slots__ = ("partial",)

    def __init__(self, partial: functools.partial[Any]) -> None:
        self.partial = partial

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.partial(*args, **kwargs)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _PartialFunc):
            return bool(self.partial == other.partial)
        return bool(self.partial == other)

    def __hash__(self) -> int:
        return hash(self.partial)

    def __repr__(self) -> str:
        return repr(self.partial)

    # the partial's parts, as JAX's shim exposes them (``f_jvp.func.args[0]``)
    @property
    def func(self) -> Callable[..., Any]:
        return self.partial.func

    @property
    def args(self) -> tuple[Any, ...]:
        return self.partial.args

    @property
    def keywords(self) -> dict[str, Any]:
        return self.partial.keywords


def _partial_flatten(p: Partial) -> tuple[tuple[Any, ...], Hashable]:
    return (p.args, p.keywords), p.func


def _partial_unflatten(func: Hashable, children: Iterable[Any]) -> Partial:
    args, keywords = children
    return Partial(func, *args, **keywords)  # type: ignore[arg-type]


register_pytree_node(Partial, _partial_flatten, _partial_unflatten)


class Store:
    """A write-once box: ``flatten_fun`` stores the output tree structure in it."""

    __slots__ = ("val",)
    _EMPTY: Any = object()

    def __init__(self) -> None:
        self.val: Any = Store._EMPTY

    def set_value(self, val: object) -> None:
        if self.val is not Store._EMPTY:
            raise RuntimeError("Store already holds a value")
        self.val = val

    def __call__(self) -> Any:
        if self.val is Store._EMPTY:
            raise RuntimeError("Store is empty: the function has not been called yet")
        return self.val


def flatten_fun(f: Callable[..., Any], in_tree: PyTreeDef) -> tuple[Callable[..., Any], Store]:
    """Wrap ``f`` (pytrees in, pytree out) as a function of flat leaves returning flat leaves;
    the output structure lands in the returned :class:`Store` once it is called."""
    store = Store()

    def flat_fun(*args_flat: object) -> list[Any]:
        pytree_args = tree_unflatten(in_tree, args_flat)
        out = f(*pytree_args)
        out_flat, out_tree = tree_flatten(out)
        store.set_value(out_tree)
        return out_flat

    return flat_fun, store
