"""lax_test / api_test / nn_test cases of JAX's own test files (issue 35) where mj differed from
JAX 0.10.2, each checked against JAX in both dtype modes (the ``x64`` fixture)."""

import jax
import ml_dtypes
import numpy as np
import pytest

import mj
from mj import lax as mlax

pytestmark = pytest.mark.oracle


def _first_primitive(make_jaxpr, fun, *args):
    return make_jaxpr(fun)(*args).jaxpr.eqns[0].primitive.name


_REDUCE_CASES = [
    ("add", 0),
    ("mul", 1),
    ("max", -np.inf),
    ("min", np.inf),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16])
@pytest.mark.parametrize(("name", "init"), _REDUCE_CASES)
def test_reduce_with_public_lax_op_is_the_monoid_primitive(x64, name, init, dtype):
    """``lax.reduce(x, identity, lax.mul, dims)`` is ``reduce_prod`` in the jaxpr, as in JAX
    (lax_test testReduce): ``mj.lax.mul`` wraps its ``out_dtype`` layer around the checked
    ``mul``, which wraps mj_core's, and only one ``__wrapped__`` level was looked through, so
    the product became a general ``reduce`` with a traced body."""
    x = np.random.RandomState(0).uniform(0.5, 1.5, (3, 4, 5)).astype(dtype)
    init_val = np.asarray(init).astype(dtype)

    def fun(lax):
        return lambda x: lax.reduce(x, init_val, getattr(lax, name), (0, 2))

    want = _first_primitive(jax.make_jaxpr, fun(jax.lax), x)
    assert _first_primitive(mj.make_jaxpr, fun(mlax), x) == want
    got, exp = np.asarray(mj.jit(fun(mlax))(x)), np.asarray(fun(jax.lax)(x))
    assert got.dtype == exp.dtype
    np.testing.assert_allclose(got.astype(np.float32), exp.astype(np.float32), rtol=2e-2)


@pytest.mark.parametrize(("name", "init"), [("add", 0), ("max", -np.inf), ("min", np.inf)])
def test_reduce_window_with_public_lax_op_is_the_monoid_primitive(x64, name, init):
    x = np.random.RandomState(1).randn(4, 6).astype(np.float32)
    init_val = np.asarray(init, np.float32)

    def fun(lax):
        return lambda x: lax.reduce_window(x, init_val, getattr(lax, name), (2, 2), (1, 2), "SAME")

    want = _first_primitive(jax.make_jaxpr, fun(jax.lax), x)
    assert _first_primitive(mj.make_jaxpr, fun(mlax), x) == want
    np.testing.assert_allclose(np.asarray(fun(mlax)(x)), np.asarray(fun(jax.lax)(x)), rtol=1e-6)


@pytest.mark.parametrize("strides", [[1], [1, 1, 1]])
@pytest.mark.parametrize("padding", ["SAME", [(0, 0), (0, 0)]])
def test_conv_window_strides_length_error_is_jaxs(x64, strides, padding):
    """A ``window_strides`` of the wrong length is JAX's ValueError with JAX's wording
    (lax_test test_window_strides_dimension_shape_rule; mj raised a TypeError)."""
    lhs, rhs = np.zeros((1, 1, 3, 3), np.float32), np.zeros((1, 1, 1, 1), np.float32)
    with pytest.raises(ValueError, match="window_strides") as got:
        mlax.conv_general_dilated(lhs, rhs, strides, padding)
    if padding != "SAME" or len(strides) < 2:  # (JAX's 'SAME' with 3 strides: NumPy's error)
        with pytest.raises(ValueError, match="window") as want:
            jax.lax.conv_general_dilated(lhs, rhs, strides, padding)
        assert str(got.value).startswith(str(want.value))
    with pytest.raises(ValueError, match="window and window_strides must have the same"):
        mj.jit(lambda a: mlax.conv(a, rhs, strides, "SAME"))(lhs)


def test_conv_rhs_dilation_length_error_is_a_value_error(x64):
    lhs, rhs = np.zeros((1, 1, 3, 3), np.float32), np.zeros((1, 1, 1, 1), np.float32)
    with pytest.raises(ValueError, match="window-dilation factors"):
        jax.lax.conv_general_dilated(lhs, rhs, (1, 1), "SAME", rhs_dilation=(1,))
    with pytest.raises(ValueError, match="rhs_dilation"):
        mlax.conv_general_dilated(lhs, rhs, (1, 1), "SAME", rhs_dilation=(1,))


def _primitive_names(jaxpr):
    """The primitives of ``jaxpr``'s equations, those of bodies and branches included."""
    names = []
    for eqn in jaxpr.eqns:
        names.append(eqn.primitive.name)
        for value in eqn.params.values():
            inner = getattr(value, "jaxpr", value)
            if hasattr(inner, "eqns"):
                names.extend(_primitive_names(inner))
    return names


