"""``jnp.dot`` / ``matmul`` / ``tensordot`` / ``inner`` / ``vdot`` of operands of two dtypes
against JAX: one ``dot_general`` of the unconverted operands with ``preferred_element_type``
set to their result dtype (then only the weak type changes), so the equations, the result
dtype and weak type, the values and the refusals (``dot(int8, 2)``) are JAX's. ``matmul``
follows JAX's plan for size-1 batch dims (squeezed, no broadcast copies)."""

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import mj
import mj.numpy as mnp

PAIRS = [
    ("int8", "float32"),
    ("float16", "bfloat16"),
    ("bfloat16", "int32"),
    ("uint8", "int8"),
    ("bool", "float16"),
    ("complex64", "float32"),
    ("int32", "float64"),
    ("float32", "float32"),
]

FUNCS = ["dot", "matmul", "tensordot", "inner", "vdot"]


def _operand(rs, shape, name):
    dtype = np.dtype(getattr(ml_dtypes, name, None) or name)
    if dtype.kind == "b":
        return rs.rand(*shape) > 0.5
    if dtype.kind in "iu":
        return rs.randint(0, 100, shape).astype(dtype)
    vals = rs.randint(-8, 9, shape) * 0.25
    if dtype.kind == "c":
        vals = vals + 0.5j * rs.randint(-4, 5, shape)
    return vals.astype(dtype)


def _call(lib, name, a, b):
    f = getattr(lib, name)
    return f(a, b, axes=1) if name == "tensordot" else f(a, b)


def _prims(jaxpr):
    return [str(e.primitive) for e in jaxpr.eqns]


@pytest.mark.parametrize("name", FUNCS)
@pytest.mark.parametrize(("lt", "rt"), PAIRS, ids=str)
def test_mixed_contraction_as_jax(name, lt, rt, x64):
    if not x64 and "64" in lt + rt and "complex64" not in (lt, rt):
        pytest.skip("64-bit operand types need x64")
    rs = np.random.RandomState(1)
    a = _operand(rs, (3, 5) if name != "vdot" else (15,), lt)
    b = _operand(rs, (5,) if name != "vdot" else (15,), rt)
    if name == "inner":
        b = _operand(rs, (4, 5), rt)
    with jax.numpy_dtype_promotion("standard"):
        want = _call(jnp, name, a, b)
        want_prims = _prims(jax.make_jaxpr(lambda a, b: _call(jnp, name, a, b))(a, b).jaxpr)
    got = _call(mnp, name, a, b)
    got_prims = _prims(mj.make_jaxpr(lambda a, b: _call(mnp, name, a, b))(a, b))
    assert got.dtype == want.dtype
    assert got_prims == want_prims  # no convert_element_type of the operands
    np.testing.assert_allclose(
        np.asarray(got).astype(np.complex128), np.asarray(want).astype(np.complex128), rtol=1e-6
    )


@pytest.mark.parametrize("other", [2.0, np.float16(2), 1.5j], ids=["pyfloat", "f16", "pycomplex"])
def test_scalar_dot_dtype_and_weak_type_as_jax(other, x64):
    x = np.arange(5, dtype=np.int8)
    want = jax.make_jaxpr(jnp.dot)(x, other)
    got = mj.make_jaxpr(mnp.dot)(x, other)
    (w,), (g,) = want.out_avals, got.out_avals
    assert (g.dtype, g.weak_type) == (w.dtype, w.weak_type)
    assert _prims(got) == _prims(want.jaxpr)
    np.testing.assert_array_equal(np.asarray(mnp.dot(x, other)), np.asarray(jnp.dot(x, other)))


def test_dot_refusals_and_preferred_type_as_jax(x64):
    x = np.arange(5, dtype=np.int8)
    # JAX's dot_general refuses an int8 result for an int8 array and a Python int
    for f in (jnp.dot, mnp.dot):
        with pytest.raises(TypeError, match=r"^`preferred_element_type` must not be narrower"):
            f(x, 2)
    y = np.arange(5, dtype=np.float32)
    for kw in ({"preferred_element_type": np.float32}, {"preferred_element_type": np.int32}):
        want = jnp.dot(x, x, **kw)
        got = mnp.dot(x, x, **kw)
        assert (got.dtype, got.weak_type) == (want.dtype, want.weak_type)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    want, got = (
        jnp.inner(x[0], y, preferred_element_type=np.float32),
        mnp.inner(x[0], y, preferred_element_type=np.float32),
    )
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


@pytest.mark.parametrize(
    ("sa", "sb"),
    [
        ((1, 5, 4), (1, 4, 3)),
        ((2, 1, 5, 4), (1, 3, 4, 2)),
        ((1, 2, 5, 4), (4,)),
        ((4,), (3, 1, 4, 2)),
        ((2, 3, 4), (3, 4, 5)),
    ],
)
def test_matmul_batch_plan_as_jax(sa, sb, x64):
    rs = np.random.RandomState(2)
    a, b = _operand(rs, sa, "float32"), _operand(rs, sb, "int16")
    try:
        want = jnp.matmul(a, b)
    except ValueError as err:  # JAX's refusal and wording
        with pytest.raises(ValueError, match=f"^{str(err).replace('[', '.').replace(']', '.')}"):
            mnp.matmul(a, b)
        return
    got = mnp.matmul(a, b)
    assert got.shape == want.shape
    assert got.dtype == want.dtype
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
    # JAX's testMatmulBothSize1BatchDimsSqueezedJaxpr: the dot_general's operand shapes
    shapes = jax.ShapeDtypeStruct(sa, np.float32), jax.ShapeDtypeStruct(sb, np.int16)
    [wd] = [
        e for e in jax.make_jaxpr(jnp.matmul)(*shapes).eqns if str(e.primitive) == "dot_general"
    ]
    [gd] = [e for e in mj.make_jaxpr(mnp.matmul)(*shapes).eqns if str(e.primitive) == "dot_general"]
    assert [v.aval.shape for v in gd.invars] == [v.aval.shape for v in wd.invars]
    assert gd.params["dimension_numbers"] == wd.params["dimension_numbers"]
