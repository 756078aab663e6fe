"""mj refuses what JAX refuses (issue 24), with the same built-in exception class (JAX's own
classes, such as ``ConcretizationTypeError``, derive from the built-in one mj's derive from),
and accepts what JAX accepts with JAX's answer.

One deliberate difference: a creation larger than the machine's memory is JAX's
``JaxRuntimeError`` (RESOURCE_EXHAUSTED) but mj's ``ResourceExhaustedError``, a
``MemoryError`` (mj has no runtime error class of its own)."""

from fractions import Fraction

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp
import mj.tree_util as mtu

pytestmark = pytest.mark.oracle

BUILTINS = (OverflowError, TypeError, ValueError)


def _raised(call):
    try:
        call()
    except Exception as err:  # the class is what is compared
        return err
    raise AssertionError("expected an exception")


def _builtin_class(err):
    return next(c for c in BUILTINS if isinstance(err, c))


CASES = {
    "duplicate argnums": lambda api, np_: api.grad(lambda x, y: x * y, argnums=(0, 0))(2.0, 3.0),
    "duplicate argnums jacrev": lambda api, np_: api.jacrev(lambda x, y: x * y, argnums=(1, 1))(
        2.0, 3.0
    ),
    "float under grad": lambda api, np_: api.grad(lambda x: x * float(x))(3.0),
    "complex under grad": lambda api, np_: api.grad(lambda x: x * complex(x).real)(3.0),
    "float under jit": lambda api, np_: api.jit(lambda x: float(x))(3.0),
    "object": lambda api, np_: np_.asarray(object()),
    "str array": lambda api, np_: np_.asarray(np.array(["a"])),
    "bytes array": lambda api, np_: np_.asarray(np.array([b"a"])),
    "Fraction": lambda api, np_: np_.asarray(Fraction(1, 2)),
    "None in a list": lambda api, np_: np_.asarray([1.0, None]),
    "datetime64": lambda api, np_: np_.asarray(np.array(["2020-01-01"], "datetime64[D]")),
    "float128": lambda api, np_: np_.asarray(np.ones(2, np.longdouble)),
    "dtype=object": lambda api, np_: np_.asarray([1, 2], dtype=object),
    "zeros dtype=str": lambda api, np_: np_.zeros(3, dtype=str),
    "int beyond int64": lambda api, np_: np_.asarray(2**70),
    "int beyond int64 in a list": lambda api, np_: np_.asarray([1, 2**70]),
    "masked array": lambda api, np_: np_.asarray(np.ma.array([1.0, 2.0], mask=[0, 1])),
    "masked array to sin": lambda api, np_: np_.sin(np.ma.array([1.0, 2.0], mask=[0, 1])),
    "masked array to jit": lambda api, np_: api.jit(np_.sin)(np.ma.array([1.0], mask=[1])),
    "str array to jit": lambda api, np_: api.jit(lambda x: x)(np.array(["a"])),
    "jit(3)": lambda api, np_: api.jit(3),
    "static_argnames naming no parameter": lambda api, np_: api.jit(
        lambda x: x, static_argnames="y"
    ),
    "unhashable static argument to make_jaxpr": lambda api, np_: api.make_jaxpr(
        lambda x, s: x, static_argnums=1
    )(1.0, [1]),
    "unhashable static argument to jit": lambda api, np_: api.jit(lambda x, s: x, static_argnums=1)(
        1.0, [1]
    ),
    "fori_loop int and float bounds": lambda api, np_: api.lax.fori_loop(
        0, 3.0, lambda i, c: c + i, 0.0
    ),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_refused_with_jax_exception_class(case):
    want = _raised(lambda: case(jax, jnp))
    got = _raised(lambda: case(mj, mnp))
    assert isinstance(got, _builtin_class(want)), (type(want), type(got), got)


def test_registering_a_pytree_type_twice():
    for tu in (jax.tree_util, mtu):

        class Node:
            pass

        tu.register_pytree_node(Node, lambda n: ((), None), lambda a, c: Node())
        with pytest.raises(ValueError, match="Duplicate custom PyTreeDef type registration"):
            tu.register_pytree_node(Node, lambda n: ((), None), lambda a, c: Node())


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-6)


ACCEPTED = {
    "fori_loop float bounds": lambda api, np_: api.lax.fori_loop(0.5, 3.7, lambda i, c: c + i, 0.0),
    "fori_loop traced float bounds": lambda api, np_: api.jit(
        lambda lo, hi: api.lax.fori_loop(lo, hi, lambda i, c: c + i, 0.0)
    )(0.5, 3.7),
    "inv of a zero matrix": lambda api, np_: np_.linalg.inv(np.zeros((2, 2))),
    "inv of a singular matrix": lambda api, np_: np_.linalg.inv(np.array([[1.0, 2.0], [2.0, 4.0]])),
    "solve with a zero matrix": lambda api, np_: np_.linalg.solve(np.zeros((2, 2)), np.ones(2)),
    "svd with a NaN": lambda api, np_: np_.linalg.svd(np.array([[np.nan, 1.0], [1.0, 1.0]]))[1],
    "svdvals with a NaN": lambda api, np_: np_.linalg.svd(
        np.array([[np.nan, 1.0], [1.0, 1.0]]), compute_uv=False
    ),
    "det of 0x0": lambda api, np_: np_.linalg.det(np.zeros((0, 0))),
    "slogdet of 0x0": lambda api, np_: np_.linalg.slogdet(np.zeros((0, 0)))[1],
    "int() under grad": lambda api, np_: api.grad(lambda x: x * int(x))(3.5),
}


@pytest.mark.parametrize("case", ACCEPTED.values(), ids=ACCEPTED.keys())
@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_accepted_with_jax_answer(case, jit):
    want = case(jax, jnp)
    got = mj.jit(lambda: case(mj, mnp))() if jit else case(mj, mnp)
    _same(got, want)
