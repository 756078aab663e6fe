"""jit(donate_argnums=/donate_argnames=): donated device buffers are reused by outputs of
their type and deleted afterwards, as JAX does."""

import warnings

import numpy as np
import pytest

from mj_xla import Array, device_put, jit


def ones(*shape):
    return device_put(np.ones(shape, np.float32))


def test_a_donated_argument_is_deleted_and_its_output_is_right():
    f = jit(lambda x, y: x * 2.0 + y, donate_argnums=0)
    x, y = ones(3), device_put(np.arange(3, dtype=np.float32))
    out = f(x, y)
    np.testing.assert_array_equal(out, [2.0, 3.0, 4.0])
    assert x.is_deleted()
    assert not y.is_deleted()
    assert (
        "tf.aliasing_output = 0" in jit(lambda x, y: x + y, donate_argnums=0).lower(y, y).as_text()
    )
    with pytest.raises(RuntimeError, match=r"Array has been deleted with shape=float32\[3\]"):
        np.asarray(x)
    with pytest.raises(RuntimeError, match="Array has been deleted"):
        x + 1.0
    with pytest.raises(RuntimeError, match="Array has been deleted"):
        repr(x)
    assert x.shape == (3,)  # metadata outlives the buffer, as in JAX
    # the output is an ordinary array: it can itself be donated to the next step
    again = f(out, y)
    np.testing.assert_array_equal(again, [4.0, 7.0, 10.0])
    assert out.is_deleted()


def test_donate_argnames_donates_however_the_argument_is_passed():
    f = jit(lambda x, y: x * y, donate_argnames="y")
    a, b = ones(2), ones(2)
    f(a, y=b)
    assert b.is_deleted()
    assert not a.is_deleted()
    c = ones(2)
    f(a, c)  # y passed by position
    assert c.is_deleted()
    assert not a.is_deleted()
    g = jit(lambda x, y: x - y, donate_argnums=1)
    d = ones(2)
    np.testing.assert_array_equal(g(a, y=d), [0.0, 0.0])  # argnum 1 passed by name
    assert d.is_deleted()


def test_every_leaf_of_a_donated_pytree_pairs_with_an_output_of_its_type():
    step = jit(lambda p: {"w": p["w"] - 0.5, "b": p["b"] * 2.0}, donate_argnums=0)
    params = {"w": ones(2, 2), "b": ones(3)}
    new = step(params)
    assert params["w"].is_deleted()
    assert params["b"].is_deleted()
    np.testing.assert_array_equal(new["w"], np.full((2, 2), 0.5))
    np.testing.assert_array_equal(new["b"], np.full(3, 2.0))


def test_a_donation_no_output_can_use_warns_as_jax_and_keeps_the_array():
    f = jit(lambda x: x.sum(), donate_argnums=0)
    x = ones(3)
    with pytest.warns(UserWarning, match=r"Some donated buffers were not usable: float32\[3\]"):
        assert float(f(x)) == 3.0
    assert not x.is_deleted()
    np.testing.assert_array_equal(x, np.ones(3))


def test_host_data_passed_for_a_donated_argument_is_untouched():
    f = jit(lambda x: x + 1.0, donate_argnums=0)
    host = np.ones(3, np.float32)
    np.testing.assert_array_equal(f(host), [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(host, np.ones(3))


def test_donation_and_no_donation_of_one_function_do_not_share_executables():
    def add(x, y):
        return x + y

    plain, donating = jit(add), jit(add, donate_argnums=0)
    x, y = ones(2), ones(2)
    plain(x, y)
    assert not x.is_deleted()
    donating(x, y)
    assert x.is_deleted()
    z = ones(2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plain(z, y)
    assert not z.is_deleted()


def test_delete_frees_an_array_and_bad_donate_argnums_are_clear_errors():
    x = ones(2)
    assert isinstance(x, Array)
    assert not x.is_deleted()
    x.delete()
    assert x.is_deleted()
    with pytest.raises(RuntimeError, match="Array has been deleted"):
        jit(lambda v: v * 2.0)(x)
    with pytest.raises(TypeError, match="donate_argnums must be an int or a sequence of ints"):
        jit(lambda v: v, donate_argnums="v")
