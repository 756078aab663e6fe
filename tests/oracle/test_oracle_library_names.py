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


# --- names optax's tests read (issue 36) ---------------------------------------------------


TOP_K_CASES = {
    "floats_nan_signed_zeros": (np.array([3.0, np.nan, 2.0, 3.0, -0.0, 0.0, -np.inf]), 5, -1),
    "ints_ties_2d": (np.array([[3, 1, 2, 3], [1, 5, 5, -7]], np.int32), 3, -1),
    "axis0": (np.array([[3.0, 1.0], [2.0, 4.0], [-1.0, 9.0]]), 2, 0),
    "k0": (np.array([3.0, 1.0]), 0, -1),
    "uint": (np.array([7, 0, 255, 7], np.uint8), 2, -1),
    "bool": (np.array([False, True, True]), 2, -1),
}


@pytest.mark.parametrize("case", list(TOP_K_CASES))
def test_top_k_matches_jax(x64, case):
    x, k, axis = TOP_K_CASES[case]
    want = jax.lax.top_k(jnp.asarray(x), k, axis=axis)
    for got in (
        mj.lax.top_k(mnp.asarray(x), k, axis=axis),
        mj.jit(lambda a: mj.lax.top_k(a, k, axis=axis))(mnp.asarray(x)),
    ):
        for g, w in zip(got, want, strict=True):
            assert np.asarray(g).dtype == np.asarray(w).dtype
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


def test_top_k_grad_and_vmap_match_jax():
    x = np.array([[3.0, 1.0, 2.0, 3.0], [0.0, 5.0, -1.0, 2.0]], np.float32)
    w = np.arange(8.0, dtype=np.float32).reshape(2, 4)[:, :2]

    def loss(lax_mod, a):
        return (lax_mod.top_k(a, 2)[0] * w).sum()

    np.testing.assert_array_equal(
        np.asarray(mj.grad(lambda a: loss(mj.lax, a))(x)),
        np.asarray(jax.grad(lambda a: loss(jax.lax, a))(x)),
    )
    got = mj.vmap(lambda a: mj.lax.top_k(a, 3))(x)
    want = jax.vmap(lambda a: jax.lax.top_k(a, 3))(x)
    for g, wv in zip(got, want, strict=True):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(wv))


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_softmax_where_matches_jax(x64, fn):
    x = np.array([[1.0, 2.0, 3.0, -1.0], [0.5, -np.inf, 2.0, 7.0]], np.float32)
    where = np.array([[True, False, True, True], [False, True, True, False]])
    m_f, j_f = getattr(mj.nn, fn), getattr(jax.nn, fn)
    np.testing.assert_allclose(
        np.asarray(m_f(x, where=where)), np.asarray(j_f(x, where=where)), rtol=1e-6
    )
    cot = np.arange(8.0, dtype=np.float32).reshape(2, 4)

    def m_loss(a):
        return mnp.sum(mnp.where(where, m_f(a, where=where), 0) * cot)

    def j_loss(a):
        return jnp.sum(jnp.where(where, j_f(a, where=where), 0) * cot)

    xf = np.where(np.isinf(x), 0.0, x).astype(np.float32)
    np.testing.assert_allclose(
        np.asarray(mj.grad(m_loss)(xf)), np.asarray(jax.grad(j_loss)(xf)), rtol=1e-5, atol=1e-6
    )


@pytest.mark.parametrize("unroll", [None, 1, 2, True, False])
def test_fori_loop_unroll_as_jax(unroll):
    def body(i, c):
        return c * 2 + i

    want = jax.lax.fori_loop(0, 5, body, 1, unroll=unroll)
    assert int(mj.lax.fori_loop(0, 5, body, 1, unroll=unroll)) == int(want)
    traced_ok = unroll in (None, 1, False)
    try:
        jax.jit(lambda n: jax.lax.fori_loop(0, n, body, 1, unroll=unroll))(5)
        jax_raises = False
    except ValueError:
        jax_raises = True
    assert jax_raises is not traced_ok
    if traced_ok:
        assert int(mj.jit(lambda n: mj.lax.fori_loop(0, n, body, 1, unroll=unroll))(5)) == int(want)
    else:
        with pytest.raises(ValueError, match="statically known"):
            mj.jit(lambda n: mj.lax.fori_loop(0, n, body, 1, unroll=unroll))(5)


