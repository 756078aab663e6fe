"""The `inverse` custom interpreter of seed 004 ("Writing custom Jaxpr interpreters"), written
against mj's public API only: make_jaxpr, ClosedJaxpr, Jaxpr/JaxprEqn fields, Lit."""

from functools import wraps

import numpy as np
import pytest

from mj_core import lax
from mj_core.lax import exp_p, mul_p, tanh_p
from mj_ir import Lit, make_jaxpr


def _atanh(y):
    return lax.mul(0.5, lax.log(lax.div(lax.add(1.0, y), lax.sub(1.0, y))))


inverse_registry = {exp_p: lax.log, tanh_p: _atanh}


def inverse_jaxpr(jaxpr, consts, *args):
    env = {}

    def read(var):
        return var.val if isinstance(var, Lit) else env[var]

    def write(var, val):
        env[var] = val

    # args now correspond to the jaxpr's outputs
    for v, val in zip(jaxpr.outs, args, strict=True):
        write(v, val)
    for v, val in zip(jaxpr.in_binders, consts, strict=False):
        write(v, val)
    for eqn in jaxpr.eqns[::-1]:
        invals = [read(v) for v in eqn.out_binders]
        if eqn.primitive not in inverse_registry:
            raise NotImplementedError(f"{eqn.primitive} does not have a registered inverse.")
        outval = inverse_registry[eqn.primitive](*invals)
        write(eqn.inputs[0], outval)
    return [read(v) for v in jaxpr.in_binders[len(consts) :]]


def inverse(fun):
    @wraps(fun)
    def wrapped(*args):
        closed = make_jaxpr(fun)(*args)
        out = inverse_jaxpr(closed.jaxpr, closed.consts, *args)
        return out[0]

    return wrapped


def f(x):
    return lax.exp(lax.tanh(x))


def test_inverse_inverts():
    f_inv = inverse(f)
    assert np.allclose(f_inv(f(1.0)), 1.0)
    xs = np.linspace(-1.5, 1.5, 7)
    np.testing.assert_allclose(f_inv(f(xs)), xs, rtol=1e-10)


def test_inverse_is_traceable():
    closed = make_jaxpr(inverse(f))(f(1.0))
    names = [e.primitive.name for e in closed.eqns]
    assert names[0] == "log"  # exp is undone first
    assert names[1:] == ["add", "sub", "div", "log", "mul"]
    np.testing.assert_allclose(closed(f(0.3))[0], 0.3)


def test_inverse_of_unregistered_primitive_is_a_clear_error():
    with pytest.raises(NotImplementedError, match="sin does not have a registered inverse"):
        inverse(lambda x: lax.exp(lax.sin(x)))(1.0)


def test_eqn_fields_used_by_interpreters():
    closed = make_jaxpr(lambda x: lax.mul(x, 3.0))(1.0)
    (eqn,) = closed.jaxpr.eqns
    assert eqn.primitive is mul_p
    assert eqn.inputs[0] is closed.jaxpr.in_binders[0]
    assert eqn.invars is eqn.inputs
    assert eqn.outvars is eqn.out_binders
    assert isinstance(eqn.inputs[1], Lit)
    assert eqn.params == {}
    assert closed.jaxpr.outs == eqn.out_binders
