"""mj arrays own read-only data (issue 24), as JAX's do: NumPy input is copied where it enters
(``asarray``/``array``, ``vjp``/``linearize``, ``jit``), so a later write to the caller's array
changes nothing mj holds, and a NumPy view of an mj array cannot be written through."""

import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj_core import bind
from mj_core._primitive import Primitive

MAKERS = {
    "asarray": mnp.asarray,
    "array": mnp.array,
    "array-copy-false": lambda x: mnp.array(x, copy=False),
    "asarray-dtype": lambda x: mnp.asarray(x, x.dtype),
}


@pytest.mark.parametrize("make", MAKERS.values(), ids=MAKERS.keys())
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_a_write_to_the_source_does_not_reach_the_mj_array(make, dtype):
    source = np.arange(3, dtype=dtype)
    a = make(source)
    source[:] = 7
    assert np.asarray(a).tolist() == [0, 1, 2]


VIEWS = {
    "reshape": lambda x: mnp.reshape(x, (6,)),
    "ravel": mnp.ravel,
    "transpose": mnp.transpose,
    "swapaxes": lambda x: mnp.swapaxes(x, 0, 1),
    "lax.slice": lambda x: mj.lax.slice(x, (1, 0), (2, 3)),
    "expand_dims": lambda x: mnp.expand_dims(x, 0),
    "broadcast_to": lambda x: mnp.broadcast_to(x, (4, 2, 3)),
}


@pytest.mark.parametrize("op", VIEWS.values(), ids=VIEWS.keys())
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_an_eager_view_of_a_caller_array_does_not_alias_it(op, dtype):
    """NumPy's reshape/transpose/slice return views: of a caller's array they are copied."""
    source = np.arange(6, dtype=dtype).reshape(2, 3)
    out = op(source)
    expected = np.asarray(out).copy()
    source[:] = -1
    np.testing.assert_array_equal(np.asarray(out), expected)
    assert (expected >= 0).all()


def test_a_read_only_array_that_owns_its_data_is_kept_without_a_copy():
    source = np.arange(3.0)
    source.flags.writeable = False
    assert np.shares_memory(mnp.asarray(source), source)
    view = np.arange(3.0)[:2]
    view.flags.writeable = False  # read-only, but its base can still change: copied
    assert not np.shares_memory(mnp.asarray(view), view)


def _vjp_later(x):
    _, pull = mj.vjp(mnp.sin, x)
    return lambda: pull(np.ones(3))[0]


def _linearize_later(x):
    _, f_jvp = mj.linearize(mnp.sin, x)
    return lambda: f_jvp(np.ones(3))


@pytest.mark.parametrize("later", [_vjp_later, _linearize_later], ids=["vjp", "linearize"])
def test_a_pullback_keeps_no_caller_buffer(later):
    """vjp's pullback evaluated the derivative at the caller's array's *new* values."""
    x = np.ones(3)
    apply = later(x)
    x[:] = 3.0
    np.testing.assert_allclose(np.asarray(apply()), np.full(3, np.cos(1.0)))


@pytest.mark.parametrize(
    "make",
    [
        lambda: mnp.sin(np.ones(3, np.float32)),  # the ufunc shortcut
        lambda: mnp.sin(np.ones(3)),  # a 64-bit result
        lambda: mnp.ones(3) + 1.0,
        lambda: mnp.sum(np.ones((2, 2)), axis=0),  # through eval_primitive
        lambda: mnp.asarray(np.ones(3)),
        lambda: mnp.arange(3.0),
        lambda: mj.jit(mnp.sin)(np.ones(3)),
        lambda: mj.grad(lambda x: mnp.sum(x**2))(np.ones(3)),
    ],
)
def test_numpy_views_of_mj_arrays_are_read_only(make):
    a = make()
    before = np.asarray(a).copy()
    view = np.asarray(a)
    with pytest.raises(ValueError, match="read-only"):
        view[0] = 5.0
    with pytest.raises(ValueError, match="read-only"):
        np.add(view, 1, out=view)
    np.testing.assert_array_equal(np.asarray(a), before)


@pytest.mark.parametrize(
    "make",
    [
        lambda: mnp.sin(np.ones(3, np.float32)),  # unary shortcut
        lambda: mnp.ones(3, np.float32) * 2.0,  # binary shortcut
        lambda: mnp.multiply(np.ones(3, np.float16), np.ones(3, np.float16)),
        lambda: mnp.negative(np.ones(3, np.int16)),
        lambda: mj.lax.add(np.ones(3, np.int32), np.ones(3, np.int32)),
    ],
)
def test_the_buffer_behind_an_eager_result_is_read_only_too(make):
    # the array behind the ufunc shortcuts' x (the ufunc's fresh output; NumPy's base, which
    # an mj array does not show) is as read-only as x: no write reaches x through it
    a = make()
    base = np.ndarray.base.__get__(a)
    base = a if base is None else base
    assert not base.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        base[...] = 0


def test_a_cached_jit_agrees_with_a_fresh_one_after_an_attempted_write():
    """The aliasing bug's symptom: a write to an "immutable" constant changed a cached jit."""
    c = mnp.arange(3.0)

    def f(x):
        return x + c

    cached = mj.jit(f)
    first = np.asarray(cached(1.0)).copy()
    with pytest.raises(ValueError, match="read-only"):
        np.asarray(c)[0] = 100.0
    np.testing.assert_array_equal(np.asarray(cached(1.0)), first)
    np.testing.assert_array_equal(np.asarray(mj.jit(f)(1.0)), first)


