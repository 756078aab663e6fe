"""Pytrees: round trips, dict key order, None, namedtuples, custom nodes, errors."""

from collections import namedtuple

import pytest

from mj_core.tree_util import (
    PyTreeDef,
    flatten_fun,
    flatten_one_level,
    flatten_up_to,
    register_pytree_node,
    register_pytree_node_class,
    tree_flatten,
    tree_leaves,
    tree_map,
    tree_reduce_associative,
    tree_structure,
    tree_unflatten,
)

Point = namedtuple("Point", ["x", "y"])


class Box:
    """A user container registered with functions."""

    def __init__(self, items, label):
        self.items = items
        self.label = label

    def __eq__(self, other):
        return isinstance(other, Box) and self.items == other.items and self.label == other.label

    def __repr__(self):  # the test ids: the same in every process (pytest-xdist workers)
        return f"Box({self.items!r}, {self.label!r})"


register_pytree_node(
    Box, lambda b: (b.items, b.label), lambda label, items: Box(list(items), label)
)


@register_pytree_node_class
class Pair:
    def __init__(self, a, b):
        self.a, self.b = a, b

    def tree_flatten(self):
        return (self.a, self.b), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


TREES = [
    1.0,
    (1, 2),
    [1, (2, 3)],
    {"b": 1, "a": [2, 3]},
    (None, 1, [None]),
    Point(1, (2, 3)),
    Box([1, 2, 3], "lbl"),
    {"k": Box([Point(1, 2)], 0)},
    (),
    [],
    {},
]


@pytest.mark.parametrize("tree", TREES, ids=repr)
def test_round_trip(tree):
    leaves, treedef = tree_flatten(tree)
    assert tree_unflatten(treedef, leaves) == tree
    assert treedef.num_leaves == len(leaves)
    assert tree_structure(tree) == treedef
    assert hash(tree_structure(tree)) == hash(treedef)


def test_dict_leaves_follow_sorted_keys_and_none_is_empty():
    assert tree_leaves({"b": 1, "a": 2, "c": None}) == [2, 1]
    assert tree_leaves([None, None]) == []
    assert tree_structure(None) != tree_structure(())


def test_custom_class_node_and_namedtuple_types_are_kept():
    out = tree_map(lambda v: v * 10, Pair(1, Point(2, 3)))
    assert isinstance(out, Pair)
    assert out.a == 10
    assert out.b == Point(20, 30)
    assert tree_structure(Point(1, 2)) != tree_structure((1, 2))


def test_tree_map_several_trees_and_is_leaf():
    assert tree_map(lambda a, b: a + b, {"x": 1, "y": (2, 3)}, {"x": 10, "y": (20, 30)}) == {
        "x": 11,
        "y": (22, 33),
    }
    assert tree_map(lambda t: len(t), [(1, 2), (3,)], is_leaf=lambda t: isinstance(t, tuple)) == [
        2,
        1,
    ]


def test_mismatched_structures_raise_value_error_showing_both():
    # JAX's messages (issue 23): the key path of the difference and both sides' types/keys
    with pytest.raises(ValueError, match=r"(?s)different types at key path.*'tuple'.*'list'"):
        tree_map(lambda a, b: a, (1, 2), [1, 2])
    with pytest.raises(ValueError, match=r"(?s)different pytree metadata.*\('a',\).*\('b',\)"):
        tree_map(lambda a, b: a, {"a": 1}, {"b": 1})
    with pytest.raises(ValueError, match=r"Too many leaves for PyTreeDef; expected 2\."):
        tree_unflatten(tree_structure((1, 2)), [1, 2, 3])


def test_flatten_up_to_prefix_tree():
    assert flatten_up_to(tree_structure((0, 0)), ((1, 2), [3])) == [(1, 2), [3]]


def test_treedef_repr_is_readable():
    r = repr(tree_structure({"a": (1, None), "b": [2, Point(3, 4)]}))  # JAX's format
    assert r == "PyTreeDef({'a': (*, None), 'b': [*, CustomNode(namedtuple[Point], [*, *])]})"
    assert isinstance(tree_structure(1), PyTreeDef)


def test_flatten_fun_stores_output_structure():
    _, in_tree = tree_flatten(((1, 2), {"k": 3}))

    def f(a, d):
        return {"sum": a[0] + a[1] + d["k"], "pair": (a[0], d["k"])}

    flat_f, store = flatten_fun(f, in_tree)
    assert flat_f(1, 2, 3) == [1, 3, 6]  # sorted keys: "pair" before "sum"
    assert tree_unflatten(store(), [1, 3, 6]) == {"sum": 6, "pair": (1, 3)}


def test_a_type_seen_as_a_leaf_becomes_a_node_when_registered():
    """tree_flatten remembers leaf types (its fast path); registration must override that."""

    class Cell:
        def __init__(self, v):
            self.v = v

    box = Cell(3)
    assert tree_leaves([box, box]) == [box, box]
    register_pytree_node(Cell, lambda b: ((b.v,), None), lambda _, c: Cell(*c))
    assert tree_leaves([box, Cell(4)]) == [3, 4]


def test_a_namedtuple_flattened_before_can_still_be_registered():
    """Namedtuples are nodes implicitly; registering one explicitly (as JAX allows) is not a
    duplicate registration, and the explicit rule wins."""
    Pair = namedtuple("Pair", "x y")
    assert tree_leaves(Pair(1, 2)) == [1, 2]
    register_pytree_node(Pair, lambda p: ((p.y,), p.x), lambda x, c: Pair(x, *c))
    assert tree_leaves(Pair(1, 2)) == [2]
    with pytest.raises(ValueError, match="Duplicate custom PyTreeDef type registration"):
        register_pytree_node(Pair, lambda p: ((p,), None), lambda _, c: c[0])


def test_tree_reduce_associative_pairs_leaves_in_order():
    calls = []

    def concat(a, b):
        calls.append((a, b))
        return a + b

    assert tree_reduce_associative(concat, [["a", "b"], ("c", "d", "e")]) == "abcde"
    assert calls[:2] == [("a", "b"), ("c", "d")]  # pairwise first: log depth
    assert tree_reduce_associative(concat, {"x": None}, identity="") == ""
    with pytest.raises(TypeError, match="Must specify identity"):
        tree_reduce_associative(concat, [])


def test_flatten_one_level_gives_the_root_children_and_aux_data():
    children, keys = flatten_one_level({"b": [1, 2], "a": 3})
    assert (list(children), keys) == ([3, [1, 2]], ("a", "b"))
    point = namedtuple("Point", "x y")
    assert flatten_one_level(point(1, [2])) == ([1, [2]], point)
    with pytest.raises(ValueError, match="can't tree-flatten type"):
        flatten_one_level(1.5)
