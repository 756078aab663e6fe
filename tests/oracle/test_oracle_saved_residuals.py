"""``jax_softmax_custom_jvp`` and ``saved_residuals`` against JAX 0.10.2.

``mj.nn.softmax`` under both values of the option: the same values and derivatives as JAX's,
and reverse mode saves what JAX's saves (JAX's ``nn_test`` ``testSoftmaxGradFlag``: three
residuals of 6 elements in all when off, the output alone when on). ``saved_residuals``
lists the same residuals as JAX's (``jax._src.ad_checkpoint.saved_residuals``) for simple
functions, checkpoint policies, arguments, constants and inner jits: the same avals in the
same order, and JAX's descriptions without their source location (mj records none)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax._src.ad_checkpoint import saved_residuals as jax_saved_residuals
from jax.ad_checkpoint import checkpoint_name as jax_checkpoint_name

import mj
import mj.numpy as mnp
from mj.ad_checkpoint import checkpoint_name, saved_residuals

pytestmark = pytest.mark.oracle

X = np.array([5.5, 1.3, -4.2, 0.9])
M = np.array([[0.3, -1.2, 2.0], [0.7, 0.1, -0.4]])
WHERE = np.array([[True, False, True], [True, True, True]])


def _close(a, b, rtol=1e-6):
    for x, y in zip(jax.tree_util.tree_leaves(a), mj.tree_util.tree_leaves(b), strict=True):
        x, y = np.asarray(x), np.asarray(y)
        assert x.shape == y.shape
        assert x.dtype == y.dtype
        np.testing.assert_allclose(y, x, rtol=rtol, atol=1e-7)


def _avals(res):
    return [(tuple(a.shape), np.dtype(a.dtype), bool(a.weak_type)) for a, _ in res]


def _description(text):
    """JAX's description without its source location (`` from file:line (fn)``)."""
    if text.startswith(("output of", "named")):
        return text.rsplit(" from ", 1)[0]
    return text


def _same_residuals(jax_f, mj_f, *args, **kwargs):
    want = jax_saved_residuals(jax_f, *args, **kwargs)
    got = saved_residuals(mj_f, *args, **kwargs)
    assert _avals(got) == _avals(want)
    assert [d for _, d in got] == [_description(d) for _, d in want]
    return got


@pytest.fixture(params=[False, True], ids=["ops", "custom_jvp"])
def flag(request):
    with jax.softmax_custom_jvp(request.param), mj.softmax_custom_jvp(request.param):
        yield request.param


@pytest.mark.parametrize(
    "kwargs", [{}, {"axis": 0}, {"axis": None}, {"axis": (0, 1)}, {"where": WHERE}]
)
def test_softmax_values_and_derivatives(x64, flag, kwargs):
    w = np.linspace(-1.0, 1.0, M.size).reshape(M.shape)

    def loss(nn, np_):
        return lambda x: np_.sum(nn.softmax(x, **kwargs) * w)

    _close(jax.nn.softmax(M, **kwargs), mj.nn.softmax(M, **kwargs))
    _close(jax.grad(loss(jax.nn, jnp))(M), mj.grad(loss(mj.nn, mnp))(M))
    _close(jax.hessian(loss(jax.nn, jnp))(M), mj.hessian(loss(mj.nn, mnp))(M), rtol=1e-5)
    t = np.ones_like(M)
    _close(
        jax.jvp(lambda x: jax.nn.softmax(x, **kwargs), (M,), (t,)),
        mj.jvp(lambda x: mj.nn.softmax(x, **kwargs), (M,), (t,)),
    )


def test_softmax_jaxpr_follows_the_option(x64):
    """Off, the grad's jaxpr has no custom_jvp_call; on, the softmax is one."""
    grad = mj.grad(lambda x: mj.nn.softmax(x)[0])
    assert "custom_jvp_call" not in str(mj.make_jaxpr(grad)(X))
    with mj.softmax_custom_jvp(True):
        assert mj.softmax_custom_jvp.value is True
        assert mj.config.jax_softmax_custom_jvp is True
        assert "custom_jvp_call" in str(mj.make_jaxpr(grad)(X))
    assert mj.softmax_custom_jvp.value is False
    with mj.softmax_custom_jvp():  # JAX's bool option: no argument means True
        assert mj.config.softmax_custom_jvp is True


def test_softmax_saved_residuals(x64, flag):
    """JAX's testSoftmaxGradFlag, and the avals equal to JAX's."""
    for x in (X, M):
        want = jax_saved_residuals(jax.nn.softmax, x)
        got = saved_residuals(mj.nn.softmax, x)
        assert _avals(got) == _avals(want)
    res = saved_residuals(mj.nn.softmax, X)
    assert len(res) == (1 if flag else 3)
    assert sum(a.size for a, _ in res) == (4 if flag else 6)


def test_log_softmax_saved_residuals(x64, flag):
    want = jax_saved_residuals(jax.nn.log_softmax, M)
    assert _avals(saved_residuals(mj.nn.log_softmax, M)) == _avals(want)


