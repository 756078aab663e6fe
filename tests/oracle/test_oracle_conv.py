"""Convolutions against real JAX: ``lax.conv_general_dilated`` and its wrappers give the same
values, shapes and dtypes, eagerly and under jit, and the same gradients w.r.t. both operands,
over strides, padding modes, dilations, groups, layouts and ranks."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax as jlax

import mj
import mj.numpy as mnp
from mj import lax

pytestmark = pytest.mark.oracle

# (lhs shape, rhs shape, strides, padding, lhs_dilation, rhs_dilation, dimension numbers,
#  feature_group_count, batch_group_count)
CONFIGS = [
    ((2, 3, 6, 5), (4, 3, 3, 2), (1, 1), "SAME", None, None, None, 1, 1),
    ((2, 3, 7, 6), (4, 3, 3, 2), (2, 3), "VALID", None, None, None, 1, 1),
    ((2, 3, 7, 6), (4, 3, 4, 2), (2, 1), "SAME_LOWER", None, (1, 2), None, 1, 1),
    ((2, 3, 7, 6), (4, 3, 3, 2), (2, 3), ((1, 2), (-1, 1)), (1, 1), (1, 1), None, 1, 1),
    ((1, 2, 5, 5), (3, 2, 2, 3), (1, 1), ((2, 1), (1, 2)), (2, 3), (2, 1), None, 1, 1),
    ((2, 4, 6, 5), (6, 2, 3, 2), (2, 1), ((1, 0), (0, 1)), (2, 1), (1, 2), None, 2, 1),
    ((4, 3, 6, 5), (6, 3, 2, 2), (1, 2), ((0, 1), (1, 1)), (1, 1), (2, 1), None, 1, 2),
    ((2, 6, 5, 4), (3, 2, 2, 4), (2, 2), "VALID", None, None, ("NHWC", "HWIO", "NCHW"), 2, 1),
    ((2, 5, 4, 3), (3, 3, 3, 2), (1, 1), "SAME", None, (2, 2), ("NHWC", "HWIO", "NHWC"), 1, 1),
    ((2, 9, 3), (4, 3, 3), (3,), ((2, 1),), (2,), (2,), ("NWC", "OWI", "WNC"), 1, 1),
    ((1, 2, 4, 4, 3), (2, 2, 2, 3, 2), (1, 2, 1), "SAME", None, (1, 1, 2), None, 1, 1),
]  # fmt: skip
IDS = [str(i) for i in range(len(CONFIGS))]


def _pair(config, dtype=np.float64, seed=0):
    ls, rs, *_ = config
    rng = np.random.default_rng(seed)
    return (rng.normal(size=ls) * 2).astype(dtype), (rng.normal(size=rs) * 2).astype(dtype)


def _conv(module, config):
    _, _, strides, padding, ld, rd, dn, fgc, bgc = config

    def conv(x, w):
        return module.conv_general_dilated(x, w, strides, padding, ld, rd, dn, fgc, bgc)

    return conv


def _same(actual, expected, tol):
    expected = np.asarray(expected)
    actual = np.asarray(actual)
    assert actual.shape == expected.shape
    assert actual.dtype == expected.dtype
    np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_values_shapes_dtypes(config, dtype):
    x, w = _pair(config, dtype)
    expected = _conv(jlax, config)(x, w)
    tol = 1e-4 if dtype == np.float32 else 1e-10
    _same(_conv(lax, config)(x, w), expected, tol)
    _same(mj.jit(_conv(lax, config))(x, w), expected, tol)


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_gradients(config):
    x, w = _pair(config)

    def loss(module, sin):
        conv = _conv(module, config)
        return lambda x, w: (sin(conv(x, w)) ** 2).sum()

    expected = jax.grad(loss(jlax, jnp.sin), argnums=(0, 1))(x, w)
    actual = mj.grad(loss(lax, mnp.sin), argnums=(0, 1))(x, w)
    for a, e in zip(actual, expected, strict=True):
        _same(a, e, 1e-10)


@pytest.mark.parametrize("config", CONFIGS[:8], ids=IDS[:8])
def test_vmap_over_both_operands(config):
    x, w = _pair(config)
    xs, ws = np.stack([x, 2 * x, -x]), np.stack([w, w[::-1], 0.5 * w])
    expected = jax.vmap(_conv(jlax, config))(xs, ws)
    _same(mj.vmap(_conv(lax, config))(xs, ws), expected, 1e-10)


def test_wrappers_and_dimension_numbers():
    rng = np.random.default_rng(1)
    x, w = rng.normal(size=(2, 3, 7, 6)), rng.normal(size=(4, 3, 3, 3))
    _same(lax.conv(x, w, (2, 1), "SAME"), jlax.conv(x, w, (2, 1), "SAME"), 1e-12)
    args = (x, w, (1, 2), ((2, 0), (1, 1)), (2, 1), (1, 2))
    _same(lax.conv_with_general_padding(*args), jlax.conv_with_general_padding(*args), 1e-12)
    spec = ("NCWH", "OIHW", "NHWC")
    assert lax.conv_dimension_numbers(x.shape, w.shape, spec) == jlax.conv_dimension_numbers(
        x.shape, w.shape, spec
    )
    assert lax.padtype_to_pads((7, 6), (3, 4), (2, 1), "SAME_LOWER") == jlax.padtype_to_pads(
        (7, 6), (3, 4), (2, 1), "SAME_LOWER"
    )


@pytest.mark.parametrize("padding", ["SAME", "VALID", ((1, 2), (0, 1))])
@pytest.mark.parametrize("transpose_kernel", [False, True])
@pytest.mark.parametrize("consistent", [False, True])
def test_conv_transpose(padding, transpose_kernel, consistent):
    rng = np.random.default_rng(2)
    x, w = rng.normal(size=(2, 5, 6, 3)), rng.normal(size=(3, 2, 3, 3))
    kwargs = {"transpose_kernel": transpose_kernel, "use_consistent_padding": consistent}
    expected = jlax.conv_transpose(x, w, (2, 3), padding, **kwargs)
    _same(lax.conv_transpose(x, w, (2, 3), padding, **kwargs), expected, 1e-12)


@pytest.mark.parametrize(("n", "m"), [(6, 3), (3, 6), (4, 4), (5, 1)])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_numpy_convolve_and_correlate(n, m, mode):
    rng = np.random.default_rng(3)
    a, v = rng.normal(size=n), rng.normal(size=m)
    _same(mnp.convolve(a, v, mode), jnp.convolve(a, v, mode), 1e-12)
    _same(mnp.correlate(a, v, mode), jnp.correlate(a, v, mode), 1e-12)
    ints = np.arange(n), np.arange(m)
    _same(mnp.convolve(*ints, mode), jnp.convolve(*ints, mode), 1e-12)
