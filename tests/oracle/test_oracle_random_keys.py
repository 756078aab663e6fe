"""Typed PRNG keys (``mj.random.key``) against JAX 0.10.2's (``jax.random.key``), both dtype
modes: the key data, shapes and dtype names, the samples drawn from typed and legacy keys,
keys through jit/vmap/scan/grad, shape operations on key arrays, and the errors and options
(``legacy_prng_key``, ``enable_custom_prng``)."""

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import random as jr

import mj
import mj.numpy as mnp
from mj import random as mr

pytestmark = pytest.mark.oracle


def _data(keys):
    """The uint32 data of typed keys of either library, as NumPy."""
    if hasattr(keys, "dtype") and "key<" in str(keys.dtype):
        mod = mr if type(keys).__module__.startswith("mj") else jr
        keys = mod.key_data(keys)
    return np.asarray(keys)


def _same_keys(m, j):
    assert m.shape == j.shape
    assert str(m.dtype) == str(j.dtype)
    np.testing.assert_array_equal(_data(m), _data(j))


@pytest.mark.parametrize("seed", [0, 42, 2**31 - 1, 12345678])
def test_key_is_typed_and_holds_jax_data(x64, seed):
    m, j = mr.key(seed), jr.key(seed)
    _same_keys(m, j)
    assert m.dtype.itemsize == j.dtype.itemsize
    assert m.dtype.name == j.dtype.name
    assert mr.key_impl(m) == jr.key_impl(j)
    assert repr(m) == repr(j)
    assert mnp.issubdtype(m.dtype, mj.dtypes.prng_key)
    assert mnp.issubdtype(m.dtype, mj.dtypes.extended)
    assert not mnp.issubdtype(m.dtype, np.integer)
    assert isinstance(m, mj.Array)
    np.testing.assert_array_equal(mr.key_data(mr.PRNGKey(seed)), jr.key_data(jr.PRNGKey(seed)))


def test_split_fold_in_keep_the_key_kind(x64):
    for num in (2, 3, (2, 3)):
        _same_keys(mr.split(mr.key(7), num), jr.split(jr.key(7), num))
        m_raw, j_raw = mr.split(mr.PRNGKey(7), num), jr.split(jr.PRNGKey(7), num)
        assert m_raw.dtype == j_raw.dtype == np.uint32
        np.testing.assert_array_equal(m_raw, j_raw)
    _same_keys(mr.fold_in(mr.key(7), 11), jr.fold_in(jr.key(7), 11))
    _same_keys(mr.clone(mr.key(3)), jr.clone(jr.key(3)))


SAMPLERS = [
    ("normal", lambda r, k: r.normal(k, (5,))),
    ("uniform", lambda r, k: r.uniform(k, (5,), minval=-1.0, maxval=2.0)),
    ("bernoulli", lambda r, k: r.bernoulli(k, 0.3, (6,))),
    ("randint", lambda r, k: r.randint(k, (6,), 0, 10)),
    ("permutation", lambda r, k: r.permutation(k, 8)),
    ("choice", lambda r, k: r.choice(k, 10, (4,), replace=False)),
    ("bits", lambda r, k: r.bits(k, (4,), np.uint32)),
    ("categorical", lambda r, k: r.categorical(k, np.log(np.array([0.2, 0.3, 0.5])), shape=(6,))),
    ("exponential", lambda r, k: r.exponential(k, (4,))),
    ("gamma", lambda r, k: r.gamma(k, 2.5, (4,))),
]


