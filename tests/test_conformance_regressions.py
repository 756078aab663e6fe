"""Regression tests for the places where mj behaved differently from JAX (found by the JAX
conformance audit; the oracle counterparts are in tests/oracle/test_oracle_api.py)."""

import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj import lax

# --- array operators defer to unrecognised operands, reject containers ----------------------


def test_comparison_with_a_foreign_object_falls_back_to_identity():
    x = mj.jit(lambda x: x)(np.ones(2))
    assert (x == None) is False  # noqa: E711
    assert (x != "a") is True


def test_array_compares_with_pytest_approx():
    assert mj.jit(lambda x: x * 2)(1.5) == pytest.approx(3.0)
    assert mj.jit(lambda x: x * 2)(np.ones(2)) == pytest.approx([2.0, 2.0])


@pytest.mark.parametrize("container", [[1.0, 2.0], (1.0, 2.0)])
def test_python_containers_are_rejected_as_operands(container):
    x = mj.jit(lambda x: x)(np.ones(2))
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \+: 'Array' and"):
        x + container
    with pytest.raises(TypeError, match=r"for \*: '(list|tuple)' and 'Array'"):
        container * x
    with pytest.raises(TypeError, match="=="):
        x == container  # noqa: B015


def test_tracers_reject_containers_too():
    def f(x):
        return x + [1.0, 2.0]  # noqa: RUF005

    with pytest.raises(TypeError, match=r"for \+: '\w+Tracer' and 'list'"):
        mj.grad(lambda x: mnp.sum(f(x)))(np.ones(2))


def test_reflected_operators_still_work_for_scalars_and_arrays():
    x = mj.jit(lambda x: x)(np.arange(3.0))
    np.testing.assert_array_equal(2.0 - x, [2.0, 1.0, 0.0])
    np.testing.assert_array_equal(np.ones(3) + x, [1.0, 2.0, 3.0])
    assert mj.grad(lambda x: 1.0 / x)(2.0) == -0.25
    assert float(lax.add(x, 1.0)[2]) == 3.0


# --- tree_util: JAX's PyTreeDef repr, OrderedDict/defaultdict nodes, the extra helpers -------


def test_pytreedef_repr_matches_jax():
    from collections import namedtuple

    from mj import tree_util as tu

    point = namedtuple("point", "a b")

    class Box:
        def __init__(self, a, b):
            self.a, self.b = a, b

    tu.register_pytree_node(Box, lambda b: ((b.a, b.b), ("meta", 1)), lambda aux, ch: Box(*ch))
    assert (
        repr(tu.tree_structure({"a": 1, "b": (2, None)})) == "PyTreeDef({'a': *, 'b': (*, None)})"
    )
    assert repr(tu.tree_structure((1,))) == "PyTreeDef((*,))"
    assert repr(tu.tree_structure(point(1, point(2, 3)))) == (
        "PyTreeDef(CustomNode(namedtuple[point], [*, CustomNode(namedtuple[point], [*, *])]))"
    )
    assert repr(tu.tree_structure(Box(1, [2]))) == (
        "PyTreeDef(CustomNode(Box[('meta', 1)], [*, [*]]))"
    )


def test_ordered_dict_and_defaultdict_are_nodes():
    from collections import OrderedDict, defaultdict

    from mj import tree_util as tu

    od = OrderedDict(b=1.0, a=2.0)
    assert tu.tree_leaves(od) == [1.0, 2.0]  # insertion order, not sorted
    assert repr(tu.tree_structure(od)) == ("PyTreeDef(CustomNode(OrderedDict[('b', 'a')], [*, *]))")
    doubled = tu.tree_map(lambda x: x * 2, od)
    assert type(doubled) is OrderedDict
    assert list(doubled.items()) == [("b", 2.0), ("a", 4.0)]
    dd = defaultdict(list, {"b": 1.0, "a": 2.0})
    assert tu.tree_leaves(dd) == [2.0, 1.0]  # sorted keys, like dict
    back = tu.tree_map(lambda x: x + 1, dd)
    assert type(back) is defaultdict
    assert back.default_factory is list
    assert dict(back) == {"a": 3.0, "b": 2.0}
    grads = mj.grad(lambda p: p["b"] * p["a"])(OrderedDict(b=3.0, a=2.0))
    assert type(grads) is OrderedDict
    assert list(grads.items()) == [("b", 2.0), ("a", 3.0)]


