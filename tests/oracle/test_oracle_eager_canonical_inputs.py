"""The eager path computes what ``jit`` computes, as JAX's does, for every kind of input
(issue 38's silent wrong answers).

A NumPy array of a 64-bit dtype enters JAX canonicalized: without x64 it is converted to
float32/int32 *before* any computation (``jax.device_put``), eagerly as under ``jit``. mj's eager
engine once computed such inputs in float64 and rounded only the result, so that
``x - max(x)`` was not 0 at the maximum and ``x == max(x)`` was all False. Each case here runs
in both dtype modes, eager, under ``mj.jit`` and through ``eval_jaxpr(make_jaxpr(f))``, against
real JAX.
"""

import jax
import jax.experimental
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.experimental
import mj.lax as mlax
import mj.numpy as mnp
from mj import eval_jaxpr
from mj_core import config

pytestmark = pytest.mark.oracle

X = np.array([0.1, 1.7, 2.3])  # float64: not exactly representable in float32
XI = np.array([3, 1, 2**40 + 5], np.int64)  # an int64 value that int32 wraps

# name -> f(np_namespace, lax_namespace, x): the same program for JAX and mj
PROGRAMS = {
    "subtract(x, max(x))": lambda np_, lax_, x: np_.subtract(x, np_.max(x)),
    "x - max(x) (operator on an mj array)": lambda np_, lax_, x: np_.max(x) - x,
    "equal(x, max(x))": lambda np_, lax_, x: np_.equal(x, np_.max(x)),
    "equal(max(x), x)": lambda np_, lax_, x: np_.equal(np_.max(x), x),
    "x == max(x)": lambda np_, lax_, x: np_.max(x) == x,
    "sin(x)": lambda np_, lax_, x: np_.sin(x),
    "exp(x) - 1": lambda np_, lax_, x: np_.exp(x) - 1.0,
    "x * 3.0": lambda np_, lax_, x: np_.multiply(x, 3.0),
    "3.0 - x": lambda np_, lax_, x: np_.subtract(3.0, x),
    "lax.sub(x, max(x))": lambda np_, lax_, x: lax_.sub(x, np_.max(x)),
    "lax.sub(x, x)": lambda np_, lax_, x: lax_.sub(x, x) + x,
    "lax.exp(x)": lambda np_, lax_, x: lax_.exp(x),
    "floor(x * 10)": lambda np_, lax_, x: np_.floor(np_.multiply(x, 10.0)),
    "x[max(x) == x]-like where": lambda np_, lax_, x: np_.where(x == np_.max(x), x, 0.0),
    "atleast_1d": lambda np_, lax_, x: np_.atleast_1d(x),
    "ravel": lambda np_, lax_, x: np_.ravel(x),
    "real": lambda np_, lax_, x: np_.real(x),
    "conj": lambda np_, lax_, x: np_.conj(x),
    "conjugate": lambda np_, lax_, x: np_.conjugate(x),
    "positive": lambda np_, lax_, x: np_.positive(x),
    "broadcast_arrays": lambda np_, lax_, x: np_.broadcast_arrays(x, x[:1])[0],
    "asarray": lambda np_, lax_, x: np_.asarray(x),
    "reshape": lambda np_, lax_, x: np_.reshape(x, (3, 1)),
    "transpose": lambda np_, lax_, x: np_.transpose(x),
    "squeeze": lambda np_, lax_, x: np_.squeeze(x[None]),
    "expand_dims": lambda np_, lax_, x: np_.expand_dims(x, 0),
    "copy": lambda np_, lax_, x: np_.copy(x),
    "stack": lambda np_, lax_, x: np_.stack([x, x]),
    "cumsum": lambda np_, lax_, x: np_.cumsum(x),
    "sum": lambda np_, lax_, x: np_.sum(x),
    "dot": lambda np_, lax_, x: np_.dot(x, x),
    "sort": lambda np_, lax_, x: np_.sort(x),
    "argmax": lambda np_, lax_, x: np_.argmax(x),
}


