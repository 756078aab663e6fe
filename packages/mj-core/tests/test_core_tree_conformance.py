"""Pytree utilities JAX has (issue 23): ``compose``, ``tree_transpose`` with an inferred inner
structure, ``tree_broadcast``, ``register_static``, ``register_dataclass``, pickled treedefs,
aux data that is not hashable, and JAX's messages for mismatched structures."""

import collections
import dataclasses
import pickle
import re

import numpy as np
import pytest

from mj_core.tree_util import (
    GetAttrKey,
    keystr,
    prefix_errors,
    register_dataclass,
    register_pytree_node,
    register_static,
    tree_broadcast,
    tree_flatten,
    tree_flatten_with_path,
    tree_leaves,
    tree_map,
    tree_structure,
    tree_transpose,
    tree_unflatten,
)


class Meta:
    def __init__(self, x, meta):
        self.x, self.meta = x, meta


register_pytree_node(Meta, lambda n: ((n.x,), n.meta), lambda m, c: Meta(c[0], m))

Pair = collections.namedtuple("Pair", "a b")


def test_unhashable_aux_data_flattens_hashes_and_compares():
    leaves, treedef = tree_flatten(Meta(1.0, [1, 2]))
    assert leaves == [1.0]
    assert hash(treedef) == hash(tree_structure(Meta(5.0, [1, 2])))
    assert treedef == tree_structure(Meta(5.0, [1, 2]))
    assert treedef != tree_structure(Meta(5.0, [3]))
    assert tree_unflatten(treedef, [2.0]).meta == [1, 2]
    assert {treedef: "cached"}[tree_structure(Meta(0.0, [1, 2]))] == "cached"


def test_aux_data_without_a_plain_equality_names_the_node_type():
    a, b = tree_structure(Meta(1.0, np.arange(3))), tree_structure(Meta(1.0, np.arange(3)))
    hash(a)  # no hash of the array is taken
    with pytest.raises(ValueError, match=r"metadata fields of pytree node type .*Meta"):
        _ = a == b


def test_compose_counts_leaves_and_nodes():
    outer, inner = tree_structure((1, {"a": 2, "b": None})), tree_structure([0, (0, 0)])
    composed = outer.compose(inner)
    assert composed.num_leaves == outer.num_leaves * inner.num_leaves
    expected_nodes = outer.num_nodes - outer.num_leaves + inner.num_nodes * outer.num_leaves
    assert composed.num_nodes == expected_nodes
    assert composed == tree_structure(([0, (0, 0)], {"a": [0, (0, 0)], "b": None}))


def test_transpose_infers_the_inner_structure():
    tree = {"x": [1, (2,)], "y": [3, (4,)]}
    want = [{"x": 1, "y": 3}, ({"x": 2, "y": 4},)]
    assert tree_transpose(tree_structure({"x": 0, "y": 0}), None, tree) == want
    with pytest.raises(TypeError, match=r"Mismatch\n"):
        tree_transpose(tree_structure({"x": 0, "y": 0}), tree_structure([0, 0, 0]), tree)


def test_broadcast_repeats_each_prefix_leaf_over_its_subtree():
    full = (0, {"a": 0, "b": [0, 0]}, (0, 0))
    assert tree_broadcast((1, 2, 3), full) == (1, {"a": 2, "b": [2, 2]}, (3, 3))
    assert tree_broadcast(7, [None, (0, 0)]) == [None, (7, 7)]
    with pytest.raises(ValueError, match=r"different lengths of tuple at key path\n    "):
        tree_broadcast((1, 2), full)


def test_register_static_is_a_node_without_leaves():
    @register_static
    class Options(tuple):
        pass

    opts = Options(("fast",))
    leaves, treedef = tree_flatten([opts, 1.0])
    assert leaves == [1.0]
    assert tree_unflatten(treedef, [2.0])[0] is opts
    assert treedef != tree_structure([Options(("slow",)), 1.0])


