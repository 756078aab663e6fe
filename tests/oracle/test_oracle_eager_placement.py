"""JAX's placement attributes on eager (host) mj arrays: an array fresh from an eager
operation is uncommitted on the default device, as a fresh ``jax.Array`` is."""

import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

pytestmark = pytest.mark.oracle


def test_eager_array_placement_matches_jax():
    x, y = mnp.arange(6.0).reshape(2, 3), jnp.arange(6.0).reshape(2, 3)
    assert type(x.sharding).__name__ == type(y.sharding).__name__ == "SingleDeviceSharding"
    assert x.sharding == mj.device_put(np.ones(2)).sharding  # the default device's
    assert x.sharding == mj.jit(lambda a: a + 1)(x).sharding
    assert x.device == mj.devices()[0]
    assert str(x.device) == str(y.device)
    assert x.devices() == {x.device}
    assert len(x.devices()) == len(y.devices()) == 1
    for attr in ("committed", "is_fully_addressable", "is_fully_replicated"):
        assert getattr(x, attr) == getattr(y, attr), attr
    (shard,), (jshard,) = x.addressable_shards, y.addressable_shards
    assert shard.index == jshard.index
    assert shard.replica_id == jshard.replica_id
    assert shard.device == x.device
    np.testing.assert_array_equal(np.asarray(shard.data), np.asarray(jshard.data))
    weak = mnp.asarray(1.0) * 2  # a weakly typed eager array too
    assert weak.sharding == x.sharding
