"""Eager values made from Python scalars only are weakly typed, as JAX's (``jnp.sqrt(2.0)``,
``jnp.asarray(3.0)``, ``jnp.full(3, 2.0)``): they yield to the dtype of a strong operand, so
``bfloat16_array * mnp.sqrt(2.0)`` stays bfloat16 eagerly as under tracing."""

import ml_dtypes
import numpy as np
import pytest

import mj_core.numpy as mnp
from mj_core import config
from mj_core._eager_array import EagerArray, WeakEagerArray

BF16 = np.dtype(ml_dtypes.bfloat16)


@pytest.fixture(autouse=True)
def x32():
    with config.override("enable_x64", False):
        yield


@pytest.mark.parametrize(
    "make",
    [
        lambda: mnp.sqrt(2.0),
        lambda: mnp.exp(1.0),
        lambda: mnp.asarray(3.0),
        lambda: mnp.array(3.0),
        lambda: mnp.full(3, 2.0),
        lambda: mnp.full((), 2.0),
        lambda: mnp.zeros_like(2.0),
        lambda: mnp.maximum(1.0, 2.0),
        lambda: mnp.where(True, 1.0, 2.0),
        lambda: mnp.where(mnp.arange(3) > 0, 1.0, 2.0),
        lambda: mnp.asarray(2.0) * mnp.asarray(3.0),
        lambda: mnp.reshape(mnp.asarray(2.0), (1,)),
        lambda: mnp.full(3, 2.0)[0],
        lambda: -mnp.asarray(2.0),
    ],
)
def test_python_scalars_give_weak_float32_values(make):
    out = make()
    assert type(out) is WeakEagerArray
    assert out.weak_type
    assert out.dtype == np.float32
    assert (np.ones(out.shape, BF16) * out).dtype == BF16
    assert (out * np.ones(out.shape, np.float16)).dtype == np.float16
    assert "weak_type=True" in repr(out)


@pytest.mark.parametrize(
    "make",
    [
        lambda: mnp.array([1.0, 2.0]),
        lambda: mnp.full(3, 2.0, np.float32),
        lambda: mnp.asarray(np.float32(2.0)),
        lambda: mnp.sum(mnp.asarray(2.0)),
        lambda: mnp.max(2.0),
        lambda: mnp.mean(2.0),
        lambda: mnp.asarray(2.0).astype(np.float32),
        lambda: mnp.zeros(3),
        lambda: mnp.asarray(2.0) + np.ones(2, np.float32),
    ],
)
def test_strong_results(make):
    out = make()
    assert type(out) is EagerArray
    assert not out.weak_type
    assert (np.ones(out.shape, BF16) * out).dtype == np.float32


def test_weak_integers_yield_to_narrow_integer_arrays():
    two = mnp.asarray(2)
    assert two.weak_type
    assert two.dtype == np.int32
    assert (two * np.ones(2, np.int8)).dtype == np.int8
    assert (mnp.abs(-3) * np.ones(2, np.uint8)).dtype == np.uint8


def test_weak_values_compute_the_same_numbers():
    np.testing.assert_allclose(mnp.sqrt(2.0), np.sqrt(np.float32(2.0)))
    np.testing.assert_allclose(mnp.full(3, 2.0) * np.arange(3, dtype=np.float32), [0, 2, 4])
    np.testing.assert_allclose(mnp.sin(mnp.full(3, 2.0)), np.sin(np.full(3, 2.0, np.float32)))
