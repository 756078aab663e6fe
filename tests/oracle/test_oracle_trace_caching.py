"""How often the Python of a loop body, a branch or a ``checkpoint``ed function runs when the
same call is made again, compared with real JAX 0.10.2 (both dtype modes): JAX caches these
traces on the callable and its argument types (``test_remat_retracing``, ``testCaching`` of
JAX's own tests), so running them eagerly in a loop does not retrace each time. Also the
names and reprs of the wrapped functions (``<PjitFunction of ...>``, ``make_jaxpr(f)``)."""

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

pytestmark = pytest.mark.oracle


def _remat_plain(lib, count):
    @lib.remat
    def g(x):
        count.append(1)
        return lib.lax.sin(x), 3.0

    return lambda x: g(x)[0]


def _remat_static(lib, count):
    @partial(lib.remat, static_argnums=(0,))
    def g(x):
        count.append(1)
        with lib.ensure_compile_time_eval():
            positive = x > 0
        return lib.lax.sin(x) if positive else lib.lax.cos(x)

    return g


def _while(lib, count):
    def cond(x):
        count.append(1)
        return x < 5

    return lambda x: lib.lax.while_loop(cond, lambda c: c + 2, x)


def _cond(lib, count):
    def yes(x):
        count.append(1)
        return x + 1.0

    return lambda x: lib.lax.cond(x > 0, yes, lambda x: x - 1.0, x)


def _scan(lib, count):
    def step(c, x):
        count.append(1)
        return c + x, c * x

    return lambda x: lib.lax.scan(step, x, np.arange(3))[0]


def _grad_of_remat(lib, count):
    return lib.grad(_remat_plain(lib, count))


CASES = {
    "remat": _remat_plain,
    "remat_static_argnums": _remat_static,
    "while_loop": _while,
    "cond": _cond,
    "scan": _scan,
    "grad_of_remat": _grad_of_remat,
}


def _run(lib, make, args):
    count: list[int] = []
    f = make(lib, count)
    outs = [np.asarray(f(a)) for a in args]
    return len(count), outs


@pytest.mark.parametrize("case", CASES)
def test_python_runs_as_often_as_in_jax(x64, case):
    # four equal calls, then one with another argument type and one with another value
    args = [2.0, 2.0, 2.0, 2.0, np.float32(2.0), 3.0]
    if case == "while_loop":
        args = [0, 0, 0, 0, np.int8(0), 1]
    if case == "remat_static_argnums":
        args = [2.0, 2.0, 2.0, -1.0, -1.0, 2.0]
    want_count, want = _run(jax, CASES[case], args)
    got_count, got = _run(mj, CASES[case], args)
    assert got_count == want_count
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_a_setting_change_traces_again():
    """A trace depends on the dtype mode: switching it runs the body's Python again (its
    constants and defaults change), switching back finds the first trace, in JAX and in mj."""
    runs, dtypes = {}, {}
    for lib, np_lib in ((jax, jnp), (mj, mnp)):
        count: list[int] = []

        def body(c, np_lib=np_lib, count=count):
            count.append(1)
            return c + np_lib.arange(2).sum()

        f = partial(lib.lax.while_loop, lambda c: c < 3, body)
        runs[lib], dtypes[lib] = [], []
        for flag in (False, True, False, True):
            jax.config.update("jax_enable_x64", flag)
            with mj.config.override("enable_x64", flag):
                dtypes[lib].append(np.asarray(f(0)).dtype)
            runs[lib].append(len(count))
        jax.config.update("jax_enable_x64", True)
    assert runs[mj] == runs[jax]
    assert runs[mj][1] > runs[mj][0]  # the new mode traced again
    assert dtypes[mj] == dtypes[jax] == [np.dtype("int32"), np.dtype("int64")] * 2


def test_a_body_closing_over_a_tracer_is_traced_per_call():
    """A body closing over an enclosing transformation's tracer is not reused after that
    transformation ends (its tracers die with it): the values stay right."""

    def f(lib, y):
        return lib.lax.while_loop(lambda c: c < 10.0, lambda c: c + y, 0.0)

    for y in (1.0, 3.0):
        got = mj.jit(lambda y: f(mj, y))(y)
        want = jax.jit(lambda y: f(jax, y))(y)
        np.testing.assert_allclose(got, want)
        got = mj.jvp(lambda y: f(mj, y), (y,), (1.0,))
        want = jax.jvp(lambda y: f(jax, y), (y,), (1.0,))
        np.testing.assert_allclose(got, want)


def test_jit_repr_as_jax():
    def my_function():
        return

    assert repr(mj.jit(my_function)) == repr(jax.jit(my_function))

    class Callable:
        def __call__(self):
            pass

        def __repr__(self):
            raise ValueError("invalid repr")

    for lib in (jax, mj):
        jitted = lib.jit(Callable())
        assert repr(jitted) == "<PjitFunction>"
        del jitted.__wrapped__
        assert repr(jitted) == "<PjitFunction>"


def test_make_jaxpr_names_as_jax():
    def foo(x, y, z):
        return x + y + z

    want, got = jax.make_jaxpr(foo), mj.make_jaxpr(foo)
    assert (got.__name__, got.__qualname__) == (want.__name__, want.__qualname__)
    assert (want.__module__, got.__module__) == ("jax", "mj")  # each library's own package
