"""Inputs JAX accepts that mj used to refuse (issue 23), checked against NumPy and closed
forms: ``jit`` as a decorator factory, float cotangents for bool/int ``vjp`` outputs, complex
``max``/``min``, list-valued ``axis``, the scalar types as casts of traced values, and NumPy's
own reductions on traced values."""

import numpy as np
import pytest

import mj
import mj.numpy as mnp

X = np.arange(6.0).reshape(2, 3)
Z = np.array([[1 + 2j, 1 - 1j, -3 + 0j], [1 + 0j, 2 - 5j, 2 - 6j]])


def test_jit_as_a_decorator_factory():
    traces = []

    @mj.jit(static_argnums=0)
    def scale(n, x):
        traces.append(n)
        return x * n

    assert float(scale(3, 2.0)) == 6.0
    assert float(scale(3, 5.0)) == 15.0
    assert traces == [3]
    by_name = mj.jit(static_argnames="n")(lambda x, n: x * n)
    assert float(by_name(2.0, n=4)) == 8.0
    assert mj.jit(static_argnums=(0,), donate_argnums=1)(lambda n, x: x + n)(1, 1.0) == 2.0


@pytest.mark.parametrize("ct", [1.0, np.float32(1.0), np.int32(3), True])
def test_any_cotangent_of_a_bool_or_int_output_is_a_zero(ct):
    def f(x):
        return x > 0, (x * 3).astype(np.int32), x * 2

    _, pullback = mj.vjp(f, 1.5)
    (g,) = pullback((ct, ct, 1.0))
    assert float(g) == 2.0  # only the float output contributes


def test_cotangent_shape_is_still_checked_for_int_outputs():
    _, pullback = mj.vjp(lambda x: x > 0, np.ones(3))
    with pytest.raises(ValueError, match="unexpected JAX type"):
        pullback(np.ones(2))


@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1), [1]])
def test_complex_max_min_are_lexicographic_like_numpy(name, axis):
    want = getattr(np, name)(Z, axis=tuple(axis) if isinstance(axis, list) else axis)
    np.testing.assert_array_equal(getattr(mnp, name)(Z, axis=axis), want)
    got = mj.jit(lambda z: getattr(mnp, name)(z, axis=axis))(Z)
    np.testing.assert_array_equal(got, want)
    got = getattr(mj.jit(lambda z: z)(Z), name)(axis=axis)  # device array method
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(mj.vmap(getattr(mnp, name))(Z), getattr(np, name)(Z, axis=1))


def test_complex_max_ties_on_the_real_part_pick_the_imaginary_extreme():
    z = np.array([2 - 1j, 2 + 3j, 2 + 0j, -1 + 9j])
    assert complex(mnp.max(z)) == 2 + 3j
    assert complex(mnp.min(z)) == -1 + 9j
    assert complex(mnp.min(z[:3])) == 2 - 1j


@pytest.mark.parametrize("method", ["max", "min", "sum", "mean", "prod", "any", "all", "std",
                                    "var", "squeeze"])  # fmt: skip
@pytest.mark.parametrize("axis", [[], [0], [0, 1]])
def test_list_valued_axis_on_eager_device_and_traced_arrays(method, axis):
    x = X.reshape(2, 1, 3) if method == "squeeze" else X
    if method == "squeeze":
        axis = [1] if axis else []
    want = getattr(np.asarray(x), method)(axis=tuple(axis))
    for arr in (mnp.asarray(x), mj.jit(lambda v: v)(x)):
        np.testing.assert_allclose(getattr(arr, method)(axis=axis), want)
    got = mj.jit(lambda v: getattr(v, method)(axis=axis))(x)
    np.testing.assert_allclose(got, want)


@pytest.mark.parametrize("name", ["int8", "int32", "int64", "uint8", "float16", "float32",
                                  "float64", "complex64", "bool_", "int_", "float_"])  # fmt: skip
def test_scalar_types_cast_traced_values(name):
    t = getattr(mnp, name)
    x = np.array([1.5, 0.0, 2.7] if name.startswith("u") else [-1.5, 0.0, 2.7])
    want = x.astype(np.dtype(t))
    for got in (t(x), mj.jit(t)(x), mj.vmap(t)(x)):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    if np.dtype(t).kind in "fc":
        assert float(mj.grad(lambda v: t(v).real * 3.0 if np.dtype(t).kind == "c" else t(v) * 3.0)(
            1.0
        )) == 3.0  # fmt: skip


