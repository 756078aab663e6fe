"""More cases where JAX's own test files (issue 35) found mj raising where JAX computes, each
against JAX 0.10.2 in both dtype modes (the ``x64`` fixture)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj import lax as mlax

pytestmark = pytest.mark.oracle


def _close(ours, theirs, rtol=1e-6):
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.dtype == theirs.dtype
    np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=1e-6)


@pytest.mark.parametrize("linearize", [False, True])
def test_checkpointed_scan_closing_over_float64_array(x64, linearize):
    """grad / linearize of a checkpointed scan whose body closes over a float64 NumPy array
    (lax_control_flow_test's testScanGrad / testScanLinearize, impl=new_checkpoint). In
    32-bit mode the residual is narrowed to float32, and the jaxpr builder looked the
    constant up by the narrowed copy's id: KeyError."""
    d = np.random.RandomState(0).randn(2)
    c = np.random.RandomState(1).randn(4)
    as_ = np.random.RandomState(2).randn(5, 3)

    def make(np_, lax, checkpoint):
        def f(c, a):
            b = np_.sum(np_.sin(a)) + np_.sum(np_.sin(c)) + np_.sum(np_.sin(d))
            return np_.sin(c * b), b

        def loss(c, as_):
            return checkpoint(lambda c, as_: lax.scan(f, c, as_))(c, as_)[0].sum()

        return loss

    ours_f = make(mnp, mlax, mj.checkpoint)
    theirs_f = make(jnp, jax.lax, jax.checkpoint)
    if linearize:
        ours_out, ours_lin = mj.linearize(ours_f, c, as_)
        theirs_out, theirs_lin = jax.linearize(theirs_f, c, as_)
        _close(ours_out, theirs_out, rtol=1e-5)
        _close(ours_lin(c, as_), theirs_lin(c, as_), rtol=1e-4)
    else:
        for ours, theirs in zip(
            mj.grad(ours_f, (0, 1))(c, as_), jax.grad(theirs_f, (0, 1))(c, as_), strict=True
        ):
            _close(ours, theirs, rtol=1e-4)


def _outcome(f, *args):
    try:
        return np.asarray(f(*args))
    except OverflowError as e:
        return ("OverflowError", str(e))


@pytest.mark.parametrize("mode", [None, "fill", "clip", "promise_in_bounds", "one_hot"])
@pytest.mark.parametrize("wrap", [False, True])
@pytest.mark.parametrize("jit", [False, True])
def test_take_along_axis_narrow_index_dtype(x64, mode, wrap, jit):
    """take_along_axis with int8 indices into 200 elements: wrapping a negative index adds the
    axis size, so JAX first converts the indices to int32 (mj added -56, 200 as int8, or raised
    OverflowError); unwrapped, a negative index is out of bounds for the gather's mode (mj's
    replacement index, the axis size, overflowed int8)."""
    arr = np.arange(200, dtype=np.float32)
    idx = np.array([-1, 2, -100, 120], np.int8)

    def run(np_, jit_):
        def f(a, i):
            return np_.take_along_axis(a, i, 0, mode=mode, wrap_negative_indices=wrap)

        return _outcome(jit_(f) if jit else f, arr, idx)

    ours, theirs = run(mnp, mj.jit), run(jnp, jax.jit)
    assert not isinstance(theirs, tuple)
    _close(ours, theirs)


def test_take_along_axis_wrapping_upcasts_index_dtype(x64):
    """The gather's indices keep int8 unwrapped and are int32 when wrapped, as in JAX's jaxpr
    (lax_numpy_test's testTakeAlongAxisPromiseInBounds*Dtype)."""
    arr = np.arange(200, dtype=np.float32)
    idx = np.array([1, 2, 3], np.int8)

    def index_dtypes(make_jaxpr, np_, wrap):
        def f(i):
            return np_.take_along_axis(
                arr, i, axis=0, mode="promise_in_bounds", wrap_negative_indices=wrap
            )

        found = []
        stack = [make_jaxpr(f)(idx).jaxpr]
        while stack:
            for eqn in stack.pop().eqns:
                if eqn.primitive.name == "gather":
                    found.append(np.dtype(eqn.invars[1].aval.dtype))
                for p in eqn.params.values():
                    inner = getattr(p, "jaxpr", None)
                    if inner is not None:
                        stack.append(getattr(inner, "jaxpr", inner))
        return found

    for wrap in (False, True):
        assert index_dtypes(mj.make_jaxpr, mnp, wrap) == index_dtypes(jax.make_jaxpr, jnp, wrap)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16])
