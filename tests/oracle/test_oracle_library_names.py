"""The JAX names added for optax / equinox / flax (tests/libs), compared with JAX:
``nn.initializers.delta_orthogonal``, the ``jnp.float8_*`` types, ``dtypes.extended`` /
``prng_key``, ``extend.core.mapped_aval`` / ``unmapped_aval``."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj import random as mr
from mj.extend.core import mapped_aval, unmapped_aval
from mj.nn import initializers as minit
from mj_core.extend import ShapedArray

pytestmark = pytest.mark.oracle


@pytest.mark.parametrize("shape", [(3, 4, 6), (3, 3, 2, 5), (1, 3, 2, 4, 4)])
@pytest.mark.parametrize("scale", [1.0, 0.5])
def test_delta_orthogonal_matches_jax(x64, shape, scale):
    want = np.asarray(jax.nn.initializers.delta_orthogonal(scale)(jax.random.PRNGKey(5), shape))
    got = np.asarray(mj.jit(lambda k: minit.delta_orthogonal(scale)(k, shape))(mr.PRNGKey(5)))
    assert got.dtype == want.dtype
    # through a QR (LAPACK in both): last-bit differences
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    centre = tuple((k - 1) // 2 for k in shape[:-2])
    matrix = got[centre]
    # the centre holds an (in x out) matrix with orthonormal rows, scaled
    np.testing.assert_allclose(matrix @ matrix.T, scale**2 * np.eye(shape[-2]), atol=1e-5)
    assert np.count_nonzero(got) == np.count_nonzero(matrix)


def test_delta_orthogonal_errors_as_jax():
    for shape in [(4, 4), (3, 3, 5, 4)]:
        with pytest.raises(ValueError):  # noqa: PT011 (JAX's exact wording differs)
            jax.nn.initializers.delta_orthogonal()(jax.random.PRNGKey(0), shape)
        with pytest.raises(ValueError, match=r"delta_orthogonal|Delta orthogonal"):
            minit.delta_orthogonal()(mr.PRNGKey(0), shape)


@pytest.mark.parametrize(
    "name",
    ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e4m3b11fnuz"],
)
def test_float8_types_as_jax(name):
    m_t, j_t = getattr(mnp, name), getattr(jnp, name)
    assert np.dtype(m_t) == np.dtype(j_t)
    x = np.array([0.1, 1.7, -3.3, 200.0], np.float32)
    want = np.asarray(jnp.asarray(x).astype(j_t).astype(jnp.float32))
    got = np.asarray(mj.jit(lambda a: a.astype(m_t).astype(mnp.float32))(mnp.asarray(x)))
    np.testing.assert_array_equal(got, want)
    assert np.asarray(m_t(1.7)).dtype == np.asarray(j_t(1.7)).dtype


def test_extended_dtype_classes_as_jax():
    for dt in [np.float32, np.uint32, jnp.bfloat16]:
        assert mj.dtypes.issubdtype(dt, mj.dtypes.extended) == jax.dtypes.issubdtype(
            dt, jax.dtypes.extended
        )
        assert mj.dtypes.issubdtype(dt, mj.dtypes.prng_key) == jax.dtypes.issubdtype(
            dt, jax.dtypes.prng_key
        )
    assert issubclass(mj.dtypes.prng_key, mj.dtypes.extended)
    assert jax.dtypes.issubdtype(jax.random.key(0).dtype, jax.dtypes.prng_key)
    # mj's keys are raw uint32 (as jax.random.PRNGKey's)
    assert not mj.dtypes.issubdtype(mr.PRNGKey(0).dtype, mj.dtypes.prng_key)
    assert not jax.dtypes.issubdtype(jax.random.PRNGKey(0).dtype, jax.dtypes.prng_key)


@pytest.mark.parametrize("axis", [0, 1, 2, None])  # JAX takes no negative axis here
def test_mapped_unmapped_aval_as_jax(axis):
    from jax.extend import core as jcore

    shape = (4, 2, 3)
    size = 4 if axis in (0, None) else shape[axis]
    j_aval = jax.core.ShapedArray(shape, jnp.float32)
    m_aval = ShapedArray(shape, np.float32)
    assert mapped_aval(size, axis, m_aval).shape == jcore.mapped_aval(size, axis, j_aval).shape
    assert unmapped_aval(7, axis, m_aval).shape == jcore.unmapped_aval(7, axis, j_aval).shape
