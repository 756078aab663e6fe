"""``tree_util`` against JAX (issue 23): the same error type and message for mismatched
structures (``flatten_up_to``, ``tree_map``, ``tree_broadcast``, ``tree_transpose``,
``tree_unflatten``, bad custom flatteners), and the same results for ``compose``,
``tree_transpose(outer, None, tree)``, ``tree_broadcast``, ``register_static``,
``register_dataclass``, pickled treedefs and nodes with unhashable aux data. Cases follow
JAX's tests/tree_util_test.py."""

import collections
import dataclasses
import pickle
import re

import jax
import numpy as np
import pytest
from jax import tree_util as jtu

import mj
from mj import tree_util as mtu

pytestmark = pytest.mark.oracle

ATuple = collections.namedtuple("ATuple", ("foo", "bar"))
ATuple2 = collections.namedtuple("ATuple2", ("foo", "bar"))


class AnObject:
    def __init__(self, x, y, z):
        self.x, self.y, self.z = x, y, z

    def __eq__(self, other):
        return (self.x, self.y, self.z) == (other.x, other.y, other.z)

    def __hash__(self):
        return hash((self.x, self.y, self.z))

    def __repr__(self):
        return f"AnObject({self.x},{self.y},{self.z})"


class Meta:
    """A node whose aux data is a list (unhashable)."""

    def __init__(self, x, meta):
        self.x, self.meta = x, meta


def _bad(result):
    return collections.namedtuple("Bad", ("foo", "bar")), result


BAD_FLATTENERS = [_bad("hello"), _bad((2, 3, 4)), _bad((7, 7)), _bad([[1], None])]

for tu in (jtu, mtu):
    tu.register_pytree_node(
        ATuple2, lambda o: ((o.foo,), o.bar), lambda bar, foo: ATuple2(foo[0], bar)
    )
    tu.register_pytree_node(
        AnObject, lambda o: ((o.x, o.y), o.z), lambda z, xy: AnObject(xy[0], xy[1], z)
    )
    tu.register_pytree_node(Meta, lambda n: ((n.x,), n.meta), lambda m, c: Meta(c[0], m))
    for cls, result in BAD_FLATTENERS:
        tu.register_pytree_node(cls, lambda o, r=result: r, lambda a, c: None)


def outcome(f):
    """``("ok", value)`` or ``(error type name, message)`` with object addresses removed and
    only the message's first paragraph (JAX's None hint speaks of its own history)."""
    try:
        return "ok", f()
    except Exception as e:
        msg = re.sub(r" at 0x[0-9a-f]+", "", str(e)).split("\n\n")[0]
        return type(e).__name__, msg


def same(jax_f, mj_f):
    want, got = outcome(jax_f), outcome(mj_f)
    assert got == want


FLATTEN_UP_TO = [
    ([(1, 2), None, ATuple(foo=3, bar=7)], [({"foo": 7}, (3, 4)), None, ATuple((11, 9), None)]),
    ([1], [{"a": 7}]),
    ((1, 2), ({"a": 7}, {"a": 8})),
    ({"a": 1, "b": (2, 3)}, {"a": [7], "b": ([8], (9,))}),
    (None, None),
    ([1, 2], [7]),
    ((1,), (7, 8)),
    ({"a": 1}, {"a": 7, "b": 8}),
    ({"a": 1}, {"b": 7}),
    ([1], {"a": 7}),
    ([1], (7,)),
    ((1,), [7]),
    ({"a": 1}, [7]),
    ([[1]], [7]),
    ([(1,)], [{"a": 7}]),
    ([{"a": 1}], [{"b": 7}]),
    (({"a": 1},), ((7,),)),
    ({"a": {"a": 1}}, {"a": (7,)}),
    ([ATuple(foo=1, bar=2)], [(1, 2)]),
    ([ATuple(foo=1, bar=2)], [ATuple2(foo=1, bar=2)]),
    ([AnObject([1], (2,), "z")], [([1], (2,), "z")]),
    ([AnObject(1, 2, "z")], [AnObject(1, 2, "w")]),
    (None, [2]),
    ([1, 2], None),
    (collections.OrderedDict(a=1, b=2), collections.OrderedDict(b=1, a=2)),
    (collections.OrderedDict(a=1), {"a": 1}),
    (collections.defaultdict(int, a=1), collections.defaultdict(list, a=1)),
    ({}, {"a": 1}),
]


@pytest.mark.parametrize(("tree", "xs"), FLATTEN_UP_TO)
def test_flatten_up_to(tree, xs):
    same(
        lambda: jtu.tree_structure(tree).flatten_up_to(xs),
        lambda: mtu.tree_structure(tree).flatten_up_to(xs),
    )


