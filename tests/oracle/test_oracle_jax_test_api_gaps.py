"""Small API behaviours JAX 0.10.2's own tests check (issue 35), each compared with real JAX:
the types ``lax.padtype_to_pads`` returns, the DeprecationWarning of ``jnp.ndim``/``shape``/
``size`` on non-arrays, and the like."""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

pytestmark = pytest.mark.oracle


@pytest.mark.parametrize("padding", ["VALID", "SAME", "SAME_LOWER"])
def test_padtype_to_pads_gives_python_ints(padding, x64):
    """NumPy integer arrays in, Python ints out (lax_test testPadtypeToPadsReturnsInts); the
    pads themselves as JAX's."""
    args = (
        np.array([5, 6, 7], np.int64),
        np.array([2, 3, 4], np.int64),
        np.array([2, 1, 3], np.int64),
        padding,
    )
    want = jax.lax.padtype_to_pads(*args)
    got = mj.lax.padtype_to_pads(*args)
    assert [tuple(p) for p in got] == [tuple(p) for p in want]
    assert all(type(v) is int for pair in got for v in pair), got


@pytest.mark.parametrize("name", ["ndim", "shape", "size"])
def test_ndim_shape_size_of_a_list_warn_as_jax(name, x64):
    """A list still gets NumPy's answer, with JAX's DeprecationWarning (same text, blamed on
    the caller's line); arrays, scalars and objects with the attribute do not warn."""
    results = []
    for lib in (jnp, mnp):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = getattr(lib, name)([[1, 2, 3], [4, 5, 6]])
        # (JAX's size warns a second time, from its own call of shape: the first is the one)
        assert caught
        assert caught[0].category is DeprecationWarning, caught
        assert caught[0].filename == __file__
        results.append((value, str(caught[0].message)))
    assert results[0] == results[1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for x in (np.ones((2, 3)), 3.0, np.float32(1), mnp.ones((4,))):
            assert getattr(mnp, name)(x) == getattr(jnp, name)(np.asarray(x))


@pytest.mark.parametrize(
    "dtype", ["int32", "uint16", "int64", "float16", "float32", "float64", "complex64", "bool"]
)
def test_byteswap_traced_and_on_device_arrays_as_jax(dtype, x64):
    """``x.byteswap()`` of a tracer (lax_numpy_test testByteSwap under jit) and of a device
    array: the same bits and dtype as JAX's (and NumPy's)."""
    x = (np.arange(-3, 3) * 37).astype(dtype).reshape(2, 3)
    want = np.asarray(jax.jit(lambda v: v.byteswap())(x))
    got = np.asarray(mj.jit(lambda v: v.byteswap())(x))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    on_device = np.asarray(mj.device_put(mnp.asarray(x)).byteswap())
    np.testing.assert_array_equal(on_device.view(np.uint8), want.view(np.uint8))
    twice = mj.vmap(lambda v: v.byteswap().byteswap())(x)
    np.testing.assert_array_equal(np.asarray(twice), np.asarray(jnp.asarray(x)))


def test_removed_numpy_names_are_out_of_dir_as_in_jax():
    """``fix`` and ``row_stack`` (gone from JAX 0.10) are not listed by ``dir`` (lax_numpy_test
    testWrappedSignaturesMatch); mj still answers them, warning, with trunc's and vstack's
    results. ``fromfile`` exists and refuses with JAX's words."""
    for name in ("fix", "row_stack"):
        assert name not in dir(jnp)
        assert name not in dir(mnp)
    x = np.array([-1.5, -0.5, 0.5, 2.5])
    with pytest.warns(DeprecationWarning, match="use mj.numpy.trunc"):
        fix = mnp.fix
    np.testing.assert_array_equal(np.asarray(fix(x)), np.asarray(jnp.trunc(x)))
    with pytest.warns(DeprecationWarning, match="use mj.numpy.vstack"):
        row_stack = mnp.row_stack
    np.testing.assert_array_equal(np.asarray(row_stack([x, x])), np.asarray(jnp.vstack([x, x])))
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        _ = mnp.no_such_name
    for lib in (jnp, mnp):
        with pytest.raises(NotImplementedError, match=r"^jnp.fromfile\(\) is not implemented"):
            lib.fromfile("x.bin")