@pytest.mark.parametrize(("name", "draw"), SAMPLERS, ids=[s[0] for s in SAMPLERS])
def test_samplers_take_typed_and_legacy_keys(x64, name, draw):
    j = np.asarray(draw(jr, jr.key(5)))
    m_typed = np.asarray(draw(mr, mr.key(5)))
    m_raw = np.asarray(draw(mr, mr.PRNGKey(5)))
    assert m_typed.dtype == j.dtype
    np.testing.assert_allclose(m_typed, j, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(m_typed, m_raw)


def test_keys_through_jit_vmap_scan(x64):
    m_keys, j_keys = mr.split(mr.key(1), 4), jr.split(jr.key(1), 4)
    _same_keys(
        mj.jit(lambda k: mr.split(k, 3))(mr.key(1)), jax.jit(lambda k: jr.split(k, 3))(jr.key(1))
    )
    m = mj.vmap(lambda k: mr.normal(k, (2,)))(m_keys)
    j = jax.vmap(lambda k: jr.normal(k, (2,)))(j_keys)
    np.testing.assert_allclose(np.asarray(m), np.asarray(j), rtol=1e-6)
    _same_keys(
        mj.vmap(lambda k: mr.fold_in(k, 2))(m_keys), jax.vmap(lambda k: jr.fold_in(k, 2))(j_keys)
    )
    seeds = np.arange(3, dtype=np.uint32)
    _same_keys(mj.vmap(mr.key)(seeds), jax.vmap(jr.key)(seeds))

    def m_step(k, _):
        k, sub = mr.split(k)
        return k, mr.uniform(sub)

    def j_step(k, _):
        k, sub = jr.split(k)
        return k, jr.uniform(sub)

    m_carry, m_ys = mj.lax.scan(m_step, mr.key(9), None, length=5)
    j_carry, j_ys = jax.lax.scan(j_step, jr.key(9), None, length=5)
    _same_keys(m_carry, j_carry)
    np.testing.assert_allclose(np.asarray(m_ys), np.asarray(j_ys), rtol=1e-6)
    _, m_out = mj.lax.scan(lambda c, k: (c, k.T), None, mr.split(mr.key(2), 6).reshape(3, 2, 1))
    _, j_out = jax.lax.scan(lambda c, k: (c, k.T), None, jr.split(jr.key(2), 6).reshape(3, 2, 1))
    _same_keys(m_out, j_out)


def test_keys_are_not_differentiated(x64):
    m = mj.grad(lambda x, k: x * mr.normal(k))(2.0, mr.key(4))
    j = jax.grad(lambda x, k: x * jr.normal(k))(2.0, jr.key(4))
    np.testing.assert_allclose(float(m), float(j), rtol=1e-6)
    seen = {}

    def make(mod, lib):
        @lib.custom_jvp
        def f(x, k):
            return x * mod.normal(k)

        @f.defjvp
        def f_jvp(primals, tangents):
            x, k = primals
            seen[lib.__name__] = tangents[1]
            return f(x, k), tangents[0] * mod.normal(k)

        return f

    mj.grad(make(mr, mj))(1.0, mr.key(4))
    jax.grad(make(jr, jax))(1.0, jr.key(4))
    assert seen["mj"].dtype == mj.dtypes.float0
    assert seen["jax"].dtype == jax.dtypes.float0
    assert seen["mj"].shape == seen["jax"].shape


def test_key_array_shape_operations(x64):
    m, j = mr.split(mr.key(3), 6), jr.split(jr.key(3), 6)
    for op in (
        lambda k: k[2],
        lambda k: k[1:4],
        lambda k: k[np.array([0, 5])],
        lambda k: k.reshape(2, 3),
        lambda k: k.reshape(2, 3).T,
        lambda k: k.reshape(2, 3)[:, 1],
        lambda k: k.reshape(2, 3)[None, ..., 1:],
        lambda k: k.reshape(3, 2, 1).squeeze(-1),
        lambda k: k.reshape(2, 3).ravel(),
        lambda k: k.at[2].get(),
        lambda k: k.at[1:3].set(k[0]),
        lambda k: k.copy(),
    ):
        _same_keys(op(m), op(j))
        _same_keys(mj.jit(op)(m), jax.jit(op)(j))
    np.testing.assert_array_equal(np.asarray(m == m[0]), np.asarray(j == j[0]))
    np.testing.assert_array_equal(np.asarray(m != m[1]), np.asarray(j != j[1]))
    with mj.numpy_rank_promotion("raise"), jax.numpy_rank_promotion("raise"):
        np.testing.assert_array_equal(np.asarray(m[2] == m), np.asarray(j[2] == j))
    assert mj.eval_shape(mr.split, mr.key(0)).shape == jax.eval_shape(jr.split, jr.key(0)).shape
    assert (m.shape, m.ndim, m.size, m.nbytes) == (j.shape, j.ndim, j.size, j.nbytes)
    assert len(list(m)) == len(list(j))
    with pytest.raises(IndexError, match="Too many indices"):
        mr.key(0)[0]
    with pytest.raises(IndexError, match="Too many indices"):
        jr.key(0)[0]


def test_key_array_refusals(x64):
    for lib, r in ((mj, mr), (jax, jr)):
        k = r.key(1)
        with pytest.raises(TypeError, match="add does not accept dtypes key<fry>, int"):
            k + 1
        with pytest.raises(TypeError, match="add does not accept dtype key<fry>"):
            k + k
        with pytest.raises(TypeError, match="neg does not accept dtype key<fry>"):
            _ = -k
        with pytest.raises(TypeError, match="cannot be converted to a NumPy array"):
            np.asarray(k)
        with pytest.raises(TypeError, match="unhashable"):
            hash(k)
        with pytest.raises(ValueError, match="accepts a single key"):
            r.normal(r.split(k, 2))
        with pytest.raises(ValueError, match="split accepts a single key"):
            r.split(r.split(k, 2))
        with pytest.raises(TypeError, match="key accepts a scalar seed"):
            r.key(np.arange(3))
        with pytest.raises(TypeError, match="key accepts a scalar seed, but was given a PRNG key"):
            r.key(k)
        with pytest.raises(TypeError, match="PRNG key seed must be an integer"):
            r.key(np.pi)
        with pytest.raises(ValueError, match="Cannot specify both `impl` and `dtype`"):
            r.key(0, impl="threefry2x32", dtype=k.dtype)
        with pytest.raises(ValueError, match="unrecognized PRNG implementation"):
            r.key(0, impl="nope")
        assert lib is not None


def test_wrap_key_data_roundtrip(x64):
    data = np.array([[1, 2], [3, 4]], np.uint32)
    m, j = mr.wrap_key_data(data), jr.wrap_key_data(data)
    _same_keys(m, j)
    _same_keys(
        mr.wrap_key_data(data, impl=mr.key_impl(m)), jr.wrap_key_data(data, impl=jr.key_impl(j))
    )
    _same_keys(mr.wrap_key_data(data, dtype=m.dtype), jr.wrap_key_data(data, dtype=j.dtype))
    _same_keys(
        mr.key(5, dtype=mr.key_dtype("threefry2x32")), jr.key(5, dtype=jr.key_dtype("threefry2x32"))
    )
    assert str(mr.key_dtype()) == str(jr.key_dtype())
    np.testing.assert_array_equal(mr.key_data(mr.PRNGKey(3)), jr.key_data(jr.PRNGKey(3)))


def test_legacy_prng_key_and_custom_prng_options(x64):
    raw_m, raw_j = mnp.zeros(2, "uint32"), jnp.zeros(2, "uint32")
    for lib, r, raw in ((mj, mr, raw_m), (jax, jr, raw_j)):
        with lib.legacy_prng_key("allow"), warnings.catch_warnings():
            warnings.simplefilter("error")
            r.uniform(raw)
        with lib.legacy_prng_key("warn"), pytest.warns(UserWarning, match="Legacy uint32 key"):
            r.uniform(raw)
        with lib.legacy_prng_key("error"):
            with pytest.raises(ValueError, match="Legacy uint32 key array passed as key"):
                r.uniform(raw)
            with pytest.raises(TypeError, match="JAX encountered invalid PRNG key data"):
                r.uniform(np.zeros(1, np.float32))
            r.uniform(r.key(0))  # typed keys are always fine
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # JAX warns that the flag is deprecated
            with lib.enable_custom_prng(True):
                _same_keys_or_typed = r.PRNGKey(3)
        assert str(_same_keys_or_typed.dtype) == "key<fry>"
    assert mj.config.jax_legacy_prng_key == jax.config.jax_legacy_prng_key


# --- mj.numpy / mj.lax functions on key arrays (mj_core's array views) -------------------------


def _keys(r, n=6, shape=None):
    ks = r.split(r.key(123), n)
    return ks if shape is None else ks.reshape(shape)


NUMPY_ON_KEYS = {
    "reshape": lambda np_, lax, r: np_.reshape(_keys(r), (2, 3)),
    "ravel": lambda np_, lax, r: np_.ravel(_keys(r, shape=(2, 3))),
    "transpose": lambda np_, lax, r: np_.transpose(_keys(r, shape=(2, 3))),
    "swapaxes": lambda np_, lax, r: np_.swapaxes(_keys(r, shape=(2, 3)), 0, 1),
    "moveaxis": lambda np_, lax, r: np_.moveaxis(_keys(r, shape=(1, 2, 3)), 0, -1),
    "squeeze": lambda np_, lax, r: np_.squeeze(_keys(r, shape=(1, 6))),
    "expand_dims": lambda np_, lax, r: np_.expand_dims(_keys(r, shape=(2, 3)), -1),
    "broadcast_to": lambda np_, lax, r: np_.broadcast_to(r.key(5), (3, 2)),
    "broadcast_arrays": lambda np_, lax, r: np_.broadcast_arrays(r.key(5), _keys(r))[0],
    "stack": lambda np_, lax, r: np_.stack([_keys(r), _keys(r, 6)], axis=-1),
    "concatenate": lambda np_, lax, r: np_.concatenate(
        [_keys(r, shape=(2, 3)), _keys(r, shape=(2, 3))], axis=-1
    ),
    "tile": lambda np_, lax, r: np_.tile(_keys(r, 2), (2, 3)),
    "repeat": lambda np_, lax, r: np_.repeat(_keys(r, 3), 2),
    "append": lambda np_, lax, r: np_.append(_keys(r, 3), r.key(9)),
    "flip": lambda np_, lax, r: np_.flip(_keys(r)),
    "roll": lambda np_, lax, r: np_.roll(_keys(r), 2),
    "split": lambda np_, lax, r: np_.split(_keys(r), 3)[1],
    "take": lambda np_, lax, r: np_.take(_keys(r), np_.array([4, 0, 2])),
    "where": lambda np_, lax, r: np_.where(np_.arange(6) % 2 == 0, _keys(r), r.key(1)),
    "select": lambda np_, lax, r: np_.select([np_.arange(6) > 3], [_keys(r)], r.key(1)),
    "atleast_1d": lambda np_, lax, r: np_.atleast_1d(r.key(4)),
    "array": lambda np_, lax, r: np_.array(_keys(r)),
    "asarray_dtype": lambda np_, lax, r: np_.asarray(_keys(r), dtype=_keys(r).dtype),
    "array_of_list": lambda np_, lax, r: np_.array([r.key(1), r.key(2)]),
    "zeros": lambda np_, lax, r: np_.zeros((2, 3), dtype=r.key(0).dtype),
    "ones": lambda np_, lax, r: np_.ones(4, dtype=r.key(0).dtype),
    "full_int": lambda np_, lax, r: np_.full((3,), 100, dtype=r.key(0).dtype),
    "full_key": lambda np_, lax, r: np_.full((2, 2), r.key(42)),
    "full_like": lambda np_, lax, r: np_.full_like(_keys(r), 7),
    "full_like_key": lambda np_, lax, r: np_.full_like(_keys(r), r.key(42)),
    "zeros_like": lambda np_, lax, r: np_.zeros_like(_keys(r, shape=(3, 2))),
    "ones_like": lambda np_, lax, r: np_.ones_like(_keys(r)),
    "lax_full": lambda np_, lax, r: lax.full((2,), 3, r.key(0).dtype),
    "lax_reshape": lambda np_, lax, r: lax.reshape(_keys(r), (3, 2)),
    "lax_transpose": lambda np_, lax, r: lax.transpose(_keys(r, shape=(2, 3)), (1, 0)),
    "lax_broadcast_in_dim": lambda np_, lax, r: lax.broadcast_in_dim(_keys(r, 3), (2, 3), (1,)),
    "lax_squeeze": lambda np_, lax, r: lax.squeeze(_keys(r, shape=(1, 6)), (0,)),
    "lax_expand_dims": lambda np_, lax, r: lax.expand_dims(_keys(r), (0,)),
    "lax_rev": lambda np_, lax, r: lax.rev(_keys(r), (0,)),
    "lax_concatenate": lambda np_, lax, r: lax.concatenate([_keys(r), _keys(r, 3)], 0),
    "lax_slice": lambda np_, lax, r: lax.slice(_keys(r, shape=(2, 3)), (0, 1), (2, 3)),
    "lax_slice_strided": lambda np_, lax, r: lax.slice(_keys(r), (1,), (6,), (2,)),
    "lax_dynamic_slice": lambda np_, lax, r: lax.dynamic_slice_in_dim(_keys(r), np.int16(2), 3),
    "lax_dynamic_update_slice": lambda np_, lax, r: lax.dynamic_update_slice_in_dim(
        _keys(r), _keys(r, 2), np.int16(3), axis=0
    ),
    "lax_dynamic_index": lambda np_, lax, r: lax.dynamic_index_in_dim(_keys(r), 4, 0, False),
    "lax_select": lambda np_, lax, r: lax.select(np_.arange(6) < 2, _keys(r), _keys(r, 6)[::-1]),
    "lax_select_scalar": lambda np_, lax, r: lax.select(False, _keys(r), _keys(r)[::-1]),
    "lax_select_n": lambda np_, lax, r: lax.select_n(np_.arange(6) % 3, *[_keys(r)] * 3),
    "lax_cond": lambda np_, lax, r: lax.cond(False, lambda: _keys(r), lambda: _keys(r)[::-1]),
    "lax_switch": lambda np_, lax, r: lax.switch(1, [lambda: r.key(1), lambda: r.key(2)]),
    "gather_fill": lambda np_, lax, r: _keys(r).at[100].get(mode="fill"),
}


@pytest.mark.parametrize("name", sorted(NUMPY_ON_KEYS))
@pytest.mark.parametrize("jit", [False, True])
def test_numpy_and_lax_functions_on_key_arrays(x64, name, jit):
    f = NUMPY_ON_KEYS[name]
    m = (mj.jit if jit else lambda g: g)(lambda: f(mnp, mj.lax, mr))()
    j = (jax.jit if jit else lambda g: g)(lambda: f(jnp, jax.lax, jr))()
    assert type(m).__name__ == "PRNGKeyArray"
    _same_keys(m, j)


@pytest.mark.parametrize("name", ["reshape", "where", "lax_select", "stack", "take"])
def test_key_functions_under_vmap(x64, name):
    m = mj.vmap(lambda i: NUMPY_ON_KEYS[name](mnp, mj.lax, mr))(mnp.arange(2))
    j = jax.vmap(lambda i: NUMPY_ON_KEYS[name](jnp, jax.lax, jr))(jnp.arange(2))
    _same_keys(m, j)


def test_key_select_with_traced_predicate(x64):
    def f(lax, np_, r, c):
        return lax.select(c, _keys(r), _keys(r)[::-1])

    c = np.array([True, False, True, False, False, True])
    _same_keys(
        mj.jit(lambda c: f(mj.lax, mnp, mr, c))(c), jax.jit(lambda c: f(jax.lax, jnp, jr, c))(c)
    )
    _same_keys(
        mj.vmap(lambda c, k: mj.lax.select(c, k, mr.key(0)))(c, _keys(mr)),
        jax.vmap(lambda c, k: jax.lax.select(c, k, jr.key(0)))(c, _keys(jr)),
    )


# (Known differences, not tested: mj names the primitive where JAX's jnp.subtract/multiply name
# the NumPy function, "sub does not accept ..." for JAX's "subtract does not accept ...", and
# jnp.concatenate of keys and uint32 raises mj's TypeError for JAX's promotion ValueError.)
ERRORS_ON_KEYS = {
    "add_int": lambda np_, lax, r: np_.add(r.key(1), 1),
    "add_float": lambda np_, lax, r: np_.add(r.key(1), 1.0),
    "add_keys": lambda np_, lax, r: np_.add(r.key(1), r.key(1)),
    "negative": lambda np_, lax, r: np_.negative(r.key(1)),
    "lax_add": lambda np_, lax, r: lax.add(r.key(1), r.key(1)),
    "convert_from_key": lambda np_, lax, r: lax.convert_element_type(r.key(1), np.int32),
    "convert_to_key": lambda np_, lax, r: lax.convert_element_type(np.int32(0), r.key(0).dtype),
    "asarray_int": lambda np_, lax, r: np_.asarray(r.key(1), dtype=np.int32),
    "result_type_mixed": lambda np_, lax, r: np_.result_type(r.key(1), 1),
}


@pytest.mark.parametrize("name", sorted(ERRORS_ON_KEYS))
def test_key_errors_in_jax_words(x64, name):
    f = ERRORS_ON_KEYS[name]
    with pytest.raises((TypeError, ValueError)) as j_err:
        f(jnp, jax.lax, jr)
    with pytest.raises((TypeError, ValueError)) as m_err:
        f(mnp, mj.lax, mr)
    assert isinstance(m_err.value, j_err.type), (m_err.value, j_err.value)
    # JAX's first sentence (mj does not list the accepted dtypes after it)
    j_first = str(j_err.value).split(" at position")[0].split(". ")[0].rstrip(".")
    assert str(m_err.value).startswith(j_first), (m_err.value, j_err.value)


def test_key_result_type_and_eval_shape(x64):
    mk, jk = mr.key(1701), jr.key(1701)
    assert str(mnp.result_type(mk)) == str(jnp.result_type(jk))
    assert mnp.result_type(mk, mk) == mk.dtype
    ms, js = mj.ShapeDtypeStruct.like(mk), jax.ShapeDtypeStruct.like(jk)
    assert (ms.shape, str(ms.dtype)) == (js.shape, str(js.dtype))
    assert repr(ms) == repr(js)
    assert mj.eval_shape(lambda x: x, ms) == ms
    mo = mj.eval_shape(lambda k: (mr.split(k, 3), mr.uniform(k, (2,))), ms)
    jo = jax.eval_shape(lambda k: (jr.split(k, 3), jr.uniform(k, (2,))), js)
    assert [(o.shape, str(o.dtype)) for o in mo] == [(o.shape, str(o.dtype)) for o in jo]


def test_typeof_a_key_array_has_its_key_dtype(x64):
    # equinox's _zero_from_primal / _none_to_zero read jax.typeof(x).to_tangent_aval()
    seen = {}

    def probe(lib, tag):
        def f(k):
            seen[tag] = lib.typeof(k)
            return k

        return f

    for m, j in (
        (mr.key(0), jr.key(0)),
        (mr.split(mr.key(1), 3), jr.split(jr.key(1), 3)),
        (mr.split(mr.key(2), 6).reshape(2, 3), jr.split(jr.key(2), 6).reshape(2, 3)),
    ):
        got, want = mj.typeof(m), jax.typeof(j)
        assert str(got) == str(want)
        assert got.str_short() == want.str_short()
        assert (got.shape, got.dtype.name, got.weak_type) == (
            want.shape,
            want.dtype.name,
            want.weak_type,
        )
        assert mnp.issubdtype(got.dtype, mj.dtypes.prng_key)
        assert str(got.update(shape=(4,))) == str(want.update(shape=(4,)))
        tangent, jtangent = got.to_tangent_aval(), want.to_tangent_aval()
        assert (tangent.shape, tangent.dtype) == (jtangent.shape, jtangent.dtype)
        assert str(m.aval) == str(j.aval)
        assert mj.ShapeDtypeStruct(got.shape, got.dtype).dtype == m.dtype
        assert mj.typeof(mr.key_data(m)) == mj.typeof(mnp.asarray(_data(m)))
        mj.jit(probe(mj, "mj_jit"))(m)
        jax.jit(probe(jax, "jax_jit"))(j)
        mj.vmap(probe(mj, "mj_vmap"))(m.reshape(-1))
        jax.vmap(probe(jax, "jax_vmap"))(j.reshape(-1))
        assert str(seen["mj_jit"]) == str(seen["jax_jit"])
        assert str(seen["mj_vmap"]) == str(seen["jax_vmap"])
