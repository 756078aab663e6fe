"""``mode=`` of ``x.at[...]`` updates and gets and of the segment reductions, against JAX: an
unknown mode is JAX's ``ValueError`` (mj once read any unknown mode as fill-or-drop and
returned the array unchanged: ``x.at[5].set(9.0, mode="wrap")``); the known ones keep their
meaning. ``take``'s own ``"wrap"`` is not a gather mode and still wraps."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

pytestmark = pytest.mark.oracle

X = np.arange(4.0, dtype=np.float32)


def _updates(np_):
    return {
        "set": lambda x, m: np_.asarray(x).at[5].set(9.0, mode=m),
        "add": lambda x, m: np_.asarray(x).at[np.array([1, 7])].add(2.0, mode=m),
        "get": lambda x, m: np_.asarray(x).at[6].get(mode=m),
    }


MJ, JAX = _updates(mnp), _updates(jnp)


@pytest.mark.parametrize("name", sorted(MJ))
@pytest.mark.parametrize("mode", ["wrap", "bogus"])
def test_an_unknown_mode_is_jaxs_error(name, mode, x64):
    with pytest.raises(ValueError, match=f'Unknown gather mode "{mode}"'):
        JAX[name](X, mode)
    with pytest.raises(ValueError, match=f'Unknown gather mode "{mode}"'):
        MJ[name](X, mode)
    with pytest.raises(ValueError, match=f'Unknown gather mode "{mode}"'):
        mj.jit(lambda x: MJ[name](x, mode))(X)
    with pytest.raises(ValueError, match=f'Unknown gather mode "{mode}"'):
        jax.ops.segment_sum(X, np.array([0, 1, 1, 0]), 2, mode=mode)
    with pytest.raises(ValueError, match=f'Unknown gather mode "{mode}"'):
        mj.ops.segment_sum(X, np.array([0, 1, 1, 0]), 2, mode=mode)


@pytest.mark.parametrize("name", sorted(MJ))
@pytest.mark.parametrize("mode", [None, "fill", "drop", "clip"])
def test_the_known_modes_are_jaxs(name, mode, x64):
    want = np.asarray(JAX[name](X, mode))
    for got in (MJ[name](X, mode), mj.jit(lambda x: MJ[name](x, mode))(X)):
        np.testing.assert_array_equal(np.asarray(got), want)


def test_takes_wrap_still_wraps(x64):
    idx = np.array([5, -6])
    np.testing.assert_array_equal(
        np.asarray(mnp.take(X, idx, mode="wrap")), np.asarray(jnp.take(X, idx, mode="wrap"))
    )
