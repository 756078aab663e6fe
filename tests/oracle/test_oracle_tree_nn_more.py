"""``tree_util.flatten_one_level``, ``tree_reduce_associative`` (``tree.reduce_associative``),
``nn.logmeanexp`` and ``nn.tanh`` against JAX."""

import collections

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

Point = collections.namedtuple("Point", "x y")


@pytest.mark.parametrize(
    "tree", [{"b": [1, 2], "a": (3,)}, [1, (2, 3)], None, (4, 5), Point(1, 2)], ids=str
)
def test_flatten_one_level_as_jax(tree):
    want_children, want_aux = jax.tree_util.flatten_one_level(tree)
    got_children, got_aux = mj.tree_util.flatten_one_level(tree)
    assert list(got_children) == list(want_children)
    assert got_aux == want_aux


def test_flatten_one_level_of_a_leaf_and_reduce_associative():
    for lib in (jax, mj):
        with pytest.raises(ValueError, match="can't tree-flatten type"):
            lib.tree_util.flatten_one_level(1)
        with pytest.raises(TypeError, match="Must specify identity"):
            lib.tree_util.tree_reduce_associative(lambda a, b: a + b, [])
    tree = [1, [2, 3], {"k": 4, "j": 5}, (6,)]
    calls = []

    def add(a, b):
        calls.append((a, b))
        return a + b

    for lib in (jax, mj):
        assert lib.tree_util.tree_reduce_associative(add, tree) == 21
        assert lib.tree.reduce_associative(lambda a, b: a * b, (2, 3, 4)) == 24
        assert lib.tree_util.tree_reduce_associative(add, [], identity=0) == 0
    strings = [["a", "b"], ("c", "d", "e")]  # not commutative: the order is the leaves'
    assert mj.tree.reduce_associative(lambda a, b: a + b, strings) == "abcde"


@pytest.mark.parametrize(
    "args",
    [
        {},
        {"axis": 0, "keepdims": True},
        {"axis": 1},
        {"where": np.array([[True, False, True], [True, True, False]])},
        {"axis": 1, "where": np.array([[True, False, True], [True, True, False]])},
    ],
    ids=["all", "axis0 keepdims", "axis1", "where", "axis1 where"],
)
def test_logmeanexp_as_jax(args, x64):
    x = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 40.0]], np.float32)
    want = jax.nn.logmeanexp(jnp.asarray(x), **args)
    got = mj.nn.logmeanexp(x, **args)
    assert got.dtype == want.dtype
    assert got.shape == want.shape
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(mj.nn.tanh(x)), np.asarray(jax.nn.tanh(x)), rtol=1e-6)
    assert mj.nn.tanh(mnp.ones(2, mnp.float16)).dtype == np.float16
