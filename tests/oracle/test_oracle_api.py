"""The public API of DESIGN.md §4 against JAX 0.10.2 (x64): return structures, types, dtypes
and values of representative calls of jit, grad/value_and_grad, jvp/vjp/linearize, vmap, the
Jacobian family, make_jaxpr/eval_jaxpr, custom_jvp/custom_vjp, device_put, Array and
tree_util.

Known, deliberate differences (not asserted here): eager mj results are NumPy values, so they
carry no weak type (JAX's ``grad(f)(3.0)`` is a weakly typed Array); ``mj.lax`` ops promote
mixed dtypes like NumPy where ``jax.lax`` raises; mj's jaxpr printer uses Autodidax's format.
"""

from collections import OrderedDict, defaultdict, namedtuple

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

jax.config.update("jax_enable_x64", True)

pytestmark = pytest.mark.oracle

LIBS = {"jax": (jax, jnp), "mj": (mj, mnp)}
X3 = np.arange(3.0)
M = np.arange(6.0).reshape(2, 3)
Point = namedtuple("Point", "a b")


def _leaf_sig(x):
    if x is None:
        return None
    if hasattr(x, "dtype") and hasattr(x, "shape"):
        return ("array", np.dtype(x.dtype).name, tuple(x.shape))
    return (type(x).__name__, x)


def structure(tree):
    """Container types and nesting, with each leaf's dtype and shape (the values aside)."""
    if isinstance(tree, tuple | list):
        return (type(tree).__name__, [structure(x) for x in tree])
    if isinstance(tree, dict):
        return (type(tree).__name__, [(k, structure(v)) for k, v in tree.items()])
    return _leaf_sig(tree)


def assert_same(jax_out, mj_out, rtol=1e-12):
    assert structure(mj_out) == structure(jax_out)
    for a, b in zip(jax.tree_util.tree_leaves(jax_out), mj.tree_util.tree_leaves(mj_out),
                    strict=True):  # fmt: skip
        if hasattr(a, "dtype") and a.dtype == jax.dtypes.float0:
            continue
        np.testing.assert_allclose(np.asarray(b), np.asarray(a), rtol=rtol, atol=1e-14)


def both(fn):
    return fn(*LIBS["jax"]), fn(*LIBS["mj"])


def f1(x, y):
    return (x**2 * y).sum()


# --- jit --------------------------------------------------------------------------------------

JIT_CASES = {
    "static_argnums": lambda lib, np_: lib.jit(lambda x, n: x * n, static_argnums=1)(X3, 3),
    "negative static_argnums": lambda lib, np_: lib.jit(lambda x, n: x * n, static_argnums=-1)(
        X3, 3
    ),
    "static_argnames": lambda lib, np_: lib.jit(lambda x, n=2: x * n, static_argnames="n")(X3, n=3),
    "static name given positionally": lambda lib, np_: lib.jit(
        lambda x, n: x * n, static_argnames="n"
    )(X3, 3),
    "keyword argument": lambda lib, np_: lib.jit(lambda x, y: x - y)(X3, y=1.0),
    "pytree output": lambda lib, np_: lib.jit(lambda x: {"a": x, "b": (x, None)})(X3),
    "python float": lambda lib, np_: lib.jit(lambda x: x)(1.0),
    "python int": lambda lib, np_: lib.jit(lambda x: x)(1),
    "bool": lambda lib, np_: lib.jit(lambda x: x)(True),
    "float32 times weak": lambda lib, np_: lib.jit(lambda x: x * 2.0)(np.float32(1)),
    "constant output": lambda lib, np_: lib.jit(lambda x: 3)(1.0),
    "list output": lambda lib, np_: lib.jit(lambda x: [x, x])(1.0),
    "namedtuple": lambda lib, np_: lib.jit(lambda p: p._replace(a=p.a + 1))(Point(1.0, 2.0)),
}


@pytest.mark.parametrize("name", list(JIT_CASES))
def test_jit(name):
    assert_same(*both(JIT_CASES[name]))


