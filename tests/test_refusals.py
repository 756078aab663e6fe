"""Inputs JAX refuses that mj used to accept (issue 24): each is refused at once, with JAX's
exception class and a message naming the API and what was wrong, instead of a silently wrong
gradient or an array that fails later. tests/oracle/test_oracle_refusals.py checks that JAX
raises the same classes."""

from datetime import date
from fractions import Fraction

import numpy as np
import pytest

import mj
import mj.numpy as mnp
import mj.tree_util as tu
from mj_core.errors import ConcretizationError

# --- silently wrong gradients ----------------------------------------------------------------


@pytest.mark.parametrize("api", [mj.grad, mj.value_and_grad, mj.jacfwd, mj.jacrev])
@pytest.mark.parametrize("argnums", [(0, 0), (1, -1)])
def test_duplicate_argnums_are_refused(api, argnums):
    """grad(f, argnums=(0, 0)) returned (0.0, 3.0): the second gradient overwrote the first."""
    with pytest.raises(TypeError, match=r"names the same argument more than once"):
        api(lambda x, y: x * y, argnums=argnums)(2.0, 3.0)


@pytest.mark.parametrize("convert", [float, complex])
@pytest.mark.parametrize(
    "transform",
    [
        lambda f: mj.grad(f)(3.0),  # eager tape
        lambda f: mj.jit(mj.grad(f))(3.0),
        lambda f: mj.jvp(f, (3.0,), (1.0,)),
        lambda f: mj.vmap(f)(np.ones(2)),
        lambda f: mj.jit(f)(3.0),
    ],
    ids=["grad", "jit-grad", "jvp", "vmap", "jit"],
)
def test_float_and_complex_of_a_traced_value_are_concretization_errors(convert, transform):
    """grad(lambda x: x * float(x))(3.) returned 3.0, dropping the derivative through float;
    JAX refuses float()/complex() of every tracer, even one whose value is known."""
    with pytest.raises(ConcretizationError, match=rf"problem arose with the `{convert.__name__}`"):
        transform(lambda x: x * convert(x).real)


def test_int_and_bool_of_a_differentiated_value_still_work_as_in_jax():
    """JAX lets int()/bool() read a concrete value under grad (the result has no derivative
    to lose): x * int(x) differentiates to int(x), the branch on bool(x > 0) is taken."""
    assert mj.grad(lambda x: x * int(x))(3.5) == 3.0
    assert mj.grad(lambda x: x**2 if bool(x > 0) else -x)(3.0) == 6.0


# --- data that is not numeric ----------------------------------------------------------------
NON_NUMERIC = {
    "str": np.array(["a", "b"]),
    "bytes": np.array([b"a"]),
    "datetime64": np.array(["2020-01-01"], dtype="datetime64[D]"),
    "float128": np.ones(2, np.longdouble),
    "str-list": ["a", "b"],
}
OBJECTS = {
    "object": object(),
    "Fraction": Fraction(1, 2),
    "date": date(2020, 1, 1),
}


@pytest.mark.parametrize("value", NON_NUMERIC.values(), ids=NON_NUMERIC.keys())
@pytest.mark.parametrize("api", [mnp.asarray, mnp.array, mj.jit(lambda x: x), mnp.sin])
def test_non_numeric_arrays_are_type_errors(api, value):
    refused = (
        r"not a valid mj array|not a valid JAX type|invalid operands|not an array"
        r"|does not accept dtype|as an abstract array"
    )
    with pytest.raises(TypeError, match=refused):
        api(value)


@pytest.mark.parametrize("value", OBJECTS.values(), ids=OBJECTS.keys())
def test_python_objects_are_type_errors_naming_the_value(value):
    with pytest.raises(TypeError, match=r"array: .* is not a valid mj array value"):
        mnp.asarray(value)


@pytest.mark.parametrize("dtype", [object, str, np.longdouble, "datetime64[s]"])
@pytest.mark.parametrize("api", [mnp.zeros, mnp.ones, lambda s, dtype: mnp.asarray([1], dtype)])
def test_non_numeric_dtype_arguments_are_type_errors(api, dtype):
    with pytest.raises(TypeError, match=r"JAX only supports number, bool, and string dtypes"):
        api(3, dtype=dtype)


