"""EagerArray: JAX's array API (``.at``, immutability, clamped indexing) on created arrays."""

import numpy as np
import pytest

import mj_core.numpy as mnp
from mj_core import get_aval
from mj_core.numpy import EagerArray


@pytest.mark.parametrize(
    "make",
    [
        lambda: mnp.zeros((3, 4)),
        lambda: mnp.ones((3, 4), np.float32),
        lambda: mnp.full((3, 4), 2.5),
        lambda: mnp.array(np.arange(12.0).reshape(3, 4)),
        lambda: mnp.asarray(np.arange(12).reshape(3, 4)),
        lambda: mnp.arange(12).reshape(3, 4),
        lambda: mnp.eye(3, 4),
        lambda: mnp.zeros_like(np.ones((3, 4))),
    ],
)
def test_created_arrays_have_at_and_are_immutable(make):
    x = make()
    assert isinstance(x, EagerArray)
    y = x.at[1, :].set(7)
    np.testing.assert_array_equal(np.asarray(y)[1], np.full(x.shape[1], 7, x.dtype))
    np.testing.assert_array_equal(np.asarray(y)[[0, 2]], np.asarray(x)[[0, 2]])
    assert y.dtype == x.dtype
    assert isinstance(y, EagerArray)  # chained .at works
    with pytest.raises(TypeError, match=r"immutable.*x\.at\[idx\]\.set\(y\)"):
        x[0, 0] = 1


def test_sharp_bits_array_updates():
    jax_array = mnp.ones((5, 6))
    new_jax_array = jax_array.at[::2, 3:].add(7.0)
    expected = np.ones((5, 6))
    expected[::2, 3:] += 7.0
    np.testing.assert_array_equal(np.asarray(new_jax_array), expected)
    np.testing.assert_array_equal(np.asarray(jax_array), np.ones((5, 6)))  # unchanged


def test_inplace_operators_rebind_instead_of_writing_through():
    host = np.ones(3)
    x = mnp.asarray(host)  # a view of the user's array
    x += 1
    np.testing.assert_array_equal(host, np.ones(3))
    np.testing.assert_array_equal(np.asarray(x), np.full(3, 2.0))


def test_indexing_follows_jax_out_of_bounds_rules():
    x = mnp.arange(10)
    assert int(x[11]) == 9
    assert int(x[-11]) == 0
    assert np.isnan(mnp.arange(10.0).at[11].get(mode="fill", fill_value=np.nan))
    np.testing.assert_array_equal(np.asarray(x[2:5]), [2, 3, 4])


def test_iteration_stops_despite_clamped_indexing():
    rows = list(mnp.arange(6.0).reshape(3, 2))
    assert len(rows) == 3
    np.testing.assert_array_equal(rows[2], [4.0, 5.0])
    assert [int(v) for v in mnp.arange(4)] == [0, 1, 2, 3]


def test_operations_return_plain_arrays_and_avals_match():
    x = mnp.ones(4, np.float32)
    assert type(mnp.sin(x)) is np.ndarray  # eager results stay plain NumPy (speed)
    assert type(x * 2.0) is np.ndarray
    assert get_aval(x).shape == (4,)
    assert get_aval(x).dtype == np.float32
    assert repr(mnp.array([1.0, 2.0], np.float32)) == "Array([1., 2.], dtype=float32)"