def _sink_programs(lax, api):
    def sink_double(x):
        lax.dce_sink(x * 2.0)
        return x

    def sink_in_scan(x):
        def body(c, _):
            lax.dce_sink(c * 3.0)
            return c * c, None

        return lax.scan(body, x, None, length=2)[0]

    return {
        "plain": sink_double,
        "grad": api.grad(sink_double),
        "jvp": lambda x: api.jvp(sink_double, (x,), (x,)),
        "transpose": lambda x: api.linear_transpose(sink_double, np.float32(1.0))(x),
        "scan": sink_in_scan,
        "grad_scan": api.grad(sink_in_scan),
    }


@pytest.mark.parametrize("case", ["plain", "grad", "jvp", "transpose", "scan", "grad_scan"])
def test_dce_sink_survives_dce_as_in_jax(x64, case):
    """``lax.dce_sink``: its equation stays in jaxprs (JAX's NoDCEEffect), also where mj's
    dead-code elimination runs (the forward part of grad, a scan's partial evaluation), a
    tangent is sunk too under jvp, and transposing drops it (no cotangent), as in JAX."""
    ours, theirs = _sink_programs(mlax, mj)[case], _sink_programs(jax.lax, jax)[case]
    x = np.float32(1.5)
    want = _primitive_names(jax.make_jaxpr(theirs)(x).jaxpr).count("dce_sink")
    got = _primitive_names(mj.make_jaxpr(ours)(x).jaxpr).count("dce_sink")
    if case == "grad_scan":  # JAX's scan partial evaluation loses the sink of a body whose
        assert got == 1 >= want  # carry changes; mj's keeps it in the forward scan
    else:
        assert got == want
    for got, exp in zip(
        jax.tree_util.tree_leaves(mj.jit(ours)(x)),
        jax.tree_util.tree_leaves(theirs(x)),
        strict=True,
    ):
        np.testing.assert_allclose(np.asarray(got), np.asarray(exp), rtol=1e-6)


def test_dce_sink_prevent_mlir_dce_keeps_the_computation_in_xla(x64):
    """With ``prevent_mlir_dce=True`` the sink is JAX's side-effecting ``dce_sink`` custom call
    and XLA keeps the sunk ``add``; without it XLA removes the ``add`` (lax_test
    test_dce_sink_prevents_xla_dce)."""
    x = np.float32(1.0)

    def program(lax, prevent):
        def f(x):
            lax.dce_sink(x + 1.0, prevent_mlir_dce=prevent)
            return x

        return f

    for prevent in (True, False):
        want = jax.jit(program(jax.lax, prevent)).lower(x).compile().as_text()
        got = mj.jit(program(mlax, prevent)).lower(x).compile().as_text()
        for word in ("custom_call", "dce_sink", "add"):
            assert (word in got) == (word in want), (prevent, word)
        assert float(mj.jit(program(mlax, prevent))(x)) == 1.0


def test_dce_sink_of_a_pytree_and_under_vmap(x64):
    """A pytree's every leaf is sunk; ``vmap`` runs (api_test test_dce_sink_vmap). JAX's
    batching rule drops the sink; mj's sinks the batched value, which keeps it alive."""
    tree = (np.float32(1.0), np.ones(2, np.float32))
    assert mlax.dce_sink(tree) is None
    assert jax.lax.dce_sink(tree) is None
    jaxpr = mj.make_jaxpr(lambda t: mlax.dce_sink(t))(tree)
    assert _primitive_names(jaxpr.jaxpr) == ["dce_sink", "dce_sink"]

    def f(lax):
        def g(x):
            lax.dce_sink(x)
            return x * 2.0

        return g

    xs = np.arange(3.0, dtype=np.float32)
    np.testing.assert_array_equal(mj.vmap(f(mlax))(xs), jax.vmap(f(jax.lax))(xs))
    assert "dce_sink" in _primitive_names(mj.make_jaxpr(mj.vmap(f(mlax)))(xs).jaxpr)


def test_debug_callback_survives_grad_of_scan(x64):
    """``debug.callback`` is effectful for mj's dead-code elimination too: under grad of a scan
    it still runs, on the same values as in JAX (mj's partial evaluation dropped it)."""

    def program(api, lax, log):
        def body(c, _):
            api.debug.callback(lambda v: log.append(float(v)), c)
            return c * c, None

        return api.grad(lambda x: lax.scan(body, x, None, length=2)[0])

    theirs_log, ours_log = [], []
    want = program(jax, jax.lax, theirs_log)(np.float32(1.5))
    got = program(mj, mlax, ours_log)(np.float32(1.5))
    np.testing.assert_allclose(float(got), float(want), rtol=1e-6)
    assert ours_log == theirs_log