@pytest.mark.parametrize("value", [1.5, np.float32(2.0), 3, True, X3])
def test_jit_output_weak_type_and_repr(value):
    jx, mx = both(lambda lib, np_: lib.jit(lambda x: x)(value))
    assert mx.weak_type == jx.weak_type
    assert repr(mx) == repr(jx)
    assert str(mx) == str(jx)


@pytest.mark.parametrize("shape", [(0,), (0, 2), (2, 0, 1)])
def test_empty_array_repr(shape):
    jx, mx = both(lambda lib, np_: lib.jit(lambda x: x)(np.zeros(shape)))
    assert repr(mx) == repr(jx)


def test_lower_as_text_and_compile():
    for lib, _ in LIBS.values():
        lowered = lib.jit(lambda x: x * 2.0).lower(np.ones(3))
        text = lowered.as_text()
        assert "stablehlo.multiply" in text
        assert "tensor<3xf64>" in text
        np.testing.assert_array_equal(lowered.compile()(np.ones(3)), [2.0, 2.0, 2.0])


# --- grad, value_and_grad ---------------------------------------------------------------------

GRAD_CASES = {
    "basic": lambda lib, np_: lib.grad(f1)(X3, 2.0),
    "argnums=1": lambda lib, np_: lib.grad(f1, argnums=1)(X3, 2.0),
    "argnums tuple": lambda lib, np_: lib.grad(f1, argnums=(0, 1))(X3, 2.0),
    "argnums (1,)": lambda lib, np_: lib.grad(f1, argnums=(1,))(X3, 2.0),
    "negative argnums": lambda lib, np_: lib.grad(f1, argnums=-1)(X3, 2.0),
    "has_aux": lambda lib, np_: lib.grad(
        lambda x: (x.sum() ** 2, {"aux": x * 2, "n": 3}), has_aux=True
    )(X3),
    "value_and_grad": lambda lib, np_: lib.value_and_grad(f1)(X3, 2.0),
    "value_and_grad tuple has_aux": lambda lib, np_: lib.value_and_grad(
        lambda x, y: ((x * y).sum(), x), argnums=(0, 1), has_aux=True
    )(X3, 2.0),
    "float32": lambda lib, np_: lib.grad(lambda x: x * x)(np.float32(3)),
    "dict argument": lambda lib, np_: lib.grad(lambda p: p["w"].sum() * p["b"])(
        {"w": X3, "b": 2.0}
    ),
    "list argument": lambda lib, np_: lib.grad(lambda p: p[0] * p[1])([2.0, 3.0]),
    "OrderedDict argument": lambda lib, np_: lib.grad(lambda p: p["b"] * p["a"])(
        OrderedDict(b=3.0, a=2.0)
    ),
    "keyword argument": lambda lib, np_: lib.grad(lambda x, y: x * y)(2.0, y=3.0),
}


@pytest.mark.parametrize("name", list(GRAD_CASES))
def test_grad(name):
    assert_same(*both(GRAD_CASES[name]))


@pytest.mark.parametrize(
    "fun",
    [lambda x: x * 2, lambda x: x.astype(complex).sum()],
    ids=["non-scalar output", "complex output"],
)
def test_grad_rejects_what_jax_rejects(fun):
    for lib, _ in LIBS.values():
        with pytest.raises(TypeError):
            lib.grad(fun)(X3)


# --- jvp, linearize, vjp ----------------------------------------------------------------------