def _check(got, want, rtol=1e-6):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape
    if got.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol / 10)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@pytest.mark.parametrize("data", [X, X.astype(np.float32), XI], ids=["f64", "f32", "i64"])
def test_numpy_inputs_of_any_dtype_match_jax(x64, name, data):
    f = PROGRAMS[name]
    if data.dtype.kind == "i" and name.startswith(("sin", "exp", "floor")):
        data = data[:2]  # (int64 data: the float programs take the small values)
    if data.dtype.kind == "i" and name == "lax.exp(x)":
        return  # (lax refuses integers, JAX's and mj's alike)
    # JAX's jit: its eager ``jnp.reshape`` of a NumPy array returns NumPy's own reshape (float64
    # without x64), a quirk mj does not copy; every other program agrees with JAX's eager too
    want = jax.jit(lambda x: f(jnp, jax.lax, x))(data)
    if name != "reshape":
        _check(f(jnp, jax.lax, data), want)
    _check(f(mnp, mlax, data), want)  # eager
    _check(mj.jit(lambda x: f(mnp, mlax, x))(data), want)
    closed = mj.make_jaxpr(lambda x: f(mnp, mlax, x))(data)
    _check(eval_jaxpr(closed, [data])[0], want)


def test_exact_zero_at_the_maximum_of_float64_data(x64):
    """The issue's headline case, spelled out: the maximum minus itself is exactly 0."""
    got = mnp.subtract(X, mnp.max(X))
    assert float(got[2]) == 0.0
    assert bool(mnp.equal(X, mnp.max(X))[2])
    assert bool(jnp.equal(X, jnp.max(X))[2])


@pytest.mark.parametrize("fun", ["max", "min"])
def test_grad_of_max_of_float64_data_is_one_hot(x64, fun):
    want = jax.grad(getattr(jnp, fun))(X)
    got = mj.grad(getattr(mnp, fun))(X)
    _check(got, want)
    np.testing.assert_array_equal(np.asarray(got), [0, 0, 1] if fun == "max" else [1, 0, 0])
    _check(mj.jit(mj.grad(getattr(mnp, fun)))(X), want)


def test_eager_pure_callback_receives_and_returns_canonical_dtypes(x64):
    """The callback sees the canonical dtype (float32 without x64) and may return it."""
    seen = {}

    def cb(np_):
        def callback(v):
            seen[np_.__name__] = np.asarray(v).dtype
            return np.asarray(v) * 2

        return callback

    dt = np.float64 if x64 else np.float32
    want = jax.pure_callback(cb(jnp), jax.ShapeDtypeStruct((3,), dt), X)
    got = mj.pure_callback(cb(mnp), mj.ShapeDtypeStruct((3,), dt), X)
    _check(got, want)
    assert seen[mnp.__name__] == seen[jnp.__name__] == np.dtype(dt)
    got_jit = mj.jit(lambda x: mj.pure_callback(cb(mnp), mj.ShapeDtypeStruct((3,), dt), x))(X)
    _check(got_jit, want)


METHODS = ["sum", "prod", "any", "all", "mean", "var", "std", "max", "min"]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize(
    "data", [np.array([1.0, 2.0, 3.0]), np.array([[1.0, 0.0], [4.0, 3.0]])], ids=["1d", "2d"]
)
def test_array_methods_take_where_none(x64, method, data):
    """``x.sum(where=None)`` means no mask, as ``jnp.sum(x, where=None)`` (it once summed
    nothing)."""
    want = getattr(jnp.asarray(data), method)(where=None)
    _check(getattr(mnp.asarray(data), method)(where=None), want)
    _check(getattr(mnp, method)(mnp.asarray(data), where=None), want)
    _check(mj.jit(lambda x: getattr(x, method)(where=None))(data), want)
    _check(
        mj.jit(lambda x: getattr(x, method)(axis=0, where=None))(data),
        want if data.ndim == 1 else getattr(jnp.asarray(data), method)(axis=0, where=None),
    )


