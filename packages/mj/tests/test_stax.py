"""mj.example_libraries.stax: shapes, values against NumPy closed forms, the key-splitting
order, gradients against finite differences, and jit == eager."""

import math

import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj.example_libraries import stax

RNG = np.random.default_rng(0)
KEY = mj.random.PRNGKey(0)


def close(a, b, tol=1e-6):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


# --- NumPy references -----------------------------------------------------------------------


def np_conv_nhwc(x, w, strides, pads):
    """Cross-correlation, NHWC input and HWIO kernel, explicit (lo, hi) pads."""
    x = np.pad(x, [(0, 0), *pads, (0, 0)])
    kh, kw, _, out_c = w.shape
    sh, sw = strides
    oh = (x.shape[1] - kh) // sh + 1
    ow = (x.shape[2] - kw) // sw + 1
    out = np.zeros((x.shape[0], oh, ow, out_c))
    for i in range(oh):
        for j in range(ow):
            patch = x[:, i * sh : i * sh + kh, j * sw : j * sw + kw, :]
            out[:, i, j, :] = np.einsum("nhwc,hwco->no", patch, w)
    return out


def np_conv_transpose_valid_1d(x, w, stride):
    """lax.conv_transpose(x, w, (stride,), 'VALID') for NHC/HIO: each input element scatters
    the flipped kernel, into an output of length n * stride + max(k - stride, 0)."""
    n, length, _ = x.shape
    k = w.shape[0]
    out = np.zeros((n, length * stride + max(k - stride, 0), w.shape[2]))
    for j in range(length):
        for u in range(k):
            out[:, j * stride + u, :] += x[:, j, :] @ w[k - 1 - u]
    return out


def np_pool(x, window, strides, pads, reduce, init):
    """A windowed reduction over the spatial axes (1, 2) of an NHWC array."""
    x = np.pad(x, [(0, 0), *pads, (0, 0)], constant_values=init)
    (wh, ww), (sh, sw) = window, strides
    oh = (x.shape[1] - wh) // sh + 1
    ow = (x.shape[2] - ww) // sw + 1
    out = np.empty((x.shape[0], oh, ow, x.shape[3]))
    for i in range(oh):
        for j in range(ow):
            out[:, i, j, :] = reduce(x[:, i * sh : i * sh + wh, j * sw : j * sw + ww, :], (1, 2))
    return out