FORWARD_CASES = {
    "jvp": lambda lib, np_: lib.jvp(np_.sin, (X3,), (np.ones(3),)),
    "jvp pytree": lambda lib, np_: lib.jvp(
        lambda p: {"s": p["a"] * p["b"]}, ({"a": 2.0, "b": 3.0},), ({"a": 1.0, "b": 0.0},)
    ),
    "jvp has_aux": lambda lib, np_: lib.jvp(
        lambda x: (x * 2, {"x": x}), (np.ones(2),), (np.ones(2),), has_aux=True
    ),
    "linearize": lambda lib, np_: (lambda r: (r[0], r[1](2.0)))(
        lib.linearize(lambda x: np_.sin(x) * x, 1.0)
    ),
    "linearize pytree": lambda lib, np_: (lambda r: (r[0], r[1]({"a": 1.0, "b": 2.0})))(
        lib.linearize(lambda p: (p["a"] * p["b"], p["a"]), {"a": 2.0, "b": 3.0})
    ),
    "vjp": lambda lib, np_: (lambda r: (r[0], r[1](np.ones(3))))(lib.vjp(np_.sin, X3)),
    "vjp two args": lambda lib, np_: (lambda r: (r[0], r[1](1.0)))(
        lib.vjp(lambda x, y: x * y, 2.0, 3.0)
    ),
    "vjp has_aux": lambda lib, np_: (lambda r: (r[0], r[1](np.ones(2)), r[2]))(
        lib.vjp(lambda x: (x * 2, {"a": x}), np.ones(2), has_aux=True)
    ),
    "vjp pytree output": lambda lib, np_: (lambda r: (r[0], r[1]({"a": 1.0, "b": [1.0]})))(
        lib.vjp(lambda x: {"a": x * 1.0, "b": [x * x]}, 2.0)
    ),
    "vjp integer argument": lambda lib, np_: lib.vjp(lambda x, n: x * n, 2.0, 3)[1](1.0),
}


@pytest.mark.parametrize("name", list(FORWARD_CASES))
def test_jvp_linearize_vjp(name):
    assert_same(*both(FORWARD_CASES[name]))


# --- vmap and the Jacobian family -------------------------------------------------------------

B = np.arange(24.0).reshape(2, 3, 4)
VMAP_CASES = {
    "default": lambda lib, np_: lib.vmap(lambda x: x.sum())(M),
    "in_axes=1": lambda lib, np_: lib.vmap(lambda x: x.sum(), in_axes=1)(M),
    "in_axes=-1": lambda lib, np_: lib.vmap(lambda x: x * 2, in_axes=-1)(B),
    "out_axes=-1": lambda lib, np_: lib.vmap(lambda x: x * 2, out_axes=-1)(B),
    "None in_axes": lambda lib, np_: lib.vmap(lambda x, y: x * y, in_axes=(0, None))(M, X3),
    "list in_axes": lambda lib, np_: lib.vmap(lambda x, y: x * y, in_axes=[0, None])(M, X3),
    "dict in_axes": lambda lib, np_: lib.vmap(
        lambda p: p["a"] * p["b"], in_axes=({"a": 0, "b": None},)
    )({"a": M, "b": X3}),
    "pytree out_axes": lambda lib, np_: lib.vmap(lambda x: (x, x), out_axes=(0, 1))(M),
    "dict out_axes": lambda lib, np_: lib.vmap(
        lambda x: {"a": x, "b": x}, out_axes={"a": 0, "b": 1}
    )(M),
    "None out_axes": lambda lib, np_: lib.vmap(
        lambda x, y: (x * 2, y), in_axes=(0, None), out_axes=(0, None)
    )(M, X3),
    "axis_size": lambda lib, np_: lib.vmap(lambda: np_.ones(2), axis_size=3)(),
    "unbatched output": lambda lib, np_: lib.vmap(lambda x: 1.0)(X3),
    "keyword argument": lambda lib, np_: lib.vmap(lambda x, y: x + y)(M, y=M),
    "None argument": lambda lib, np_: lib.vmap(lambda x, y: x)(X3, None),
}


@pytest.mark.parametrize("name", list(VMAP_CASES))
def test_vmap(name):
    assert_same(*both(VMAP_CASES[name]))


