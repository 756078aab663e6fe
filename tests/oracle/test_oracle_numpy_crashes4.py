"""jnp functions where JAX's own lax_numpy tests showed mj raising and JAX computing, against
JAX: ``roll`` by an array of shifts (eager and jit), ``mgrid``/``ogrid`` mixing float and int
slices under strict promotion, ``isclose`` and ``==`` of typed PRNG keys, operators taking an
object with ``__jax_array__``, ``take_along_axis(mode="promise_in_bounds")`` without
wrapping adding nothing to the jaxpr."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

ROLLS = [
    ((3, 4), np.array([1]), (1,)),
    ((3, 4, 5), np.array([1, -2]), (0, -1)),
    ((7, 4, 0), np.array([4, 2, 5, 5, 2, 4]), None),
    ((3, 4), np.array(100), None),
    ((3, 4), np.array([2]), (0, 1)),
]


@pytest.mark.parametrize(("shape", "shift", "axis"), ROLLS, ids=str)
def test_roll_array_shift_as_jax(shape, shift, axis, x64):
    x = np.arange(np.prod(shape), dtype=np.int32).reshape(shape)
    want = jnp.roll(x, shift, axis=axis)
    for got in (
        mnp.roll(x, shift, axis=axis),
        mj.jit(lambda x, s: mnp.roll(x, s, axis=axis))(x, shift),
        mnp.roll(x, tuple(np.atleast_1d(shift).tolist()), axis=axis),
    ):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_grids_promote_as_jax_under_strict(x64):
    for lib, np_lib in ((jax, jnp), (mj, mnp)):
        with lib.numpy_dtype_promotion("strict"):
            got = np_lib.mgrid[1:6:8j, 2:4], np_lib.ogrid[0:1:3j, 0:2]
        if lib is jax:
            want = got
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)


def test_key_comparisons_and_jax_array_operands_as_jax(x64):
    for lib, np_lib in ((jax, jnp), (mj, mnp)):
        ks = lib.random.split(lib.random.key(0), 3)
        got = [
            np_lib.isclose(ks, ks[1]),
            ks == ks[0],
            ks != ks[2],
            lib.jit(np_lib.isclose)(ks, ks[2]),
        ]
        if lib is jax:
            want = got
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))

    class Wrapped:
        def __init__(self, lib_np):
            self.lib_np = lib_np

        def __jax_array__(self):
            return self.lib_np.array(3.0)

    want = Wrapped(jnp) * jnp.arange(4.0), jnp.arange(4.0) - Wrapped(jnp)
    got = Wrapped(mnp) * mnp.arange(4.0), mnp.arange(4.0) - Wrapped(mnp)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


def test_take_along_axis_promise_in_bounds_as_jax(x64):
    rs = np.random.RandomState(0)
    arr = rs.randn(2, 1, 5, 7).astype(np.float32)
    idx = rs.randint(-7, 7, (2, 3, 5, 4)).astype(np.int8)
    kw = {"axis": -1, "mode": "promise_in_bounds", "wrap_negative_indices": True}
    want = jnp.take_along_axis(arr, idx, **kw)
    got = mnp.take_along_axis(arr, idx, **kw)
    got_jit = mj.jit(lambda a, i: mnp.take_along_axis(a, i, **kw))(arr, idx)
    for g in (got, got_jit):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(want))
    grad = mj.grad(lambda a: mnp.take_along_axis(a, idx, **kw).sum())(arr)
    want_grad = jax.grad(lambda a: jnp.take_along_axis(a, idx, **kw).sum())(arr)
    np.testing.assert_array_equal(np.asarray(grad), np.asarray(want_grad))
    # no wrapping: the indices go to the gather as they are (nothing compares or adds them)
    x, i = np.array([10, 20, 30], np.int32), np.array([0, 2], np.int32)
    jaxpr = mj.make_jaxpr(lambda x, i: mnp.take_along_axis(x, i, axis=0, mode="promise_in_bounds"))(
        x, i
    )
    names = {e.primitive.name for e in jaxpr.jaxpr.eqns}
    assert "gather" in names
    assert not names & {"select_n", "less", "lt", "add"}
    np.testing.assert_array_equal(
        np.asarray(mnp.take_along_axis(x, i, axis=0, mode="promise_in_bounds")),
        np.asarray(jnp.take_along_axis(x, i, axis=0, mode="promise_in_bounds")),
    )


def test_broadcast_in_dim_any_dimension_order_and_wording_as_jax(x64):
    # JAX's lax_test testBroadcastInDim1 / testBroadcastInDimShapeCheck*
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    want = jax.lax.broadcast_in_dim(x, (2, 4, 3), (2, 0))
    got = mj.lax.broadcast_in_dim(x, (2, 4, 3), (2, 0))
    got_jit = mj.jit(lambda x: mj.lax.broadcast_in_dim(x, (2, 4, 3), (2, 0)))(x)
    for g in (got, got_jit):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(want))
    w = np.arange(24.0, dtype=np.float32).reshape(2, 4, 3)
    # (JAX's own transpose of an unsorted broadcast_in_dim fails: a closed form instead)
    grad = mj.grad(lambda x: (mj.lax.broadcast_in_dim(x, (2, 4, 3), (2, 0)) * w).sum())(x)
    np.testing.assert_array_equal(np.asarray(grad), w.sum(1).T)
    for operand, shape, dims, message in (
        (np.ones(2, np.float32), (2, 3), (2,), "must be a subset of output dimensions"),
        (np.ones((2, 2), np.float32), (2, 2), (0, 0), "must not contain duplicates"),
    ):
        for lax in (jax.lax, mj.lax):
            with pytest.raises(TypeError, match=f"broadcast_in_dim broadcast_dimensions {message}"):
                lax.broadcast_in_dim(operand, shape, dims)


def test_sort_gradient_of_an_empty_array_as_jax(x64):
    # JAX's lax_autodiff testSortGrad5: the sort JVP's permutation of no elements
    for shape in ((0,), (2, 0)):
        x = np.zeros(shape, np.float32)
        want = jax.grad(lambda x: jax.lax.sort(x).sum())(x)
        got = mj.grad(lambda x: mj.lax.sort(x).sum())(x)
        assert got.shape == want.shape
        assert got.dtype == want.dtype
        _, want_t = jax.jvp(jax.lax.sort, (x,), (x,))
        _, got_t = mj.jvp(mj.lax.sort, (x,), (x,))
        assert (got_t.shape, got_t.dtype) == (want_t.shape, want_t.dtype)
