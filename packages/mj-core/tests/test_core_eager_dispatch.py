"""Eager dispatch by operand type (issue 38): an array type that evaluates primitives itself
(mj-xla's sharded arrays) registers a handler in ``eager_handlers``; the eager path offers it
every primitive with such an operand before any impl rule or NumPy shortcut touches the data,
whoever binds the primitive."""

import types

import numpy as np
import pytest

import mj_core.numpy as mnp
from mj_core import lax, register_array_type
from mj_core.extend import ConcreteArray, EagerArray, eager_handlers, impl_rules
from mj_core.prims.elementwise import add_p, sin_p


class Boxed:
    """A stand-in for a device array: NumPy reaches its data only through ``__array__``."""

    __array_priority__ = 100

    def __init__(self, value):
        self.value = np.asarray(value)
        self.shape = self.value.shape
        self.dtype = self.value.dtype
        self.ndim = self.value.ndim

    host_reads = 0

    def __array__(self, dtype=None, copy=None):
        Boxed.host_reads += 1
        return self.value if dtype is None else self.value.astype(dtype)


register_array_type(Boxed, lambda b: ConcreteArray(b.value))


class _Handler:
    """Computes with the impl rules on the unboxed data and boxes the outputs; records calls."""

    def __init__(self, decline=(), fail=False):
        self.calls = []
        self.decline = decline
        self.fail = fail

    def __call__(self, prim, args, params):
        self.calls.append(prim)
        if prim in self.decline:
            return NotImplemented
        if self.fail:
            raise RuntimeError(f"the device refused {prim.name}")
        host = [a.value if type(a) is Boxed else a for a in args]
        outs = impl_rules[prim](*host, **params)
        return [Boxed(o) for o in outs]


@pytest.fixture
def handler():
    h = _Handler()
    eager_handlers[Boxed] = h
    Boxed.host_reads = 0
    try:
        yield h
    finally:
        del eager_handlers[Boxed]


X = np.array([0.5, -1.0, 2.0])

OPERATIONS = {
    "lax.sin": (lambda b: lax.sin(b), np.sin(X), sin_p),
    "lax.add": (lambda b: lax.add(b, b), X + X, add_p),
    "lax.add ndarray": (lambda b: lax.add(X, b), X + X, add_p),
    "lax.add scalar": (lambda b: lax.add(b, 2.0), X + 2.0, add_p),
    "mnp.sin": (lambda b: mnp.sin(b), np.sin(X), sin_p),
    "mnp.add": (lambda b: mnp.add(b, b), X + X, add_p),
    "mnp.add eager": (lambda b: mnp.add(mnp.asarray(X), b), X + X, add_p),
}


@pytest.mark.parametrize("name", list(OPERATIONS))
def test_an_operand_type_with_a_handler_gets_the_primitive_once_and_untouched(handler, name):
    fn, want, prim = OPERATIONS[name]
    out = fn(Boxed(X))
    assert type(out) is Boxed  # the handler's result, not a host computation's
    np.testing.assert_allclose(out.value, want)
    assert handler.calls == [prim]  # offered once
    assert Boxed.host_reads == 0  # no NumPy shortcut or impl rule read the data first


def test_a_failing_operation_is_attempted_once(handler):
    handler.fail = True
    with pytest.raises(RuntimeError, match="the device refused add"):
        lax.add(Boxed(X), np.ones(3))
    with pytest.raises(RuntimeError, match="the device refused add"):
        mnp.add(Boxed(X), 1.0)
    assert handler.calls == [add_p, add_p]
    assert Boxed.host_reads == 0


def test_a_declined_primitive_runs_its_impl_rule_on_the_host_data(handler):
    handler.decline = (sin_p,)
    out = lax.sin(Boxed(X))
    assert type(out) is EagerArray
    np.testing.assert_allclose(out, np.sin(X))
    assert handler.calls == [sin_p]
    assert Boxed.host_reads >= 1


def test_without_a_handler_the_type_is_host_data(handler):
    del eager_handlers[Boxed]
    try:
        out = lax.add(Boxed(X), 1.0)
    finally:
        eager_handlers[Boxed] = handler
    assert type(out) is EagerArray
    np.testing.assert_allclose(out, X + 1.0)
    assert handler.calls == []


def _function_in_module(module_name, source, name):
    """``name`` defined by ``source`` in a fresh module called ``module_name``: its frames'
    globals say ``__name__ == module_name`` (what caller-inspecting dispatch would read)."""
    module = types.ModuleType(module_name)
    exec(compile(source, f"<{module_name}>", "exec"), module.__dict__)
    return getattr(module, name)


CALLERS = ["mj_core.prims._caller", "mj_core._caller", "numpy._caller"]
_SOURCE = """
import numpy as np
from mj_core import lax

def run(b):
    return lax.sin(b), lax.add(b, 1.0), np.sin(b)
"""


@pytest.mark.parametrize("module_name", CALLERS)
def test_the_callers_module_does_not_change_the_dispatch(handler, module_name):
    run = _function_in_module(module_name, _SOURCE, "run")
    sin, add, host_sin = run(Boxed(X))
    assert type(sin) is Boxed  # the handler's, as from user code
    assert type(add) is Boxed
    np.testing.assert_allclose(sin.value, np.sin(X))
    np.testing.assert_allclose(add.value, X + 1.0)
    assert type(host_sin) is np.ndarray  # NumPy's own ufunc: the host value, as from user code
    np.testing.assert_allclose(host_sin, np.sin(X))
    assert handler.calls == [sin_p, add_p]