PREFIXES = [
    ((1, 2), [1, 2]),
    (((1,), (2,)), ([3], (4,))),
    (((1,), (2,)), ([3], [4])),
    ((1,), (2, 3)),
    ([[1]], [[2, 3]]),
    ({"hi": 1}, {"hi": 2, "bye": 3}),
    ({"a": 1}, {"a": 2, "b": 3}),
    ({1: 2}, {3: 4}),
    ([{1: 2}, {3: 4}], [{3: 4}, {5: 6}]),
    ({}, {"a": []}),
    ({"{oops}": []}, {"{oops}": [{}]}),
    ({"{oops}": {"{a}": 1}}, {"{oops}": {"{b}": 1}}),
    ((1, 2), ((11, 12, 13), 2)),
    (None, 1),
    (1, None),
    ([None], [[1]]),
    (ATuple(1, 2), ATuple2(1, 2)),
    (collections.OrderedDict(a=1), {"a": 1}),
    ([AnObject(1, [2], "z")], [AnObject(1, 3, "z")]),
]


@pytest.mark.parametrize(("prefix", "full"), PREFIXES)
def test_tree_map_errors_name_the_key_path(prefix, full):
    same(
        lambda: jtu.tree_map(lambda *xs: xs[0], prefix, full),
        lambda: mtu.tree_map(lambda *xs: xs[0], prefix, full),
    )
    same(
        lambda: jtu.tree_map_with_path(lambda p, *xs: xs[0], prefix, full),
        lambda: mtu.tree_map_with_path(lambda p, *xs: xs[0], prefix, full),
    )


@pytest.mark.parametrize(
    ("prefix", "full"),
    [
        ((1, 2, 3), (0, {"a": 0, "b": 0}, (0, 0))),
        ((1, 2, 3), (0, {"a": 0, "b": 0})),
        ((1, 2), (0, {"a": 0, "b": 0}, (0, 0))),
        ((1, {"a": 0}), (0, {"a": 0, "b": 0})),
        ({"x": 1, "y": [2, 3]}, {"x": [[0], 0], "y": [(0, 0), {"k": 0}]}),
        (5, {"a": [0, 0], "b": None}),
    ],
)
def test_tree_broadcast(prefix, full):
    same(lambda: jtu.tree_broadcast(prefix, full), lambda: mtu.tree_broadcast(prefix, full))
    same(lambda: jax.tree.broadcast(prefix, full), lambda: mj.tree.broadcast(prefix, full))


TREES = [(1, [2, {"a": 3}]), {"b": (4,), "c": None}, [ATuple(1, (2, 3))], 7]


@pytest.mark.parametrize("tree", TREES)
def test_compose_and_transpose(tree):
    inner = [0, {"a": 0}, (0,)]
    composed = (
        jtu.tree_structure(tree).compose(jtu.tree_structure(inner)),
        mtu.tree_structure(tree).compose(mtu.tree_structure(inner)),
    )
    assert str(composed[1]) == str(composed[0])
    assert composed[1].num_leaves == composed[0].num_leaves
    assert composed[1].num_nodes == composed[0].num_nodes

    def make_inner(x):
        return [x, {"a": x}, (x,)]

    for tu in (jtu, mtu):
        nested = tu.tree_map(make_inner, tree)
        outer = tu.tree_structure(tree)
        assert tu.tree_transpose(outer, None, nested) == make_inner(tree)
        assert tu.tree_transpose(outer, tu.tree_structure(inner), nested) == make_inner(tree)


@pytest.mark.parametrize(
    ("outer", "inner"),
    [({"a": 1, "b": 2, "c": 3}, [1, 2]), ({"a": 1, "b": 2}, [1, 2, 3])],
)
def test_transpose_mismatch(outer, inner):
    tree = {"a": [1, 2], "b": [3, 4]}
    same(
        lambda: jtu.tree_transpose(jtu.tree_structure(outer), jtu.tree_structure(inner), tree),
        lambda: mtu.tree_transpose(mtu.tree_structure(outer), mtu.tree_structure(inner), tree),
    )


@pytest.mark.parametrize("n", [1, 3])
def test_unflatten_leaf_count(n):
    same(
        lambda: jtu.tree_unflatten(jtu.tree_structure([1, 2]), list(range(n))),
        lambda: mtu.tree_unflatten(mtu.tree_structure([1, 2]), list(range(n))),
    )