JACOBIAN_CASES = {
    "jacfwd": lambda lib, np_: lib.jacfwd(lambda x: np_.sin(x) * x.sum())(X3),
    "jacrev": lambda lib, np_: lib.jacrev(lambda x: np_.sin(x) * x.sum())(X3),
    "jacfwd argnums tuple": lambda lib, np_: lib.jacfwd(lambda x, y: x * y, argnums=(0, 1))(
        X3, 2.0
    ),
    "jacrev argnums tuple": lambda lib, np_: lib.jacrev(lambda x, y: x * y, argnums=(0, 1))(
        X3, 2.0
    ),
    "jacrev pytrees": lambda lib, np_: lib.jacrev(lambda p: {"o": p["a"] * p["b"]})(
        {"a": X3, "b": 2.0}
    ),
    "jacfwd matrix": lambda lib, np_: lib.jacfwd(lambda x: x @ x.T)(M),
    "hessian": lambda lib, np_: lib.hessian(lambda x: (x**3).sum())(X3),
    "hessian argnums tuple": lambda lib, np_: lib.hessian(
        lambda x, y: (x**2 * y).sum(), argnums=(0, 1)
    )(X3, 2.0),
    "hessian pytree": lambda lib, np_: lib.hessian(lambda p: (p["a"] ** 2).sum() * p["b"])(
        {"a": X3, "b": 2.0}
    ),
    "jacrev has_aux": lambda lib, np_: lib.jacrev(lambda x: (x * 2, x), has_aux=True)(X3),
    "jacrev tuple output": lambda lib, np_: lib.jacrev(lambda x: (x, x.sum()))(X3),
}


@pytest.mark.parametrize("name", list(JACOBIAN_CASES))
def test_jacobians(name):
    assert_same(*both(JACOBIAN_CASES[name]))


# --- make_jaxpr, eval_jaxpr -------------------------------------------------------------------


def test_make_jaxpr_avals_consts_and_return_shape():
    def f(x, y):
        return {"a": x * y + np.ones(3), "b": (x, x.sum())}

    jc, mc = jax.make_jaxpr(f)(X3, 2.0), mj.make_jaxpr(f)(X3, 2.0)
    assert [str(a) for a in mc.in_avals] == [str(a) for a in jc.in_avals]
    assert [str(a) for a in mc.out_avals] == [str(a) for a in jc.out_avals]
    _, j_shape = jax.make_jaxpr(f, return_shape=True)(X3, 2.0)
    _, m_shape = mj.make_jaxpr(f, return_shape=True)(X3, 2.0)
    assert structure(m_shape) == structure(j_shape)
    jcs = jax.make_jaxpr(lambda x, n: x * n, static_argnums=1)(X3, 3)
    mcs = mj.make_jaxpr(lambda x, n: x * n, static_argnums=1)(X3, 3)
    assert len(mcs.in_avals) == len(jcs.in_avals) == 1
    sds_j = jax.make_jaxpr(lambda x: x * 2)(jax.ShapeDtypeStruct((2, 3), np.float32))
    sds_m = mj.make_jaxpr(lambda x: x * 2)(mj.ShapeDtypeStruct((2, 3), np.float32))
    assert [str(a) for a in sds_m.out_avals] == [str(a) for a in sds_j.out_avals]


def test_eval_jaxpr_matches():
    def f(x):
        return x * 2 + np.ones(3)

    jc, mc = jax.make_jaxpr(f)(X3), mj.make_jaxpr(f)(X3)
    expected = jax.core.eval_jaxpr(jc.jaxpr, jc.consts, X3)
    assert_same(expected, mj.eval_jaxpr(mc.jaxpr, [*mc.consts, X3]))
    assert_same(expected, mc(X3))


# --- custom_jvp / custom_vjp ------------------------------------------------------------------


def _custom_jvp_results(lib, np_):
    @lib.custom_jvp
    def f(x, y):
        return np_.sin(x) * y

    @f.defjvp
    def f_jvp(primals, tangents):
        x, y = primals
        xd, yd = tangents
        return f(x, y), np_.cos(x) * xd * y + np_.sin(x) * yd

    return (
        f(2.0, 3.0),
        lib.grad(f)(2.0, 3.0),
        lib.jvp(f, (2.0, 3.0), (1.0, 0.0)),
        lib.jit(lib.grad(f, argnums=(0, 1)))(2.0, 3.0),
        lib.vmap(f)(X3, X3),
    )


