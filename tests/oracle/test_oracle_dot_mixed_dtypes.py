"""``lax.dot_general`` of operands of two dtypes, or with ``preferred_element_type``, against
JAX: the result dtype is XLA's higher operand type (or the preferred one), mixed operands are
converted to the result type first (both float8: computed in float32), and a preferred type is
computed in the wider of it and the operands' type, so the values (eager and jit), the weak
type, the refusals and the gradients equal JAX's."""

import jax
import ml_dtypes
import numpy as np
import pytest

import mj

DN = (((1,), (0,)), ((), ()))

CASES = [
    ("float32", "int32", None),
    ("int16", "uint32", None),
    ("uint8", "int8", None),
    ("bfloat16", "float32", None),
    ("float16", "bfloat16", None),
    ("bool", "int32", None),
    ("complex64", "float32", None),
    ("complex64", "float64", None),
    ("int64", "float16", None),
    ("float8_e4m3fn", "bfloat16", None),
    ("float8_e4m3fn", "float8_e5m2", None),
    ("float8_e4m3fn", "float8_e5m2", "float32"),
    ("int8", "int8", "int32"),
    ("int8", "int8", "float32"),
    ("float16", "float16", "float32"),
    ("float32", "float32", "float16"),
    ("float32", "float32", "int32"),
    ("float32", "int8", "int32"),
    ("float32", "int8", "float16"),
    ("complex64", "complex64", "float32"),
    ("float32", "complex64", "float32"),
    ("bool", "bool", "int32"),
]


def _operand(rs, shape, name):
    dtype = np.dtype(getattr(ml_dtypes, name, None) or name)
    if dtype.kind == "b":
        return rs.rand(*shape) > 0.5
    if dtype.kind in "iu":  # wide enough to overflow int8 / uint8 sums
        return rs.randint(0, 120, shape).astype(dtype)
    # halves: float32 -> int conversion before or after the sum differs
    vals = rs.randint(-8, 9, shape) * 0.5 + (rs.rand(*shape) > 0.9) * 2048
    if dtype.kind == "c":
        return (vals + 0.5j * rs.randint(-4, 5, shape)).astype(dtype)
    return vals.astype(dtype)


def _as_float64(x):
    x = np.asarray(x)
    return x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)


@pytest.mark.parametrize(("lt", "rt", "pet"), CASES, ids=lambda c: str(c))
def test_mixed_dot_general_as_jax(lt, rt, pet, x64):
    if not x64 and any(n and "64" in n and n != "complex64" for n in (lt, rt, pet)):
        pytest.skip("64-bit operand types need x64")
    rs = np.random.RandomState(0)
    a, b = _operand(rs, (3, 5), lt), _operand(rs, (5, 4), rt)
    want = jax.lax.dot_general(a, b, DN, preferred_element_type=pet)
    want_jit = jax.jit(lambda a, b: jax.lax.dot_general(a, b, DN, preferred_element_type=pet))
    got = mj.lax.dot_general(a, b, DN, preferred_element_type=pet)
    got_jit = mj.jit(lambda a, b: mj.lax.dot_general(a, b, DN, preferred_element_type=pet))
    for g, w in ((got, want), (got_jit(a, b), want_jit(a, b))):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(_as_float64(g), _as_float64(w))


def test_mixed_dot_general_weak_type_and_refusals_as_jax(x64):
    dn = (((), ()), ((), ()))
    for lhs, rhs, pet in ((1.0, np.float16(2), None), (1, np.float16(2), None),
                          (1.0, 2.0, np.float16), (1.0, 2.0, None)):  # fmt: skip
        (want,) = jax.make_jaxpr(
            lambda a, b, p=pet: jax.lax.dot_general(a, b, dn, preferred_element_type=p)
        )(lhs, rhs).out_avals
        got = mj.eval_shape(
            lambda a, b, p=pet: mj.lax.dot_general(a, b, dn, preferred_element_type=p), lhs, rhs
        )
        assert (got.dtype, got.weak_type) == (want.dtype, want.weak_type)
    i32 = np.ones((2, 2), np.int32)
    for lax in (jax.lax, mj.lax):
        with pytest.raises(TypeError, match=r"^`preferred_element_type` must not be narrower"):
            lax.dot(i32, i32, preferred_element_type=np.int8)


def test_mixed_dot_gradients_as_jax(x64):
    # JAX's lax_autodiff testDotPreferredElementType and lax_test's
    # test_no_complex_to_real_cast_warning_in_transpose: the transposes are mixed contractions
    def pet_f(lib):
        return lambda x: lib.lax.dot_general(x, x, DN, preferred_element_type=np.float32)

    x = np.arange(6, dtype=np.float16).reshape(2, 3) / 4
    x = np.concatenate([x, x[:, ::-1]], axis=0)[:3, :3]
    want, got = jax.jacrev(pet_f(jax))(x), mj.jacrev(pet_f(mj))(x)
    assert got.dtype == want.dtype == np.float16
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))

    def real_f(lib):
        return lambda x, y: lib.lax.dot(x, y).real

    a, b = np.arange(5, dtype=np.float32), (np.arange(5) * (1 - 0.5j)).astype(np.complex64)
    want = jax.jacobian(real_f(jax), argnums=(0, 1))(a, b)
    got = mj.jacobian(real_f(mj), argnums=(0, 1))(a, b)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)
    vm = mj.vmap(lambda a, b: mj.lax.dot(a, b, preferred_element_type=np.float32))
    vj = jax.vmap(lambda a, b: jax.lax.dot(a, b, preferred_element_type=np.float32))
    ai = np.arange(12, dtype=np.int8).reshape(2, 6)
    bf = np.linspace(-1, 1, 12, dtype=np.float32).reshape(2, 6)
    np.testing.assert_array_equal(np.asarray(vm(ai, bf)), np.asarray(vj(ai, bf)))
