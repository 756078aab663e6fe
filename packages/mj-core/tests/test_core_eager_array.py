"""EagerArray: JAX's array API (``.at``, immutability, clamped indexing) on every eager result."""

import numpy as np
import pytest

import mj_core.numpy as mnp
from mj_core import EagerArray, get_aval, lax


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


@pytest.mark.parametrize(
    "op", ["+=", "-=", "*=", "/=", "//=", "%=", "**=", "@=", "&=", "|=", "^=", "<<=", ">>="]
)
def test_every_inplace_operator_rebinds(op):
    host = np.array([[4, 5], [6, 7]])
    x = mnp.asarray(host)  # a view of the user's array
    y = 2 if op != "@=" else np.eye(2, dtype=host.dtype)
    want = eval(f"host {op[:-1]} y")
    namespace = {"x": x, "y": y}
    exec(f"x {op} y", namespace)
    np.testing.assert_array_equal(host, [[4, 5], [6, 7]])
    np.testing.assert_array_equal(np.asarray(namespace["x"]), want)


def test_indexing_follows_jax_out_of_bounds_rules():
    x = mnp.arange(10)
    assert int(x[11]) == 9
    assert int(x[-11]) == 0
    assert np.isnan(mnp.arange(10.0).at[11].get(mode="fill", fill_value=np.nan))
    np.testing.assert_array_equal(np.asarray(x[2:5]), [2, 3, 4])


@pytest.mark.parametrize("key", [slice(None), Ellipsis, slice(0, 3), (slice(None), Ellipsis)])
def test_indexing_the_whole_array_gives_an_eager_array(key):
    """``x[:]`` (no axis changes) is still an ``EagerArray`` with ``x``'s values, as every
    other index is, not the bare NumPy view behind it."""
    x = mnp.asarray([3.0, 1.0, 2.0])
    y = x[key]
    assert type(y) is EagerArray
    np.testing.assert_array_equal(np.asarray(y), [3.0, 1.0, 2.0])
    assert type(y.sort()) is EagerArray  # so its methods are mj's too


def test_iteration_stops_despite_clamped_indexing():
    rows = list(mnp.arange(6.0).reshape(3, 2))
    assert len(rows) == 3
    np.testing.assert_array_equal(rows[2], [4.0, 5.0])
    assert [int(v) for v in mnp.arange(4)] == [0, 1, 2, 3]


def test_iter_of_a_0d_array_raises_at_once():
    with pytest.raises(TypeError, match="0-d"):
        iter(mnp.asarray(3.0))  # not on the first next(): np.iterable asks iter() only
    assert not np.iterable(mnp.asarray(3.0))
    assert np.iterable(mnp.ones(2))


def test_operation_results_are_eager_arrays_with_the_jax_api():
    x = mnp.ones(4, np.float32)
    results = {
        "ufunc": mnp.sin(x),
        "operator": x * 2.0,
        "reflected": 2.0 - x,
        "unary": -x,
        "comparison": x > 0,
        "dot": mnp.dot(x, x),
        "reduction function": mnp.sum(x),
        "reduction method": x.sum(),
        "mean method": x.mean(),
        "index": x[0],
        "slice": x[1:],
        "reshape": x.reshape(2, 2),
        "transpose": x.reshape(2, 2).T,
        "astype": x.astype(np.float64),
        "lax": lax.exp(x),
        "plain numpy input": mnp.cos(np.ones(3)),
    }
    for name, r in results.items():
        assert type(r) is EagerArray, name
        assert r.block_until_ready() is r, name
    y = mnp.sin(x).at[0].set(5.0)  # seed 004: methods on the result of an operation
    assert type(y) is EagerArray
    np.testing.assert_allclose(np.asarray(y), [5.0, *np.sin(np.ones(3, np.float32))])
    with pytest.raises(TypeError, match="immutable"):
        mnp.sin(x)[0] = 1.0


def test_eager_arrays_keep_numpy_speed_path_and_values():
    x = mnp.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(np.asarray(mnp.sum(x, axis=0)), [3.0, 5.0, 7.0])
    np.testing.assert_array_equal(np.asarray(np.sum(x)), 15.0)  # NumPy functions still work
    assert get_aval(mnp.sin(x)).shape == (2, 3)
    assert mnp.sum(x).shape == ()  # 0-d arrays, not NumPy scalars
    assert float(mnp.sum(x)) == 15.0
    assert repr(mnp.array([1.0, 2.0], np.float32)) == "Array([1., 2.], dtype=float32)"
    assert repr(mnp.sin(mnp.zeros(2))) == "Array([0., 0.], dtype=float64)"
    z = x
    z += 1  # rebinds z; x is unchanged
    np.testing.assert_array_equal(np.asarray(x), np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(np.asarray(z), np.arange(6.0).reshape(2, 3) + 1)


def test_astype_converts_like_convert_element_type_not_numpy():
    x = mnp.array([np.nan, 1e30, -2.5, 3.7])
    got = x.astype(np.int32)
    assert type(got) is EagerArray
    want = lax.convert_element_type(x, np.int32)  # XLA's rules: NaN -> 0, saturation
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    np.testing.assert_array_equal(np.asarray(got), [0, np.iinfo(np.int32).max, -2, 3])


def test_argsort_is_stable_like_jax():
    x = mnp.array([3, 1, 1, 2, 1, 3] * 20)
    got = x.argsort()
    assert type(got) is EagerArray
    np.testing.assert_array_equal(np.asarray(got), np.argsort(np.asarray(x), kind="stable"))
    # NumPy's function gives NumPy's answer (its default sort), as on a jax.Array
    got = np.argsort(x)
    assert type(got) is EagerArray
    np.testing.assert_array_equal(np.asarray(got), np.argsort(np.asarray(x)))


def test_scalar_boolean_indices_add_an_axis_like_numpy():
    x = mnp.arange(6.0).reshape(2, 3)
    for idx in (True, False, np.True_, np.False_, np.array(True), (Ellipsis, False)):
        got = x[idx]
        want = np.arange(6.0).reshape(2, 3)[idx]
        assert got.shape == want.shape, idx
        np.testing.assert_array_equal(np.asarray(got), want)
    # NumPy's testing helpers index 0-d results with NumPy bools
    np.testing.assert_allclose(mnp.sum(x) * 0.0, 0.0, atol=1e-300)


def test_dlpack_exports_read_only_data_and_copies_for_legacy_consumers():
    x = mnp.sin(np.linspace(0.0, 1.0, 4, dtype=np.float32))
    shared = np.from_dlpack(x)
    assert not shared.flags.writeable
    np.testing.assert_array_equal(shared, np.asarray(x))
    assert x.__dlpack_device__() == (1, 0)
    legacy = np.from_dlpack(_Legacy(x))  # DLPack 0.x: a copy, since it cannot say read-only
    np.testing.assert_array_equal(legacy, np.asarray(x))
    assert not np.shares_memory(legacy, np.asarray(x))


class _Legacy:
    """A producer wrapper that asks mj for a DLPack 0.x capsule, as older consumers do."""

    def __init__(self, x):
        self.x = x

    def __dlpack__(self, **kwargs):
        return self.x.__dlpack__()

    def __dlpack_device__(self):
        return self.x.__dlpack_device__()
