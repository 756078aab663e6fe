"""mj on a GPU gives the answers it gives on the CPU: jit, grad, vmap, control flow, linear
algebra, random numbers, host callbacks, and placement (committed arrays, copies to the
host). Every test runs the same computation once with its inputs committed to the GPU and
once committed to the CPU, and compares.

Marked ``gpu``; skipped where no GPU backend starts (CI). On a machine with an NVIDIA GPU:
``hatch run gpu:test`` (installs the CUDA plugin), or with the plugin already installed
``PYTHONPATH=$(ls -d packages/*/src | paste -sd:) python -m pytest -m gpu tests/test_gpu.py``.
"""

from functools import partial

import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj import lax


def _gpu():
    try:
        return mj.devices("gpu")[0]
    except RuntimeError:  # no GPU backend: JAX's "Unknown backend" error
        return None


GPU = _gpu()
pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(GPU is None, reason="no GPU backend (an NVIDIA GPU and mj-xla[cuda12])"),
]
CPU = mj.devices("cpu")[0]
RNG = np.random.default_rng(0)


def _on(device, f, *args):
    """``jit(f)`` on ``args`` committed to ``device``; the results as host arrays, after
    checking that each was computed there."""
    outs = mj.jit(f)(*mj.device_put(args, device))
    for leaf in mj.tree_util.tree_leaves(outs):
        assert leaf.device is device
    return mj.tree_util.tree_map(np.asarray, outs)


def _same(f, *args, rtol=1e-5, atol=1e-6):
    """GPU and CPU agree, float32 products at full precision: a GPU's default precision is
    TF32, as in JAX (compared with JAX's in tests/oracle/test_oracle_gpu.py)."""
    with mj.default_matmul_precision("highest"):
        gpu, cpu = _on(GPU, f, *args), _on(CPU, f, *args)
    for g, c in zip(mj.tree_util.tree_leaves(gpu), mj.tree_util.tree_leaves(cpu), strict=True):
        assert g.dtype == c.dtype
        np.testing.assert_allclose(g, c, rtol=rtol, atol=atol)


X = RNG.normal(size=(64, 32)).astype(np.float32)
W = RNG.normal(size=(32, 16)).astype(np.float32)


def test_the_gpu_is_the_default_backend():
    assert mj.default_backend() == "gpu"
    assert mj.devices()[0].platform == "gpu"
    x = mj.device_put(X)
    assert x.device.platform == "gpu"
    assert not x.committed


def test_jit_elementwise_and_matmul():
    _same(lambda x, w: mnp.tanh(x @ w) + mnp.exp(-(x[:, :16] ** 2)), X, W)


def test_grad_of_an_mlp_loss():
    def loss(w, x):
        return mnp.mean((mnp.tanh(x @ w) - 0.5) ** 2)

    _same(mj.grad(loss), W, X)
    _same(mj.value_and_grad(loss, argnums=(0, 1)), W, X)


def test_vmap():
    _same(mj.vmap(lambda row, w: mnp.sin(row @ w).sum(), in_axes=(0, None)), X, W)


def test_control_flow():
    def f(x):
        carry, ys = lax.scan(lambda c, r: (c + r, c * r), mnp.zeros(32, x.dtype), x)
        n = lax.while_loop(lambda s: s[0] < 10, lambda s: (s[0] + 1, s[1] * 0.9), (0, carry))
        branch = lax.cond(carry.sum() > 0, lambda v: v * 2.0, lambda v: -v, carry)
        total = lax.fori_loop(0, 5, lambda i, a: a + i * ys[i], mnp.zeros(32, x.dtype))
        return n[1], branch, total, ys

    _same(f, X)


SPD = (X.T @ X / 64 + np.eye(32)).astype(np.float32)


@pytest.mark.parametrize(
    "name",
    ["cholesky", "solve", "inv", "qr", "eigh", "slogdet", "lu", "solve_triangular"],
)
def test_linear_algebra(name):
    f = {
        "cholesky": mnp.linalg.cholesky,
        "solve": lambda a: mnp.linalg.solve(a, a[:, :3]),
        "inv": mnp.linalg.inv,
        "qr": lambda a: mnp.abs(mnp.linalg.qr(a)[1]),  # R up to the signs of its rows
        "eigh": lambda a: mnp.linalg.eigh(a)[0],
        "slogdet": mnp.linalg.slogdet,
        "lu": lambda a: lax.linalg.lu(a),
        "solve_triangular": lambda a: lax.linalg.triangular_solve(
            mnp.tril(a), a, left_side=True, lower=True
        ),
    }[name]
    _same(f, SPD, rtol=2e-4, atol=2e-4)