@pytest.mark.parametrize(("cls", "result"), BAD_FLATTENERS)
def test_bad_custom_flatteners(cls, result):
    same(lambda: jtu.tree_flatten(cls(3, 4)), lambda: mtu.tree_flatten(cls(3, 4)))


def test_unhashable_aux_data_flattens_and_jits_like_jax():
    for tu, api in ((jtu, jax), (mtu, mj)):
        leaves, treedef = tu.tree_flatten(Meta(1.0, [1, 2]))
        assert leaves == [1.0]
        assert treedef == tu.tree_structure(Meta(2.0, [1, 2]))
        assert treedef != tu.tree_structure(Meta(2.0, [1, 3]))
        hash(treedef)
        assert tu.tree_unflatten(treedef, [3.0]).meta == [1, 2]
        traces = []

        @api.jit
        def f(n, traces=traces):
            traces.append(1)
            return n.x * len(n.meta)

        assert float(f(Meta(1.0, [1]))) == 1.0
        assert float(f(Meta(1.0, [1, 2]))) == 2.0
        assert float(f(Meta(3.0, [1, 2]))) == 6.0
        assert len(traces) == 2
        assert float(api.grad(lambda n: n.x * 2.0)(Meta(1.0, [0])).x) == 2.0
        out = api.vmap(lambda n: n.x * 2.0)(Meta(np.ones(3), [1]))
        np.testing.assert_allclose(out, [2.0, 2.0, 2.0])


@pytest.mark.parametrize("tree", [*TREES, AnObject(1, [2], "z"), Meta(1.0, [1])])
def test_pickled_treedefs(tree):
    for tu in (jtu, mtu):
        leaves, treedef = tu.tree_flatten(tree)
        restored = pickle.loads(pickle.dumps(treedef))
        assert restored == treedef
        assert str(restored) == str(treedef)
        rebuilt = restored.unflatten(leaves)
        assert tu.tree_leaves(rebuilt) == leaves


def test_pickled_arrays():
    for x, y in (
        (jax.numpy.arange(3.0), mj.numpy.arange(3.0)),
        (jax.jit(lambda: jax.numpy.ones((2, 2), np.float32))(),
         mj.jit(lambda: mj.numpy.ones((2, 2), np.float32))()),
        (jax.jit(lambda: 2.0)(), mj.jit(lambda: 2.0)()),
    ):  # fmt: skip
        a, b = pickle.loads(pickle.dumps(x)), pickle.loads(pickle.dumps(y))
        assert a.dtype == b.dtype
        assert a.weak_type == getattr(b, "weak_type", False)
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(mj.jit(lambda v: v * 2)(b), x * 2)


def test_register_static():
    for tu, api in ((jtu, jax), (mtu, mj)):

        class StaticStr(str):
            pass

        tu.register_static(StaticStr)
        assert tu.tree_leaves([StaticStr("a"), 1.0]) == [1.0]
        traces = []

        @api.jit
        def f(x, s, traces=traces):
            traces.append(s)
            return x * 2 if s == "double" else x

        assert float(f(1.0, StaticStr("double"))) == 2.0
        assert float(f(3.0, StaticStr("double"))) == 6.0
        assert float(f(3.0, StaticStr("same"))) == 3.0
        assert traces == ["double", "same"]


def test_register_dataclass():
    made = {}
    for tu, api in ((jtu, jax), (mtu, mj)):

        @tu.register_dataclass
        @dataclasses.dataclass
        class Params:
            w: object
            b: object
            op: str = dataclasses.field(metadata={"static": True}, default="add")

        p = Params(w=1.0, b=2.0, op="mul")
        leaves, treedef = tu.tree_flatten(p)
        paths = [tu.keystr(k) for k, _ in tu.tree_flatten_with_path(p)[0]]
        grad = api.grad(lambda q: q.w * q.b if q.op == "mul" else q.w + q.b)(p)
        made[tu] = (leaves, str(treedef).replace("Params", "P"), paths, float(grad.w), grad.op)
    assert made[mtu] == made[jtu]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"data_fields": ["a"]},
        {"data_fields": ["a"], "meta_fields": []},  # b missing
        {"data_fields": ["a", "b", "c"], "meta_fields": []},
        {"data_fields": ["a", "b"], "meta_fields": ["b"]},
        {"data_fields": ["a"], "meta_fields": [], "drop_fields": ["b"]},
    ],
)
def test_register_dataclass_errors(kwargs):
    def register(tu):
        @dataclasses.dataclass
        class D:
            a: int
            b: int

        tu.register_dataclass(D, **kwargs)
        return tu.tree_leaves(D(1, 2))

    same(lambda: register(jtu), lambda: register(mtu))
