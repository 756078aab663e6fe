"""State safety: exceptions inside transformations leave the trace stack as it was, tracing in
8 threads at once gives correct results, and escaped tracers raise TracerLeakError."""

import threading
import time

import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj import lax
from mj_core import current_trace_stack
from mj_core.errors import ConcretizationError, TracerLeakError

X = np.linspace(-1.0, 1.0, 6)


def _boom(x):
    raise RuntimeError("user error inside the transformed function")


def _shape_error(x):
    return mnp.reshape(x, (7, 11))


def _concrete(x):
    return 1.0 if x.sum() > 0 else 0.0


TRANSFORMS = {
    "jit": lambda f: mj.jit(f),
    "grad": lambda f: mj.grad(lambda x: mnp.sum(f(x))),
    "vmap": lambda f: mj.vmap(f),
    "jvp": lambda f: lambda x: mj.jvp(f, (x,), (x,)),
    "vjp": lambda f: lambda x: mj.vjp(f, x),
    "linearize": lambda f: lambda x: mj.linearize(f, x),
    "make_jaxpr": lambda f: mj.make_jaxpr(f),
    "jit_of_grad": lambda f: mj.jit(mj.grad(lambda x: mnp.sum(f(x)))),
    "vmap_of_jit": lambda f: mj.vmap(mj.jit(f)),
    "cond": lambda f: lambda x: lax.cond(True, f, lambda y: y, x),
    "scan": lambda f: lambda x: lax.scan(lambda c, y: (c, f(y)), 0.0, x),
}


#: Autodiff alone keeps values concrete, so ``_concrete``'s Python ``if`` is allowed there
#: (checked by test_python_control_flow_on_values_is_allowed_under_autodiff_alone).
_CONCRETE_UNDER = ("grad", "jvp", "vjp", "linearize")
_FAILURES = [
    (name, bad, err)
    for name in sorted(TRANSFORMS)
    for bad, err in [
        (_boom, RuntimeError),
        (_shape_error, TypeError),
        (_concrete, ConcretizationError),
    ]
    if not (bad is _concrete and name in _CONCRETE_UNDER)
]


@pytest.mark.parametrize(("name", "bad", "err"), _FAILURES)
def test_exception_inside_a_transformation_restores_the_stack(name, bad, err):
    before = current_trace_stack()
    with pytest.raises(err):
        TRANSFORMS[name](bad)(X)
    assert current_trace_stack() == before
    # the next transformation works and is right
    np.testing.assert_allclose(mj.grad(lambda x: mnp.sum(mnp.sin(x)))(X), np.cos(X))
    np.testing.assert_allclose(mj.jit(mj.vmap(lambda x: x * 2.0))(X), X * 2.0)


@pytest.mark.parametrize("name", _CONCRETE_UNDER)
def test_python_control_flow_on_values_is_allowed_under_autodiff_alone(name):
    before = current_trace_stack()
    TRANSFORMS[name](lambda x: x * _concrete(x))(X)  # no ConcretizationError, as in JAX
    assert current_trace_stack() == before


def test_keyboard_interrupt_like_errors_also_restore():
    before = current_trace_stack()

    def interrupt(x):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        mj.jit(mj.vmap(mj.grad(interrupt)))(X)
    assert current_trace_stack() == before


def test_tracer_leaked_through_a_global_is_a_tracer_leak_error():
    leaked = []

    def f(x):
        leaked.append(x)
        return x * 2.0

    for transform in (mj.jit, mj.vmap, mj.grad):
        leaked.clear()
        transform(f)(X if transform is not mj.grad else 1.5)
        with pytest.raises(TracerLeakError, match="escaped"):
            mnp.sin(leaked[0])
        with pytest.raises(TracerLeakError):
            mj.jit(lambda y: y + leaked[0])(1.0)


def _worker_functions():
    """(function, argument, expected) per thread: different functions and transformations."""
    x = np.linspace(-1.0, 1.0, 5)
    return [
        (mj.jit(lambda v: mnp.sin(v) * 2.0), x, np.sin(x) * 2.0),
        (mj.grad(lambda v: mnp.sum(v**3)), x, 3 * x**2),
        (mj.vmap(lambda v: v * mnp.sum(v), in_axes=0), x[:, None], x[:, None] ** 2),
        (mj.jit(mj.grad(lambda v: mnp.sum(mnp.exp(v)))), x, np.exp(x)),
        (mj.vmap(mj.grad(lambda v: v * v)), x, 2 * x),
        (lambda v: mj.jvp(mnp.cos, (v,), (mnp.ones_like(v),))[1], x, -np.sin(x)),
        (mj.jit(lambda v: lax.scan(lambda c, y: (c + y, c), 0.0, v)[0]), x, np.sum(x)),
        (mj.jit(mj.vmap(lambda v: lax.cond(v > 0, lambda a: a, lambda a: -a, v))), x, np.abs(x)),
    ]


def test_eight_threads_transforming_at_once_give_correct_results():
    work = _worker_functions()
    errors: list[BaseException] = []
    counts = [0] * len(work)
    stop = time.monotonic() + 2.0
    start = threading.Barrier(len(work))

    def run(k):
        f, arg, want = work[k]
        try:
            start.wait()
            while time.monotonic() < stop:
                np.testing.assert_allclose(f(arg), want, rtol=1e-12, atol=1e-12)
                assert current_trace_stack()[1:] == ()
                counts[k] += 1
        except BaseException as err:
            errors.append(err)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(work))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert all(c > 0 for c in counts), counts


def test_tracing_errors_in_one_thread_do_not_disturb_another():
    ok: list[bool] = []

    def good():
        for _ in range(20):
            ok.append(bool(np.allclose(mj.grad(lambda v: v * v)(3.0), 6.0)))

    def bad():
        for _ in range(20):
            with pytest.raises(TypeError):
                mj.jit(_shape_error)(X)

    threads = [threading.Thread(target=good), threading.Thread(target=bad)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert ok == [True] * 20
    assert len(current_trace_stack()) == 1