@pytest.mark.parametrize(
    "args",
    [
        ("int32", "float32"),
        ("int8", "uint8"),
        ("float16", "bfloat16"),
        ("int32", np.float16),
        ("float32", 1.0),
        ("int64", "int8"),
        ("complex64", "float64"),
        ("bool",),
        ("float64",),
        (np.int32, float),
        (float,),
        (int,),
        (np.int8, int),
        ("bfloat16", float),
        (complex, "float32"),
        (bool,),
        (np.zeros(2, np.int8), float),
        (np.zeros(2, np.float64), "float16"),
    ],
)
def test_result_type_accepts_dtype_names(x64, args):
    want = jnp.result_type(*args)
    assert mnp.result_type(*args) == want
    if not isinstance(args[0], np.ndarray) and not isinstance(args[-1], float):  # (dtypes only)
        assert mnp.promote_types(args[0], args[-1]) == jnp.promote_types(args[0], args[-1])


_RNG = np.random.RandomState(0)
M = _RNG.randn(4, 4) + 0.1
V = np.array([0.1, 1.7, 2.3, 1.7, 0.30000000000000004])

# mj.numpy functions written with NumPy on the host, or with early returns, fed float64 data
SWEEP = {
    "unique": lambda np_: np_.unique(V),
    "sort": lambda np_: np_.sort(V),
    "argsort": lambda np_: np_.argsort(V),
    "searchsorted": lambda np_: np_.searchsorted(np_.sort(V), V),
    "median": lambda np_: np_.median(V),
    "percentile": lambda np_: np_.percentile(V, 30.0),
    "interp": lambda np_: np_.interp(V, np_.sort(V), V),
    "diff": lambda np_: np_.diff(V),
    "convolve": lambda np_: np_.convolve(V, V),
    "fft": lambda np_: np_.fft.fft(V),
    "inv": lambda np_: np_.linalg.inv(M),
    "solve": lambda np_: np_.linalg.solve(M, V[:4]),
    "eigvalsh": lambda np_: np_.linalg.eigvalsh(M + M.T),
    "histogram": lambda np_: np_.histogram(V, 3)[0],
    "polyval": lambda np_: np_.polyval(V, V),
    "einsum": lambda np_: np_.einsum("ij,j->i", M, V[:4]),
    "matmul": lambda np_: M @ np_.asarray(M),
    "isclose": lambda np_: np_.isclose(V, 0.3),
    "round": lambda np_: np_.round(V, 1),
    "nanmax": lambda np_: np_.nanmax(V),
    "count_nonzero": lambda np_: np_.count_nonzero(V - 1.7),
    "nonzero": lambda np_: np_.nonzero(V - 1.7)[0],
    "isin": lambda np_: np_.isin(V, np.array([1.7])),
    "equal(v, py float)": lambda np_: np_.equal(V, 0.30000000000000004),
    "subtract(v, f64 scalar)": lambda np_: np_.subtract(V, np.float64(1.7)),
    "subtract(f64 scalar, max)": lambda np_: np_.subtract(np.float64(1.7), np_.max(V)),
}


