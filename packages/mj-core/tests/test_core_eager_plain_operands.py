"""mj-core's impl rules take plain NumPy views of ``EagerArray`` operands
(``impl_rules.numpy_rules``): the NumPy functions they call never reach
``EagerArray.__array_function__`` (a Python call on each), their results are the same as on
NumPy data and stay immutable; a user's ``def_impl`` rule still gets mj arrays, as in JAX."""

import numpy as np
import pytest

import mj_core
import mj_core.numpy as mnp
from mj_core import EagerArray, config, lax
from mj_core._primitive import Primitive, impl_rules
from mj_core.prims.elementwise import select_n_p, sin_p
from mj_core.prims.reductions import reduce_sum_p
from mj_core.prims.structural import concatenate_p, transpose_p

DATA = np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5

OPS = {
    "transpose": lambda x, c: mnp.transpose(x),
    "concatenate": lambda x, c: mnp.concatenate([x, x * 2]),
    "where": lambda x, c: mnp.where(c, x, -x),
    "reshape": lambda x, c: mnp.reshape(x.T, (12,)),
    "sum": lambda x, c: mnp.sum(x, axis=0),
    "argmax": lambda x, c: mnp.argmax(x, axis=1),
    "cumsum": lambda x, c: mnp.cumsum(x, axis=1),
    "tile": lambda x, c: mnp.tile(x, (2, 1)),
    "stack": lambda x, c: mnp.stack([x, x]),
    "take": lambda x, c: mnp.take(x, np.array([2, 0]), axis=0),
    "sort": lambda x, c: mnp.sort(-x, axis=1),
    "dot": lambda x, c: mnp.dot(x, x.T),
    "flip": lambda x, c: mnp.flip(x, 0),
    "broadcast_to": lambda x, c: mnp.broadcast_to(x[0], (2, 4)),
}

NUMPY = {
    "transpose": lambda x, c: np.transpose(x),
    "concatenate": lambda x, c: np.concatenate([x, x * 2]),
    "where": lambda x, c: np.where(c, x, -x),
    "reshape": lambda x, c: np.reshape(x.T, (12,)),
    "sum": lambda x, c: np.sum(x, axis=0),
    "argmax": lambda x, c: np.argmax(x, axis=1),
    "cumsum": lambda x, c: np.cumsum(x, axis=1),
    "tile": lambda x, c: np.tile(x, (2, 1)),
    "stack": lambda x, c: np.stack([x, x]),
    "take": lambda x, c: np.take(x, np.array([2, 0]), axis=0),
    "sort": lambda x, c: np.sort(-x, axis=1),
    "dot": lambda x, c: np.dot(x, x.T),
    "flip": lambda x, c: np.flip(x, 0),
    "broadcast_to": lambda x, c: np.broadcast_to(x[0], (2, 4)),
}


@pytest.mark.parametrize("name", OPS)
def test_impl_rules_call_numpy_on_plain_views(monkeypatch, name):
    x = mnp.sin(mnp.asarray(DATA)) * 3  # an eager result, as mj's own ops make them
    c = x > 0
    calls = []
    dispatch = EagerArray.__array_function__

    def counting(self, func, types, args, kwargs):
        calls.append(func.__name__)
        return dispatch(self, func, types, args, kwargs)

    monkeypatch.setattr(EagerArray, "__array_function__", counting)
    out = OPS[name](x, c)
    monkeypatch.undo()
    assert calls == []  # no NumPy function saw an EagerArray
    assert type(out) is EagerArray
    assert not out.flags.writeable
    want = NUMPY[name](np.asarray(x), np.asarray(c))
    assert out.dtype == want.dtype
    np.testing.assert_allclose(np.asarray(out), want, rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(x), np.sin(DATA) * np.float32(3))  # unchanged


def test_a_user_impl_rule_gets_mj_arrays():
    seen = []
    double_p = Primitive("test_plain_operands_double")

    @double_p.def_impl
    def _double(x):
        seen.append(type(x))
        return x.at[0].set(0.0) * 2  # JAX's array API: an mj array, not a NumPy view

    @double_p.def_abstract_eval
    def _double_aval(x):
        return x

    assert double_p not in impl_rules.numpy_rules
    x = mnp.asarray(np.array([1.0, 2.0, 3.0], np.float32))
    out = mj_core.bind(double_p, x)[0]
    assert seen == [EagerArray]
    np.testing.assert_array_equal(np.asarray(out), [0.0, 4.0, 6.0])


def test_core_rules_are_numpy_rules():
    for prim in (transpose_p, concatenate_p, select_n_p, sin_p, reduce_sum_p):
        assert prim in impl_rules.numpy_rules, prim


@pytest.mark.parametrize("x64", [False, True])
def test_host_float64_operands_are_canonicalized_first(x64):
    # a NumPy-level rule still sees host data as jit does: float32 without x64
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    with config.override("enable_x64", x64):
        out = lax.transpose(x, (1, 0))
    assert out.dtype == (np.float64 if x64 else np.float32)
    np.testing.assert_array_equal(np.asarray(out), x.T)
    x[0, 0] = 100.0  # a later write to the caller's array changes no mj array
    assert np.asarray(out)[0, 0] == 1.0
