"""Fixes for the causes of optax's and chex's own tests failing on mj while passing on JAX
(docs/library_tests.md), each compared with JAX."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj

pytestmark = pytest.mark.oracle


@pytest.mark.parametrize(
    "shapes",
    [((2, 1), (3,)), ((4,),), ([2, 1], (1, 4)), ((), (3, 2)), ((5, 1, 3), (1, 7, 1), (3,))],
)
def test_lax_broadcast_shapes_matches_jax(shapes):
    want = jax.lax.broadcast_shapes(*shapes)
    got = mj.lax.broadcast_shapes(*shapes)
    assert got == want
    assert type(got) is tuple


@pytest.mark.parametrize("shapes", [((2,), (3,)), ((3, 1), (4, 1)), ((2, 3), [4])])
def test_lax_broadcast_shapes_errors_as_jax(shapes):
    with pytest.raises(ValueError, match="Incompatible shapes for broadcasting") as want:
        jax.lax.broadcast_shapes(*shapes)
    with pytest.raises(ValueError, match="Incompatible shapes for broadcasting") as got:
        mj.lax.broadcast_shapes(*shapes)
    assert str(got.value).startswith(str(want.value))


_SAMPLERS = ["normal", "uniform", "gumbel", "logistic", "cauchy", "laplace", "exponential"]


@pytest.mark.parametrize("name", [*_SAMPLERS, "truncated_normal"])
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_random_samplers_take_bfloat16_as_jax(x64, name, dtype):
    # optax's tests draw bfloat16 parameters (jax.random.normal(key, shape, jnp.bfloat16))
    args = (-1.0, 2.0) if name == "truncated_normal" else ()
    dt = jnp.dtype(dtype)
    want = np.asarray(getattr(jax.random, name)(jax.random.PRNGKey(3), *args, (300,), dt))
    sample = getattr(mj.random, name)
    got = np.asarray(mj.jit(lambda k: sample(k, *args, (300,), dt))(mj.random.PRNGKey(3)))
    assert got.dtype == want.dtype == dt
    np.testing.assert_array_equal(got.astype(np.float32), want.astype(np.float32))


@pytest.mark.parametrize("name", ["normal", "uniform"])
def test_random_samplers_refuse_integer_dtypes(name):
    with pytest.raises((TypeError, ValueError)):
        getattr(jax.random, name)(jax.random.PRNGKey(0), (2,), jnp.int32)
    with pytest.raises(ValueError, match=f"mj.random.{name}: dtype must be"):
        getattr(mj.random, name)(mj.random.PRNGKey(0), (2,), np.int32)


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize(
    "kwargs",
    [
        {"precision": "highest"},
        {"precision": jax.lax.Precision.HIGHEST},
        {"preferred_element_type": "float32"},
        {"precision": None, "preferred_element_type": "int32"},
    ],
)
def test_array_dot_method_keywords_as_jax(x64, jit, kwargs):
    # optax's L-BFGS tests: precond_mat.dot(vec, precision=jax.lax.Precision.HIGHEST)
    rng = np.random.default_rng(0)
    a = rng.integers(-3, 4, (3, 4)).astype(np.int16)
    b = rng.integers(-3, 4, (4,)).astype(np.int16)
    m_kwargs = dict(kwargs)
    if isinstance(kwargs.get("precision"), jax.lax.Precision):
        m_kwargs["precision"] = mj.lax.Precision.HIGHEST
    want = jnp.asarray(a).dot(jnp.asarray(b), **kwargs)

    def f(x, y):
        return x.dot(y, **m_kwargs)

    got = (mj.jit(f) if jit else f)(mj.numpy.asarray(a), mj.numpy.asarray(b))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def _sample_fn(x, y=2, *, z=3):
    return x + y + z


class _WithJitMethod:
    def method(self, x):
        return x


@pytest.mark.parametrize("follow_wrapped", [True, False])
def test_signature_of_jitted_function_as_jax(follow_wrapped):
    # chex's fake pmap: inspect.signature(fn, follow_wrapped=False) of a jitted fn
    import functools
    import inspect

    def sig(jit, fun, **kwargs):
        return str(inspect.signature(jit(fun, **kwargs), follow_wrapped=follow_wrapped))

    for fun in [_sample_fn, functools.partial(_sample_fn, 1)]:
        assert sig(mj.jit, fun) == sig(jax.jit, fun)
    assert sig(mj.jit, _sample_fn, static_argnums=0) == sig(jax.jit, _sample_fn, static_argnums=0)
    m_bound = mj.jit(_WithJitMethod.method).__get__(_WithJitMethod())
    j_bound = jax.jit(_WithJitMethod.method).__get__(_WithJitMethod())
    assert str(inspect.signature(m_bound, follow_wrapped=follow_wrapped)) == str(
        inspect.signature(j_bound, follow_wrapped=follow_wrapped)
    )


@pytest.mark.parametrize("dtype", ["bfloat16", "float8_e4m3fn", "float16", "int8"])
@pytest.mark.parametrize("fn", ["array", "asarray"])
def test_array_of_a_list_of_device_arrays_as_jax(x64, dtype, fn):
    # chex's assert_type test: jnp.array([device_put(1), device_put(2)], dtype=jnp.bfloat16)
    values = [1, 2.5, -3]
    want = getattr(jnp, fn)([jax.device_put(v) for v in values], dtype=jnp.dtype(dtype))
    got = getattr(mj.numpy, fn)([mj.device_put(v) for v in values], dtype=jnp.dtype(dtype))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(
        np.asarray(got).astype(np.float32), np.asarray(want).astype(np.float32)
    )


@pytest.mark.parametrize("wrap", ["none", "jit", "vmap"])
def test_checkify_message_shows_arrays_as_jax(x64, wrap):
    # chex's chexify: assert_tree_all_finite's message shows the tree as JAX's arrays
    from jax.experimental import checkify as jcheckify

    from mj.experimental import checkify as mcheckify

    def make(checkify, np_):
        def f(x):
            checkify.check(np_.all(x > 0), "bad {x} {y:.2f} {z}", x=x, y=x[0], z={"a": x[1]})
            return x

        return checkify.checkify(f)

    x = np.array([[-1.0, 2.0], [1.0, 1.0]], np.float32)
    if wrap != "vmap":
        x = x[0]
    j_wrap = (lambda f: f) if wrap == "none" else getattr(jax, wrap)
    m_wrap = (lambda f: f) if wrap == "none" else getattr(mj, wrap)
    want, _ = j_wrap(make(jcheckify, jnp))(jnp.asarray(x))
    got, _ = m_wrap(make(mcheckify, mj.numpy))(mj.numpy.asarray(x))
    assert got.get() == want.get()
    assert "Array(2., dtype=float32)" in got.get()


@pytest.mark.parametrize("batch", [0, 1, 3])
@pytest.mark.parametrize(
    "index",
    [
        lambda x, i: x[i],
        lambda x, i: x[i, 1],
        lambda x, i: x[i, ::-1],
        lambda x, i: x[:, i],
    ],
)
def test_vmap_of_gather_with_batched_operand_and_indices_as_jax(x64, batch, index):
    # optax's hungarian algorithm under vmap of an empty batch (a gather of slice size 1 on
    # an axis of size 0)
    rng = np.random.default_rng(1)
    x = rng.normal(size=(batch, 3, 2)).astype(np.float32)
    i = rng.integers(0, 2, size=(batch,)).astype(np.int32)
    want = jax.vmap(index)(x, i)
    got = mj.vmap(index)(x, i)
    assert got.shape == want.shape
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    got_jit = mj.jit(mj.vmap(index))(x, i)
    np.testing.assert_array_equal(np.asarray(got_jit), np.asarray(want))


@pytest.mark.parametrize("pred", [True, False])
@pytest.mark.parametrize("jit", [False, True])
def test_cond_and_switch_take_keyword_operand_as_jax(x64, pred, jit):
    # optax's conditionality and projections: lax.cond(pred, f, g, operand=x)
    def run(lax, p, x):
        c = lax.cond(p, lambda v: v * 2.0, lambda v: v - 1.0, operand=x)
        s = lax.switch(p.astype(np.int32), [lambda v: v + 10.0, lambda v: -v], operand=x)
        none = lax.cond(p, lambda v: 3.0, lambda v: 4.0, operand=None)
        return c, s, none

    x = np.array([1.5, -2.0], np.float32)
    want = jax.jit(lambda p, x: run(jax.lax, p, x))(pred, x)
    m_run = mj.jit(lambda p, x: run(mj.lax, p, x)) if jit else (lambda p, x: run(mj.lax, p, x))
    got = m_run(mj.numpy.asarray(pred), x)
    for g, w in zip(got, want, strict=True):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


def test_cond_keyword_operand_with_positional_operands_refused_as_jax():
    for lax in (jax.lax, mj.lax):
        with pytest.raises(TypeError, match="if 'operand' keyword is passed then no positional"):
            lax.cond(True, lambda v: v, lambda v: v, 1.0, operand=2.0)
        with pytest.raises(TypeError, match="if 'operand' keyword is passed then no positional"):
            lax.switch(0, [lambda v: v], 1.0, operand=2.0)


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("ndigits", [None, 0, 1, 2])
@pytest.mark.parametrize(
    "value", [[1.5, 2.5, -0.5, 1.26], 2.567, 3, np.array([7, -12], np.int16)], ids=str
)
def test_builtin_round_of_arrays_as_jax(x64, jit, ndigits, value):
    # optax's clipping tests: round(global_norm, 2)
    def r(x):
        return round(x) if ndigits is None else round(x, ndigits)

    want = jax.jit(r)(jnp.asarray(value)) if jit else r(jnp.asarray(value))
    got = (mj.jit(r) if jit else r)(mj.numpy.asarray(value))
    assert got.dtype == want.dtype
    assert got.weak_type == want.weak_type
    # (eager mnp.round with decimals may differ from XLA's in the last bit: 2.6 vs 2.6000001)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


@pytest.mark.parametrize(
    "name", ["lecun_normal", "glorot_uniform", "he_normal", "lecun_uniform", "truncated_normal"]
)
def test_initializers_with_bfloat16_as_jax(x64, name):
    # optax's mixed-precision tests: flax's Dense with param_dtype=bfloat16 (a bfloat16
    # initializer took the complex path: bfloat16's NumPy kind is "V")
    want = getattr(jax.nn.initializers, name)()(jax.random.PRNGKey(0), (7, 10), jnp.bfloat16)
    init = getattr(mj.nn.initializers, name)()
    got = mj.jit(lambda k: init(k, (7, 10), jnp.bfloat16))(mj.random.PRNGKey(0))
    assert got.dtype == want.dtype == jnp.bfloat16
    np.testing.assert_array_equal(
        np.asarray(got).astype(np.float32), np.asarray(want).astype(np.float32)
    )


@pytest.mark.parametrize("order", ["F", "f", "C", "A", None])
@pytest.mark.parametrize("shape", [(4, 6), (-1,), (3, -1, 2), (2, 3, 4)])
def test_reshape_order_as_jax(x64, order, shape):
    # optax's microbatching: jnp.reshape(x, shape, order="F")
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    want = np.asarray(jnp.reshape(x, shape, order=order))
    np.testing.assert_array_equal(np.asarray(mj.numpy.reshape(x, shape, order=order)), want)
    jitted = mj.jit(lambda y: mj.numpy.reshape(y, shape, order=order))
    np.testing.assert_array_equal(np.asarray(jitted(x)), want)
    method = mj.numpy.asarray(x).reshape(shape, order=order or "C")
    np.testing.assert_array_equal(np.asarray(method), want)
    if shape == (-1,):
        np.testing.assert_array_equal(
            np.asarray(mj.numpy.ravel(x, order=order or "C")), np.ravel(x, order=order or "C")
        )


@pytest.mark.parametrize("order", ["K", "X"])
def test_reshape_bad_order_refused_as_jax(order):
    x = np.arange(6).reshape(2, 3)
    with pytest.raises(ValueError, match="order") as want:
        jnp.reshape(x, (3, 2), order=order)
    with pytest.raises(ValueError, match="order") as got:
        mj.numpy.reshape(x, (3, 2), order=order)
    assert str(got.value) == str(want.value)
