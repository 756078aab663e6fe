"""Fixes for causes of equinox's and flax's own tests failing on mj while passing on JAX
(docs/library_tests.md, issue 36), each compared with JAX."""

import jax
import jax.extend.core
import jax.interpreters.ad
import numpy as np
import pytest

import mj
import mj.extend.core
import mj.interpreters.ad

pytestmark = pytest.mark.oracle


def _describe(tree):
    """Each leaf's class kind, dtype and shape (float0 leaves are NumPy arrays in both)."""

    def one(x):
        kind = "float0" if np.asarray(x).dtype == jax.dtypes.float0 else "array"
        return kind, str(np.asarray(x).dtype), np.shape(x)

    return [one(x) for x in jax.tree_util.tree_leaves(tree)]


def test_jit_passes_and_returns_float0_as_jax(x64):
    # equinox's checkpointed while loop: jit of grad(allow_int=True), float0 in and out
    z = np.zeros((3,), jax.dtypes.float0)
    for jit, grad in ((jax.jit, jax.grad), (mj.jit, mj.grad)):
        ident = jit(lambda x, y: (y * 2, x, x))(z, 1.5)
        g = jit(grad(lambda x, i: (x * i).sum(), argnums=(0, 1), allow_int=True))
        got = g(2.0, np.arange(4))
        if jit is jax.jit:
            want_ident, want_g = ident, got
        else:
            got_ident, got_g = ident, got
    assert _describe(got_ident) == _describe(want_ident)
    assert _describe(got_g) == _describe(want_g)
    assert type(got_ident[1]) is np.ndarray
    assert got_ident[1].dtype == jax.dtypes.float0
    np.testing.assert_allclose(np.asarray(got_ident[0]), np.asarray(want_ident[0]))
    np.testing.assert_allclose(np.asarray(got_g[0]), np.asarray(want_g[0]))


def test_jit_float0_constant_output_as_jax(x64):
    # a float0 zero made inside the program (grad of an int argument inside jit)
    def f(jax_like, y):
        inner = jax_like.grad(lambda x, i: (x * i).sum(), argnums=1, allow_int=True)
        return inner(y, np.arange(5))

    want = jax.jit(lambda y: f(jax, y))(2.0)
    got = mj.jit(lambda y: f(mj, y))(2.0)
    assert _describe(got) == _describe(want)


@pytest.mark.parametrize("dtype", ["float32", "int32", "bool", "complex64", "uint8"])
@pytest.mark.parametrize("weak", [False, True])
def test_shaped_array_to_tangent_aval_as_jax(dtype, weak):
    # equinox's filter_custom_vjp makes its symbolic zeros from aval.to_tangent_aval()
    want = jax.core.ShapedArray((2, 3), np.dtype(dtype), weak_type=weak).to_tangent_aval()
    got = mj.core.ShapedArray((2, 3), np.dtype(dtype), weak_type=weak).to_tangent_aval()
    assert (got.shape, got.dtype, got.weak_type) == (want.shape, want.dtype, want.weak_type)


def test_custom_vjp_bool_residual_reaches_bwd_as_bool(x64):
    # equinox keeps its `perturbed` flags among the residuals and asserts `p is True`
    def run(lib, transform):
        seen = []

        @lib.custom_vjp
        def f(x):
            return x * 2

        def fwd(x):
            return f(x), (True, False, x)

        def bwd(r, g):
            seen.append((type(r[0]), r[0], type(r[1]), r[1]))
            return (g * 2,)

        f.defvjp(fwd, bwd)
        out = transform(lib.grad(f))(1.5)
        return seen, float(out)

    for transform in ("eager", "jit"):
        want = run(jax, jax.jit if transform == "jit" else (lambda g: g))
        got = run(mj, mj.jit if transform == "jit" else (lambda g: g))
        assert got == want
        assert got[0][0][0] is bool


def test_find_top_trace_and_jvp_tracer_as_jax():
    # equinox's filter_jvp: jax.extend.core.find_top_trace(...).main and ad.JVPTracer
    def probe(lib, ad):
        found = []

        def f(x):
            top = lib.extend.core.find_top_trace([x])
            found.append((isinstance(x, ad.JVPTracer), x._trace.main is top.main))
            return x * 3

        _, t = lib.jvp(f, (1.0,), (1.0,))
        return found, float(t)

    assert probe(mj, mj.interpreters.ad) == probe(jax, jax.interpreters.ad)
    assert mj.core.find_top_trace is mj.extend.core.find_top_trace