@pytest.mark.parametrize("mode", [None, "fill"])
@pytest.mark.parametrize("jit", [False, True])
def test_indexing_with_narrow_index_dtype(x64, dtype, mode, jit):
    """x[i] / x.at[i].get(mode) with an 8-bit index into 300 elements: a uint8 index needs no
    wrapping (mj added 300 to it: OverflowError), an int8 one is NumPy's OverflowError in JAX
    (mj's jit wrapped it: 300 as int8 is 44, a wrong element), the fill mode's bound fits the
    index dtype (mj's 299 as uint8 raised)."""
    x = np.arange(300, dtype=np.float32)
    idx = np.array([255, 2, 100] if dtype == np.uint8 else [-1, 2, 100], dtype)

    def run(np_, jit_):
        f = (lambda a, i: a[i]) if mode is None else (lambda a, i: a.at[i].get(mode=mode))
        return _outcome(jit_(f) if jit else f, np_.asarray(x), idx)

    ours, theirs = run(mnp, mj.jit), run(jnp, jax.jit)
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple)
        assert ours[0] == theirs[0]
    else:
        _close(ours, theirs)


def test_jit_static_argument_cache_tells_equal_values_of_other_types_apart(x64):
    """jit(static_argnums) with 1, True, 1.0: equal and equally hashed, yet each its own trace
    and result, as in JAX (mj's cache returned 1's int result for True: api_test's
    test_jit_static_argnums_requires_type_equality)."""

    def results(jit):
        traced = []
        f = jit(lambda k: traced.append(k) or k, static_argnums=(0,))
        g = jit(lambda k: traced.append(k) or k, static_argnames=("k",))
        outs = [f(x) for x in (1, True, 1.0, 1, True)] + [g(k=x) for x in (1, True, 1.0)]
        return [(np.asarray(o).dtype, o.weak_type, o.item()) for o in outs], traced

    ours, theirs = results(mj.jit), results(jax.jit)
    assert ours == theirs
    assert [type(v) for v in ours[1]] == [int, bool, float, int, bool, float]


def test_jit_state_names_the_function(x64):
    """``jit(f).__getstate__()["function_name"]``: the function's name, a (nested) partial's
    function's unless the partial has a ``__name__`` (api_test's test_fun_name); jit
    functions still pickle."""
    import functools
    import pickle

    def my_function(x=1.0):
        return x

    named = functools.partial(my_function)
    named.__name__ = "my_partial"
    funs = [
        my_function,
        functools.partial(my_function),
        functools.partial(functools.partial(my_function)),
        named,
        lambda: my_function(),
    ]
    for fun in funs:
        theirs = jax.jit(fun).__getstate__()["function_name"]
        assert mj.jit(fun).__getstate__()["function_name"] == theirs
    again = pickle.loads(pickle.dumps(mj.jit(mnp.sin)))
    _close(again(np.float32(0.5)), jnp.sin(np.float32(0.5)))


def test_int_enum_member_is_a_python_int(x64):
    """An ``IntEnum`` member (a subclass of int) is a weakly typed Python int wherever JAX takes
    a value: returned from pmap / jit, as an argument, an operand of an array's operators, in
    asarray (api_test's test_constant_handler_mro; mj refused it: not a valid JAX type)."""
    import enum

    class Foo(enum.IntEnum):
        bar = 2

    class MyFloat(float):
        pass

    def cases(api, np_):
        return [
            api.pmap(lambda _: Foo.bar)(np_.arange(1)),
            api.jit(lambda: Foo.bar)(),
            api.jit(lambda x: x * 2)(Foo.bar),
            api.jit(lambda: MyFloat(1.5))(),
            np_.asarray(Foo.bar),
            np_.arange(3.0) * Foo.bar,
            Foo.bar - np_.arange(3),
            np_.add(np_.arange(3, dtype=np.int8), Foo.bar),
            np_.arange(4)[Foo.bar],
        ]

    for ours, theirs in zip(cases(mj, mnp), cases(jax, jnp), strict=True):
        assert ours.weak_type == theirs.weak_type
        _close(ours, theirs)
    ours, theirs = mj.typeof(Foo.bar), jax.typeof(Foo.bar)
    assert (ours.shape, ours.dtype, ours.weak_type) == (theirs.shape, theirs.dtype, True)