def same_pads(size, window, stride):
    out = -(-size // stride)
    total = max((out - 1) * stride + window - size, 0)
    return total // 2, total - total // 2


# --- shapes ---------------------------------------------------------------------------------

LAYERS = {
    "Dense": (stax.Dense(7), (3, 5)),
    "Conv": (stax.Conv(4, (3, 2), strides=(2, 1), padding="SAME"), (2, 9, 8, 3)),
    "Conv_explicit": (stax.Conv(2, (2, 2), padding=((1, 0), (2, 1))), (2, 5, 6, 3)),
    "GeneralConv": (stax.GeneralConv(("NCHW", "OIHW", "NHWC"), 3, (2, 3)), (2, 4, 6, 5)),
    "ConvTranspose_same": (stax.ConvTranspose(3, (3, 3), (2, 2), padding="SAME"), (2, 5, 4, 2)),
    "ConvTranspose_valid": (stax.ConvTranspose(3, (2, 3), (2, 1)), (2, 5, 4, 2)),
    "Conv1DTranspose": (stax.Conv1DTranspose(2, (3,), (2,)), (2, 5, 3)),
    "BatchNorm": (stax.BatchNorm(), (4, 3, 3, 2)),
    "MaxPool": (stax.MaxPool((2, 2), strides=(2, 2)), (2, 7, 6, 3)),
    "AvgPool_same": (stax.AvgPool((3, 2), padding="SAME"), (2, 7, 6, 3)),
    "SumPool_nchw": (stax.SumPool((2, 3), spec="NCHW"), (2, 3, 7, 6)),
    "Flatten": (stax.Flatten, (2, 3, 4, 5)),
    "Identity": (stax.Identity, (2, 3)),
    "Relu": (stax.Relu, (2, 3)),
    "serial": (stax.serial(stax.Dense(4), stax.Tanh, stax.Dense(2)), (5, 3)),
}


@pytest.mark.parametrize("name", LAYERS)
def test_init_shape_is_apply_shape(name):
    (init_fun, apply_fun), shape = LAYERS[name]
    out_shape, params = init_fun(KEY, shape)
    x = RNG.normal(size=shape)
    assert tuple(out_shape) == apply_fun(params, x).shape
    # a -1 batch dimension is carried through shape arithmetic without arrays
    out_any, _ = init_fun(KEY, (-1, *shape[1:]))
    assert tuple(out_any[1:]) == tuple(out_shape[1:])


def test_param_shapes_and_initializers():
    _, (w, b) = stax.Dense(300)[0](KEY, (8, 200))
    assert w.shape == (200, 300)
    assert b.shape == (300,)
    assert abs(np.std(np.asarray(w)) - math.sqrt(2 / 500)) < 0.05 * math.sqrt(2 / 500)
    assert abs(np.std(np.asarray(b)) - 1e-2) < 2e-3  # normal() is std 1e-2
    _, (w, b) = stax.Conv(64, (3, 3))[0](KEY, (1, 8, 8, 32))
    assert w.shape == (3, 3, 32, 64)
    assert b.shape == (1, 1, 1, 64)
    fan_in, fan_out = 3 * 3 * 32, 3 * 3 * 64
    expected = math.sqrt(2 / (fan_in + fan_out))
    assert abs(np.std(np.asarray(w)) - expected) < 0.05 * expected
    assert np.max(np.abs(np.asarray(b))) < 1e-5  # normal(1e-6)
    _, (w, b) = stax.GeneralConv(("NCHW", "OIHW", "NCHW"), 5, (2, 3))[0](KEY, (1, 4, 8, 8))
    assert w.shape == (5, 4, 2, 3)
    assert b.shape == (1, 5, 1, 1)
    _, (beta, gamma) = stax.BatchNorm(axis=(0, 2))[0](KEY, (4, 3, 5))
    close(beta, np.zeros(3))
    close(gamma, np.ones(3))
    _, params = stax.BatchNorm(center=False, scale=False)[0](KEY, (4, 3, 3, 2))
    assert params == ((), ())


def test_rng_splitting_order():
    """serial gives layer k the second half of the k-th split of the carried key; Dense
    splits its key into (W, b) keys; parallel splits its key once into one per layer."""
    init_fun, _ = stax.serial(stax.Dense(3), stax.Relu, stax.Dense(2))
    _, params = init_fun(KEY, (4, 5))
    rng, k0 = mj.random.split(KEY)
    rng, _ = mj.random.split(rng)  # Relu's key
    _, k2 = mj.random.split(rng)
    w_key, b_key = mj.random.split(k0)
    close(params[0][0], stax.glorot_normal()(w_key, (5, 3)))
    close(params[0][1], stax.normal()(b_key, (3,)))
    assert params[1] == ()
    close(params[2][0], stax.Dense(2)[0](k2, (4, 3))[1][0])
    init_fun, _ = stax.parallel(stax.Dense(3), stax.Dense(4))
    shapes, params = init_fun(KEY, [(2, 5), (2, 6)])
    assert [tuple(s) for s in shapes] == [(2, 3), (2, 4)]
    keys = mj.random.split(KEY, 2)
    close(params[1][0], stax.Dense(4)[0](keys[1], (2, 6))[1][0])


# --- values ---------------------------------------------------------------------------------


def test_dense_and_conv_values():
    x = RNG.normal(size=(3, 5))
    _, (w, b) = stax.Dense(4)[0](KEY, x.shape)
    close(stax.Dense(4)[1]((w, b), x), x @ np.asarray(w) + np.asarray(b))
    x = RNG.normal(size=(2, 7, 6, 3))
    init_fun, apply_fun = stax.Conv(4, (3, 2), strides=(2, 1), padding="SAME")
    _, (w, b) = init_fun(KEY, x.shape)
    pads = [same_pads(7, 3, 2), same_pads(6, 2, 1)]
    expected = np_conv_nhwc(x, np.asarray(w), (2, 1), pads) + np.asarray(b)
    close(apply_fun((w, b), x), expected)
    init_fun, apply_fun = stax.Conv(2, (2, 2), padding=((1, 0), (2, 1)))
    _, (w, b) = init_fun(KEY, x.shape)
    expected = np_conv_nhwc(x, np.asarray(w), (1, 1), [(1, 0), (2, 1)]) + np.asarray(b)
    close(apply_fun((w, b), x), expected)


def test_general_conv_matches_nhwc_conv_after_transposes():
    x = RNG.normal(size=(2, 6, 5, 3))  # NHWC
    init_fun, apply_fun = stax.GeneralConv(("NCHW", "OIHW", "NCHW"), 4, (3, 2))
    out_shape, (w, b) = init_fun(KEY, (2, 3, 6, 5))
    assert tuple(out_shape) == (2, 4, 4, 4)
    out = apply_fun((w, b), np.transpose(x, (0, 3, 1, 2)))
    w_hwio = np.transpose(np.asarray(w), (2, 3, 1, 0))
    expected = np_conv_nhwc(x, w_hwio, (1, 1), [(0, 0), (0, 0)])
    close(np.transpose(np.asarray(out), (0, 2, 3, 1)), expected + np.asarray(b).reshape(1, 1, 1, 4))


def test_conv_transpose_values():
    x = RNG.normal(size=(2, 5, 3))
    for stride, k in [(2, 3), (1, 3), (3, 2)]:
        init_fun, apply_fun = stax.Conv1DTranspose(2, (k,), (stride,))
        out_shape, (w, b) = init_fun(KEY, x.shape)
        expected = np_conv_transpose_valid_1d(x, np.asarray(w), stride) + np.asarray(b)
        assert tuple(out_shape) == expected.shape
        close(apply_fun((w, b), x), expected)


def test_conv_transpose_same_is_a_window_of_valid():
    """With SAME padding the output has length n * stride and is the VALID output shifted by
    k - 1 - pad_before (pad_before = k - 1 when stride > k - 1, else ceil((k + s - 2) / 2))."""
    x = RNG.normal(size=(2, 5, 3))
    for stride, k in [(2, 3), (1, 3), (3, 2), (2, 4)]:
        _, (w, b) = stax.Conv1DTranspose(2, (k,), (stride,))[0](KEY, x.shape)
        valid = np_conv_transpose_valid_1d(x, np.asarray(w), stride)
        pad_a = k - 1 if stride > k - 1 else math.ceil((k + stride - 2) / 2)
        shift = k - 1 - pad_a
        valid = np.pad(valid, [(0, 0), (0, 5 * stride), (0, 0)])
        expected = valid[:, shift : shift + 5 * stride] + np.asarray(b)
        apply_fun = stax.Conv1DTranspose(2, (k,), (stride,), padding="SAME")[1]
        close(apply_fun((w, b), x), expected)


def test_batch_norm_values():
    x = RNG.normal(size=(4, 3, 5, 2)) * 3 + 1
    init_fun, apply_fun = stax.BatchNorm(
        axis=(0, 1, 2), beta_init=stax.randn(), gamma_init=stax.randn()
    )
    _, (beta, gamma) = init_fun(KEY, x.shape)
    mean = x.mean(axis=(0, 1, 2))
    var = x.var(axis=(0, 1, 2))
    z = (x - mean) / np.sqrt(var + 1e-5)
    close(apply_fun((beta, gamma), x), np.asarray(gamma) * z + np.asarray(beta), 1e-5)
    init_fun, apply_fun = stax.BatchNorm(axis=1, center=False, scale=False)
    _, params = init_fun(KEY, x.shape)
    mean = x.mean(axis=1, keepdims=True)
    z = (x - mean) / np.sqrt(x.var(axis=1, keepdims=True) + 1e-5)
    close(apply_fun(params, x), z, 1e-5)
    init_fun, apply_fun = stax.BatchNorm(
        axis=(0,), center=True, scale=False, beta_init=stax.randn()
    )
    _, (beta, gamma) = init_fun(KEY, x.shape)
    assert beta.shape == (3, 5, 2)
    assert gamma == ()
    z = (x - x.mean(axis=0)) / np.sqrt(x.var(axis=0) + 1e-5)
    close(apply_fun((beta, gamma), x), z + np.asarray(beta), 1e-5)


def np_softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


ERF = np.vectorize(math.erf)
ELEMENTWISE = [
    (stax.Tanh, np.tanh),
    (stax.Relu, lambda x: np.maximum(x, 0)),
    (stax.Exp, np.exp),
    (stax.LogSoftmax, lambda x: np.log(np_softmax(x))),
    (stax.Softmax, np_softmax),
    (stax.Softplus, lambda x: np.log1p(np.exp(x))),
    (stax.Sigmoid, lambda x: 1 / (1 + np.exp(-x))),
    (stax.Elu, lambda x: np.where(x > 0, x, np.expm1(x))),
    (stax.LeakyRelu, lambda x: np.where(x >= 0, x, 0.01 * x)),
    (
        stax.Selu,
        lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)),
    ),
    (stax.Gelu, lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))),
]