GRAD_OUTPUTS_SHOWING_THE_INPUT = {
    "aux-identity": lambda x: (mnp.sum(x**2), x),
    "aux-transpose": lambda x: (mnp.sum(x**2), x.T),
    "aux-slice": lambda x: (mnp.sum(x**2), x[1:]),
    "aux-reshape": lambda x: (mnp.sum(x**2), x.reshape(-1)),
}


@pytest.mark.parametrize(
    "f", GRAD_OUTPUTS_SHOWING_THE_INPUT.values(), ids=GRAD_OUTPUTS_SHOWING_THE_INPUT.keys()
)
def test_grad_reads_its_inputs_without_copies_but_returns_nothing_sharing_them(f):
    """grad reads a writable NumPy input through a read-only view (its tape ends with the
    call), and copies any result that still shows the caller's memory."""
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    keep = x.copy()
    (value, aux), g = mj.value_and_grad(f, has_aux=True)(x)
    _, aux_only = mj.grad(f, has_aux=True)(x)
    x[...] = -1.0
    np.testing.assert_allclose(np.asarray(g), 2 * keep)
    for got in (aux, aux_only):
        want = np.asarray(f(keep)[1])
        np.testing.assert_array_equal(np.asarray(got), want)
        assert not np.asarray(got).flags.writeable
    assert float(value) == float((keep**2).sum())


def test_eager_results_copy_views_of_operands_not_of_the_rules_own_temporaries():
    from mj_core._eager_array import eager_result

    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    of_operand = eager_result(x.T, (x,))
    assert not np.shares_memory(of_operand, x)
    of_view_operand = eager_result(x[1:].T, (x[1:],))
    assert not np.shares_memory(of_view_operand, x)
    temporary = np.matmul(x, x.T)
    reshaped = temporary.reshape(4)
    kept = eager_result(reshaped, (x,))
    assert np.shares_memory(kept, temporary)
    assert not kept.flags.writeable


@pytest.mark.parametrize(
    "make",
    [
        lambda: mnp.asarray(np.arange(4.0, dtype=np.float32)),
        lambda: mnp.sum(mnp.arange(4.0)),
        lambda: mnp.reshape(mnp.arange(4.0), (2, 2)),
        lambda: mnp.sin(mnp.arange(4.0)),
        lambda: mnp.arange(4.0) * 2,
        lambda: mnp.transpose(mnp.ones((2, 3))),
        lambda: mnp.cumsum(mnp.arange(4.0)),
        lambda: np.sort(mnp.arange(4.0)),  # NumPy's function, through __array_function__
        lambda: mnp.array([1.0, 2.0]),
        lambda: mj.lax.convert_element_type(np.ones(3, np.float32), np.float32),
    ],
)
def test_numpy_cannot_make_an_eager_results_data_writable_again(make):
    # NumPy lets a view be made writable when the memory's owner is: every mj array's owner
    # is read-only, so np.asarray(x).setflags(write=True) fails as for any read-only data
    a = make()
    before = np.asarray(a).copy()
    view = np.asarray(a)
    with pytest.raises(ValueError, match="WRITEABLE"):
        view.setflags(write=True)
    np.testing.assert_array_equal(np.asarray(a), before)


def test_a_rule_returning_its_operand_neither_aliases_nor_freezes_the_callers_array():
    ident_p = Primitive("test_ownership_identity")
    ident_p.def_impl(lambda x: x)  # returns the caller's array itself
    ident_p.def_abstract_eval(lambda x: x)
    host = np.ones(3, np.float32)
    out = bind(ident_p, host)[0]
    assert host.flags.writeable  # the caller's array is left as it was
    host[0] = 5.0
    np.testing.assert_array_equal(np.asarray(out), [1.0, 1.0, 1.0])  # the result is a copy
    assert not np.asarray(out).flags.writeable


@pytest.mark.parametrize(
    "make",
    [
        lambda: mnp.sin(np.ones(3, np.float32)),
        lambda: mnp.sum(mnp.arange(4.0)),
        lambda: mnp.asarray(np.arange(3.0)),
        lambda: mnp.arange(6.0).reshape(2, 3).T,
        lambda: mnp.arange(3.0).copy(),
    ],
)
def test_an_eager_array_has_no_base_and_stays_read_only(make):
    # jax.Array has no .base: NumPy's would hand out the array holding the data
    a = make()
    before = np.asarray(a).copy()
    assert not hasattr(a, "base")
    with pytest.raises(AttributeError, match="base"):
        a.base  # noqa: B018
    with pytest.raises(ValueError, match="WRITEABLE"):
        a.setflags(write=True)  # also for one owning its data (copy())
    with pytest.raises(ValueError, match="WRITEABLE"):
        np.asarray(a).setflags(write=True)
    a.setflags(write=False)  # harmless
    # NumPy interop: NumPy's functions and views take it as before
    np.testing.assert_array_equal(np.asarray(a), before)
    np.testing.assert_array_equal(np.add(a, 1), before + 1)
    assert np.shares_memory(np.asarray(a), a)
    assert np.asarray(a).base is not None  # NumPy's view of an mj array (read-only data)