@pytest.mark.parametrize("value", [2**70, [1, 2**70], -(2**70)], ids=["int", "in-list", "negative"])
def test_python_int_beyond_int64_is_an_overflow_error(value):
    """It became an object array (and grad over it returned a Python float). In a list, JAX's
    (NumPy's) wording, which does not repeat the value."""
    with pytest.raises(
        OverflowError,
        match=r"Python int -?1180591620717411303424 is too large|Python int too large to convert",
    ):
        mnp.asarray(value)


@pytest.mark.x32
@pytest.mark.parametrize("value", [2**40, [1, 2**40], -(2**31) - 1])
def test_python_int_beyond_int32_overflows_in_32_bit_mode(value):
    """As JAX: a Python int that does not fit the default int32 is refused, not wrapped."""
    with pytest.raises(OverflowError, match=r"too large to convert to int32|out of bounds for i"):
        mnp.array(value)
    assert mnp.array([2**31 - 1, -(2**31)]).tolist() == [2**31 - 1, -(2**31)]


@pytest.mark.parametrize(
    "api",
    [mnp.asarray, mnp.sin, mnp.sum, mj.jit(mnp.sin), lambda x: mj.grad(mnp.sum)(x)],
    ids=["asarray", "sin", "sum", "jit", "grad"],
)
def test_masked_arrays_are_refused_not_unmasked_silently(api):
    masked = np.ma.array([1.0, 2.0], mask=[False, True])
    with pytest.raises(ValueError, match=r"^numpy masked arrays are not supported.*arr.filled\(\)"):
        api(masked)


def test_none_in_data_is_a_value_error():
    with pytest.raises(ValueError, match=r"None is not a valid value"):
        mnp.asarray([1.0, None])


# --- API arguments ---------------------------------------------------------------------------
def test_jit_of_something_not_callable():
    with pytest.raises(TypeError, match=r"^Expected a callable value, got 3"):
        mj.jit(3)


def test_static_argnames_must_name_a_parameter():
    with pytest.raises(
        ValueError, match=r"argnames \{'y'\} in static_argnames.*parameters: \['x'\]"
    ):
        mj.jit(lambda x: x, static_argnames="y")
    with pytest.raises(
        ValueError, match=r"argnames \{'x'\} in static_argnames. These are positional"
    ):
        mj.jit(lambda x, /: x, static_argnames="x")  # positional-only: never a keyword
    # a **kwargs parameter takes any name
    assert mj.jit(lambda x, **kw: x * kw["n"], static_argnames="n")(2.0, n=3) == 6.0


def test_make_jaxpr_refuses_unhashable_static_arguments():
    with pytest.raises(ValueError, match=r"non-hashable static arguments.*argument 1 is a list"):
        mj.make_jaxpr(lambda x, s: x * len(s), static_argnums=1)(1.0, [1, 2])
    with pytest.raises(TypeError, match=r"non-hashable"):  # DESIGN's class for it, too
        mj.make_jaxpr(lambda x, s: x, static_argnums=1)(1.0, {})
    # jit's is JAX's ValueError too (and still the TypeError of its contract test)
    with pytest.raises(ValueError, match=r"static argument 1 is unhashable"):
        mj.jit(lambda x, s: x, static_argnums=1)(1.0, [1])
    closed = mj.make_jaxpr(lambda x, s: x * len(s), static_argnums=1)(1.0, (1, 2))
    assert mj.eval_jaxpr(closed.jaxpr, [*closed.consts, 1.5]) == [3.0]


def test_registering_a_pytree_type_twice_is_refused():
    class Pair:
        def __init__(self, a, b):
            self.a, self.b = a, b

    tu.register_pytree_node(Pair, lambda p: ((p.a, p.b), None), lambda _, c: Pair(*c))
    with pytest.raises(ValueError, match=r"Duplicate custom PyTreeDef type registration"):
        tu.register_pytree_node(Pair, lambda p: ((p.b,), p.a), lambda a, c: Pair(a, *c))
    assert tu.tree_leaves(Pair(1, 2)) == [1, 2]  # the first registration still holds


def _nested(depth):
    tree = 1.0
    for _ in range(depth):
        tree = [tree]
    return tree


@pytest.mark.parametrize("depth", [2_000, 50_000])
def test_deep_pytrees_give_a_clear_error_not_a_recursion_error(depth):
    for api in (tu.tree_leaves, lambda t: tu.tree_map(lambda x: x, t), tu.tree_flatten_with_path):
        with pytest.raises(ValueError, match=r"nested too deeply"):
            api(_nested(depth))
    assert tu.tree_leaves(_nested(200)) == [1.0]