@pytest.mark.parametrize(("layer", "ref"), ELEMENTWISE, ids=lambda v: getattr(v, "__name__", ""))
def test_elementwise_layers(layer, ref):
    x = RNG.normal(size=(3, 4)) * 2
    out_shape, params = layer[0](KEY, x.shape)
    assert out_shape == x.shape
    assert params == ()
    close(layer[1](params, x), ref(x), 1e-6)


def test_elementwise_with_kwargs():
    x = RNG.normal(size=(3, 4))
    _, apply_fun = stax.elementwise(mj.nn.leaky_relu, negative_slope=0.2)
    close(apply_fun((), x), np.where(x >= 0, x, 0.2 * x))


def test_pooling_values():
    x = RNG.normal(size=(2, 7, 6, 3))
    out = stax.MaxPool((2, 2), strides=(2, 2))[1]((), x)
    close(out, np_pool(x, (2, 2), (2, 2), [(0, 0), (0, 0)], np.max, -np.inf))
    out = stax.SumPool((3, 2), strides=(2, 1), padding="SAME")[1]((), x)
    pads = [same_pads(7, 3, 2), same_pads(6, 2, 1)]
    close(out, np_pool(x, (3, 2), (2, 1), pads, np.sum, 0.0))
    # AvgPool divides by the number of real (unpadded) elements in each window
    out = stax.AvgPool((3, 2), strides=(2, 1), padding="SAME")[1]((), x)
    counts = np_pool(np.ones_like(x), (3, 2), (2, 1), pads, np.sum, 0.0)
    close(out, np_pool(x, (3, 2), (2, 1), pads, np.sum, 0.0) / counts)
    out = stax.MaxPool((3, 2), spec="NCHW")[1]((), np.transpose(x, (0, 3, 1, 2)))
    expected = np_pool(x, (3, 2), (1, 1), [(0, 0), (0, 0)], np.max, -np.inf)
    close(np.transpose(np.asarray(out), (0, 2, 3, 1)), expected)
    out = stax.AvgPool((2, 2), spec="NCHW", padding="SAME")[1]((), np.transpose(x, (0, 3, 1, 2)))
    pads = [same_pads(7, 2, 1), same_pads(6, 2, 1)]
    counts = np_pool(np.ones_like(x), (2, 2), (1, 1), pads, np.sum, 0.0)
    expected = np_pool(x, (2, 2), (1, 1), pads, np.sum, 0.0) / counts
    close(np.transpose(np.asarray(out), (0, 2, 3, 1)), expected)


