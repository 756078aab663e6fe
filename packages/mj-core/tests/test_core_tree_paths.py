"""Key paths: tree_flatten_with_path and friends, the key classes and keystr (expected strings
and reprs are those JAX 0.10.2 prints; tests/oracle/test_oracle_stats_paths.py compares live)."""

import pickle
from collections import OrderedDict, defaultdict, namedtuple

import pytest

from mj_core.tree_util import (
    DictKey,
    FlattenedIndexKey,
    GetAttrKey,
    Partial,
    SequenceKey,
    keystr,
    register_pytree_node,
    register_pytree_with_keys,
    register_pytree_with_keys_class,
    tree_flatten,
    tree_flatten_with_path,
    tree_leaves_with_path,
    tree_map,
    tree_map_with_path,
)

Point = namedtuple("Point", "x y")


class Box:
    """A user node registered without keys: its children get FlattenedIndexKey."""

    def __init__(self, a: object, b: object) -> None:
        self.a, self.b = a, b


register_pytree_node(Box, lambda box: ((box.a, box.b), "box"), lambda _, kids: Box(*kids))


@register_pytree_with_keys_class
class Named:
    """A user node with named children."""

    def __init__(self, w: object, bias: object) -> None:
        self.w, self.bias = w, bias

    def tree_flatten_with_keys(self):
        return ((GetAttrKey("w"), self.w), (GetAttrKey("bias"), self.bias)), "named"

    @classmethod
    def tree_unflatten(cls, aux, children):
        assert aux == "named"
        return cls(*children)


TREE = {"b": [1, (2, None)], "a": Point(3, {"z": 4}), "c": Box(5, [6]), "d": Named(7, 8)}


def test_paths_of_every_node_kind_in_leaf_order():
    pairs, treedef = tree_flatten_with_path(TREE)
    assert [keystr(p) for p, _ in pairs] == [
        "['a'].x",
        "['a'].y['z']",
        "['b'][0]",
        "['b'][1][0]",
        "['c'][<flat index 0>]",
        "['c'][<flat index 1>][0]",
        "['d'].w",
        "['d'].bias",
    ]
    assert [leaf for _, leaf in pairs] == [3, 4, 1, 2, 5, 6, 7, 8]
    leaves, plain_def = tree_flatten(TREE)
    assert treedef == plain_def
    assert [leaf for _, leaf in pairs] == leaves
    assert pairs[1][0] == (DictKey("a"), GetAttrKey("y"), DictKey("z"))
    assert pairs[4][0] == (DictKey("c"), FlattenedIndexKey(0))


def test_none_has_no_children_and_a_leaf_has_the_empty_path():
    assert tree_flatten_with_path(None)[0] == []
    assert tree_flatten_with_path(5)[0] == [((), 5)]
    assert tree_leaves_with_path([None, 1]) == [((SequenceKey(1),), 1)]


def test_ordered_dict_keeps_insertion_order_defaultdict_sorts():
    od = OrderedDict([("b", 1), ("a", 2)])
    assert tree_leaves_with_path(od) == [((DictKey("b"),), 1), ((DictKey("a"),), 2)]
    dd = defaultdict(int, {"b": 1, "a": 2})
    assert tree_leaves_with_path(dd) == [((DictKey("a"),), 2), ((DictKey("b"),), 1)]
    assert tree_flatten_with_path(dd)[1] == tree_flatten(dd)[1]


def test_partial_children_are_flat_indices():
    p = Partial(lambda a, b, c=1: a, 1, c=2)
    paths = [keystr(path) for path, _ in tree_leaves_with_path(p)]
    assert paths == ["[<flat index 0>][0]", "[<flat index 1>]['c']"]


def test_keystr_simple_and_separator():
    path = (DictKey("a"), FlattenedIndexKey(2), GetAttrKey("x"), SequenceKey(3))
    assert keystr(path) == "['a'][<flat index 2>].x[3]"
    assert keystr(path, simple=True, separator=".") == "a.2.x.3"
    assert keystr((DictKey("a"), SequenceKey(3)), separator="/") == "['a']/[3]"
    assert keystr(("a", 1), simple=True, separator="|") == "a|1"
    assert keystr(()) == ""


def test_key_reprs_strs_and_payloads():
    assert repr(DictKey("a")) == "DictKey(key='a')"
    assert str(DictKey("a'b")) == '["a\'b"]'
    assert repr(SequenceKey(1)) == "SequenceKey(idx=1)"
    assert str(SequenceKey(1)) == "[1]"
    assert repr(GetAttrKey("x")) == "GetAttrKey(name='x')"
    assert str(GetAttrKey("x")) == ".x"
    assert repr(FlattenedIndexKey(2)) == "FlattenedIndexKey(key=2)"
    assert str(FlattenedIndexKey(2)) == "[<flat index 2>]"
    assert DictKey("k").key == "k"
    assert SequenceKey(4).idx == 4
    assert GetAttrKey("n").name == "n"
    assert FlattenedIndexKey(5).key == 5