@pytest.mark.parametrize("name", sorted(SWEEP))
def test_functions_on_float64_host_data_match_jax(x64, name):
    _check(SWEEP[name](mnp), SWEEP[name](jnp), rtol=1e-5)  # (float32 linear algebra)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (np.array([1 + 2j, 3 - 1j]), np.array([2 - 1j, 1 + 1j])),
        (np.array([[1 + 2j, 0.5j], [3 - 1j, 2]]), np.array([[2 - 1j, 1], [1 + 1j, -1j]])),
        (np.array([1 + 2j, 3 - 1j]), np.array([2.0, 1.0])),
        (np.array([1.0, 3.0]), np.array([2 - 1j, 1 + 1j])),
        (np.array([1.0, 3.0]), np.array([2.0, 1.0])),
    ],
)
def test_vdot_conjugates_its_first_argument(x64, a, b):
    """issue 35: ``vdot`` once computed ``dot`` (``8+5j`` where JAX gives ``2-1j``)."""
    want = jnp.vdot(a, b)
    _check(mnp.vdot(a, b), want)
    _check(mj.jit(mnp.vdot)(a, b), want)
    _check(mj.grad(lambda x: mnp.vdot(x, x).real)(a), jax.grad(lambda x: jnp.vdot(x, x).real)(a))


@pytest.mark.parametrize("api", ["pure_callback", "io_callback"])
def test_callbacks_refuse_64_bit_result_types_without_x64(api):
    """issue 35: a float64 result type in 32-bit mode is refused, as JAX refuses it (mj
    narrowed it silently)."""
    jax_api = getattr(jax, api) if api == "pure_callback" else jax.experimental.io_callback
    mj_api = getattr(mj, api) if api == "pure_callback" else mj.experimental.io_callback
    with config.override("enable_x64", False):
        jax.config.update("jax_enable_x64", False)
        try:
            for run in (lambda f, x: f(x), lambda f, x: mj.jit(f)(x)):
                spec = mj.ShapeDtypeStruct((3,), np.float64)
                with pytest.raises(ValueError, match="cannot specify 64-bit types") as got:
                    run(lambda x, spec=spec: mj_api(lambda v: v * 2, spec, x), np.ones(3))
                with pytest.raises(ValueError, match="cannot specify 64-bit types"):
                    jax_api(lambda v: v * 2, jax.ShapeDtypeStruct((3,), np.float64), np.ones(3))
                assert api in str(got.value)
        finally:
            jax.config.update("jax_enable_x64", True)


@pytest.mark.parametrize(
    "primal",
    [X, XI, np.float64(2.5), np.array(7, np.int64)],
    ids=["float64 array", "int64 array", "float64 scalar", "int64 0-d"],
)
@pytest.mark.parametrize("fun", ["identity", "double"])
def test_vjp_primal_output_of_host_input_is_canonical(x64, primal, fun):
    """vjp computes on the canonical input: an output that *is* the input comes back as JAX's
    canonical array (float32/int32 without x64), not the caller's 64-bit NumPy value."""
    f = {"identity": lambda x: x, "double": lambda x: x * 2}[fun]
    want, want_vjp = jax.vjp(f, primal)
    got, got_vjp = mj.vjp(f, primal)
    assert got.dtype == want.dtype
    assert got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    if np.issubdtype(want.dtype, np.floating):
        ct = np.ones(want.shape, want.dtype)
        (gw,), (gg,) = want_vjp(ct), got_vjp(ct)
        assert gg.dtype == gw.dtype
        np.testing.assert_allclose(np.asarray(gg), np.asarray(gw))


@pytest.mark.parametrize("data", [X, XI], ids=["float64", "int64"])
@pytest.mark.parametrize("out_axes", [0, 1])
def test_vmap_of_host_input_returns_the_canonical_mj_array(x64, data, out_axes):
    """vmap's inputs enter as canonical mj arrays: an output that is an input is JAX's
    canonical array (``jax.device_put``'s dtype and value), read-only like every mj array,
    never a writable host copy. (JAX itself hands the caller's NumPy object back for an
    identity output; mj's identity ops return the canonical array everywhere: DESIGN §2.)"""
    batch = np.stack([data, data], axis=1)
    want = jax.vmap(lambda x: x * 1, out_axes=out_axes)(batch)
    for f in (lambda x: x, lambda x: x * 1):
        got = mj.vmap(f, out_axes=out_axes)(batch)
        assert got.dtype == want.dtype == jax.device_put(batch).dtype
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
        assert not np.asarray(got).flags.writeable