def test_structural_layers_and_combinators():
    x = RNG.normal(size=(2, 3, 4))
    close(stax.Flatten[1]((), x), x.reshape(2, 12))
    assert stax.Identity[1]((), x) is x
    init_fun, apply_fun = stax.FanOut(3)
    assert init_fun(KEY, (2, 3))[0] == [(2, 3)] * 3
    assert apply_fun((), x) == [x, x, x]
    assert stax.FanInSum[0](KEY, [(2, 3), (2, 3)])[0] == (2, 3)
    close(stax.FanInSum[1]((), [x, 2 * x]), 3 * x)
    init_fun, apply_fun = stax.FanInConcat(axis=1)
    assert init_fun(KEY, [(2, 3, 4), (2, 5, 4)])[0] == (2, 8, 4)
    y = RNG.normal(size=(2, 5, 4))
    close(apply_fun((), [x, y]), np.concatenate([x, y], axis=1))
    assert stax.FanInConcat()[0](KEY, [(2, 3, 4), (2, 3, 1)])[0] == (2, 3, 5)
    # a residual block: FanOut -> parallel(branch, Identity) -> FanInSum
    block = stax.serial(stax.FanOut(2), stax.parallel(stax.Dense(4), stax.Identity), stax.FanInSum)
    out_shape, params = block[0](KEY, (3, 4))
    assert out_shape == (3, 4)
    z = RNG.normal(size=(3, 4))
    w, b = params[1][0]
    close(block[1](params, z), z @ np.asarray(w) + np.asarray(b) + z)


def test_shape_dependent():
    def make_layer(input_shape):
        return stax.Dense(input_shape[-1] * 2)

    init_fun, apply_fun = stax.shape_dependent(make_layer)
    out_shape, (w, b) = init_fun(KEY, (3, 4))
    assert out_shape == (3, 8)
    x = RNG.normal(size=(3, 4))
    close(apply_fun((w, b), x), x @ np.asarray(w) + np.asarray(b))


