"""JAX's ``copy_p`` (``mj.lax.copy_p``, printed ``copy``): ``jnp.array(x)`` of a traced ``x``
(``copy=True``, the default), ``jnp.copy`` and ``x.copy()`` stage a copy, before any dtype
conversion, while ``jnp.asarray`` and ``copy=False`` do not; the copy is linear (jvp, grad and
transposition copy tangents and cotangents), vectorized under vmap and lowered to its operand.
So ``jax.jvp(lambda x: jnp.array(x), (1.0,), (1.0,))`` gives two weak float32 arrays, not the
Python floats, as in JAX 0.10.2; every case is compared with JAX in both dtype modes."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

pytestmark = pytest.mark.oracle

#: Names both libraries print alike (mj's ``broadcast`` is JAX's ``broadcast_in_dim``, and
#: ``ndmin`` reshapes in mj where JAX broadcasts: those are left out of the comparison).
_COMPARED = {"copy", "convert_element_type", "concatenate"}

FUNCTIONS = {
    "array": lambda np_: np_.array,
    "array_int32": lambda np_: lambda x: np_.array(x, dtype=np_.int32),
    "array_float32": lambda np_: lambda x: np_.array(x, dtype=np_.float32),
    "array_ndmin": lambda np_: lambda x: np_.array(x, ndmin=2),
    "array_no_copy": lambda np_: lambda x: np_.array(x, copy=False),
    "array_no_copy_int32": lambda np_: lambda x: np_.array(x, copy=False, dtype=np_.int32),
    "array_of_list": lambda np_: lambda x: np_.array([x, x]),
    "asarray": lambda np_: np_.asarray,
    "asarray_int32": lambda np_: lambda x: np_.asarray(x, dtype=np_.int32),
    "asarray_copy": lambda np_: lambda x: np_.asarray(x, copy=True),
    "copy": lambda np_: np_.copy,
    "method": lambda np_: lambda x: np_.asarray(x).copy(),
}

INPUTS = {
    "weak_float": lambda: 1.5,
    "float32": lambda: np.float32(-2.5),
    "float_vector": lambda: np.arange(3.0),
    "int_vector": lambda: np.arange(4, dtype=np.int32),
    "weak_int": lambda: 3,
    "bool": lambda: np.array([True, False]),
}


def _eqns(closed, names=_COMPARED):
    """(name, out dtype, out weak type) of each equation whose name both libraries share."""
    return [
        (e.primitive.name, e.outvars[0].aval.dtype, e.outvars[0].aval.weak_type)
        for e in closed.jaxpr.eqns
        if e.primitive.name in names
    ]


def _same(got, want):
    got_leaves, want_leaves = mj.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves, strict=True):
        assert isinstance(w, jax.Array)
        assert not isinstance(g, int | float | complex | np.generic), g  # an array, as JAX's
        assert g.dtype == w.dtype
        assert g.weak_type == w.weak_type
        assert g.shape == w.shape
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


@pytest.mark.parametrize("inp", INPUTS)
@pytest.mark.parametrize("name", FUNCTIONS)
def test_staged_copies_and_results_match_jax(x64, name, inp):
    f, g = FUNCTIONS[name](mnp), FUNCTIONS[name](jnp)
    x = INPUTS[inp]()
    assert _eqns(mj.make_jaxpr(f)(x)) == _eqns(jax.make_jaxpr(g)(x))
    _same(mj.jit(f)(x), jax.jit(g)(x))
    _same(f(x), g(x))


def test_copies_are_staged_where_jax_stages_them(x64):
    """The counts themselves, so that the comparison above cannot pass with none anywhere."""

    def copies(fun, x):
        return [e.primitive.name for e in mj.make_jaxpr(fun)(x).jaxpr.eqns].count("copy")

    assert copies(mnp.array, 1.0) == 1
    assert copies(lambda x: mnp.array(x, dtype=mnp.int32), 1.0) == 1
    assert copies(mnp.copy, np.ones(2)) == copies(lambda x: x.copy(), np.ones(2)) == 1
    assert copies(mnp.asarray, 1.0) == copies(lambda x: mnp.array(x, copy=False), 1.0) == 0
    assert copies(lambda x: mnp.array([x, x]), 1.0) == 0
    names = [e.primitive.name for e in mj.make_jaxpr(mnp.array)(1.0).jaxpr.eqns]
    assert names == [e.primitive.name for e in jax.make_jaxpr(jnp.array)(1.0).jaxpr.eqns]
    assert mj.lax.copy_p.name == jax.lax.copy_p.name == "copy"
    assert "copy a" in str(mj.make_jaxpr(mnp.array)(1.0))


@pytest.mark.parametrize("inp", ["weak_float", "float32", "float_vector"])
def test_jvp_grad_vmap_and_transpose_match_jax(x64, inp):
    x = INPUTS[inp]()
    f, g = mnp.array, jnp.array
    t = x * 0.5  # (of the primal's type: a weak tangent of a strong primal is another matter)
    _same(mj.jvp(f, (x,), (t,)), jax.jvp(g, (x,), (t,)))
    _same(mj.jit(lambda a: mj.jvp(f, (a,), (a,)))(x), jax.jit(lambda a: jax.jvp(g, (a,), (a,)))(x))
    got = mj.make_jaxpr(lambda a: mj.jvp(f, (a,), (a,)))(x)
    assert _eqns(got) == _eqns(jax.make_jaxpr(lambda a: jax.jvp(g, (a,), (a,)))(x))

    def h(np_):
        return lambda a: (np_.array(a * 2.0) ** 2).sum()

    _same(mj.grad(h(mnp))(x), jax.grad(h(jnp))(x))
    _same(mj.jit(mj.grad(h(mnp)))(x), jax.jit(jax.grad(h(jnp)))(x))
    got, want = mj.make_jaxpr(mj.grad(h(mnp)))(x), jax.make_jaxpr(jax.grad(h(jnp)))(x)
    assert _eqns(got, {"copy"}) == _eqns(want, {"copy"})
    scale = np.array([1.0, -2.0, 3.0]).reshape((3,) + (1,) * np.ndim(x))
    xs = np.stack([np.asarray(x)] * 3) * scale
    _same(mj.vmap(f)(xs), jax.vmap(g)(xs))
    assert _eqns(mj.make_jaxpr(mj.vmap(f))(xs)) == _eqns(jax.make_jaxpr(jax.vmap(g))(xs))
    _same(mj.linear_transpose(f, x)(x), jax.linear_transpose(g, x)(x))
    assert _eqns(mj.make_jaxpr(mj.linear_transpose(f, x))(x)) == _eqns(
        jax.make_jaxpr(jax.linear_transpose(g, x))(x)
    )


def test_the_jvp_of_array_returns_arrays_not_python_floats(x64):
    """The issue's case: JAX gives two weak float32 (float64 with x64) arrays."""
    got = mj.jvp(lambda x: mnp.array(x), (1.0,), (1.0,))
    want = jax.jvp(lambda x: jnp.array(x), (1.0,), (1.0,))
    assert not any(isinstance(v, float) for v in got)
    _same(got, want)


@pytest.mark.parametrize("inp", INPUTS)
def test_eager_bind_copies_like_jax(x64, inp):
    x = INPUTS[inp]()
    got, want = mj.lax.copy_p.bind(x), jax.lax.copy_p.bind(x)
    _same(got, want)
    if isinstance(x, np.ndarray):  # a new buffer, not the caller's
        assert not np.shares_memory(np.asarray(got), x)


def test_lowering_is_the_operand(x64):
    text = mj.jit(mnp.array).lower(np.ones(3, np.float32)).as_text()
    assert "stablehlo" not in text.split("func.func", 1)[1].split("return", 1)[0]
    want = jax.jit(jnp.array).lower(np.ones(3, np.float32)).as_text()
    assert "stablehlo" not in want.split("func.func", 1)[1].split("return", 1)[0]