def test_keys_compare_hash_pickle_and_match():
    assert DictKey(1) == DictKey(1.0)
    assert hash(DictKey(1)) == hash(DictKey(1.0))
    assert DictKey(1) != SequenceKey(1)
    assert DictKey(1) != 1
    assert SequenceKey(1) != SequenceKey(2)
    assert len({GetAttrKey("a"), GetAttrKey("a"), DictKey("a")}) == 2
    assert pickle.loads(pickle.dumps(FlattenedIndexKey(3))) == FlattenedIndexKey(3)
    with pytest.raises(TypeError, match="unhashable"):
        hash(DictKey([1]))
    with pytest.raises(AttributeError):
        DictKey("a").key = "b"  # type: ignore[misc]
    match SequenceKey(4):
        case SequenceKey(i):
            assert i == 4
        case _:
            pytest.fail("positional match")
    match DictKey("z"):
        case DictKey(key=k):
            assert k == "z"
        case _:
            pytest.fail("keyword match")


@pytest.mark.parametrize(
    ("cls", "bad"), [(SequenceKey, "a"), (GetAttrKey, 1), (FlattenedIndexKey, 1.5)]
)
def test_key_payload_types_are_checked(cls, bad):
    with pytest.raises(TypeError, match=cls.__name__):
        cls(bad)


def test_tree_map_with_path_passes_paths_and_rest_trees():
    tree = {"w": [1, 2], "b": 3}
    out = tree_map_with_path(lambda p, x, y: f"{keystr(p)}={x}{y}", tree, tree_map(str, tree))
    assert out == {"w": ["['w'][0]=11", "['w'][1]=22"], "b": "['b']=33"}
    with pytest.raises(
        ValueError,
        match=r"different lengths of list at key path\n    tree_map_with_path tree\[.w.\]",
    ):
        tree_map_with_path(lambda p, x, y: x, tree, {"w": [1], "b": 3})


def test_is_leaf_with_and_without_path():
    tree = {"a": [1, 2], "b": (3,)}
    pairs, _ = tree_flatten_with_path(tree, is_leaf=lambda x: isinstance(x, list))
    assert pairs == [((DictKey("a"),), [1, 2]), ((DictKey("b"), SequenceKey(0)), 3)]
    pairs, _ = tree_flatten_with_path(
        tree, is_leaf=lambda p, x: p == (DictKey("b"),), is_leaf_takes_path=True
    )
    assert pairs[-1] == ((DictKey("b"),), (3,))
    assert len(pairs) == 3


def test_register_pytree_with_keys_derives_the_plain_flattener():
    class Pair:
        def __init__(self, first: object, second: object) -> None:
            self.first, self.second = first, second

    calls: list[str] = []

    def flatten_with_keys(p: Pair):
        calls.append("keys")
        return [(GetAttrKey("first"), p.first), ("custom", p.second)], None

    register_pytree_with_keys(Pair, flatten_with_keys, lambda _, kids: Pair(*kids))
    leaves, treedef = tree_flatten(Pair(1, [2]))
    assert leaves == [1, 2]
    assert calls == ["keys"]
    rebuilt = treedef.unflatten([10, 20])
    assert (rebuilt.first, rebuilt.second) == (10, [20])
    assert keystr(tree_leaves_with_path(Pair(1, [2]))[1][0]) == "custom[0]"
    # registering again is refused, as in JAX (it used to replace the first registration)
    with pytest.raises(ValueError, match="Duplicate custom PyTreeDef type registration"):
        register_pytree_node(Pair, lambda p: ((p.first, p.second), None), lambda _, k: Pair(*k))

    class Plain(Pair):
        pass

    # a type registered without keys names its children by flat index
    register_pytree_node(Plain, lambda p: ((p.first, p.second), None), lambda _, k: Plain(*k))
    assert tree_leaves_with_path(Plain(1, 2))[1][0] == (FlattenedIndexKey(1),)


def test_with_keys_class_uses_its_own_tree_flatten_when_present():
    @register_pytree_with_keys_class
    class Fast:
        def __init__(self, v: object) -> None:
            self.v = v

        def tree_flatten(self):
            return (self.v,), "fast"

        def tree_flatten_with_keys(self):
            return ((GetAttrKey("v"), self.v),), "fast"

        @classmethod
        def tree_unflatten(cls, aux, children):
            return cls(*children)

    assert tree_flatten(Fast(1))[1] == tree_flatten_with_path(Fast(1))[1]
    assert tree_leaves_with_path(Fast(1)) == [((GetAttrKey("v"),), 1)]
