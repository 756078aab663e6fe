"""The host-callback primitives with only the layers up to mj-xla: every rule (impl, abstract
eval, jvp, vmap, lowering), and compiled code calling Python at run time."""

import numpy as np
import pytest

from mj_autodiff import grad, jvp
from mj_batch import vmap
from mj_core import ShapedArray, bind
from mj_core.prims.callback import HostCallback, debug_callback_p, pure_callback_p
from mj_ir import make_jaxpr
from mj_xla import jit

F64_3 = ShapedArray((3,), np.dtype(np.float64))


def record(log):
    return HostCallback(lambda *args: log.append([a.tolist() for a in args]), "test")


def doubled(x, method="sequential"):
    cb = HostCallback(lambda a: (2 * a,), "test")
    aval = ShapedArray(np.shape(x), np.dtype(np.float64))
    return bind(pure_callback_p, x, callback=cb, result_avals=(aval,), vmap_method=method)[0]


def test_debug_callback_runs_on_every_compiled_call_not_at_trace_time():
    log = []
    f = jit(lambda x: (bind(debug_callback_p, x, callback=record(log)), x * 2)[1])
    f.lower(np.zeros(3))
    assert log == []
    np.testing.assert_allclose(f(np.arange(3.0)), [0.0, 2.0, 4.0])
    f(np.ones(3))
    assert log == [[[0.0, 1.0, 2.0]], [[1.0, 1.0, 1.0]]]


def test_debug_callback_jaxpr_has_no_outputs_and_survives_jvp_and_vmap():
    log = []
    cb = record(log)
    closed = make_jaxpr(lambda x: (bind(debug_callback_p, x, callback=cb), x)[1])(1.0)
    (eqn,) = closed.jaxpr.eqns
    assert eqn.primitive is debug_callback_p
    assert eqn.out_binders == []
    primal, tangent = jvp(
        lambda x: (bind(debug_callback_p, x, callback=cb), x * x)[1], (3.0,), (1.0,)
    )
    assert (primal, tangent) == (9.0, 6.0)
    assert log == [[3.0]]
    vmap(lambda x: bind(debug_callback_p, x, callback=cb))(np.array([[1.0, 2.0], [3.0, 4.0]]))
    assert log[1:] == [[[1.0, 2.0]], [[3.0, 4.0]]]


def test_pure_callback_eager_and_jit_and_vmap():
    x = np.arange(3.0)
    np.testing.assert_allclose(doubled(x), 2 * x)
    np.testing.assert_allclose(jit(doubled)(x), 2 * x)
    batch = np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(vmap(doubled)(batch), 2 * batch)
    np.testing.assert_allclose(jit(vmap(lambda b: doubled(b, "expand_dims")))(batch), 2 * batch)
    empty = vmap(doubled)(np.zeros((0, 3)))
    assert empty.shape == (0, 3)


def test_pure_callback_rejects_wrong_outputs_and_derivatives():
    bad = HostCallback(lambda a: (a.astype(np.float32),), "pure_callback")
    with pytest.raises(RuntimeError, match="output 0 of the callback is float32"):
        bind(pure_callback_p, np.ones(3), callback=bad, result_avals=(F64_3,), vmap_method=None)
    with pytest.raises(ValueError, match="do not support JVP"):
        grad(lambda x: doubled(x))(1.0)
    with pytest.raises(NotImplementedError, match="vmap_method"):
        vmap(lambda x: doubled(x, None))(np.ones(2))
