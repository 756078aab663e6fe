"""Pickling mj arrays and pytree structures (issue 23): values, dtypes and weak types come
back, and a pickled treedef rebuilds its tree."""

import pickle

import numpy as np
import pytest

import mj
import mj.numpy as mnp


@pytest.mark.parametrize(
    "make",
    [
        lambda: mnp.arange(6.0).reshape(2, 3),
        lambda: mj.jit(lambda: mnp.ones((2, 2), np.float32) * 3)(),
        lambda: mj.jit(lambda: 2.0)(),  # weak-typed
        lambda: mj.jit(lambda: mnp.arange(4) < 2)(),
    ],
)
def test_arrays_round_trip(make):
    x = make()
    y = pickle.loads(pickle.dumps(x))
    assert type(y) is type(x)
    assert y.dtype == x.dtype
    assert getattr(y, "weak_type", False) == getattr(x, "weak_type", False)
    np.testing.assert_array_equal(np.asarray(y), np.asarray(x))
    np.testing.assert_array_equal(
        mj.jit(lambda v: v & v)(y) if y.dtype == bool else mj.jit(lambda v: v + v)(y),
        np.asarray(x) + np.asarray(x),
    )


def test_treedefs_round_trip_with_their_leaves():
    tree = {"params": [mnp.ones(2), (3.0, None)], "step": 7}
    leaves, treedef = mj.tree_util.tree_flatten(tree)
    treedef2 = pickle.loads(pickle.dumps(treedef))
    assert treedef2 == treedef
    rebuilt = treedef2.unflatten(pickle.loads(pickle.dumps(leaves)))
    assert mj.tree_util.tree_structure(rebuilt) == treedef
    np.testing.assert_array_equal(rebuilt["params"][0], np.ones(2))