def test_register_dataclass_with_static_fields_and_key_paths():
    @register_dataclass
    @dataclasses.dataclass
    class Layer:
        w: object
        b: object
        name: str = dataclasses.field(metadata={"static": True}, default="dense")

    layer = Layer(w=[1.0, 2.0], b=3.0, name="out")
    leaves, treedef = tree_flatten(layer)
    assert leaves == [1.0, 2.0, 3.0]
    assert str(treedef) == "PyTreeDef(CustomNode(Layer[('out',)], [[*, *], *]))"
    assert [keystr(p) for p, _ in tree_flatten_with_path(layer)[0]] == [".w[0]", ".w[1]", ".b"]
    assert tree_flatten_with_path(layer)[0][2][0] == (GetAttrKey("b"),)
    assert tree_map(lambda v: v * 2, layer) == Layer(w=[2.0, 4.0], b=6.0, name="out")


def test_register_dataclass_explicit_fields_on_a_plain_class():
    class Box:
        def __init__(self, value, unit):
            self.value, self.unit = value, unit

    register_dataclass(Box, data_fields=["value"], meta_fields=["unit"])
    leaves, treedef = tree_flatten(Box(3.0, "m"))
    assert leaves == [3.0]
    assert tree_unflatten(treedef, [4.0]).unit == "m"
    with pytest.raises(TypeError, match="must both be specified"):
        register_dataclass(Box, data_fields=["value"])


def test_register_dataclass_checks_fields():
    @dataclasses.dataclass
    class D:
        a: int
        b: int

    with pytest.raises(ValueError, match=r"Missing fields: \{'b'\}"):
        register_dataclass(D, data_fields=["a"], meta_fields=[])
    with pytest.raises(ValueError, match="must not overlap"):
        register_dataclass(D, data_fields=["a", "b"], meta_fields=["b"])
    register_dataclass(D, data_fields=["a"], meta_fields=[], drop_fields=["b"])
    assert tree_leaves(D(1, 2)) == [1]


@pytest.mark.parametrize(
    "tree", [(1, [2, {"a": 3}]), {"b": (4,), "c": None}, [Pair(1, (2, 3))], 7, Meta(1, [2])]
)
def test_treedefs_pickle(tree):
    leaves, treedef = tree_flatten(tree)
    restored = pickle.loads(pickle.dumps(treedef))
    assert restored == treedef
    assert tree_leaves(restored.unflatten(leaves)) == leaves


@pytest.mark.parametrize(
    ("tree", "xs", "message"),
    [
        ([1, 2], [7], "List arity mismatch: 1 != 2; list: [7]."),
        ((1,), (7, 8), "Tuple arity mismatch: 2 != 1; tuple: (7, 8)."),
        ({"a": 1}, {"b": 7}, "Dict key mismatch; expected keys: ['a']; present keys: ['b']."),
        ([1], (7,), "Expected list, got (7,)."),
        ([Pair(1, 2)], [(1, 2)], "Expected named tuple, got (1, 2)."),
        (None, [2], "Expected None, got [2]."),
        (Meta(1, [0]), (1,), "Custom node type mismatch: expected type: "),
        (Meta(1, [0]), Meta(1, [9]), "Mismatch custom node data: [0] != [9]; value: "),
    ],
)
def test_flatten_up_to_messages(tree, xs, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        tree_structure(tree).flatten_up_to(xs)


def test_prefix_errors_name_the_key_path():
    (err,) = prefix_errors({"a": [1], "b": 2}, {"a": [1, 2], "b": 3})
    assert str(err("in_axes")).startswith(
        "pytree structure error: different lengths of list at key path\n    in_axes['a']\n"
    )
    assert prefix_errors((1, 2), ((11, 12, 13), 2)) == []


@pytest.mark.parametrize(
    ("result", "message"),
    [
        ("hello", "tuple, got 'hello'"),
        ((2, 3, 4), "tuple, got (2, 3, 4)"),
        ((7, 7), "tuple where 'children' is iterable, got (7, 7)"),
    ],
)
def test_bad_custom_flatteners_say_what_they_returned(result, message):
    class Bad:
        pass

    register_pytree_node(Bad, lambda _: result, lambda a, c: Bad())
    with pytest.raises(ValueError, match="should return a \\(children, aux_data\\)") as info:
        tree_flatten(Bad())
    assert str(info.value).endswith(message)