@pytest.mark.parametrize("fn", ["zeros_like", "ones_like", "empty_like"])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_])
def test_like_functions_take_shape_dtype_structs(x64, fn, dtype):
    want = getattr(jnp, fn)(jax.ShapeDtypeStruct((2, 3), dtype))
    got = getattr(mnp, fn)(mj.ShapeDtypeStruct((2, 3), dtype))
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    full = mnp.full_like(mj.ShapeDtypeStruct((2,), dtype), 1, dtype=np.float32)
    np.testing.assert_array_equal(
        np.asarray(full),
        np.asarray(jnp.full_like(jax.ShapeDtypeStruct((2,), dtype), 1, dtype=np.float32)),
    )


class _HasComplexDtype:
    dtype = np.dtype(np.complex64)


ISCOMPLEXOBJ_CASES = {
    "none": lambda m: None,
    "str": lambda m: "abc",
    "py_complex": lambda m: 1j,
    "py_float": lambda m: 1.5,
    "np_scalar": lambda m: np.float32(1),
    "np_complex_scalar": lambda m: np.complex64(1),
    "list_complex": lambda m: [1.0, 1j],
    "list_real": lambda m: [[1.0], [2.0]],
    "array": lambda m: m.numpy.ones(2),
    "complex_array": lambda m: m.numpy.ones(2, np.complex64),
    "shape_dtype_struct": lambda m: m.ShapeDtypeStruct((2,), np.complex64),
    "duck_dtype": lambda m: _HasComplexDtype(),
}


@pytest.mark.parametrize("case", list(ISCOMPLEXOBJ_CASES))
def test_iscomplexobj_as_jax(case):
    make = ISCOMPLEXOBJ_CASES[case]
    assert mnp.iscomplexobj(make(mj)) is jnp.iscomplexobj(make(jax))


@pytest.mark.parametrize(
    "structs",
    [
        [((), np.int32, True)],
        [((), np.int32, True), ((2,), np.float32, False)],
        [((3,), np.int16, False), 1],
        [((3,), np.int16, False), 1.0],
        [((), np.float32, True), ((), jnp.bfloat16, False)],
    ],
)
def test_result_type_of_shape_dtype_structs_as_jax(x64, structs):
    def build(m):
        return [
            m.ShapeDtypeStruct(s[0], s[1], weak_type=s[2]) if isinstance(s, tuple) else s
            for s in structs
        ]

    assert mnp.result_type(*build(mj)) == jnp.result_type(*build(jax))


def test_shape_dtype_struct_sharding_as_jax():
    m_s, j_s = mj.ShapeDtypeStruct((2,), np.float32), jax.ShapeDtypeStruct((2,), np.float32)
    assert m_s.sharding is None
    assert j_s.sharding is None
    assert mj.eval_shape(lambda a: a, np.ones(2)).sharding is None
    assert jax.eval_shape(lambda a: a, np.ones(2)).sharding is None
    marked = mj.ShapeDtypeStruct((2,), np.float32, sharding="s")
    assert marked.sharding == "s"
    assert marked != m_s


def test_treedef_tuple_as_jax():
    trees = [{"a": 1, "b": (2, None)}, [3, 4], 5]
    m_def = mj.tree_util.treedef_tuple([mj.tree_util.tree_structure(t) for t in trees])
    j_def = jax.tree_util.treedef_tuple([jax.tree_util.tree_structure(t) for t in trees])
    assert m_def == mj.tree_util.tree_structure(tuple(trees))
    assert m_def.num_leaves == j_def.num_leaves
    assert str(mj.tree_util.tree_unflatten(m_def, range(5))) == str(
        jax.tree_util.tree_unflatten(j_def, range(5))
    )


def test_einsum_dot_general_keyword_as_jax():
    a = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    b = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    calls = []

    def m_dot(lhs, rhs, dims, precision=None, preferred_element_type=None):
        calls.append("mj")
        return mj.lax.dot_general(lhs, rhs, dims, precision=precision) * 2

    def j_dot(lhs, rhs, dims, precision=None, preferred_element_type=None):
        calls.append("jax")
        return jax.lax.dot_general(lhs, rhs, dims, precision=precision) * 2

    got = mnp.einsum("ij,jk->ik", a, b, _dot_general=m_dot)
    want = jnp.einsum("ij,jk->ik", a, b, _dot_general=j_dot)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want))
    assert calls == ["mj", "jax"]


def test_shaped_array_takes_sharding_keyword():
    aval = ShapedArray((2,), np.float32, sharding=None)
    assert aval == ShapedArray((2,), np.float32)
    # JAX: an unsharded aval's, whatever the keyword (test_oracle_aval_sharding.py)
    want = jax.core.ShapedArray((2,), np.float32, sharding=None).sharding
    assert repr(aval.sharding) == repr(want)