def test_dropout():
    init_fun, apply_fun = stax.Dropout(0.75)
    assert init_fun(KEY, (100, 100)) == ((100, 100), ())
    x = RNG.normal(size=(200, 100)) + 5
    out = np.asarray(apply_fun((), x, rng=mj.random.PRNGKey(3)))
    kept = out != 0
    assert abs(kept.mean() - 0.75) < 0.02  # JAX's Dropout rate is the keep probability
    close(out[kept], (x / 0.75)[kept])
    with pytest.raises(ValueError, match="requires apply_fun to be called with a PRNG key"):
        apply_fun((), x)
    assert stax.Dropout(0.5, mode="test")[1]((), x, rng=KEY) is x
    # serial hands each layer its own key: two Dropouts drop different elements
    _, apply_fun = stax.serial(stax.Dropout(0.5), stax.Dropout(0.5))
    out = np.asarray(apply_fun([(), ()], np.ones((100, 100)), rng=mj.random.PRNGKey(1)))
    assert abs((out != 0).mean() - 0.25) < 0.02


# --- transformations ------------------------------------------------------------------------


def _net():
    return stax.serial(
        stax.Conv(3, (3, 3), padding="SAME"),
        stax.BatchNorm(),
        stax.Relu,
        stax.AvgPool((2, 2), strides=(2, 2)),
        stax.Flatten,
        stax.Dense(4),
        stax.LogSoftmax,
    )


def test_grad_matches_finite_differences():
    # a smooth network (Gelu, not Relu): a finite difference across a kink would be wrong
    init_fun, apply_fun = stax.serial(
        stax.Conv(3, (3, 3), padding="SAME"),
        stax.BatchNorm(),
        stax.Gelu,
        stax.AvgPool((2, 2), strides=(2, 2)),
        stax.Flatten,
        stax.Dense(4),
        stax.LogSoftmax,
    )
    _, params = init_fun(KEY, (2, 6, 6, 2))
    rng = np.random.default_rng(5)  # its own generator: the result must not depend on order
    x = rng.normal(size=(2, 6, 6, 2))
    labels = np.eye(4)[[1, 3]]

    def loss(params):
        return -mnp.sum(apply_fun(params, x) * labels)

    grads = mj.grad(loss)(params)
    leaves, tree = mj.tree_util.tree_flatten(params)
    directions = [rng.normal(size=np.shape(leaf)) for leaf in leaves]
    eps = 1e-4

    def shifted(sign):
        moved = [np.asarray(p) + sign * eps * d for p, d in zip(leaves, directions, strict=True)]
        return float(loss(mj.tree_util.tree_unflatten(tree, moved)))

    numeric = (shifted(1) - shifted(-1)) / (2 * eps)
    analytic = sum(
        float(np.sum(np.asarray(g) * d))
        for g, d in zip(mj.tree_util.tree_leaves(grads), directions, strict=True)
    )
    assert analytic == pytest.approx(numeric, rel=1e-4, abs=1e-6)


def test_jit_equals_eager():
    init_fun, apply_fun = stax.serial(_net(), stax.Dropout(0.9))
    _, params = init_fun(KEY, (2, 6, 6, 2))
    x = RNG.normal(size=(2, 6, 6, 2))
    rng = mj.random.PRNGKey(9)
    eager = apply_fun(params, x, rng=rng)
    jitted = mj.jit(lambda p, x, r: apply_fun(p, x, rng=r))(params, x, rng)
    close(jitted, eager, 1e-10)
    init_jit = mj.jit(lambda k: init_fun(k, (2, 6, 6, 2))[1])
    for a, b in zip(
        mj.tree_util.tree_leaves(init_jit(KEY)), mj.tree_util.tree_leaves(params), strict=True
    ):
        close(a, b, 1e-12)


def test_vmap_of_apply():
    init_fun, apply_fun = stax.serial(stax.Dense(3), stax.Tanh)
    _, params = init_fun(KEY, (5,))
    xs = RNG.normal(size=(4, 5))
    batched = mj.vmap(apply_fun, in_axes=(None, 0))(params, xs)
    close(batched, np.stack([np.asarray(apply_fun(params, x)) for x in xs]))


def test_experimental_alias_is_the_same_module_content():
    from mj.experimental import stax as old_stax

    assert old_stax.Dense is stax.Dense
    assert old_stax.serial is stax.serial
    assert set(old_stax.__all__) == set(stax.__all__)
    assert stax.glorot is stax.glorot_normal
    assert stax.randn is stax.normal
    assert stax.logsoftmax is stax.log_softmax