def test_treedef_children_is_a_method_and_helpers_exist():
    from mj import tree_util as tu

    treedef = tu.tree_structure((1, [2, 3]))
    assert treedef.children() == [tu.tree_structure(0), tu.tree_structure([0, 0])]
    assert tu.treedef_children(treedef) == treedef.children()
    assert treedef.num_nodes == 5
    assert tu.treedef_is_leaf(tu.tree_structure(1.0))
    assert not tu.treedef_is_leaf(treedef)
    assert treedef.flatten_up_to(({"x": 1}, [2, (3,)])) == [{"x": 1}, 2, (3,)]
    assert tu.tree_reduce(lambda a, b: a + b, [1, (2, 3)]) == 6
    assert tu.tree_reduce(lambda a, b: a + b, [], 10) == 10
    assert tu.tree_all([True, (True, False)]) is False
    assert tu.all_leaves([1, 2.0, None]) is False
    assert tu.all_leaves([1, 2.0])
    outer, inner = tu.tree_structure([0, 0]), tu.tree_structure((0, 0))
    assert tu.tree_transpose(outer, inner, [(1, 2), (3, 4)]) == ([1, 3], [2, 4])


def test_partial_is_a_pytree_that_passes_through_jit():
    from mj import tree_util as tu

    add_one = tu.Partial(mnp.add, 1.0)
    assert tu.tree_leaves(add_one) == [1.0]
    out = mj.jit(lambda f, x: f(x))(add_one, 2.0)
    assert float(out) == 3.0
    assert tu.Partial(tu.Partial(lambda a, b, c: a + 10 * b + 100 * c, 1), 2)(3) == 321


# --- API additions JAX users rely on ----------------------------------------------------------


def test_jvp_has_aux_returns_primal_aux():
    def f(x):
        return x * x, {"x": x, "n": 3}

    y, y_dot, aux = mj.jvp(f, (3.0,), (1.0,), has_aux=True)
    assert (y, y_dot) == (9.0, 6.0)
    assert aux == {"x": 3.0, "n": 3}
    y, y_dot, aux = mj.jit(lambda x: mj.jvp(f, (x,), (2.0,), has_aux=True))(3.0)
    assert (float(y), float(y_dot), float(aux["x"])) == (9.0, 12.0, 3.0)
    # nested: the inner aux is the inner primal, still differentiable by the outer jvp
    inner_aux = mj.jvp(lambda x: mj.jvp(lambda y: (y * x, y), (x,), (1.0,), has_aux=True)[2],
                       (2.0,), (1.0,))  # fmt: skip
    assert inner_aux == (2.0, 1.0)
    with pytest.raises(TypeError, match="has_aux=True must return a pair"):
        mj.jvp(lambda x: x, (1.0,), (1.0,), has_aux=True)


def test_empty_array_repr_shows_its_shape():
    for shape in [(0,), (0, 2), (2, 0, 1)]:
        x = mj.jit(lambda x: x)(np.zeros(shape))
        assert repr(x) == f"Array([], shape={shape}, dtype=float64)"
    assert repr(mj.jit(lambda x: x)(np.ones(2))) == "Array([1., 1.], dtype=float64)"


def test_array_item_nbytes_itemsize():
    x = mj.jit(lambda x: x)(np.arange(12.0).reshape(3, 4))
    assert x.item(3) == 3.0
    assert x.item(1, 2) == 6.0
    assert (x.nbytes, x.itemsize) == (96, 8)
    assert mj.jit(lambda x: x)(np.float32(1.0)).nbytes == 4


