"""Public JAX names JAX's own test files use that mj lacked, each compared with real JAX:
``tree_util.is_tree_node`` / ``flatten_one_level_with_keys`` / ``PyTreeDef.walk``,
``tree.static``, ..."""

import collections
import dataclasses
import functools

import jax
import pytest

import mj

Point = collections.namedtuple("Point", "x y")


class _Box:
    def __init__(self, v):
        self.v = v


mj.tree_util.register_pytree_node(_Box, lambda b: ((b.v,), "box"), lambda _, c: _Box(*c))
jax.tree_util.register_pytree_node(_Box, lambda b: ((b.v,), "box"), lambda _, c: _Box(*c))


@pytest.mark.parametrize(
    "typ",
    [
        list,
        tuple,
        dict,
        type(None),
        collections.OrderedDict,
        collections.defaultdict,
        Point,
        _Box,
        mj.tree_util.Partial,
        int,
        float,
        str,
        bytes,
        object,
    ],
    ids=lambda t: t.__name__,
)
def test_is_tree_node_as_jax(typ):
    want = jax.tree_util.is_tree_node(jax.tree_util.Partial if typ is mj.tree_util.Partial else typ)
    assert mj.tree_util.is_tree_node(typ) is want


@pytest.mark.parametrize(
    "tree",
    [
        {"b": [1, 2], "a": (3,)},
        [1, (2, 3)],
        (4, 5),
        None,
        collections.OrderedDict(b=1, a=2),
        collections.defaultdict(int, b=1, a=2),
        _Box(7),
    ],
    ids=["dict", "list", "tuple", "None", "OrderedDict", "defaultdict", "custom"],
)
def test_flatten_one_level_with_keys_as_jax(tree):
    want_pairs, want_aux = jax.tree_util.flatten_one_level_with_keys(tree)
    got_pairs, got_aux = mj.tree_util.flatten_one_level_with_keys(tree)
    assert [(repr(k), c) for k, c in got_pairs] == [(repr(k), c) for k, c in want_pairs]
    assert got_aux == want_aux


def test_flatten_one_level_with_keys_namedtuple_and_leaf():
    # JAX 0.10.2 names both fields of a namedtuple ``.x`` here (a slip in its C++ flattener);
    # mj names each field, as tree_flatten_with_path does in both libraries
    pairs, aux = mj.tree_util.flatten_one_level_with_keys(Point(1, 2))
    want_paths = [path for path, _ in jax.tree_util.tree_flatten_with_path(Point(1, 2))[0]]
    assert [repr((k,)) for k, _ in pairs] == [repr(tuple(p)) for p in want_paths]
    assert aux is jax.tree_util.flatten_one_level_with_keys(Point(1, 2))[1] is Point
    for lib in (jax, mj):
        with pytest.raises(ValueError, match="can't tree-flatten type"):
            lib.tree_util.flatten_one_level_with_keys(1)


@pytest.mark.parametrize(
    "tree",
    [
        {"b": [1, 2], "a": (3, None)},
        Point(4, [5]),
        collections.OrderedDict(b=1, a=2),
        collections.defaultdict(int, b=1, a=2),
        [_Box(6), 7],
        8,
    ],
    ids=["dict", "namedtuple", "OrderedDict", "defaultdict", "custom", "leaf"],
)
def test_walk_as_jax(tree):
    def f_node(children, data):
        return ("node", children, data)

    def f_leaf(x):
        return x * 10

    leaves, want_def = jax.tree_util.tree_flatten(tree)
    got_def = mj.tree_util.tree_structure(tree)
    want = want_def.walk(f_node, f_leaf, leaves)
    assert got_def.walk(f_node, f_leaf, leaves) == want
    assert got_def.walk(f_node, None, leaves) == want_def.walk(f_node, lambda x: x, leaves)


def test_walk_counts_leaves():
    treedef = mj.tree_util.tree_structure((1, 2))
    with pytest.raises(ValueError, match="Too few leaves"):
        treedef.walk(lambda c, d: c, None, [1])
    with pytest.raises(ValueError, match="Too many leaves"):
        treedef.walk(lambda c, d: c, None, [1, 2, 3])


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"default": "abc"}, {"metadata": {"k": "v"}}, {"metadata": {"static": False}}],
    ids=["plain", "default", "metadata", "static False"],
)
def test_tree_static_as_jax(kwargs):
    want = jax.tree.static(**dict(kwargs))
    got = mj.tree.static(**dict(kwargs))
    assert isinstance(got, dataclasses.Field)
    assert got.default == want.default
    assert dict(got.metadata) == dict(want.metadata)


def test_tree_static_field_is_aux_data():
    @mj.tree_util.register_dataclass
    @dataclasses.dataclass
    class Op:
        x: float
        name: str = mj.tree.static(default="add")

    leaves, treedef = mj.tree_util.tree_flatten(Op(1.0))
    assert leaves == [1.0]
    assert mj.tree_util.tree_unflatten(treedef, [2.0]) == Op(2.0, "add")


def test_partial_keeps_a_functools_partial_whole_as_jax():
    def f(a, b, c):
        return a + 10 * b + 100 * c

    g = functools.partial(f, 2)
    for lib in (jax, mj):
        h = lib.tree_util.Partial(g, 3)
        assert h.args == (3,)
        assert h(4) == 432
        assert lib.tree_util.tree_leaves(h) == [3]
        assert g == h.func
        assert h.func == g
        assert hash(h.func) == hash(g)
        nested = lib.tree_util.Partial(lib.tree_util.Partial(f, 1), 2)
        assert lib.tree_util.tree_leaves(nested) == [2]
        assert nested(3) == 321


def test_flattened_index_key_hashes_apart_from_sequence_key():
    for lib in (jax, mj):
        tu = lib.tree_util
        assert tu.FlattenedIndexKey(1) == tu.FlattenedIndexKey(1)
        assert hash(tu.FlattenedIndexKey(1)) == hash(tu.FlattenedIndexKey(1))
        assert hash(tu.FlattenedIndexKey(1)) != hash(tu.SequenceKey(1))


class _Labelled:
    def __init__(self, x):
        self.x = x


for _tu in (jax.tree_util, mj.tree_util):
    _tu.register_pytree_node(_Labelled, lambda o: ((o.x,), "label"), lambda _, c: _Labelled(*c))


def test_custom_node_aux_data_prints_with_str_as_jax():
    tree = [_Labelled(1), _Box(2)]
    assert str(mj.tree_util.tree_structure(tree)) == str(jax.tree_util.tree_structure(tree))