@pytest.mark.parametrize("outer", ["eager", "jit"])
def test_vjp_function_is_a_pytree_as_jax(x64, outer):
    # flax's nn.custom_vjp: the fwd rule returns nn.vjp's pullback as its residuals
    def run(lib):
        np_ = lib.numpy

        @lib.custom_vjp
        def g(x):
            return np_.sin(x) * x

        def fwd(x):
            return lib.vjp(lambda a: np_.sin(a) * a, x)

        def bwd(vf, ct):
            return vf(ct * 3.0)

        g.defvjp(fwd, bwd)
        grad = lib.grad(lambda x: g(x).sum())
        grad = lib.jit(grad) if outer == "jit" else grad
        returned = lib.jit(lambda x: lib.vjp(np_.sin, x))(np.arange(3.0))
        return np.asarray(grad(np.arange(3.0))), np.asarray(returned[1](np.ones(3))[0])

    got, want = run(mj), run(jax)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-6)


@pytest.mark.parametrize("symbolic_zeros", [False, True])
def test_custom_vjp_bwd_cotangents_with_none_arguments_as_jax(x64, symbolic_zeros):
    # equinox's checkpointed while loop: bwd hands back its cotangents, None where the
    # argument (a partitioned pytree) is None
    def run(lib):
        @lib.custom_vjp
        def r(v):
            return v

        def fwd(v):
            if symbolic_zeros:
                v = lib.tree_util.tree_map(lambda p: p.value, v)
            return v, None

        def bwd(_, g):
            return (g,)

        r.defvjp(fwd, bwd, symbolic_zeros=symbolic_zeros)

        def f(v):
            v = r(v)
            return v[1] * 2 + v[2][0] * v[2][2]

        g = lib.grad(f)((None, 1.5, (2.0, None, 3.0)))
        return [
            None if x is None else float(x)
            for x in jax.tree_util.tree_leaves(g, is_leaf=lambda x: x is None)
        ]

    assert run(mj) == run(jax)


def test_custom_vjp_bwd_wrong_structure_still_raises():
    @mj.custom_vjp
    def r(v):
        return v

    r.defvjp(lambda v: (v, None), lambda _, g: ((g[0], g[0]),))
    with pytest.raises(TypeError, match="structure of the arguments"):
        mj.grad(lambda v: r(v)[0] + r(v)[1][0])((1.0, (2.0, 3.0)))


_INDEXINGS = [
    lambda x: x[None],
    lambda x: x[:, None],
    lambda x: x[None, 0],
    lambda x: x[:, None, 1:2],
    lambda x: x[..., None, :] * x[None],
    lambda x: x[None, ::-1, None],
]


@pytest.mark.parametrize("index", range(len(_INDEXINGS)))
def test_jax_primitive_names_and_new_axes_as_jax(x64, index):
    # equinox's test_make_jaxpr counts eqn.primitive against lax.broadcast_in_dim_p / mul_p
    f = _INDEXINGS[index]
    names = ("broadcast_in_dim_p", "gt_p", "ge_p", "lt_p", "le_p", "mul_p", "slice_p")

    def counts(lib, arg):
        jaxpr = lib.make_jaxpr(f)(arg).jaxpr
        prims = [eqn.primitive for eqn in jaxpr.eqns]
        return {n: sum(p is getattr(lib.lax, n) for p in prims) for n in names}

    x = np.arange(6.0).reshape(2, 3)
    assert counts(mj, x) == counts(jax, x)
    np.testing.assert_array_equal(np.asarray(mj.jit(f)(x)), np.asarray(jax.jit(f)(x)))


def test_comparison_primitives_under_jax_names_as_jax():
    for name in ("gt_p", "ge_p", "lt_p", "le_p"):
        op = {"gt_p": "__gt__", "ge_p": "__ge__", "lt_p": "__lt__", "le_p": "__le__"}[name]
        for lib in (jax, mj):
            (eqn,) = lib.make_jaxpr(lambda x, y, op=op: getattr(x, op)(y))(1.0, 2.0).jaxpr.eqns
            assert eqn.primitive is getattr(lib.lax, name)