def _custom_vjp_results(lib, np_):
    @lib.custom_vjp
    def f(x, y):
        return np_.sin(x) * y

    def fwd(x, y):
        return f(x, y), (np_.cos(x), np_.sin(x), y)

    def bwd(res, g):
        c, s, y = res
        return (c * g * y, s * g)

    f.defvjp(fwd, bwd)
    return (
        f(2.0, 3.0),
        lib.grad(f, argnums=(0, 1))(2.0, 3.0),
        lib.jit(lib.grad(f))(2.0, 3.0),
        lib.vmap(lib.grad(f))(X3, X3),
        lib.vjp(f, 2.0, 3.0)[1](1.0),
    )


@pytest.mark.parametrize("results", [_custom_jvp_results, _custom_vjp_results])
def test_custom_derivatives(results):
    jx, mx = both(results)
    # eager mj values carry no weak type; compare dtypes, shapes and values
    assert_same(jx, mx)


def test_custom_vjp_rejects_jvp_like_jax():
    for lib, _ in LIBS.values():

        @lib.custom_vjp
        def f(x):
            return x * 2

        f.defvjp(lambda x: (f(x), None), lambda r, g: (g * 2,))
        with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
            lib.jvp(f, (1.0,), (1.0,))


# --- device_put, Array --------------------------------------------------------------------------


@pytest.mark.parametrize("value", [X3, 1.0, 1, np.float32(1), [1.0, 2.0], {"a": X3, "b": [1, 2.0]}])
def test_device_put(value):
    jx, mx = both(lambda lib, np_: lib.device_put(value))
    assert_same(jx, mx)
    for a, b in zip(jax.tree_util.tree_leaves(jx), mj.tree_util.tree_leaves(mx), strict=True):
        assert isinstance(b, mj.Array)
        assert b.weak_type == a.weak_type


ARRAY_EXPRESSIONS = [
    "x[0]", "x[1:]", "x[:, 1]", "x[..., None]", "x[None]", "x[-1, -1]",
    "x[np.array([0, 2])]", "x[x > 5]", "x[1, ::2]", "x[::-1]", "x.T", "x.sum()", "x.sum(0)",
    "x.mean(axis=1, keepdims=True)", "x.reshape(-1)", "x.reshape(2, 6)", "x.astype(np.int32)",
    "x @ x.T", "x + 1", "1 - x", "x / 2", "x // 2", "x % 3", "x ** 2", "-x", "abs(-x)",
    "x > 3", "(x > 3) & (x < 8)", "x.at[0, 0].set(100.0)", "x.at[:, 1].add(1.0)", "x.max()",
    "x.argmax(axis=1)", "x.cumsum(axis=1)", "x.ravel()", "x.std()", "x.clip(2, 5)",
    "x.swapaxes(0, 1)", "x.transpose(1, 0)", "x.dot(x.T)", "x.item(3)", "x.nbytes",
    "x.itemsize", "x.shape", "x.ndim", "x.size", "len(x)", "float(x[0, 1])", "x.tolist()",
    "x == None",
]  # fmt: skip


@pytest.mark.parametrize("expr", ARRAY_EXPRESSIONS)
def test_array_operations(expr):
    def run(lib, np_):
        x = lib.jit(lambda v: v)(np.arange(12.0).reshape(3, 4))  # noqa: F841 (used by eval)
        return eval(expr)

    assert_same(*both(run))


@pytest.mark.parametrize("container", [[1.0, 2.0, 3.0, 4.0], (1.0, 2.0, 3.0, 4.0)])
def test_array_rejects_python_containers_like_jax(container):
    for lib, _ in LIBS.values():
        x = lib.jit(lambda v: v)(np.ones(4))
        with pytest.raises(TypeError):
            x + container
        with pytest.raises(TypeError):
            x == container  # noqa: B015


# --- tree_util ----------------------------------------------------------------------------------


class _Box:
    def __init__(self, a, b):
        self.a, self.b = a, b


for _tu in (jax.tree_util, mj.tree_util):
    _tu.register_pytree_node(_Box, lambda b: ((b.a, b.b), ("meta", 1)), lambda aux, c: _Box(*c))

