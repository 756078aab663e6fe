"""JAX APIs equinox's internals use (``eqxi.finalise_jaxpr``, ``filter_pure_callback``),
compared with JAX (issue 36, equinox's own test files on mj)."""

import jax
import jax.extend.core
import numpy as np
import pytest

import mj
import mj.extend.core

pytestmark = pytest.mark.oracle


@pytest.mark.parametrize("lib", [jax, mj], ids=["jax", "mj"])
def test_primitive_impl_is_the_function_def_impl_registered(lib):
    # equinox's finalisation calls ``prim.impl(*args, **params)`` on its own primitives
    p = lib.extend.core.Primitive("twice")

    def twice(x, *, k):
        return lib.lax.mul(x, np.float32(k))

    assert p.def_impl(twice) is twice
    assert p.impl is twice


def test_primitive_impl_under_a_trace_as_jax(x64):
    # the impl traced in place of the primitive, as eqxi.finalise_jaxpr does
    def run(lib):
        p = lib.extend.core.Primitive("twice_plus")
        p.def_impl(lambda x, *, k: lib.lax.add(lib.lax.mul(x, x), k))
        jaxpr = lib.make_jaxpr(lambda x: p.impl(x, k=np.float32(3.0)))(np.float32(2.0))
        value = p.impl(np.float32(2.0), k=np.float32(3.0))
        return [e.primitive.name for e in jaxpr.jaxpr.eqns], np.asarray(value)

    (want_prims, want), (got_prims, got) = run(jax), run(mj)
    assert got_prims == want_prims == ["mul", "add"]
    np.testing.assert_allclose(got, want)


def test_primitive_impl_without_def_impl_raises_as_jax():
    errors = []
    for lib in (jax, mj):
        p = lib.extend.core.Primitive("no_rule")
        with pytest.raises(NotImplementedError) as info:
            p.impl(1.0)
        errors.append(str(info.value))
    assert errors[1] == errors[0]


def test_builtin_primitive_impl_applies_it_as_jax(x64):
    # JAX's built-in primitives' impl is ``apply_primitive``: eager outside a trace
    x, y = np.arange(4.0, dtype=np.float32), np.float32(1.5)
    want = jax.lax.mul_p.impl(x, y)
    got = mj.lax.mul_p.impl(x, y)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want))
    assert np.asarray(got).dtype == np.asarray(want).dtype


@pytest.mark.parametrize("staged", [False, True], ids=["eager", "jit"])
def test_failing_pure_callback_raises_as_jax(x64, staged):
    # equinox's filter_pure_callback raises ValueError in the callback; JAX reports it as a
    # JaxRuntimeError (a RuntimeError) eagerly and compiled alike (equinox's test_wrong)
    def cb(x):
        raise ValueError("the callback's own failure")

    def run(lib):
        spec = lib.ShapeDtypeStruct((), np.float32)
        call = lambda x: lib.pure_callback(cb, spec, x)  # noqa: E731
        try:
            (lib.jit(call) if staged else call)(np.float32(1.0))
        except Exception as err:  # (its class is what is compared)
            return err
        raise AssertionError("no error")

    want, got = run(jax), run(mj)
    assert type(got) is type(want) is jax.errors.JaxRuntimeError
    for err in (want, got):
        assert str(err).startswith("INTERNAL: CpuCallback error calling callback: ")
        assert "ValueError: the callback's own failure" in str(err)


def test_pure_callback_wrong_output_shape_raises_as_jax():
    def run(lib):
        spec = lib.ShapeDtypeStruct((2,), np.float32)
        try:
            lib.pure_callback(lambda x: np.zeros(3, np.float32), spec, np.float32(1.0))
        except Exception as err:  # (its class is what is compared)
            return err
        raise AssertionError("no error")

    want, got = run(jax), run(mj)
    assert type(got) is type(want) is jax.errors.JaxRuntimeError


def _host_primitive(lib, name, host_fn, out_shape):
    """A primitive lowered as equinox's ``noinline`` is: ``emit_python_callback`` running
    ``host_fn`` on NumPy arrays."""
    from importlib import import_module

    mlir = import_module(f"{lib.__name__}.interpreters.mlir")
    p = lib.extend.core.Primitive(name)
    p.multiple_results = True
    p.def_abstract_eval(lambda x: [lib.core.ShapedArray(out_shape, x.dtype)])

    def lowering(ctx, x):
        results, token, keepalive = mlir.emit_python_callback(
            ctx,
            lambda a: (host_fn(a),),
            None,
            [x],
            ctx.avals_in,
            ctx.avals_out,
            has_side_effect=False,
            sharding=None,
        )
        ctx.module_context.add_keepalive(keepalive)
        assert token is None
        return results

    mlir.register_lowering(p, lowering)
    return p


def test_emit_python_callback_lowering_as_jax(x64):
    x = np.linspace(-1.0, 2.0, 5).astype(np.float32)

    def run(lib):
        p = _host_primitive(lib, "host_cumsum", lambda a: np.cumsum(a) * 2, (5,))
        return lib.jit(lambda v: p.bind(v)[0] + 1)(x)

    want, got = run(jax), run(mj)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(got), np.cumsum(x) * 2 + 1, rtol=1e-6)


def test_emit_python_callback_wrong_output_as_jax():
    x = np.ones(3, np.float32)

    def run(lib):
        p = _host_primitive(lib, "host_bad", lambda a: np.zeros(4, a.dtype), (3,))
        try:
            lib.jit(lambda v: p.bind(v)[0])(x)
        except Exception as err:  # (its class and wording are what is compared)
            return err
        raise AssertionError("no error")

    want, got = run(jax), run(mj)
    assert type(got) is type(want) is jax.errors.JaxRuntimeError
    for err in (want, got):
        assert "Incorrect output shape for return value #0: Expected: (3,), Actual: (4,)" in str(
            err
        )