def test_jit_keys_on_the_option(x64):
    """A jitted function traced with the option off is traced again with it on (it is part
    of jit's key), and the first trace is reused when the option is off again."""
    traces = []

    def f(x):
        traces.append(None)
        return mj.nn.softmax(x)

    jf = mj.jit(f)
    assert len(saved_residuals(jf, X)) == 3
    with mj.softmax_custom_jvp(True):
        assert len(saved_residuals(jf, X)) == 1
        np.testing.assert_allclose(jf(X), jax.nn.softmax(X), rtol=1e-6)
    assert len(traces) == 2  # one trace per value of the option
    assert len(saved_residuals(jf, X)) == 3
    jf(X)
    assert len(traces) == 2  # the trace with the option off came from the cache


def _sinsin(np_):
    return lambda x: np_.sin(np_.sin(x))


def _mlp(np_):
    def f(w1, w2, x):
        return np_.tanh(w2 @ np_.tanh(w1 @ x))

    return f


W1 = np.arange(12.0).reshape(4, 3) / 10 - 0.5
W2 = np.arange(8.0).reshape(2, 4) / 10 - 0.3
V = np.array([0.2, -0.1, 0.5])


def test_simple_functions(x64):
    _same_residuals(_sinsin(jnp), _sinsin(mnp), 2.0)
    _same_residuals(_sinsin(jnp), _sinsin(mnp), X)
    res = _same_residuals(_mlp(jnp), _mlp(mnp), W1, W2, V)
    assert [d for _, d in res[:3]] == [f"from the argument {n}" for n in ("w1", "w2", "x")]
    _same_residuals(lambda x, y: x * y, lambda x, y: x * y, 2.0, y=3.0)
    _same_residuals(lambda d: d["a"] * d["b"], lambda d: d["a"] * d["b"], {"a": 2.0, "b": 3.0})
    c = np.arange(3.0)
    _same_residuals(lambda x: x * jnp.asarray(c), lambda x: x * mnp.asarray(c), 2.0)
    assert saved_residuals(lambda x: x * 2.0, 2.0) == []


@pytest.mark.parametrize(
    "policy",
    ["everything", "nothing_saveable", "dots_saveable", "dots_with_no_batch_dims_saveable"],
)
def test_checkpoint_policies(x64, policy):
    jp = getattr(jax.checkpoint_policies, policy, None)
    mp = getattr(mj.checkpoint_policies, policy, None)
    _same_residuals(
        jax.checkpoint(_mlp(jnp), policy=jp), mj.checkpoint(_mlp(mnp), policy=mp), W1, W2, V
    )


def _named(np_, ckpt_name):
    def f(x):
        y = ckpt_name(np_.sin(x), "y")
        z = ckpt_name(np_.cos(y), "z")
        return np_.sin(z) * y

    return f


@pytest.mark.parametrize("names", [(), ("y",), ("z",), ("y", "z")])
def test_named_residuals(x64, names):
    jf = jax.checkpoint(
        _named(jnp, jax_checkpoint_name),
        policy=jax.checkpoint_policies.save_only_these_names(*names),
    )
    mf = mj.checkpoint(
        _named(mnp, checkpoint_name), policy=mj.checkpoint_policies.save_only_these_names(*names)
    )
    res = _same_residuals(jf, mf, 0.3)
    assert sorted(d for _, d in res if d.startswith("named")) == [f"named '{n}'" for n in names]


def test_inner_jit_residuals(x64):
    """The outputs of an inner jit are named by the jitted function, as JAX's."""

    def g(np_, jit):
        return lambda x: jit(np_.sin)(x) * x

    res = _same_residuals(g(jnp, jax.jit), g(mnp, mj.jit), 2.0)
    assert "output of jitted function 'sin'" in [d for _, d in res]


def test_print_saved_residuals(x64, capsys):
    mj.ad_checkpoint.print_saved_residuals(_sinsin(mnp), np.float32(2.0))
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["f32[] output of cos", "f32[] output of cos"]


def _utility(np_, ckpt_name):
    def f(x, y):
        x1, x2 = x
        z = ckpt_name(np_.sin(3.0), "z")
        return z * ((x1 * x2) * y) * np.array([3.0])

    return f


@pytest.mark.parametrize("jitted", [False, True], ids=["eager", "jit"])
def test_arguments_and_constants_of_a_jit_are_forwarded(x64, jitted):
    """JAX's api_test test_saved_residuals_utility(_jit): residuals that are a jitted
    function's arguments or constants are reported as such, not as its outputs."""
    jf, mf = _utility(jnp, jax_checkpoint_name), _utility(mnp, checkpoint_name)
    if jitted:
        jf, mf = jax.jit(jf), mj.jit(mf)
    res = _same_residuals(jf, mf, (2.0, 3.0), y=4.0)
    assert [d for _, d in res[:4]] == [
        "from a constant",
        "from the argument x[0]",
        "from the argument x[1]",
        "from the argument y",
    ]
