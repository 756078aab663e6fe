"""``mj.flatten_util.ravel_pytree`` (issue 23), against NumPy's ravel/concatenate."""

import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj.flatten_util import ravel_pytree

TREE = {"w": np.arange(6.0).reshape(2, 3), "b": [np.array([7.0]), 8.0], "none": None}


def test_ravel_concatenates_leaves_in_tree_order_and_unravel_rebuilds():
    flat, unravel = ravel_pytree(TREE)
    leaves = mj.tree_util.tree_leaves(TREE)
    np.testing.assert_array_equal(flat, np.concatenate([np.ravel(x) for x in leaves]))
    rebuilt = unravel(flat)
    assert mj.tree_util.tree_structure(rebuilt) == mj.tree_util.tree_structure(TREE)
    for a, b in zip(mj.tree_util.tree_leaves(rebuilt), leaves, strict=True):
        np.testing.assert_array_equal(a, b)
        assert np.shape(a) == np.shape(b)


@pytest.mark.parametrize(
    ("dtypes", "flat_dtype"),
    [
        ((np.float32, np.float32), np.float32),
        ((np.int32, np.int32), np.int32),
        ((np.int32, np.float32), np.float32),  # JAX's lattice, not NumPy's float64
        ((np.bool_, np.int32), np.int32),
        ((np.float32, np.complex64), np.complex64),
    ],
)
def test_dtypes_promote_and_come_back(dtypes, flat_dtype):
    tree = [np.array([1], dtypes[0]), np.array([[1, 2], [3, 4]], dtypes[1])]
    flat, unravel = ravel_pytree(tree)
    assert flat.dtype == mnp.result_type(*dtypes) == flat_dtype
    for a, b in zip(unravel(flat), tree, strict=True):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


def test_empty_tree_is_an_empty_float32_vector():
    flat, unravel = ravel_pytree({})
    assert flat.shape == (0,)
    assert flat.dtype == np.float32
    assert unravel(flat) == {}


def test_single_dtype_unravel_is_dtype_polymorphic_mixed_is_not():
    x = np.arange(10, dtype=np.float32)
    flat, unravel = ravel_pytree(x)
    assert unravel(flat < 5.3).dtype == np.bool_
    flat, unravel = ravel_pytree((x, np.arange(10, dtype=np.int32)))
    with pytest.raises(TypeError, match="but expected dtype float32"):
        unravel(flat < 5.3)


def test_unravel_is_a_stable_static_argument():
    flat1, unravel1 = ravel_pytree((np.array([1, 2]), np.array([3, 4])))
    flat2, unravel2 = ravel_pytree((np.array([1, 2]), np.array([3, 4])))
    assert unravel1 == unravel2
    assert hash(unravel1) == hash(unravel2)
    traces = []

    @mj.jit(static_argnums=1)
    def step(flat, unravel):
        traces.append(1)
        return unravel(flat + 1)

    step(flat1, unravel1)
    step(flat2, unravel2)
    assert len(traces) == 1


def test_transforms_through_ravel():
    def loss(params):
        flat, _ = ravel_pytree(params)
        return mnp.sum(flat**2)

    grads = mj.grad(loss)(TREE)
    np.testing.assert_allclose(grads["w"], 2 * TREE["w"])
    np.testing.assert_allclose(grads["b"][1], 16.0)
    flat = mj.jit(lambda t: ravel_pytree(t)[0])(TREE)
    np.testing.assert_array_equal(flat, ravel_pytree(TREE)[0])
    batched = mj.vmap(lambda t: ravel_pytree(t)[0])({"a": np.ones((3, 2)), "b": np.zeros(3)})
    assert batched.shape == (3, 3)