def test_relu_is_a_custom_jvp_function_as_jax(x64):
    # equinox's test_make_jaxpr counts six custom_jvp_call equations in an MLP's jaxpr
    x = np.array([-2.0, -0.0, 0.0, np.nan, 0.5, 3.0])
    for lib in (jax, mj):
        (eqn,) = lib.make_jaxpr(lib.nn.relu)(x).jaxpr.eqns
        assert eqn.primitive is lib.custom_derivatives.custom_jvp_call_p
    np.testing.assert_array_equal(np.asarray(mj.nn.relu(x)), np.asarray(jax.nn.relu(x)))
    np.testing.assert_array_equal(np.asarray(mj.jit(mj.nn.relu)(x)), jax.nn.relu(x))
    grads = [np.asarray(lib.vmap(lib.grad(lib.nn.relu))(x)) for lib in (mj, jax)]
    np.testing.assert_array_equal(*grads)
    for arg in (np.array([True, False]), 3, np.arange(-2, 3, dtype=np.int8)):
        got, want = mj.nn.relu(arg), jax.nn.relu(arg)
        assert np.asarray(got).dtype == np.asarray(want).dtype
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def _interpret(lib, closed, *args):
    """A JAX-style jaxpr interpreter (equinox's finalise_eval_jaxpr): each equation re-bound
    with ``get_bind_params``'s params, its ``subfuns`` among them."""
    env = {}

    def read(v):
        return v.val if isinstance(v, lib.extend.core.Literal) else env[v]

    env.update(zip(closed.jaxpr.constvars, closed.consts, strict=True))
    env.update(zip(closed.jaxpr.invars, args, strict=True))
    for eqn in closed.jaxpr.eqns:
        params = eqn.primitive.get_bind_params(eqn.params)
        out = eqn.primitive.bind(*map(read, eqn.invars), **params)
        outs = out if eqn.primitive.multiple_results else [out]
        env.update(zip(eqn.outvars, outs, strict=True))
    return [read(v) for v in closed.jaxpr.outvars]


def _assert_trees_close(got, want):
    leaves = jax.tree_util.tree_leaves
    for a, b in zip(leaves(got), leaves(want), strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6)


def _subfun_results(lib, jit):
    f = lib.custom_jvp(lambda x, y: lib.numpy.sin(x) * y)
    f.defjvp(lambda p, t: (f(*p), 2.0 * t[0] + 3.0 * t[1]))
    w = np.array([0.5, 2.0])
    closed = lib.make_jaxpr(lambda x, y: f(x * w, y))(np.array([1.0, 3.0]), 2.0)
    call_p = lib.custom_derivatives.custom_jvp_call_p
    (eqn,) = [e for e in closed.jaxpr.eqns if e.primitive is call_p]
    fun, jvp = eqn.primitive.get_bind_params(eqn.params)["subfuns"]
    args = [np.array([0.3, 0.7]), 2.0]

    def g(x, y):
        return _interpret(lib, closed, x, y)[0]

    g = lib.jit(g) if jit else g
    x = np.array([1.0, 3.0])
    return [
        fun.call_wrapped(*args),
        jvp.call_wrapped(*args, np.ones(2), 1.0),
        g(x, 2.0),
        lib.jvp(g, (x, 2.0), (np.ones(2), 1.0)),
        lib.grad(lambda x: g(x, 2.0).sum())(np.ones(2)),
    ]


@pytest.mark.parametrize("jit", [False, True])
def test_custom_jvp_call_get_bind_params_subfuns_as_jax(x64, jit):
    # equinox's finalise_jaxpr calls subfuns[0].call_wrapped(*args) of custom_jvp_call
    _assert_trees_close(_subfun_results(mj, jit), _subfun_results(jax, jit))


def _foreign_subfuns_results(lib):
    lu = lib.extend.linear_util
    fun = lu.wrap_init(lambda x: [lib.numpy.sin(x)], debug_info=None)
    jvp = lu.wrap_init(lambda x, t: [lib.numpy.sin(x), 10.0 * t], debug_info=None)
    extra = {} if lib is mj else {"symbolic_zeros": False}

    def h(x):
        return lib.custom_derivatives.custom_jvp_call_p.bind(x, subfuns=(fun, jvp), **extra)[0]

    return [h(0.5), lib.jvp(h, (0.5,), (1.0,)), lib.jit(lib.grad(h))(0.5)]


@pytest.mark.filterwarnings("ignore:linear_util.wrap_init is missing a DebugInfo")
def test_custom_jvp_call_bind_with_foreign_subfuns_as_jax(x64):
    # a pair of wrapped functions (not from get_bind_params) bound as JAX's custom_jvp_call
    _assert_trees_close(_foreign_subfuns_results(mj), _foreign_subfuns_results(jax))