def test_config_accepts_jax_enable_x64():
    mj.config.update("jax_enable_x64", True)  # the line every x64 JAX script starts with
    assert mj.config.jax_enable_x64 is True
    assert mnp.ones(2).dtype == np.float64
    mj.config.update("jax_enable_x64", False)  # JAX's default mode: 32-bit types
    try:
        assert mnp.ones(2).dtype == np.float32
    finally:
        mj.config.update("jax_enable_x64", True)  # this suite's mode (see conftest.py)


def test_shaped_array_str_is_jax_short_form():
    closed = mj.make_jaxpr(lambda x, y: (x, y))(np.ones((2, 3), np.float32), 2.0)
    assert [str(a) for a in closed.in_avals] == ["float32[2,3]", "~float64[]"]
    assert repr(closed.in_avals[0]) == "ShapedArray(shape=(2, 3), dtype=float32)"


def test_partial_eval_jaxpr_takes_autodidax_arguments():
    import mj_autodiff

    closed = mj.make_jaxpr(lambda x, t: mj.jvp(lambda y: lax.neg(lax.sin(y)), (x,), (t,)))(3.0, 1.0)
    known, unknown, out_unknowns, num_res = mj_autodiff.extend.partial_eval_jaxpr(
        closed.jaxpr, [False, True], None
    )
    assert (out_unknowns, num_res) == ([False, True], 1)
    y, res = known(3.0)
    assert y == -np.sin(3.0)
    assert unknown(res, 1.0) == [-np.cos(3.0)]


def test_lax_has_jax_elementwise_helpers():
    x = np.array([0.5, 1.5, 2.5])
    np.testing.assert_allclose(lax.square(x), x**2)
    np.testing.assert_allclose(lax.reciprocal(x), 1 / x)
    np.testing.assert_allclose(lax.exp2(x), 2**x)
    np.testing.assert_allclose(lax.cbrt(-x), np.cbrt(-x))
    np.testing.assert_allclose(lax.asinh(x), np.arcsinh(x))
    np.testing.assert_allclose(lax.acosh(x + 1), np.arccosh(x + 1))
    np.testing.assert_allclose(lax.atanh(x / 3), np.arctanh(x / 3))
    assert mj.grad(lax.square)(3.0) == 6.0


def test_jit_accepts_buffer_donation_hints():
    f = mj.jit(lambda x, y: x + y, donate_argnums=0, donate_argnames=("y",))
    np.testing.assert_array_equal(f(np.ones(2), y=np.ones(2)), [2.0, 2.0])


def test_an_eager_index_array_indexes_inside_jit():
    """An mj eager array used as an index inside ``jit`` is a constant, not a traced value
    (its negative entries are normalised with NumPy, not with mj's operators)."""
    idx = mnp.asarray(np.array([0, -1, 1]))
    x = np.arange(4.0)
    np.testing.assert_array_equal(mj.jit(lambda v: v[idx])(x), x[[0, -1, 1]])
    want = x.copy()
    want[[0, -1, 1]] = 7.0
    np.testing.assert_array_equal(mj.jit(lambda v: v.at[idx].set(7.0))(x), want)


def test_nonzero_without_size_works_under_grad_and_asks_for_size_under_jit():
    """As in JAX: grad keeps values concrete, jit needs a static ``size``."""
    x = np.array([1.0, -2.0, 3.0])
    g = mj.grad(lambda v: mnp.sum(v[mnp.nonzero(v > 0)] ** 2))(x)
    np.testing.assert_array_equal(g, [2.0, 0.0, 6.0])
    with pytest.raises(mj.errors.ConcretizationError, match=r"nonzero: .*size="):
        mj.jit(lambda v: mnp.nonzero(v))(x)
