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