def test_scalar_types_are_dtypes():
    assert np.dtype(mnp.float32) == np.float32
    assert mnp.float32 == np.float32
    assert np.float32 == mnp.float32
    assert hash(mnp.int64) == hash(np.int64)
    assert isinstance(np.float32(1.0), mnp.float32)
    assert mnp.issubdtype(mnp.float32, mnp.floating)
    assert mnp.zeros(2, mnp.int8).dtype == np.int8
    assert np.ones(2).astype(mnp.float16).dtype == np.float16
    assert mnp.bool is mnp.bool_
    assert mnp.int64(7).dtype == np.int64  # an mj array, not a NumPy scalar
    assert mnp.iinfo(mnp.int8).max == 127


@pytest.mark.parametrize(
    ("fn", "kwargs"),
    [(np.sum, {}), (np.mean, {"axis": 0}), (np.max, {"axis": 1}), (np.min, {}), (np.prod, {}),
     (np.std, {}), (np.var, {"axis": 0}), (np.argmax, {"axis": 1}), (np.any, {}),
     (np.all, {}), (np.cumsum, {"axis": 1}), (np.round, {}), (np.transpose, {}),
     (np.reshape, {"shape": (3, 2)})],
)  # fmt: skip
def test_numpy_functions_that_call_the_array_method_work_on_tracers(fn, kwargs):
    want = fn(X, **kwargs)
    np.testing.assert_allclose(mj.jit(lambda v: fn(v, **kwargs))(X), want)
    np.testing.assert_allclose(mj.vmap(lambda v: fn(v, **kwargs))(X[None])[0], want)


def test_numpy_shape_and_ndim_of_tracers():
    assert mj.jit(lambda v: v * np.ndim(v) + np.shape(v)[1])(X).tolist() == (X * 2 + 3).tolist()


def test_numpy_sum_is_differentiable_on_tracers():
    np.testing.assert_allclose(mj.grad(lambda v: np.sum(v * v))(X), 2 * X)
    np.testing.assert_allclose(mj.grad(lambda v: np.mean(v))(X), np.full_like(X, 1 / 6))


def test_numpy_functions_that_need_data_still_raise():
    with pytest.raises(mj.errors.ConcretizationError, match="NumPy function concatenate"):
        mj.jit(lambda v: np.concatenate([v, v]))(X)
    with pytest.raises(NotImplementedError, match="'out' argument"):
        mj.jit(lambda v: v.sum(out=np.zeros(())))(X)


# --- issue 24: eager linear algebra returns what the jitted LAPACK path returns ----------------
SINGULAR = {
    "inv zeros": lambda: mnp.linalg.inv(np.zeros((2, 2))),
    "inv rank 1": lambda: mnp.linalg.inv(np.array([[1.0, 2.0], [2.0, 4.0]])),
    "solve zeros": lambda: mnp.linalg.solve(np.zeros((2, 2)), np.ones(2)),
    "solve batched, one singular": lambda: mnp.linalg.solve(
        np.stack([np.eye(2), np.zeros((2, 2))]), np.ones((2, 2, 1))
    ),
    "svd with a NaN": lambda: mnp.linalg.svd(np.array([[np.nan, 1.0], [1.0, 1.0]])),
}


@pytest.mark.parametrize("make", SINGULAR.values(), ids=SINGULAR.keys())
def test_singular_or_nan_linear_algebra_gives_non_finite_values_eagerly_as_under_jit(make):
    """Eager inv/solve raised "Singular matrix" and svd "did not converge"; XLA returns
    infinities and NaNs, and eager evaluation now returns the same."""
    eager, jitted = make(), mj.jit(make)()
    for e, j in zip(mj.tree_util.tree_leaves(eager), mj.tree_util.tree_leaves(jitted), strict=True):
        e, j = np.asarray(e), np.asarray(j)
        assert not np.isfinite(e).all()
        np.testing.assert_array_equal(np.isnan(e), np.isnan(j))
        np.testing.assert_allclose(e, j, rtol=1e-12)


def test_a_non_singular_batch_element_is_still_solved_exactly():
    x = mnp.linalg.solve(np.stack([2 * np.eye(2), np.zeros((2, 2))]), np.ones((2, 2, 1)))
    np.testing.assert_allclose(np.asarray(x)[0], np.full((2, 1), 0.5))


@pytest.mark.parametrize("jit", [False, True])
def test_det_and_slogdet_of_an_empty_matrix(jit):
    """The determinant of a 0x0 matrix is the empty product, 1 (it failed inside a reshape)."""
    run = mj.jit if jit else (lambda f: f)
    assert run(mnp.linalg.det)(np.zeros((0, 0))) == 1.0
    sign, logabsdet = run(mnp.linalg.slogdet)(np.zeros((3, 0, 0)))
    np.testing.assert_array_equal(np.asarray(sign), np.ones(3))
    np.testing.assert_array_equal(np.asarray(logabsdet), np.zeros(3))
