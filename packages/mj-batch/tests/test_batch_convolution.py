"""vmap of conv_general_dilated equals a Python loop over the examples, for a batched lhs,
rhs or both, at every batch position, with feature and batch groups."""

import numpy as np
import pytest

from mj_autodiff import grad
from mj_batch import vmap
from mj_core import lax

# (lhs shape, rhs shape, strides, padding, lhs_dilation, rhs_dilation, dimension numbers,
#  feature_group_count, batch_group_count)
CONFIGS = [
    ((2, 3, 6, 5), (4, 3, 3, 2), (1, 1), "SAME", (1, 1), (1, 1), None, 1, 1),
    ((2, 4, 6, 5), (6, 2, 3, 2), (2, 1), ((1, 0), (0, 1)), (2, 1), (1, 2), None, 2, 1),
    ((4, 3, 6, 5), (6, 3, 2, 2), (1, 2), ((0, 1), (1, 1)), (1, 1), (2, 1), None, 1, 2),
    ((2, 6, 5, 4), (3, 2, 2, 4), (2, 2), "VALID", (1, 1), (1, 1), ("NHWC", "HWIO", "NCHW"), 2, 1),
    ((2, 9, 3), (4, 3, 3), (3,), ((2, 1),), (2,), (2,), ("NWC", "OWI", "WNC"), 1, 1),
]  # fmt: skip
AXES = [(0, None), (2, None), (None, 0), (None, 3), (0, 0), (1, 2), (3, 1)]
B = 3


def _take(x, axis, i):
    return x if axis is None else np.take(x, i, axis)


@pytest.mark.parametrize("in_axes", AXES, ids=str)
@pytest.mark.parametrize("config", CONFIGS, ids=[str(i) for i in range(len(CONFIGS))])
def test_vmap_matches_a_loop(config, in_axes):
    ls, rs, strides, padding, ld, rd, dn, fgc, bgc = config
    rng = np.random.default_rng(0)

    def conv(x, w):
        return lax.conv_general_dilated(x, w, strides, padding, ld, rd, dn, fgc, bgc)

    xa, wa = in_axes
    x = rng.normal(size=ls) if xa is None else np.stack([rng.normal(size=ls)] * B, xa)
    w = rng.normal(size=rs) if wa is None else np.stack([rng.normal(size=rs)] * B, wa)
    x = x if xa is None else x * rng.normal(size=x.shape)  # examples differ
    w = w if wa is None else w * rng.normal(size=w.shape)
    out = vmap(conv, in_axes=in_axes)(x, w)
    ref = np.stack([conv(_take(x, xa, i), _take(w, wa, i)) for i in range(B)])
    assert out.shape == ref.shape
    np.testing.assert_allclose(out, ref, rtol=1e-12, atol=1e-12)


def test_per_example_gradients():
    rng = np.random.default_rng(1)
    xs, w = rng.normal(size=(4, 1, 2, 6, 6)), rng.normal(size=(3, 2, 3, 3))

    def loss(w, x):
        return lax.reduce_sum(lax.tanh(lax.conv(x, w, (2, 2), "SAME")), (0, 1, 2, 3))

    out = vmap(grad(loss), in_axes=(None, 0))(w, xs)
    ref = np.stack([grad(loss)(w, x) for x in xs])
    np.testing.assert_allclose(out, ref, rtol=1e-12)


def test_empty_batch():
    conv = vmap(lambda x, w: lax.conv(x, w, (1,), "VALID"))
    out = conv(np.ones((0, 1, 2, 5)), np.ones((0, 3, 2, 2)))
    assert out.shape == (0, 1, 3, 4)
