"""Inputs JAX accepts that mj used to refuse (issue 23), compared with JAX: ``jit`` as a
decorator factory, float cotangents for bool/int ``vjp`` outputs, complex ``max``/``min``,
list-valued ``axis``, the scalar types as casts, NumPy reductions on tracers.

JAX refuses ``argmax``/``argmin`` of complex arrays (its comparison primitives take no
complex operands) and so does mj."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

pytestmark = pytest.mark.oracle

X = np.arange(6.0).reshape(2, 3)
Z = np.array([[1 + 2j, 1 - 1j, -3 + 0j], [1 + 0j, 2 - 5j, 2 - 6j], [2 + 3j, 2 + 3j, 0j]])


def check(got, want):
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-14)


def test_jit_decorator_factory():
    want = jax.jit(static_argnums=0)(lambda n, x: x * n)(3, 2.0)
    check(mj.jit(static_argnums=0)(lambda n, x: x * n)(3, 2.0), want)
    want = jax.jit(static_argnames="n")(lambda x, n: x**n)(2.0, n=3)
    check(mj.jit(static_argnames="n")(lambda x, n: x**n)(2.0, n=3), want)


@pytest.mark.parametrize("ct", [1.0, np.float32(2.0), np.int32(3), np.bool_(True)])
def test_vjp_float_cotangent_for_bool_and_int_outputs(ct):
    def f(api):
        return lambda x: (x > 0, (x * 3).astype(np.int32), x * 2)

    _, jpull = jax.vjp(f(jax), 1.5)
    _, mpull = mj.vjp(f(mj), 1.5)
    np.testing.assert_allclose(mpull((ct, ct, 1.0))[0], jpull((ct, ct, 1.0))[0])


@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
def test_complex_max_min(name, axis):
    want = getattr(jnp, name)(Z, axis=axis)
    check(getattr(mnp, name)(Z, axis=axis), want)
    check(mj.jit(lambda z: getattr(mnp, name)(z, axis=axis))(Z), want)
    check(getattr(mj.jit(lambda z: z)(Z), name)(axis=axis), want)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_complex_argmax_is_refused_by_both(name):
    with pytest.raises(TypeError):
        getattr(jnp, name)(Z)
    with pytest.raises(TypeError):
        getattr(mnp, name)(Z)


@pytest.mark.parametrize("method", ["max", "min", "sum", "mean", "prod", "any", "all", "std"])
@pytest.mark.parametrize("axis", [[], [0], [0, 1]])
def test_list_valued_axis(method, axis):
    want = getattr(jnp.asarray(X), method)(axis=axis)
    check(getattr(mnp.asarray(X), method)(axis=axis), want)
    check(getattr(mj.jit(lambda v: v)(X), method)(axis=axis), want)
    check(mj.jit(lambda v: getattr(v, method)(axis=axis))(X), want)


@pytest.mark.parametrize(
    "name",
    ["int8", "int16", "int32", "int64", "float16", "float32", "float64", "complex64",
     "complex128", "bool_", "int_", "float_", "single", "double"],
)  # fmt: skip
def test_scalar_types_as_casts(name):
    x = np.array([-1.5, 0.0, 2.7, 3.0])
    want = getattr(jnp, name)(x)
    check(getattr(mnp, name)(x), want)
    check(mj.jit(getattr(mnp, name))(x), jax.jit(getattr(jnp, name))(x))
    check(mj.vmap(getattr(mnp, name))(x), jax.vmap(getattr(jnp, name))(x))
    assert np.dtype(getattr(mnp, name)) == np.dtype(getattr(jnp, name))
    assert (getattr(mnp, name) == np.dtype(getattr(jnp, name)).type) is True


def test_scalar_type_cast_under_grad():
    want = jax.grad(lambda x: jnp.float32(x) * 2)(2.0)
    check(mj.grad(lambda x: mnp.float32(x) * 2)(2.0), want)


@pytest.mark.parametrize(
    ("fn", "kwargs"),
    [(np.sum, {}), (np.mean, {"axis": 0}), (np.max, {"axis": 1}), (np.prod, {}),
     (np.std, {}), (np.argmax, {"axis": 1}), (np.cumsum, {"axis": 1}), (np.round, {}),
     (np.transpose, {}), (np.reshape, {"shape": (3, 2)})],
)  # fmt: skip
def test_numpy_functions_on_tracers(fn, kwargs):
    check(mj.jit(lambda v: fn(v, **kwargs))(X), jax.jit(lambda v: fn(v, **kwargs))(X))
    xs = X[None]
    check(mj.vmap(lambda v: fn(v, **kwargs))(xs), jax.vmap(lambda v: fn(v, **kwargs))(xs))


def test_numpy_sum_gradient():
    check(mj.grad(lambda v: np.sum(v * v))(X), jax.grad(lambda v: np.sum(v * v))(X))