TREES = [
    1, None, (), [], {}, (1, 2), [1, (2, 3)], {"b": 1, "a": [2, None]}, Point(1, (2,)),
    OrderedDict(b=1, a=2), defaultdict(list, {"b": 1, "a": 2}), [None, 1], {"x": {}},
    np.ones(2), (1, {"k": [1, None, ()]}), _Box(1, [2, 3]),
]  # fmt: skip


@pytest.mark.parametrize("tree", TREES, ids=[type(t).__name__ for t in TREES])
def test_tree_util(tree):
    jt, mt = jax.tree_util, mj.tree_util
    jdef, mdef = jt.tree_structure(tree), mt.tree_structure(tree)
    assert repr(mdef) == repr(jdef)
    assert str(mdef) == str(jdef)
    assert mdef.num_leaves == jdef.num_leaves
    assert mdef.num_nodes == jdef.num_nodes
    assert [repr(c) for c in mdef.children()] == [repr(c) for c in jdef.children()]
    assert [type(x) for x in mt.tree_leaves(tree)] == [type(x) for x in jt.tree_leaves(tree)]
    leaves = list(range(100, 100 + jdef.num_leaves))
    j_back, m_back = jt.tree_unflatten(jdef, leaves), mt.tree_unflatten(mdef, leaves)
    assert repr(mt.tree_structure(m_back)) == repr(jt.tree_structure(j_back))
    assert mt.tree_leaves(m_back) == jt.tree_leaves(j_back)


def test_tree_util_helpers():
    jt, mt = jax.tree_util, mj.tree_util
    add = lambda a, b: a + b  # noqa: E731
    assert mt.tree_map(add, (1, [2]), (10, [20])) == jt.tree_map(add, (1, [2]), (10, [20]))
    is_tuple = lambda x: isinstance(x, tuple)  # noqa: E731
    pairs = [(1, 2), (3,)]
    assert mt.tree_map(len, pairs, is_leaf=is_tuple) == jt.tree_map(len, pairs, is_leaf=is_tuple)
    assert mt.tree_reduce(add, [1, (2, 3)]) == jt.tree_reduce(add, [1, (2, 3)])
    assert mt.tree_all([True, (True, False)]) == jt.tree_all([True, (True, False)])
    outer, inner = ([0, 0], (0, 0))
    assert mt.tree_transpose(
        mt.tree_structure(outer), mt.tree_structure(inner), [(1, 2), (3, 4)]
    ) == jt.tree_transpose(jt.tree_structure(outer), jt.tree_structure(inner), [(1, 2), (3, 4)])
    assert mt.Partial(add, 1)(2) == jt.Partial(add, 1)(2)
    assert repr(mt.tree_structure(mt.Partial(add, 1.0)).num_leaves) == repr(
        jt.tree_structure(jt.Partial(add, 1.0)).num_leaves
    )
    with pytest.raises(ValueError, match=r"(?i)structure"):
        mt.tree_map(add, (1, 2), (1, 2, 3))


# --- mj.lax helpers -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("square", (X3,)), ("reciprocal", (X3 + 1,)), ("exp2", (X3,)), ("cbrt", (-X3,)),
        ("asinh", (X3,)), ("acosh", (X3 + 1,)), ("atanh", (X3 / 4,)),
        ("reduce_sum", (M, (0,))), ("argmax", (M, 1, np.int32)), ("cumsum", (M, 1)),
        ("broadcast_in_dim", (X3, (2, 3), (1,))), ("pad", (M, 0.0, ((1, 0, 0), (0, 1, 1)))),
        ("dynamic_slice", (M, (1, 1), (1, 2))), ("dot_general", (M, M, (((1,), (1,)), ((), ())))),
        ("sort_key_val", (np.array([3.0, 1.0, 2.0]), np.array([0, 1, 2]))),
        ("round", (np.array([0.5, 1.5, -2.5]),)), ("rem", (-np.arange(6).reshape(2, 3), 4)),
        ("div", (-np.arange(6).reshape(2, 3), 4)),
    ],
)  # fmt: skip
def test_lax_ops(name, args):
    jx = getattr(jax.lax, name)(*args)
    mx = getattr(mj.lax, name)(*args)
    assert_same(jx, mx)