def test_svd():
    def f(a):
        u, s, vt = mnp.linalg.svd(a, full_matrices=False)
        return s, mnp.abs(u[:, :3]), (u * s) @ vt  # singular vectors up to sign

    _same(f, X[:40, :24], rtol=2e-4, atol=2e-4)


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_eig(dtype):
    """cuSOLVER's geev (the plugin's hybrid kernel with left eigenvectors): the CPU's
    eigenvalues, and eigenvectors that solve their equations."""
    a = (X[:6, :6] + (1j * X[6:12, :6] if dtype == np.complex64 else 0)).astype(dtype)
    for left in (False, True):
        w, *vs = _on(GPU, partial(lax.linalg.eig, compute_left_eigenvectors=left), a)
        w_cpu = _on(CPU, lambda x: mnp.linalg.eigvals(x), a)
        np.testing.assert_allclose(np.sort_complex(w), np.sort_complex(w_cpu), atol=1e-4)
        vr = vs[-1]
        np.testing.assert_allclose(a @ vr, vr * w, atol=1e-4)
        if left:
            vl = vs[0]
            np.testing.assert_allclose(vl.conj().T @ a, w[:, None] * vl.conj().T, atol=1e-4)


def test_schur_on_the_gpu_is_a_lowering_error_naming_primitive_and_platform():
    """As in JAX, the Schur decomposition lowers only for the CPU."""
    x = mj.device_put(SPD, GPU)
    with pytest.raises(
        mj.errors.MissingRuleError, match="'schur' has no XLA lowering rule for platform 'cuda'"
    ):
        mj.jit(lax.linalg.schur)(x)


def test_random_bits_are_the_same_on_both():
    key = mj.random.key(42)

    def draw(k):
        a, b = mj.random.split(k)
        return mj.random.normal(a, (1000,)), mj.random.uniform(b, (7, 3)), mj.random.bits(b, (5,))

    gpu = mj.jit(draw)(mj.device_put(key, GPU))
    cpu = mj.jit(draw)(mj.device_put(key, CPU))
    np.testing.assert_array_equal(np.asarray(gpu[2]), np.asarray(cpu[2]))
    np.testing.assert_allclose(np.asarray(gpu[0]), np.asarray(cpu[0]), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(gpu[1]), np.asarray(cpu[1]), rtol=1e-6)


def test_host_callbacks_run_on_the_gpu_path():
    seen = []

    def f(x):
        mj.debug.callback(lambda v: seen.append(np.asarray(v).copy()), x.sum())
        y = mj.pure_callback(lambda v: np.cos(v), mj.ShapeDtypeStruct(x.shape, x.dtype), x)
        return y * 2

    out = mj.jit(f)(mj.device_put(X, GPU))
    mj.block_until_ready(out)
    assert out.device is GPU
    np.testing.assert_allclose(np.asarray(out), np.cos(X) * 2, rtol=1e-6)
    np.testing.assert_allclose(seen[0], X.sum(), rtol=1e-5)


def test_placement_and_host_copies():
    g = mj.device_put(X, GPU)
    c = mj.device_put(X, CPU)
    assert g.committed
    assert c.committed
    assert g.device.platform == "gpu"
    assert c.device.platform == "cpu"
    host = np.asarray(g)  # a copy to the host
    assert isinstance(host, np.ndarray)
    np.testing.assert_array_equal(host, X)
    np.testing.assert_array_equal(mj.device_get({"g": g})["g"], X)
    back = mj.device_put(g, CPU)
    assert back.device is CPU
    np.testing.assert_array_equal(np.asarray(back), X)
    with pytest.raises(ValueError, match="Received incompatible devices for jitted computation"):
        mj.jit(lambda a, b: a + b)(g, c)
    # an uncommitted (default-device) array follows a committed CPU one
    out = mj.jit(lambda a, b: a + b)(mj.device_put(X), c)
    assert out.device is CPU
    np.testing.assert_allclose(np.asarray(out), 2 * X)
